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
        if self.field is not None:
            where.append(f"field '{self.field}'")
        return (", ".join(where) + ": " + self.message) if where else self.message
