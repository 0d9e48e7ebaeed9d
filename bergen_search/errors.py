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

    def located(self, *, round=None, event=None, field=None) -> "BergenError":
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
        if self.field is not None and not names_field(self.message, self.field):
            # An option (`--hand`) is named as the user typed it; a document's field as such.
            where.append(self.field if self.field.startswith("--") else f"field '{self.field}'")
        return one_line((", ".join(where) + ": " + self.message) if where else self.message)


def names_field(message: str, field: str) -> bool:
    """Whether `message` already names `field` (a document's field, `rules.target`, or an
    option, `--cluster`), so that saying where again would name it twice: it quotes the
    field (or its last part) or starts with it, or with the option that sets it.

    >>> names_field("--cluster: no scheduler answers", "cluster")
    True
    >>> names_field("a record has no 'format' field", "format")
    True
    >>> names_field("the search finished no world", "time")
    False
    """
    leaf = field.lstrip("-").rsplit(".", 1)[-1]
    option = "--" + leaf.replace("_", "-")
    return (f"'{leaf}'" in message or f"'{field}'" in message
            or message.startswith((field, option + ":", option + " ")))


#: Characters that would break a message across lines (str.splitlines splits on all of them)
#: or hide it: control characters and the Unicode line and paragraph separators.
_BREAKS = {c: c.encode("unicode_escape").decode("ascii")
           for c in [chr(i) for i in range(32)] + ["\x7f", "\x85", "\u2028", "\u2029"]}


def one_line(text: str) -> str:
    """`text` with every line break and control character written as its escape, so that a
    message quoting the user's input stays one line."""
    return "".join(_BREAKS.get(c, c) for c in text)


def a_kind(kind: type) -> str:
    """What a value of Python type `kind` is, for a message: `must be an integer`.

    >>> a_kind(int), a_kind(float)
    ('an integer', 'a number')
    """
    return {int: "an integer", float: "a number", str: "a string",
            bool: "on or off"}.get(kind, f"a {kind.__name__}")


class Interrupted(KeyboardInterrupt):
    """A run cut short by Ctrl-C, with what it had finished: `partial` (the command's result
    over the finished part: an arena's sets, self-play's records, the analysed decisions),
    `done` and `total` (its tasks: sets, matches, decisions). A KeyboardInterrupt, so that
    whatever does not know it still stops."""

    def __init__(self, partial=None, done: int = 0, total: int = 0, unit: str = "tasks"):
        super().__init__(f"interrupted after {done} of {total} {unit}")
        self.partial, self.done, self.total, self.unit = partial, done, total, unit
