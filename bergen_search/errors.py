"""The one exception type for bad input, with where it happened."""
from __future__ import annotations


class BergenError(ValueError):
    """Bad input: an illegal move, a malformed record, an impossible position.

    `round` and `event` (0-based, as in the record) and `field` say where, when known.
    `str(err)` is one line a person can act on.
    """

    def __init__(self, message: str, *, round: int | None = None, event: int | None = None,
                 field: str | None = None):
        super().__init__(message)
        self.message = message
        self.round = round
        self.event = event
        self.field = field

    def located(self, *, round: int | None = None, event: int | None = None,
                field: str | None = None) -> "BergenError":
        """Return this error with its location filled in where it was not known yet."""
        return BergenError(
            self.message,
            round=self.round if self.round is not None else round,
            event=self.event if self.event is not None else event,
            field=self.field if self.field is not None else field)

    def __str__(self) -> str:
        where = []
        if self.round is not None:
            where.append(f"round {self.round}")
        if self.event is not None:
            where.append(f"event {self.event}")
        if self.field is not None:
            where.append(f"field '{self.field}'")
        return one_line((", ".join(where) + ": " + self.message) if where else self.message)


#: Characters that would break a message across lines (str.splitlines splits on all of them)
#: or hide it: control characters and the Unicode line and paragraph separators.
_BREAKS = {c: c.encode("unicode_escape").decode("ascii")
           for c in [chr(i) for i in range(32)] + ["\x7f", "\x85", "\u2028", "\u2029"]}


def one_line(text: str) -> str:
    """`text` with every line break and control character written as its escape, so that a
    message quoting the user's input stays one line."""
    return "".join(_BREAKS.get(c, c) for c in text)


class Interrupted(KeyboardInterrupt):
    """A run cut short by Ctrl-C, with what it had finished: `partial` (the command's result
    over the finished part: an arena's sets, self-play's records, the analysed decisions),
    `done` and `total` (its tasks: sets, matches, decisions). A KeyboardInterrupt, so that
    whatever does not know it still stops."""

    def __init__(self, partial: object = None, done: int = 0, total: int = 0,
                 unit: str = "tasks"):
        super().__init__(f"interrupted after {done} of {total} {unit}")
        self.partial, self.done, self.total, self.unit = partial, done, total, unit
