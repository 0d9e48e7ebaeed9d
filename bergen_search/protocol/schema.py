"""The engine protocol's commands and their fields, written once (docs/PROTOCOL.md's tables
are checked against them), and `check`, which reads one command line.

>>> check({"cmd": "go", "iterations": 500, "id": 3}).fields["iterations"]
500
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import BergenError
from ..information.beliefs import WEIGHTINGS
from ..search.api import MAX_ITERATIONS, MAX_SECONDS

#: Seconds a partial report may be apart at most (a bigger `report_every` is a typo).
MAX_REPORT_EVERY = 3600.0


class SchemaError(BergenError):
    """A command line that breaks the protocol; `id` the line's, when it had a valid one."""

    def __init__(self, message: str, id=None):
        super().__init__(message)
        self.id = id


@dataclass(frozen=True)
class Field:
    """One field of a command: its name, what it takes (`kind`), and its default."""
    name: str
    kind: str
    required: bool = False
    default: object = None
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    above_low: bool = False     # `low` itself is not allowed (a time of 0)

    def read(self, value):
        """The value checked (and normalised); ValueError with the reason otherwise."""
        k = self.kind
        if k in _PLAIN:
            accepts, reason = _PLAIN[k]
            if not accepts(value):
                raise ValueError(reason)
            return value
        if k == "integer":
            if isinstance(value, bool) or not isinstance(value, int) or \
                    not self.low <= value <= self.high:
                raise ValueError(f"must be an integer from {self.low:,} to {self.high:,}")
            return value
        if k == "seconds":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    value != value or value < self.low or value > self.high or \
                    (self.above_low and value == self.low):
                low = f"above {self.low:g}" if self.above_low else f"{self.low:g} or more"
                raise ValueError(f"must be a number of seconds {low}, at most {self.high:,g}")
            return float(value)
        if k == "choice":
            if value not in self.choices:
                raise ValueError(f"must be one of {', '.join(self.choices)}")
            return value
        if k in ("seats", "rounds"):
            if not _different_indexes(value, self.high):
                what = "seats" if k == "seats" else "round indexes"
                raise ValueError(f"must be a list of different {what}, each 0 to {self.high}")
            return sorted(value)
        if k == "beliefs":
            if value is False:
                return None
            if value is True:
                return "uniform"
            if value in WEIGHTINGS:
                return value
            raise ValueError(f"must be true, false or a weighting ({', '.join(WEIGHTINGS)})")
        raise AssertionError(k)


def _different_indexes(value, high: int) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= high
                    for s in value)
            and len(set(value)) == len(value))


#: What an id may be (the limits in words; an integer beyond 64 bits would not survive most
#: JSON readers).
ID_TEXT = ("must be a string of at most 200 characters or an integer from -(2^63 - 1) to "
           "2^63 - 1")


def valid_id(value) -> bool:
    return (isinstance(value, str) and len(value) <= 200) or \
        (isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2 ** 63)


#: The kinds a value is taken as it is: kind -> (whether it is one, the reason it is not).
_PLAIN = {
    "boolean": (lambda v: isinstance(v, bool), "must be true or false"),
    "name": (lambda v: isinstance(v, str) and bool(v), "must be a name (a string)"),
    "object": (lambda v: isinstance(v, dict), 'must be an object like {"exploration": 0.5}'),
    "game": (lambda v: isinstance(v, (str, dict)) and bool(v),
             "must be a record or position object, or a position string"),
    "record": (lambda v: isinstance(v, (str, dict)) and bool(v),
               "must be a bergen-record/1 object (or its JSON text)"),
    "id": (valid_id, ID_TEXT),
    "ids": (lambda v: isinstance(v, list) and all(valid_id(x) for x in v),
            f"must be a list of query ids (each {ID_TEXT[5:]})"),
}


_ID = Field("id", "id")
_SEARCH = (
    Field("iterations", "integer", low=1, high=MAX_ITERATIONS),
    Field("time", "seconds", low=0, high=MAX_SECONDS, above_low=True),
    Field("seed", "integer", default=0, low=0, high=2 ** 64 - 1),
    Field("algorithm", "name", default="ismcts"),
    Field("objective", "choice", default="points", choices=("points", "match")),
    Field("settings", "object", default={}),
    Field("priority", "integer", default=0, low=-1000, high=1000),
    Field("beliefs", "beliefs", default=False),
)


@dataclass(frozen=True)
class Spec:
    """A command and its fields (the `id` is every command's)."""
    name: str
    fields: tuple


COMMANDS = {s.name: s for s in (
    Spec("hello", (_ID,)),
    Spec("isready", (_ID,)),
    Spec("position", (_ID, Field("game", "game", required=True))),
    Spec("go", (_ID, Field("game", "game"), *_SEARCH,
                Field("infinite", "boolean", default=False),
                Field("report_every", "seconds", default=0.0, low=0, high=MAX_REPORT_EVERY))),
    Spec("analyze", (_ID, Field("record", "record", required=True), Field("seats", "seats", high=3),
                     Field("rounds", "rounds", high=999), *_SEARCH)),
    Spec("stop", (_ID,)),
    Spec("terminate", (_ID, Field("queries", "ids"), Field("all", "boolean", default=False))),
    Spec("show", (_ID, Field("game", "game"),
                  Field("weighting", "choice", default="uniform", choices=WEIGHTINGS))),
    Spec("moves", (_ID, Field("record", "record", required=True))),
    Spec("quit", (_ID,)),
)}


@dataclass
class Command:
    """A checked command line: its name, its id (None without one) and its fields, the
    defaults filled in."""
    name: str
    id: object = None
    fields: dict = field(default_factory=dict)

    @property
    def has_id(self) -> bool:
        return self.id is not None


def check(obj) -> Command:
    """The command of one parsed line, every field checked (an unknown one too); SchemaError
    otherwise."""
    if not isinstance(obj, dict):
        raise SchemaError('a command is a JSON object with "cmd", like {"cmd": "isready"}')
    line_id = obj.get("id")         # null counts as not given, as for every field
    if line_id is not None and not valid_id(line_id):
        raise SchemaError(f"'id' {ID_TEXT}, got {_short(line_id)}")
    name = obj.get("cmd")
    if not isinstance(name, str):
        raise SchemaError('a command is a JSON object with "cmd", like {"cmd": "isready"}',
                          line_id)
    spec = COMMANDS.get(name)
    if spec is None:
        raise SchemaError(f"unknown command {_short(name)} (commands: "
                          f"{', '.join(COMMANDS)})", line_id)
    known = {f.name for f in spec.fields}
    for key in obj:
        if key != "cmd" and key not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise SchemaError(f"{name}: unknown field {_short(key)} (fields: {listed})",
                              line_id)
    out = {}
    for f in spec.fields:
        if f.name == "id":
            continue
        if obj.get(f.name) is None:
            if f.required:
                raise SchemaError(f"{name} needs {f.name!r}", line_id)
            out[f.name] = f.read(f.default) if f.kind == "beliefs" else f.default
            continue
        try:
            out[f.name] = f.read(obj[f.name])
        except ValueError as e:
            raise SchemaError(f"{name}: {f.name!r} {e}, got {_short(obj[f.name])}",
                              line_id) from None
    return Command(name, line_id, out)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
