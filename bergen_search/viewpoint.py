"""From a game document to what the seat to move knows.

`load_game(text)` reads a `bergen-record/1` (its last round unfinished: the seat to move
there is the viewpoint) or a `bergen-position/1`, and returns the viewpoint's `InfoSet`.
A record's other hands, reserve and other seats' draws are never read into the information
set, even when the record gives them (the record is still checked against them).
"""
from __future__ import annotations

from .errors import BergenError
from .infoset import InfoSet, Observer, from_position
from .position import parse_position
from .record import FORMAT as RECORD_FORMAT
from .record import POSITION_FORMAT, _run, parse_json, parse_record


def infoset_from_record(record) -> InfoSet:
    """The information set of the seat to move after the record's last event."""
    record = parse_record(record)
    last = len(record.rounds) - 1
    where = {"round": last}
    start, steps, final = None, [], None
    for item in _run(record):            # one replay: it checks the whole record too
        if item[0] == "deal" and item[1] == last:
            start = item[2]
        elif item[0] == "step" and item[1].round == last:
            steps.append(item[1])
        elif item[0] == "end" and item[1] == last:
            final = item[2]
    if final.ended is not None:
        over = "the match is over" if final.winner is not None else f"the round ended ({final.ended})"
        raise BergenError(f"the record ends after its last round: {over}, so there is no "
                          f"decision to search", **where)
    seat = final.to_move
    if not steps or seat < 0:
        raise BergenError("the last round has no events: its lead is forced, nothing to search",
                          **where)
    if record.rounds[last].hands[seat] is None or final.hidden[seat]:
        raise BergenError(f"seat {seat} is to move, but the record does not show its hand and "
                          f"every tile it drew (the seat to move is the record's viewpoint)",
                          **where)
    # The seat is known only now: follow the round again from the steps already replayed.
    observer = Observer(record.rules, {seat}, start)
    for step in steps:
        observer.step(step.seat, step.action, step.after)
    return observer.infoset(seat)


def infoset_from_position(pos) -> InfoSet:
    return from_position(pos)


def load_game(text: str) -> InfoSet:
    """A record or a position (JSON text) as the information set of its seat to move."""
    obj = parse_json(text, "the game")
    fmt = obj.get("format") if isinstance(obj, dict) else None
    if fmt == RECORD_FORMAT:
        return infoset_from_record(obj)
    if fmt == POSITION_FORMAT:
        return from_position(parse_position(obj))
    raise BergenError(f"expected a {RECORD_FORMAT} or {POSITION_FORMAT} document, got format "
                      f"{fmt!r}", field="format")
