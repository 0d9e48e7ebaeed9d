"""Journals: what a long run has finished, kept beside its output, so that a run cut short
(Ctrl-C, `kill -9`, a lost scheduler, a power cut) goes on from there (`--resume`) and ends
with the very file an uninterrupted run writes.

`arena`, `selfplay` and `analyze` with a file output keep `OUTPUT.journal` while they run: a
header line, then one line per finished task (a duplicate set, a match, a record, a search),
appended, flushed and synced to disk as each result arrives, in whatever order they finish:

    bergen-journal/1 1c2f0a7e {"command": "arena", "version": "0.1.0", "seed": 7, ...}
    3b5e19d0 {"key": 4, "data": "gASV..."}
    ...

Each line carries the CRC-32 of the rest of it (eight hex digits), so a line a crash tore
(the last one: lines are appended in order) is detected and dropped when the journal is read
again, and its task simply runs again; a damaged line before the last is refused. The header
names the command, its arguments (everything that decides the output), the seed and the
version of the program; resuming with any of them different is refused, saying which
(results from another version or other arguments would not be the ones this run writes).
`data` is the task's result as the worker returned it, pickled: a journal is this program's
own working file (like a cache), not a format to exchange; read only journals you wrote.

The output itself is written only once every task is in (atomically: a temporary file moved
into place), then the journal is deleted. A run that does not finish never touches an
existing output.

>>> import os, tempfile
>>> out = os.path.join(tempfile.mkdtemp(), "games.jsonl")
>>> j = Journal.start(out, "selfplay", 1, {"games": 3}, resume=False)
>>> j.add(0, ("record 0", 1)); j.add(2, ("record 2", 0)); j.close()
>>> sorted(Journal.start(out, "selfplay", 1, {"games": 3}, resume=True).done)
[0, 2]
"""
from __future__ import annotations

import base64
import json
import os
import pickle
import zlib

from .. import __version__
from ..errors import BergenError

FORMAT = "bergen-journal/1"
SUFFIX = ".journal"


def journal_path(output: str) -> str:
    """Where the journal of `output` lives: beside it, with SUFFIX added."""
    return output + SUFFIX


def _line(obj, prefix: str = "") -> bytes:
    text = json.dumps(obj, separators=(",", ":"), sort_keys=True)
    return f"{prefix}{zlib.crc32(text.encode()):08x} {text}\n".encode()


def _parse(line: bytes, prefix: str = ""):
    """The object of one journal line, or None if the line is damaged (bad checksum, not
    JSON, not UTF-8)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.startswith(prefix):
        return None
    crc, _, body = text[len(prefix):].partition(" ")
    if len(crc) != 8 or f"{zlib.crc32(body.encode()):08x}" != crc:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _key(k):
    """A key as JSON gives it back (lists) made hashable again (tuples)."""
    return tuple(_key(x) for x in k) if isinstance(k, list) else k


def _canonical(obj):
    """`obj` as its JSON round trip gives it back (tuples as lists), for comparing headers."""
    return json.loads(json.dumps(obj, sort_keys=True))


class Journal:
    """An open journal: `done` maps each finished task's key to its result; `add(key,
    result)` records one more; `finish()` deletes the journal once the output is in place;
    `close()` keeps it (the run stopped: `--resume` goes on from it)."""

    def __init__(self, path: str, header: dict, done: dict, file):
        self.path, self.header, self.done, self._file = path, header, done, file
        #: Results found in the journal when it was opened (resumed), before this run's.
        self.resumed = len(done)

    @classmethod
    def start(cls, output: str, command: str, seed: int, arguments: dict,
              resume: bool) -> "Journal":
        """The journal of a run of `command` writing `output`. Without `resume` an existing
        journal is refused (it holds an unfinished run's work); with it, the journal is
        read (a torn last line dropped), checked against this run's command, seed, version
        and arguments, and continued; with none there, the run starts afresh."""
        path = journal_path(output)
        header = {"format": FORMAT, "command": command, "version": __version__, "seed": seed,
                  "arguments": _canonical(arguments), "output": os.path.basename(output)}
        if os.path.exists(path):
            if not resume:
                raise BergenError(f"{path} holds the work of an unfinished run of this output: "
                                  f"add --resume to go on with it, or delete it to start again")
            old, done, good = _read(path)
            if old is not None:
                _check_header(path, old, header)
            try:
                f = open(path, "r+b")
                f.truncate(good)            # a torn last line is dropped
                f.seek(good)
                if old is None:             # torn before its header was whole: nothing done
                    f.write(_line(header, FORMAT + " "))
                    _sync(f)
            except OSError as e:
                raise BergenError(f"cannot write {path}: {e.strerror}") from None
            return cls(path, old or header, done, f)
        try:
            f = open(path, "xb")
            f.write(_line(header, FORMAT + " "))
            _sync(f, path)
        except OSError as e:
            raise BergenError(f"cannot write {path}: {e.strerror}") from None
        return cls(path, header, {}, f)

    def add(self, key, result) -> None:
        """Record a finished task (`key` an int or a tuple of ints and strings), on disk
        before this returns."""
        data = base64.b64encode(pickle.dumps(result, protocol=4)).decode("ascii")
        self._file.write(_line({"key": key, "data": data}))
        _sync(self._file)
        self.done[_key(key) if isinstance(key, list) else key] = result

    def close(self) -> None:
        """Stop writing; the journal stays for `--resume`."""
        if not self._file.closed:
            self._file.close()

    def finish(self) -> None:
        """The run is complete and its output in place: the journal goes."""
        self.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _sync(f, created: str | None = None) -> None:
    """Flush `f` to disk (and, for a new file, its folder's entry)."""
    f.flush()
    os.fsync(f.fileno())
    if created is not None:
        try:
            fd = os.open(os.path.dirname(os.path.abspath(created)), os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def _read(path: str) -> tuple:
    """(header, {key: result}, bytes of the good lines) of the journal at `path` (header None
    when not even it was written whole). The last line may be torn (no newline, or a bad
    checksum): it is dropped. Any other damage is an error: the journal cannot be trusted."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BergenError(f"cannot read {path}: {e.strerror}") from None
    lines = data.split(b"\n")
    tail = lines.pop()          # after the last newline: empty, or a torn line
    if not lines:               # not even the header is whole: the run did nothing
        return None, {}, 0
    header = _parse(lines[0], FORMAT + " ")
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BergenError(f"{path} is not a bergen journal (or its header is damaged): delete "
                          f"it to start again")
    done, good = {}, len(lines[0]) + 1
    for n, line in enumerate(lines[1:], start=2):
        entry = _parse(line)
        last = n == len(lines) and not tail
        if not isinstance(entry, dict) or "key" not in entry or "data" not in entry:
            if last:
                break           # torn by a crash: its task runs again
            raise BergenError(f"{path}: line {n} is damaged (its checksum does not match); "
                              f"delete the journal to start again")
        try:
            result = pickle.loads(base64.b64decode(entry["data"], validate=True))
        except Exception:
            raise BergenError(f"{path}: line {n} holds a result this version cannot read; "
                              f"delete the journal to start again") from None
        done[_key(entry["key"])] = result
        good += len(line) + 1
    return header, done, good


def _check_header(path: str, old: dict, new: dict) -> None:
    """Refuse to resume from a journal of another command, seed, version or arguments."""
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
