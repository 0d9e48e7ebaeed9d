"""`bergen-record/1`, a match as it happened (FORMATS.md): `Record` and `parse_record`, which
checks its structure (`replay` checks the play).

>>> rec = parse_record({"format": FORMAT, "rounds": [{"hands": [None, None], "events": [
...     {"seat": 0, "play": "6-6"}, {"seat": 1, "draw": None}]}]})
>>> rec.rounds[0].events
(Event(seat=0, kind='play', tile=27, end=None), Event(seat=1, kind='draw', tile=None, end=None))
>>> rec.complete
False
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import BergenError, Where
from ..game.rules import Rules
from ..game.state import move_str
from ..game.tiles import format_mask, parse_tile, tile_str
from .jsondoc import check_fields, is_int, parse_header, type_name
from .notation import parse_move_text

FORMAT = "bergen-record/1"
POSITION_FORMAT = "bergen-position/1"

_TOP_FIELDS = ("format", "version", "rules", "start_scores", "rounds")
_ROUND_FIELDS = ("hands", "reserve", "events")
_ACTIONS = ("play", "draw", "pass")
_EVENT_FIELDS = ("seat",) + _ACTIONS


@dataclass(frozen=True)
class Event:
    """A play (`end` None when written bare), a draw (`tile` None unseen) or a pass by `seat`."""
    seat: int
    kind: str
    tile: int | None = None
    end: int | None = None

    def to_dict(self) -> dict:
        if self.kind == "play":
            assert self.tile is not None
            return {"seat": self.seat, "play": move_str(self.tile * 2 + (self.end or 0),
                                                         lead=self.end is None)}
        if self.kind == "draw":
            return {"seat": self.seat, "draw": None if self.tile is None else tile_str(self.tile)}
        return {"seat": self.seat, "pass": True}


@dataclass(frozen=True)
class Round:
    """A round: the dealt hands (masks, None unseen), the reserve in draw order, the events."""
    hands: tuple
    reserve: tuple | None
    events: tuple

    def to_dict(self) -> dict:
        return {"hands": [None if h is None else format_mask(h) for h in self.hands],
                "reserve": None if self.reserve is None else [tile_str(t) for t in self.reserve],
                "events": [e.to_dict() for e in self.events]}


@dataclass(frozen=True)
class Record:
    """A parsed `bergen-record/1`; `version`: of the program that wrote it, if given."""
    rules: Rules
    start_scores: tuple
    rounds: tuple
    version: str | None = None

    @property
    def complete(self) -> bool:
        return all(r.reserve is not None and all(h is not None for h in r.hands)
                   for r in self.rounds)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"format": FORMAT}
        if self.version is not None:
            out["version"] = self.version
        out.update(rules=self.rules.to_dict(), start_scores=list(self.start_scores),
                   rounds=[r.to_dict() for r in self.rounds])
        return out


def _parse_tile_at(value, field, **where) -> int:
    try:
        return parse_tile(value)
    except BergenError as e:
        raise BergenError(e.message, field=field, **where) from None


def _parse_round(obj, rules: Rules, r: int) -> Round:
    check_fields(obj, _ROUND_FIELDS, "a round", required=("hands", "events"), round=r)
    hands_obj, n = obj["hands"], rules.players
    if not isinstance(hands_obj, list):
        raise BergenError(f"'hands' must be a list with one hand (a list of tiles, or null) per "
                          f"seat, got {type_name(hands_obj)}", round=r, field="hands")
    if len(hands_obj) != n:
        raise BergenError(f"'hands' needs {n} entries (one per seat, null for an unseen hand), "
                          f"got {len(hands_obj)}", round=r, field="hands")
    hands: list[int | None] = []
    for seat, h in enumerate(hands_obj):
        if h is not None and not isinstance(h, list):
            raise BergenError(f"seat {seat}'s hand must be a list of tiles like [\"0-3\", "
                              f"\"1-2\"] or null, got {type_name(h)}", round=r,
                              field=f"hands[{seat}]")
        mask = 0
        for i, tok in enumerate(h or ()):
            t = _parse_tile_at(tok, f"hands[{seat}][{i}]", round=r)
            if mask >> t & 1:
                raise BergenError(f"tile {tile_str(t)} is listed twice in seat {seat}'s hand",
                                  round=r, field=f"hands[{seat}][{i}]")
            mask |= 1 << t
        hands.append(None if h is None else mask)
    reserve_obj, reserve = obj.get("reserve"), None
    if reserve_obj is not None:
        if not isinstance(reserve_obj, list):
            raise BergenError(f"'reserve' must be a list of tiles in draw order, or null, got "
                              f"{type_name(reserve_obj)}", round=r, field="reserve")
        reserve = tuple(_parse_tile_at(tok, f"reserve[{i}]", round=r)
                        for i, tok in enumerate(reserve_obj))
    events_obj = obj["events"]
    if not isinstance(events_obj, list):
        raise BergenError(f"'events' must be a list of events, got {type_name(events_obj)}",
                          round=r, field="events")
    events = tuple(_parse_event(e, rules, r, j) for j, e in enumerate(events_obj))
    return Round(tuple(hands), reserve, events)


def _parse_event(obj, rules: Rules, r: int, j: int) -> Event:
    where: Where = {"round": r, "event": j}
    if not isinstance(obj, dict):
        raise BergenError(f"an event must be a JSON object like {{\"seat\": 0, \"play\": "
                          f"\"3-3\"}}, got {type_name(obj)}", **where)
    check_fields(obj, _EVENT_FIELDS, "an event", required=("seat",), **where)
    seat = obj["seat"]
    if not is_int(seat):
        raise BergenError(f"'seat' must be an integer seat number, got {seat!r}", field="seat",
                          **where)
    if not 0 <= seat < rules.players:
        raise BergenError(f"seat {seat} does not exist with {rules.players} players (seats 0.."
                          f"{rules.players - 1})", field="seat", **where)
    kinds = [k for k in _ACTIONS if k in obj]
    if not kinds:
        raise BergenError("an event needs one of 'play', 'draw' or 'pass'", **where)
    if len(kinds) > 1:
        raise BergenError(f"an event is one action, but this one has {' and '.join(kinds)}",
                          field=kinds[1], **where)
    kind, value = kinds[0], obj[kinds[0]]
    if kind == "pass":
        if value is not True:
            raise BergenError(f"'pass' must be true, got {json.dumps(value)}", field="pass",
                              **where)
        return Event(seat, "pass")
    if kind == "draw":
        return Event(seat, "draw",
                     None if value is None else _parse_tile_at(value, "draw", **where))
    try:
        t, end = parse_move_text(value)
    except BergenError as e:
        raise BergenError(e.message, field="play", **where) from None
    return Event(seat, "play", t, end)


def parse_record(obj, needed_by: str | None = None) -> Record:
    """A decoded `bergen-record/1` checked as a `Record` (not its play); `needed_by` names the
    command refusing a position."""
    if isinstance(obj, Record):
        return obj
    if isinstance(obj, dict) and obj.get("format") == POSITION_FORMAT:
        raise BergenError(needs_record_message(POSITION_FORMAT, needed_by), field="format")
    check_fields(obj, _TOP_FIELDS, "a record", required=("format",))
    fmt = obj["format"]
    if fmt != FORMAT:
        raise BergenError(f"expected {FORMAT!r}, got {fmt!r}", field="format")
    if "rounds" not in obj:
        raise BergenError("a record has no 'rounds' field", field="rounds")
    version, rules, start_scores = parse_header(obj, "start_scores")
    rounds_obj = obj["rounds"]
    if not isinstance(rounds_obj, list):
        raise BergenError(f"expected a list of rounds, got {type_name(rounds_obj)}",
                          field="rounds")
    if not rounds_obj:
        raise BergenError("the list is empty: a record needs at least one round", field="rounds")
    rounds = tuple(_parse_round(ro, rules, r) for r, ro in enumerate(rounds_obj))
    return Record(rules, start_scores, rounds, version)


def needs_record_message(what: str, needed_by: str | None) -> str:
    """The message for a position given where a record is needed."""
    who = f"{needed_by} needs" if needed_by else "this needs"
    return (f"this is a {what} (a position, with no history); {who} a record "
            f"({FORMAT}: the game as it happened)")
