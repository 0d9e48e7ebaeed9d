"""The `bergen` click group: every command added, and what every command shares at the end,
one line and an exit status for each way a command can end.

Exit status: 0 done; 2 bad input or usage (one line on stderr); 130 Ctrl-C (one line); 143
SIGTERM and 129 SIGHUP, each heard as Ctrl-C is (the same line, the same work kept); 74 a
file that could not be written (`errors.WriteFailed`); 1 an internal failure.
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
from . import eval as eval_command


#: The stop signals heard as Ctrl-C, and the first of them that came (its exit status is
#: 128 + its number, as a shell reports a process it ended: 143 SIGTERM, 129 SIGHUP).
_STOP_SIGNALS = ("SIGTERM", "SIGHUP")
_stopped_by: list = []


def _stop_signal(signum, frame):
    _stopped_by.append(signum)
    raise KeyboardInterrupt


def _hear_stop_signals() -> None:
    """SIGTERM and SIGHUP raise KeyboardInterrupt in the main thread, as Ctrl-C does, so that
    every command stops the same way (its line, its journal kept)."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return
    for name in _STOP_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _stop_signal)


def _interrupted_status(status):
    """130 (Ctrl-C) as 128 + the signal that stopped the run, when SIGTERM or SIGHUP did."""
    return 128 + _stopped_by[0] if status == 130 and _stopped_by else status


class _CtrlC(Exception):
    """A KeyboardInterrupt carried past click's own handler (which prints a blank line)."""


#: The last lines of every command's --help: where its reference lives.
DOCS_EPILOG = ("Every option: docs/COMMANDS.md (bergen {name}); the documents it reads and "
               "writes, field by field: docs/FORMATS.md.")


class BergenGroup(click.Group):
    """Turns bad input into one line on stderr and exit 2; Ctrl-C (or a search it cut
    before it found anything) into one line and exit 130; anything else into exit 1. Every
    command added gets DOCS_EPILOG."""

    def add_command(self, cmd, name=None):
        super().add_command(cmd, name)
        if cmd.epilog is None:
            cmd.epilog = DOCS_EPILOG.format(name=name or cmd.name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _CtrlC() from None

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
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except (click.Abort, _CtrlC, KeyboardInterrupt):
            click.echo("bergen: interrupted", err=True)
            sys.exit(_interrupted_status(130))
        except NothingFinished as e:    # Ctrl-C before a search found anything: no answer
            click.echo(f"bergen: {e}", err=True)
            sys.exit(_interrupted_status(130))
        except click.UsageError as e:
            ctx = e.ctx
            cmd = ctx.command_path if ctx else "bergen"
            click.echo(f"{cmd}: {e.format_message()} (see '{cmd} --help')", err=True)
            sys.exit(2)
        except BergenError as e:
            click.echo(f"bergen: {e}", err=True)
            sys.exit(e.exit_status)
        except BrokenPipeError:
            sys.exit(0)
        except Exception as e:  # an internal failure: say so in one line, trace on request
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
                arena.arena, analyze.analyze, play.play, eval_command.eval_, bench.bench,
                serve.serve):
    main.add_command(command)
