"""Journals (`bergen-journal/2`, docs/FORMATS.md): what a long run has finished, kept beside
its output so that `--resume` goes on from there. A header line, then one line per finished
task, each with a CRC-32 chained from the line before; a torn last line is dropped. A task's
result is pickled: read only journals you wrote.

>>> import os, tempfile
>>> out = os.path.join(tempfile.mkdtemp(), "games.jsonl")
>>> j = Journal.start(out, "selfplay", 1, {"games": 3}, resume=False)
>>> j.add(0, ("record 0", 1)); j.add(2, ("record 2", 0)); j.close()
>>> sorted(Journal.start(out, "selfplay", 1, {"games": 3}, resume=True).done)
[0, 2]
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import pickle
import secrets
import time
import zlib
from collections import namedtuple

from .. import __version__
from ..errors import BergenError, WriteFailed
from .files import JOURNAL_SUFFIX as SUFFIX
from .files import OutputLock, journal_path, sync_folder, write_atomic

__all__ = ["FORMAT", "SUFFIX", "SYNC_LINES", "SYNC_SECONDS", "Journal", "journal_path"]

FORMAT = "bergen-journal/2"
OLD_FORMATS = ("bergen-journal/1",)        # recognised, not resumed
#: A journal is synced once this many seconds have passed, or lines are waiting.
SYNC_SECONDS = 1.0
SYNC_LINES = 256


def _line(obj, previous: int, prefix: str = "") -> tuple[bytes, int]:
    """One journal line holding `obj`, and its CRC."""
    text = json.dumps(obj, separators=(",", ":"), sort_keys=True)
    crc = zlib.crc32(text.encode(), previous)
    return f"{prefix}{crc:08x} {text}\n".encode(), crc


def _parse(line: bytes, previous: int, prefix: str = ""):
    """(object, CRC) of one journal line, or None if it is damaged or not of this run."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.startswith(prefix):
        return None
    crc, _, body = text[len(prefix):].partition(" ")
    expected = zlib.crc32(body.encode(), previous)
    if len(crc) != 8 or f"{expected:08x}" != crc:
        return None
    try:
        return json.loads(body), expected
    except ValueError:
        return None


def _key(k):
    """A key as JSON gives it back (lists) made hashable again."""
    return tuple(_key(x) for x in k) if isinstance(k, list) else k


#: A journal read: its header (None if not whole), results by key, good bytes, last CRC.
Scan = namedtuple("Scan", "header done good crc")


class Journal:
    """An open journal: `done` {key: result}; `finish()` deletes it once the output is in
    place, `close()` keeps it for `--resume`; either gives back the output's lock."""

    def __init__(self, path: str, header: dict, done: dict, fd: int, lock: OutputLock,
                 size: int, *, crc: int):
        self.path, self.header, self.done = path, header, done
        self._fd: int | None = fd       # None once closed
        self._lock, self._size, self._crc = lock, size, crc
        self._pending, self._synced_at = 0, time.monotonic()
        self.resumed = len(done)        # results from before this run

    @classmethod
    def start(cls, output: str, command: str, seed: int, arguments: dict,
              resume: bool, kept=()) -> "Journal":
        """The journal of a run of `command` writing `output`, its lock held: one with finished
        work is continued with `resume` (checked against this run), else refused; a file there
        that is no journal is refused. `kept`: outputs that a `resume` with no finished work to
        go on with must not replace."""
        path = journal_path(output)
        header = {"format": FORMAT, "command": command, "version": __version__, "seed": seed,
                  "arguments": json.loads(json.dumps(arguments, sort_keys=True)),  # as read back
                  "output": os.path.basename(output), "run": secrets.token_hex(8)}
        lock = OutputLock(output).acquire()
        try:
            there = os.path.lexists(path)
            if there and not _is_journal(path):
                raise BergenError(f"{path} is not a bergen journal: move it away (a run of "
                                  f"{output} keeps its journal there), then run the same "
                                  f"command again")
            if there and _holds_tasks(path):
                if not resume:
                    raise BergenError(f"{path} holds the work of an unfinished run of this "
                                      f"output: add --resume to go on with it, or delete it "
                                      f"to start again")
                scan = _read(path, expect=header)
                try:
                    if os.path.getsize(path) != scan.good:
                        os.truncate(path, scan.good)     # a torn last line is dropped
                    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
                except OSError as e:
                    raise WriteFailed(path, e) from None
                assert scan.header is not None      # it holds tasks
                return cls(path, scan.header, scan.done, fd, lock, scan.good, crc=scan.crc)
            if resume:
                _nothing_to_resume(output, path, kept, there)
            line, crc = _line(header, 0, FORMAT + " ")
            fd = _create(path, line)
            return cls(path, header, {}, fd, lock, len(line), crc=crc)
        except BaseException:
            lock.release()
            raise

    def add(self, key, result) -> None:
        """Record a finished task (`key`: an int or a tuple of ints and strings); a write error
        leaves the last whole line and raises WriteFailed."""
        data = base64.b64encode(pickle.dumps(result, protocol=4)).decode("ascii")
        line, crc = _line({"key": key, "data": data}, self._crc)
        self._append(line)
        self._crc = crc
        self.done[_key(key)] = result
        self._pending += 1
        if (self._pending >= SYNC_LINES
                or time.monotonic() - self._synced_at >= SYNC_SECONDS):
            self.sync()

    def _append(self, line: bytes) -> None:
        fd = self._fd
        assert fd is not None
        written = 0
        try:
            while written < len(line):
                written += os.write(fd, line[written:])
        except OSError as e:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._size)      # no partial line left behind
            self.close()
            raise WriteFailed(self.path, e) from None
        self._size += len(line)

    def sync(self) -> None:
        """Make every line written so far durable."""
        if self._fd is None:
            return
        try:
            os.fsync(self._fd)
        except OSError as e:
            self.close()
            raise WriteFailed(self.path, e) from None
        self._pending, self._synced_at = 0, time.monotonic()

    def close(self) -> None:
        """Stop writing; the journal stays for `--resume`, the output's lock is given back."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.fsync(fd)
            os.close(fd)
        self._lock.release()

    __del__ = OutputLock.__del__

    def finish(self) -> None:
        """The run is complete and its output in place: the journal goes."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        try:
            os.unlink(self.path)
            sync_folder(self.path)
        except FileNotFoundError:
            pass
        self._lock.release()


def _create(path: str, header_line: bytes) -> int:
    """The descriptor of a new journal at `path` holding `header_line`, whole or not at all."""
    write_atomic(path, header_line.decode("ascii"), "run the same command again")
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError as e:
        raise WriteFailed(path, e, "run the same command again") from None


def _nothing_to_resume(output: str, path: str, kept, there: bool) -> None:
    """Refuse a `--resume` with no finished work to go on with beside an existing output."""
    for name in kept:
        if not os.path.exists(name):
            continue
        if there:
            whose = "its" if name == output else f"the {output}"
            why = f"{whose} journal ({path}) holds no finished task"
        else:
            why = f"no journal of a run is beside {'it' if name == output else output} ({path})"
        raise BergenError(f"{name} exists and {why}: nothing to resume; --force runs it again")


#: The longest header line read to tell a journal (a header is far shorter).
_HEADER_BYTES = 1 << 24


def _is_journal(path: str) -> bool:
    """Whether the file at `path` is a bergen journal: a regular file whose first line is a
    whole header (of this format or an older one)."""
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            first = f.readline(_HEADER_BYTES)
    except OSError as e:
        raise BergenError(f"cannot read {path}: {e.strerror}") from None
    if not first.endswith(b"\n"):
        return False
    if any(first.startswith(old.encode() + b" ") for old in OLD_FORMATS):
        return True
    parsed = _parse(first[:-1], 0, FORMAT + " ")
    return (parsed is not None and isinstance(parsed[0], dict)
            and parsed[0].get("format") == FORMAT)


def _holds_tasks(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            first = f.readline()
            return first.endswith(b"\n") and b"\n" in f.read()
    except OSError as e:
        raise BergenError(f"cannot read {path}: {e.strerror}") from None


def _read(path: str, expect: dict | None = None) -> Scan:
    """The journal at `path`, its header checked against `expect`; damage but a torn last line
    is an error."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BergenError(f"cannot read {path}: {e.strerror}") from None
    lines = data.split(b"\n")
    lines.pop()                 # after the last newline: empty, or a torn line (dropped)
    if not lines:               # not even the header is whole: the run did nothing
        return Scan(None, {}, 0, 0)
    for old in OLD_FORMATS:
        if lines[0].startswith(old.encode() + b" "):
            raise BergenError(f"{path} is a journal of an older bergen ({old}), which this "
                              f"version cannot go on with: finish the run with the version "
                              f"that wrote it, or delete the journal to start again")
    parsed = _parse(lines[0], 0, FORMAT + " ")
    header = parsed[0] if parsed else None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BergenError(f"{path} is not a bergen journal (or its header is damaged): delete "
                          f"it to start again")
    if expect is not None:
        _check_header(path, header, expect)
    crc, done, good = parsed[1], {}, len(lines[0]) + 1
    for n, line in enumerate(lines[1:], start=2):
        parsed = _parse(line, crc)
        entry = parsed[0] if parsed else None
        if not isinstance(entry, dict) or "key" not in entry or "data" not in entry:
            raise BergenError(f"{path}: line {n} is damaged or comes from another run (its "
                              f"checksum does not match); delete the journal to start again")
        try:
            result = pickle.loads(base64.b64decode(entry["data"], validate=True))
        except Exception:
            raise BergenError(f"{path}: line {n} holds a result this version cannot read; "
                              f"delete the journal to start again") from None
        done[_key(entry["key"])] = result
        crc = parsed[1]
        good += len(line) + 1
    return Scan(header, done, good, crc)


def _check_header(path: str, old: dict, new: dict) -> None:
    what = f"cannot resume from {path}"
    if old.get("command") != new["command"]:
        raise BergenError(f"{what}: it is the journal of `bergen {old.get('command')}`, not "
                          f"`bergen {new['command']}`")
    if old.get("version") != new["version"]:
        raise BergenError(f"{what}: it was written by bergen {old.get('version')}, this is "
                          f"{new['version']} (the results could differ); delete it to start "
                          f"again")
    if old.get("seed") != new["seed"]:
        raise BergenError(f"{what}: it was written with --seed {old.get('seed')}, not "
                          f"{new['seed']}")
    before, now = old.get("arguments") or {}, new["arguments"]
    differ = [k for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
    if differ:
        k = differ[0]
        raise BergenError(f"{what}: it was written with {k} {_show(before.get(k))}, not "
                          f"{_show(now.get(k))}"
                          + (f" (and {len(differ) - 1} more differences)" if len(differ) > 1
                             else ""))


def _show(value) -> str:
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."
