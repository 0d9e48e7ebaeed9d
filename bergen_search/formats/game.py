"""A game document (an unfinished record, a position or a position string) as what its seat
to move knows (a `Game`)."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import BergenError, Where
from ..information.infoset import InfoSet, Observer, from_position
from .jsondoc import parse_json
from .position import Position, parse_position, position_from_infoset
from .position_string import is_position_string, parse_string
from .record import FORMAT as RECORD_FORMAT
from .record import POSITION_FORMAT, Record, parse_record
from .replay import RoundEnd, RoundStart, events


@dataclass(frozen=True)
class Game:
    """The seat to move's information set and position (and a record's record and Observer)."""
    info: InfoSet
    position: Position
    record: Record | None = None
    observer: Observer | None = None


def load_record_game(record) -> Game:
    """The `Game` of an unfinished record: what its seat to move has observed."""
    record = parse_record(record)
    last = len(record.rounds) - 1
    where: Where = {"round": last}
    start, steps, final = None, [], None
    for item in events(record):
        if item.round != last:
            continue
        if isinstance(item, RoundStart):
            start = item.state
        elif isinstance(item, RoundEnd):
            final = item.state
        else:
            steps.append(item)
    assert start is not None and final is not None
    if final.ended is not None:
        over = "the match is over" if final.winner is not None else \
            f"the round is over ({final.ended})"
        raise BergenError(f"the record ends when {over}: it describes no position and no "
                          f"decision", **where)
    seat = final.to_move
    if seat < 0:
        raise BergenError("the record stops before the lead with hands unseen, so the seat to "
                          "move is not known", **where)
    if record.rounds[last].hands[seat] is None or final.hidden[seat]:
        raise BergenError(f"seat {seat} is to move, but the record does not show its hand and "
                          f"every tile it drew (the seat to move is the record's viewpoint)",
                          **where)
    observer = Observer(record.rules, {seat}, start)
    for step in steps:
        observer.step(step.seat, step.action, step.after)
    info = observer.infoset(seat)
    return Game(info, position_from_infoset(info, {s: observer.proven_voids(s)
                                                   for s in observer.hist}),
                record, observer)


def load(game) -> Game:
    """The `Game` of a record or position (JSON text, decoded, or parsed) or a position string."""
    if isinstance(game, Record):
        return load_record_game(game)
    if isinstance(game, Position):
        pos = game.check()
    elif isinstance(game, str) and is_position_string(game):
        pos = parse_string(game)
    else:
        obj = game if isinstance(game, dict) else parse_json(game, "the game")
        fmt = obj.get("format") if isinstance(obj, dict) else None
        if fmt == RECORD_FORMAT:
            return load_record_game(obj)
        if fmt != POSITION_FORMAT:
            raise BergenError(f"expected a {RECORD_FORMAT} or {POSITION_FORMAT} document or a "
                              f"position string (bergen1/...), got format {fmt!r}",
                              field="format")
        pos = parse_position(obj)
    return Game(from_position(pos), pos)


def load_game(text) -> InfoSet:
    """The seat to move's `InfoSet` of a game (as `load` reads it)."""
    return load(text).info
