"""The files of a long run: one writer per output (`OutputLock`), documents written whole or
not at all (`write_atomic`), and a write error said as what to do (`errors.WriteFailed`).

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

import contextlib
import os
import re
import stat
import time

from ..errors import BergenError, WriteFailed

#: The lock file's and the journal's names: the output's with these added.
LOCK_SUFFIX = ".lock"
JOURNAL_SUFFIX = ".journal"


def journal_path(output: str) -> str:
    """Where the journal of `output` lives."""
    return output + JOURNAL_SUFFIX


def folder_of(path: str) -> str:
    """The folder `path` is in, as the kernel resolves it (`nodir/../x` is in `nodir/..`)."""
    return os.path.dirname(path) or "."


def sync_folder(path: str) -> None:
    """Make the folder entry of `path` (just created, renamed or removed) durable."""
    try:
        fd = os.open(folder_of(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass                    # some file systems cannot sync a folder
    finally:
        os.close(fd)


#: What a lock file holds: nothing (just created) or a process id.
_LOCK_TEXT = re.compile(rb"[0-9]{0,20}\n?")


class OutputLock:
    """The exclusive right to write `output` (and its journal): a flock on the lock file, which
    holds the holder's pid. Not reentrant. A file there holding anything else is the user's:
    refused, left as it was."""

    def __init__(self, output: str):
        self.output = output
        self.path = output + LOCK_SUFFIX
        self._fd: int | None = None

    def acquire(self) -> "OutputLock":
        import fcntl
        if os.path.lexists(self.path) and not os.path.isfile(self.path):
            raise self._not_a_lock()
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
            # The holder before us may have removed the file after our open: then again.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        if not _holds_a_pid(fd):
            os.close(fd)
            raise self._not_a_lock()
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as e:
            os.close(fd)
            raise WriteFailed(self.path, e, "run the same command again") from None
        self._fd = fd
        return self

    def _not_a_lock(self) -> BergenError:
        return BergenError(f"{self.path} is not a bergen lock file (one holds only a process "
                           f"id): move it away, then run the same command again")

    def release(self) -> None:
        """Remove the lock file (still holding it) and give the lock back."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(fd)            # closing the last descriptor frees the lock

    def __del__(self):          # never released: the descriptor is closed, the file left
        if getattr(self, "_fd", None) is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "OutputLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _holds_a_pid(fd: int) -> bool:
    """Whether the held lock file `fd` is one: a regular file, empty or holding a pid."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 21:
            return False
        return _LOCK_TEXT.fullmatch(os.pread(fd, 32, 0)) is not None
    except OSError:
        return False


def _holder(fd: int) -> int | None:
    """The living pid in a lock file held by another process, waiting a moment for the holder
    to write it (until then the file may hold a killed run's)."""
    for _ in range(20):
        try:
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            return None
        if text.isdigit() and _alive(int(text)):
            return int(text)
        time.sleep(0.01)
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:     # alive, another user's
        return True
    return True


def write_atomic(path: str, text: str, then: str | None = None) -> None:
    """`text` into `path`, whole or not at all (a device or a pipe in place); a write error is
    a `WriteFailed` saying what to do `then` (default: --resume if `path` has a journal)."""
    import tempfile
    if os.path.exists(path) and not os.path.isfile(path):
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise WriteFailed(path, e, then or "run the same command again") from None
        return
    if then is None:
        then = ("run the same command with --resume" if os.path.exists(journal_path(path))
                else "run the same command again")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".bergen-", suffix=".tmp", dir=folder_of(path))
    except OSError as e:
        raise WriteFailed(path, e, then) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        # The mode of a new file, or of the file it replaces (mkstemp's is private).
        umask = os.umask(0)
        os.umask(umask)
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        raise WriteFailed(path, e, then) from None
    finally:
        if os.path.exists(tmp):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    sync_folder(path)
