"""How the commands print and write: one JSON document, notes and progress on standard error,
and files written atomically."""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import sys
import threading
import time

import click

from .. import __version__
from ..runs.files import write_atomic  # noqa: F401  (the commands' way to write a file)
from ..runs.threads import QuietThread
from ..search import backend


def emit_json(obj) -> None:
    """One JSON document on standard output, with the version that wrote it."""
    if isinstance(obj, dict) and "version" not in obj:
        obj = {**obj, "version": __version__}
    click.echo(json.dumps(obj, separators=(",", ":")))


def search_note(specs=None) -> None:
    """A line on standard error when the searches run in pure Python (with `specs`: when one
    of those engines searches)."""
    if specs is not None and all(spec.simple_code is not None for spec in specs):
        return
    note = backend.SEARCH.note
    if note:
        click.echo(f"bergen: {note}", err=True)


def progress_bar(what: str, unit: str, quiet: bool):
    """A progress callback writing `what done/total unit` on stderr (a terminal only)."""
    show = not quiet and sys.stderr.isatty()

    def progress(done, total):
        if show:
            click.echo(f"\r{what} {done}/{total} {unit}", err=True, nl=False)
            if done == total:
                click.echo("", err=True)
    return progress


#: Seconds a command works silently before its progress line shows.
PROGRESS_AFTER = float(os.environ.get("BERGEN_PROGRESS_AFTER", "1"))
SPINNER = "|/-\\"


@contextlib.contextmanager
def working(what: str):
    """A spinning progress line on a terminal's standard error while the block runs, from
    PROGRESS_AFTER seconds, wiped at the end."""
    if not sys.stderr.isatty():
        yield
        return
    done = threading.Event()
    shown = False

    def spin():
        nonlocal shown
        t0 = time.monotonic()
        for k in itertools.count():
            if done.wait(PROGRESS_AFTER if k == 0 else 0.1):
                return
            sys.stderr.write(f"\r{SPINNER[k % 4]} {what}… {time.monotonic() - t0:.1f} s")
            sys.stderr.flush()
            shown = True

    thread = QuietThread(target=spin, name="bergen-progress")
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def budget_text(limits, settings) -> str:
    """A search's budget for a progress line: `100,000 iterations`, `5 s`, or both."""
    alg = settings.engine
    count = limits.iterations
    if count is None and limits.time is None:
        count = backend.SEARCH.budget(alg.default_budget)
    parts = ([f"{count:,} {alg.unit}"] if count is not None else []) + (
        [f"{limits.time:g} s"] if limits.time is not None else [])
    return ", ".join(parts)


def write_lines(path, lines) -> None:
    """The lines to standard output (path None) or to `path`, atomically."""
    if path is None:
        for line in lines:
            click.echo(line)
        return
    write_atomic(path, "".join(line + "\n" for line in lines))


def check_writable(path: str, option: str, regular: bool = False) -> None:
    """Fail before a long run, not after it, when `path` cannot be written (`regular`: not a
    device or a pipe). A permission refused is bad input; a read-only file system a write
    failure."""
    import errno
    import tempfile

    from ..errors import WriteFailed
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise click.BadParameter(f"{path} is a directory", param_hint=option)
    if regular and os.path.exists(path) and not os.path.isfile(path):
        raise click.BadParameter(f"{path} is not a regular file: a run writes its output "
                                 f"whole at its end, with a journal beside it; give a file "
                                 f"(or no {option}, for standard output)", param_hint=option)
    if not os.path.isdir(folder):
        raise click.BadParameter(f"cannot write {path}: no folder {folder}", param_hint=option)
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        read_only = False
    if read_only:
        raise WriteFailed(path, OSError(errno.EROFS, os.strerror(errno.EROFS)),
                          "run the same command again")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"cannot write {path}: permission denied", param_hint=option)
    if os.path.exists(path) and not os.path.isfile(path):
        return                  # a device, written in place: no new file in its folder
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".bergen-")
    except OSError as e:
        raise WriteFailed(path, e, "run the same command again") from None
    os.close(fd)
    os.unlink(probe)


def check_distinct(inputs: dict, outputs: dict) -> None:
    """Refuse an output that is one of the inputs or another output (`{option: path}`)."""
    seen = {}
    for option, path in [*inputs.items(), *outputs.items()]:
        if path is None or path == "-":
            continue
        key = os.path.realpath(path)
        if key in seen:
            first = seen[key]
            what = ("is the input" if first in inputs else f"is also {first}")
            raise click.BadParameter(f"{path} {what}: give {option} another file",
                                     param_hint=option)
        seen[key] = option


def fresh_name(stem: str, suffix: str) -> str:
    """`stem + suffix`, or `stem-2 + suffix`, -3 and so on: the first that does not exist."""
    name, n = stem + suffix, 1
    while os.path.exists(name):
        n += 1
        name = f"{stem}-{n}{suffix}"
    return name
