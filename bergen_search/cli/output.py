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
from ..runs.files import JOURNAL_SUFFIX, LOCK_SUFFIX, folder_of
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


#: The files a run keeps beside its output, by suffix.
BESIDE = {JOURNAL_SUFFIX: "journal", LOCK_SUFFIX: "lock file"}


def check_writable(path: str, option: str, regular: bool = False, beside=()) -> None:
    """Fail before a long run, not after it, when `path` cannot be written (`regular`: not a
    device or a pipe; `beside`: the suffixes of the files kept beside it, OUT.journal...). The
    folder is the kernel's (`nodir/..` needs `nodir`). A permission refused is bad input; a
    read-only file system a write failure."""
    import errno
    import tempfile

    from ..errors import WriteFailed
    if path == "-":
        no_standard_output(option)
    folder = folder_of(path)
    if os.path.isdir(path):
        raise click.BadParameter(f"{path} is a directory", param_hint=option)
    if regular and os.path.exists(path) and not os.path.isfile(path):
        raise click.BadParameter(f"{path} is not a regular file: a run writes its output "
                                 f"whole at its end, with a journal beside it; give a file "
                                 f"(or no {option}, for standard output)", param_hint=option)
    if not os.path.isdir(folder):
        raise click.BadParameter(f"cannot write {path}: {_no_folder(folder)}", param_hint=option)
    _check_name_length(path, folder, option, beside)
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


def _no_folder(folder: str) -> str:
    """What is wrong with `folder`, which is not one: its first part that is no folder, as the
    kernel walks it (`nodir/..`: `nodir`)."""
    parts = folder.split(os.sep)
    for n in range(1, len(parts) + 1):
        prefix = os.sep.join(parts[:n]) or os.sep
        if not os.path.isdir(prefix):
            break
    shown = (os.path.abspath(prefix) if ".." not in parts[:n]
             else os.path.join(os.getcwd(), prefix))
    if os.path.exists(prefix):
        return f"{shown} is not a folder"
    return f"no folder {os.path.abspath(folder) if '..' not in parts[n:] else shown}"


def _check_name_length(path: str, folder: str, option: str, beside) -> None:
    """Refuse a name (or the name of a file beside it) longer than `folder` takes."""
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return
    name = os.fsencode(os.path.basename(path))
    if len(name) > limit:
        raise click.BadParameter(f"cannot write {path}: its name is {len(name)} bytes, more "
                                 f"than the {limit} its folder takes: give a shorter name",
                                 param_hint=option)
    for suffix in beside:
        if len(name) + len(suffix) > limit:
            what = BESIDE.get(suffix, "file")
            raise click.BadParameter(f"cannot write {path}: the name of its {what} "
                                     f"({os.path.basename(path)}{suffix}) is "
                                     f"{len(name) + len(suffix)} bytes, more than the {limit} "
                                     f"its folder takes: give a shorter name", param_hint=option)


#: What each command offers instead of `-` as a file output, by (command, option).
_INSTEAD_OF_DASH = {
    ("selfplay", "--out"): "leave out --out, and the records go to standard output",
    ("analyze", "--out"): "name a file, or give --json for the analysis on standard output"}


def no_standard_output(option: str):
    """Refuse `-` as a file output: it would be a file named `-`."""
    ctx = click.get_current_context(silent=True)
    command = ctx.info_name if ctx is not None else None
    fix = _INSTEAD_OF_DASH.get((command, option), "name a file")
    raise click.BadParameter(f"- (standard output) is not a file: {fix}", param_hint=option)


def check_distinct(inputs: dict, outputs: dict) -> None:
    """Refuse an output that is one of the inputs, another output, or the journal or lock
    file kept beside one (`{option: path}`); and `-` as an output."""
    seen = {}
    for option, path in [*inputs.items(), *outputs.items()]:
        if path is None:
            continue
        if path == "-":
            if option in outputs:
                no_standard_output(option)
            continue
        key = os.path.realpath(path)
        if key in seen:
            first = seen[key]
            what = ("is the input" if first in inputs else f"is also {first}")
            raise click.BadParameter(f"{path} {what}: give {option} another file",
                                     param_hint=option)
        seen[key] = option
    for option, path in outputs.items():
        for suffix, what in BESIDE.items():
            other = None if path in (None, "-") else seen.get(os.path.realpath(path + suffix))
            if other in outputs:
                named = "" if outputs[other] == path + suffix else f" ({path}{suffix})"
                raise click.BadParameter(f"{outputs[other]} is also the {what} beside {option} "
                                         f"{path}{named}: give {other} another file",
                                         param_hint=other)


def fresh_name(stem: str, suffix: str) -> str:
    """`stem + suffix`, or `stem-2 + suffix`, -3 and so on: the first that does not exist."""
    name, n = stem + suffix, 1
    while os.path.exists(name):
        n += 1
        name = f"{stem}-{n}{suffix}"
    return name
