"""The one exception type for bad input, with where it happened."""
from __future__ import annotations

import errno
import os
from typing import TypedDict


class BergenError(ValueError):
    """Bad input, located by `round`, `event` (0-based) and `field` when known; `str(err)` is
    one line, rounds numbered from 1. `exit_status`: 2."""

    exit_status = 2

    def __init__(self, message: str, *, round: int | None = None, event: int | None = None,
                 field: str | None = None):
        super().__init__(message)
        self.message, self.round, self.event, self.field = message, round, event, field

    def located(self, *, round: int | None = None, event: int | None = None,
                field: str | None = None) -> "BergenError":
        """This error with its location filled in where not known yet."""
        return BergenError(
            self.message,
            round=self.round if self.round is not None else round,
            event=self.event if self.event is not None else event,
            field=self.field if self.field is not None else field)

    def __str__(self) -> str:
        where = []
        if self.round is not None:
            where.append(f"round {self.round + 1}")
        if self.event is not None:
            where.append(f"event {self.event}")
        if self.field is not None and not names_field(self.message, self.field):
            where.append(self.field if self.field.startswith("--") else f"field '{self.field}'")
        return one_line((", ".join(where) + ": " + self.message) if where else self.message)


def names_field(message: str, field: str) -> bool:
    """Whether `message` already names `field` (quoted, its last part, or its option).

    >>> names_field("--cluster: no scheduler answers", "cluster")
    True
    """
    leaf = field.lstrip("-").rsplit(".", 1)[-1]
    option = "--" + leaf.replace("_", "-")
    return (f"'{leaf}'" in message or f"'{field}'" in message
            or message.startswith((field, option + ":", option + " ")))


#: Characters that would break a message across lines or hide it.
_BREAKS = {c: c.encode("unicode_escape").decode("ascii")
           for c in [chr(i) for i in range(32)] + ["\x7f", "\x85", "\u2028", "\u2029"]}


def one_line(text: str) -> str:
    """`text` with every line break and control character escaped."""
    return "".join(_BREAKS.get(c, c) for c in text)


def a_kind(kind: type) -> str:
    """What a value of Python type `kind` is, for a message: `an integer`."""
    return {int: "an integer", float: "a number", str: "a string",
            bool: "on or off"}.get(kind, f"a {kind.__name__}")


#: What to do about a failed write, by errno name (the rest: "fix that").
_REMEDY = {"ENOSPC": "free some space", "EDQUOT": "free some space (or raise the quota)",
           "EROFS": "make the file system writable", "ENOENT": "make its folder again",
           "EIO": "check the disk", "EACCES": "give yourself write permission",
           "EPERM": "give yourself write permission", "ENAMETOOLONG": "give a shorter name"}


class Where(TypedDict, total=False):
    """Where in a record, for `BergenError(message, **where)`."""
    round: int
    event: int


class WriteFailed(BergenError):
    """A file could not be written: one line naming it, why and what to do; exit status 74."""

    exit_status = 74

    def __init__(self, path: str, error: OSError,
                 then: str = "run the same command with --resume"):
        name = errno.errorcode.get(error.errno or 0, "")
        why = error.strerror or str(error) or type(error).__name__
        folder = os.path.dirname(path) or os.curdir     # as the kernel reads it: nodir/..
        if (name in ("ENOENT", "EACCES", "EPERM") and not os.path.lexists(path)   # needs nodir
                and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)):
            remedy = (f"the folder {os.path.abspath(folder)} takes no new files: write to "
                      f"another folder")
        else:
            remedy = f"{_REMEDY.get(name, 'fix that')}, then {then}"
        super().__init__(f"cannot write {path}: {why}; {remedy}")
        self.path, self.errno = path, error.errno

    def located(self, *, round: int | None = None, event: int | None = None,
                field: str | None = None) -> "BergenError":
        return self


class InFile(BergenError):
    """A `BergenError` in the input `source` (a path, or `standard input`), said first."""

    def __init__(self, source: str, err: BergenError):
        super().__init__(err.message, round=err.round, event=err.event, field=err.field)
        self.source, self.inner = source, err

    def located(self, *, round: int | None = None, event: int | None = None,
                field: str | None = None) -> "InFile":
        return InFile(self.source, self.inner.located(round=round, event=event, field=field))

    def __str__(self) -> str:
        return one_line(f"{self.source}: {self.inner}")


class JSONError(BergenError):
    """JSON text that does not parse (`extra_data`: a whole value and then more)."""

    def __init__(self, line: int, column: int, reason: str, *, extra_data: bool = False):
        super().__init__(f"bad JSON at line {line}, column {column}: {reason}")
        self.line, self.column, self.reason = line, column, reason
        self.extra_data = extra_data


class TooBig(BergenError):
    """Work that does not fit its budget (the exact endgame's deals, tree or solve): the caller
    declines and goes on. `interrupted`: a stop cut it short; `spent`: the work it cost."""

    def __init__(self, message: str, *, interrupted: bool = False, spent: int = 0):
        super().__init__(message + (" (interrupted)" if interrupted else ""))
        self.interrupted, self.spent = interrupted, spent


class NotApplicable(BergenError):
    """The engine asked for does not apply here: `why` says what is missing."""

    def __init__(self, why: str, *, interrupted: bool = False):
        super().__init__(f"no exact endgame here: {why}")
        self.why, self.interrupted = why, interrupted


class Interrupted(KeyboardInterrupt):
    """A run cut short by Ctrl-C, with the `partial` result and `done` of `total` tasks."""

    def __init__(self, partial: object = None, done: int = 0, total: int = 0,
                 unit: str = "tasks"):
        super().__init__(f"interrupted after {done} of {total} {unit}")
        self.partial, self.done, self.total, self.unit = partial, done, total, unit
