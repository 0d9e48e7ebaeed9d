"""The files of a long run: one writer per output (`OutputLock`), documents written whole or
not at all (`write_atomic`), and a write error said as what to do (`errors.WriteFailed`).

A run writing OUTPUT holds an exclusive lock (flock) on `OUTPUT.lock` from the moment it
opens its journal until its output is in place, and writes its process id in it: a second
run of the same output, resumed or not, is refused at once, naming that process. The lock is
the kernel's: a run killed (even with -9) frees it, and the lock file left behind means
nothing.

>>> import os, tempfile
>>> out = os.path.join(tempfile.mkdtemp(), "games.jsonl")
>>> with OutputLock(out):
...     OutputLock(out).acquire()
Traceback (most recent call last):
...
bergen_search.errors.BergenError: ...games.jsonl is being written by another bergen run (process ...): wait for it to end, or stop it, then run the same command again
>>> write_atomic(out, "one line\\n"); open(out).read()
'one line\\n'
"""
from __future__ import annotations

import os
import time

from ..errors import BergenError, WriteFailed

#: What a lock file is called: beside its output, with LOCK_SUFFIX added.
LOCK_SUFFIX = ".lock"
#: And a journal (journal.py).
JOURNAL_SUFFIX = ".journal"


def journal_path(output: str) -> str:
    """Where the journal of `output` lives: beside it, with JOURNAL_SUFFIX added."""
    return output + JOURNAL_SUFFIX


def sync_folder(path: str) -> None:
    """Make the folder entry of `path` (a file just created, renamed or removed) durable."""
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass                    # some file systems cannot sync a folder; nothing to do then
    finally:
        os.close(fd)


class OutputLock:
    """The exclusive right to write `output` (and its journal): `acquire()` takes it or
    raises a one-line BergenError naming the process that holds it; `release()` (or the end
    of a `with`) gives it back. Taken with flock on `output + LOCK_SUFFIX`, which records
    the holder's pid. Not reentrant: a second OutputLock of the same output in the same
    process is refused too."""

    def __init__(self, output: str):
        self.output = output
        self.path = output + LOCK_SUFFIX
        self._fd: int | None = None

    def acquire(self) -> "OutputLock":
        import fcntl
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            except OSError as e:
                raise WriteFailed(self.path, e, "run the same command again") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                who = f"process {holder}" if holder else "another process"
                raise BergenError(f"{self.output} is being written by another bergen run "
                                  f"({who}): wait for it to end, or stop it, then run the "
                                  f"same command again") from None
            except OSError as e:
                os.close(fd)
                raise WriteFailed(self.path, e, "run the same command again") from None
            # The holder before us may have removed the file between our open and our lock:
            # then we hold a lock on a file nobody else will look at. Try again.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as e:
            os.close(fd)
            raise WriteFailed(self.path, e, "run the same command again") from None
        self._fd = fd
        return self

    def release(self) -> None:
        """Give the lock back and remove the lock file (while still holding it, so that
        nobody holds a lock on a removed file: `acquire` checks)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(fd)            # closing the last descriptor frees the lock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __del__(self):
        # A run that ended on an error nobody closed its journal for (in a process that goes
        # on: a test, a library user) gives the output back when the lock is collected.
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None

    def __enter__(self) -> "OutputLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _holder(fd: int) -> int | None:
    """The pid written in a lock file held by another process (it writes it just after
    taking the lock: a moment's wait)."""
    for _ in range(20):
        try:
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            return None
        if text.isdigit():
            return int(text)
        time.sleep(0.01)
    return None


def write_atomic(path: str, text: str, then: str | None = None) -> None:
    """`text` into `path`, whole or not at all: a temporary file in the same folder, synced,
    moved over `path` (os.replace), and the folder synced, so that a crash or a power cut
    leaves the old file (or none) or the new one, never half of one. A `path` that is there
    but not a regular file (a device, a pipe) is written in place, never replaced. A write error is a
    `WriteFailed` naming `path`; what to do `then`, by default: --resume when a journal of
    `path` is there (its finished work is kept), else the same command again."""
    import tempfile
    if os.path.exists(path) and not os.path.isfile(path):
        # A device or a pipe (/dev/null, /dev/stdout): written in place, never replaced by
        # a file renamed over it.
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise WriteFailed(path, e, then or "run the same command again") from None
        return
    if then is None:
        then = ("run the same command with --resume" if os.path.exists(journal_path(path))
                else "run the same command again")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".bergen-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise WriteFailed(path, e, then) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private; give it the mode an ordinary new file would have
        # (or the mode of the file it replaces).
        umask = os.umask(0)
        os.umask(umask)
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        raise WriteFailed(path, e, then) from None
    finally:
        if os.path.exists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass
    sync_folder(path)
