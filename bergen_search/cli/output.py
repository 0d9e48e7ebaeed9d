"""How the commands print and write: one JSON document, the pure-Python note, a progress
line on a terminal, and files written atomically (never half a file)."""
from __future__ import annotations

import json
import os
import sys

import click

from .. import __version__
from ..errors import BergenError
from ..search import backend


def emit_json(obj) -> None:
    """One JSON document on standard output, with the version that wrote it."""
    if isinstance(obj, dict) and "version" not in obj:
        obj = {**obj, "version": __version__}
    click.echo(json.dumps(obj, separators=(",", ":")))


def search_note(specs=None) -> None:
    """One line on standard error when the searches run in pure Python (no compiled core, or
    BERGEN_PURE_PYTHON=1): slowly, with smaller default budgets. With `specs` (engines), only
    when one of them searches."""
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


def write_lines(path, lines) -> None:
    """The lines to standard output (path None) or to `path`, atomically: a temporary file
    beside it moved into place when complete, so a failure or Ctrl-C leaves the old file (or
    none), never half a file."""
    if path is None:
        for line in lines:
            click.echo(line)
        return
    write_atomic(path, "".join(line + "\n" for line in lines))


def check_writable(path: str, option: str) -> None:
    """Fail before a long run, not after it, when `path` cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise click.BadParameter(f"{path} is a directory", param_hint=option)
    if not os.path.isdir(folder):
        raise click.BadParameter(f"cannot write {path}: no folder {folder}", param_hint=option)
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"cannot write {path}: permission denied", param_hint=option)


def write_atomic(path: str, text: str) -> None:
    """`text` into `path` through a temporary file in the same folder and os.replace."""
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".bergen-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise BergenError(f"cannot write {path}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp makes the file private; give it the mode an ordinary new file would have
        # (or the mode of the file it replaces).
        umask = os.umask(0)
        os.umask(umask)
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        raise BergenError(f"cannot write {path}: {e.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def fresh_name(stem: str, suffix: str) -> str:
    """`stem + suffix`, or `stem-2 + suffix`, -3 and so on: the first that does not exist."""
    name, n = stem + suffix, 1
    while os.path.exists(name):
        n += 1
        name = f"{stem}-{n}{suffix}"
    return name
