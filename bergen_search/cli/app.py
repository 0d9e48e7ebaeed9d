"""The `bergen` click group, and one line and an exit status for each way a command ends:
0 done; 2 bad input or usage; 130 Ctrl-C (143 SIGTERM, 129 SIGHUP); 74 a file or standard
output not written; 141, quietly, standard output closed by its reader; 1 an internal failure.
"""
from __future__ import annotations

import os
import sys
import warnings

import click

from .. import __version__
from ..errors import BergenError
from ..play.engines import EngineWarning
from ..search.evaluate import NothingFinished
from . import analyze, arena, bench, best, engine, play, replay, selfplay, serve, show


#: The stop signals heard as Ctrl-C, and the first of them that came (exit 128 + its number).
_STOP_SIGNALS = ("SIGTERM", "SIGHUP")
_stopped_by: list = []


def _stop_signal(signum, frame):
    _stopped_by.append(signum)
    raise KeyboardInterrupt


def _hear_stop_signals() -> None:
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return
    for name in _STOP_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _stop_signal)


def _interrupted_status(status):
    return 128 + _stopped_by[0] if status == 130 and _stopped_by else status


class _CtrlC(Exception):
    """A KeyboardInterrupt carried past click's own handler (which prints a blank line)."""


class _OutputBroken(Exception):
    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


def _stdout_broken(error: OSError) -> bool:
    """A closed pipe, or an error raised where the commands print (`click.echo`)."""
    import errno
    if error.errno == errno.EPIPE:
        return True
    tb = error.__traceback__
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    code = last.tb_frame.f_code if last is not None else None
    return code is not None and (
        code.co_name in ("echo", "flush") and (
            code.co_filename.endswith(os.path.join("click", "utils.py"))
            or code.co_filename == __file__)
        or code.co_name == "write" and code.co_filename.endswith(
            os.path.join("bergen_search", "entry.py")))       # started with it closed


def flush() -> None:
    """Standard output flushed (an error here is standard output failing)."""
    sys.stdout.flush()


def _quiet_stdout() -> None:
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return                  # not a real descriptor (a test's stream)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def _output_failed(error: OSError) -> int:
    import errno

    from ..errors import WriteFailed
    _quiet_stdout()
    if error.errno == errno.EPIPE:
        return 141
    click.echo(f"bergen: {WriteFailed('standard output', error, 'run the same command again')}",
               err=True)
    return 74


#: The last lines of every command's --help: where its reference lives.
DOCS_EPILOG = ("Every option: docs/COMMANDS.md (bergen {name}); the documents it reads and "
               "writes, field by field: docs/FORMATS.md.")


class BergenGroup(click.Group):
    """Every way a command ends as one line and an exit status; every command gets
    DOCS_EPILOG."""

    def add_command(self, cmd, name=None):
        super().add_command(cmd, name)
        if cmd.epilog is None:
            cmd.epilog = DOCS_EPILOG.format(name=name or cmd.name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _CtrlC() from None
        except OSError as e:
            if _stdout_broken(e):
                raise _OutputBroken(e) from None
            raise

    def main(self, args=None, prog_name=None, **extra):
        def one_line_warning(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, EngineWarning):
                click.echo(f"bergen: warning: {message}", err=True)
            else:
                previous(message, category, filename, lineno, file, line)

        previous = warnings.showwarning
        warnings.showwarning = one_line_warning
        _hear_stop_signals()
        try:
            rv = super().main(args=args, prog_name=prog_name or "bergen",
                              standalone_mode=False, **extra)
            flush()
        except _OutputBroken as e:
            sys.exit(_output_failed(e.error))
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except (click.Abort, _CtrlC, KeyboardInterrupt, NothingFinished) as e:
            said = e if isinstance(e, NothingFinished) else "interrupted"
            click.echo(f"bergen: {said}", err=True)
            sys.exit(_interrupted_status(130))
        except click.UsageError as e:
            if type(e).__name__ == "NoArgsIsHelpError":     # `bergen` alone: its help, as is
                click.echo(e.format_message(), err=True)
                sys.exit(2)
            ctx = e.ctx
            cmd = ctx.command_path if ctx else "bergen"
            if cmd == "bergen":     # an option's value missing: said before the command's
                sub = next((a for a in (sys.argv[1:] if args is None else args)   # context
                            if not a.startswith("-")), None)
                if sub in self.commands:
                    cmd = f"bergen {sub}"
            click.echo(f"{cmd}: {e.format_message()} (see '{cmd} --help')", err=True)
            sys.exit(2)
        except BergenError as e:
            click.echo(f"bergen: {e}", err=True)
            sys.exit(e.exit_status)
        except Exception as e:
            if isinstance(e, OSError) and _stdout_broken(e):
                sys.exit(_output_failed(e))
            if os.environ.get("BERGEN_DEBUG") == "1":
                raise
            click.echo(f"bergen: internal error: {type(e).__name__}: {e} "
                       f"(set BERGEN_DEBUG=1 for a traceback)", err=True)
            sys.exit(1)
        sys.exit(_interrupted_status(rv) if isinstance(rv, int) else 0)


@click.group(cls=BergenGroup)
@click.version_option(__version__, prog_name="bergen")
def main():
    """bergen: search, analysis and self-play for the domino game Bergen.

    The documentation is in docs/ (in the repository and the source distribution; a
    wheel installs it in <prefix>/share/doc/bergen-search): the
    rules and their variants docs/RULES.md, every command and option docs/COMMANDS.md,
    every JSON document and its fields docs/FORMATS.md, tiles, moves and position strings
    docs/NOTATION.md, the engine protocol docs/PROTOCOL.md.
    """


for command in (replay.replay, selfplay.selfplay, best.best, show.show, engine.engine,
                arena.arena, analyze.analyze, play.play, best.eval_, bench.bench,
                serve.serve):
    main.add_command(command)
