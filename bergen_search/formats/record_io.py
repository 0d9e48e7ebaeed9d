"""Records in and out: JSON text to `Record`s, and a match's log to a `bergen-record/1`
`Record`, dict or line.

>>> from bergen_search.game.match import play_match
>>> from bergen_search.game.rules import Rules
>>> log = play_match(Rules(), [1, 1], seed=7)
>>> rec = load_record(dump_record(log))
>>> rec.complete, len(rec.rounds) == len(log.rounds)
(True, True)
"""
from __future__ import annotations

import json
from typing import Iterator

from .. import __version__
from ..errors import BergenError, JSONError
from ..game.match import MatchLog
from ..game.state import DRAW, PASS
from .jsondoc import parse_json
from .record import Event, Record, Round, needs_record_message, parse_record
from .replay import replay


def load_record(text) -> Record:
    """The `Record` of JSON text holding one `bergen-record/1` (structure only)."""
    return parse_record(parse_json(text, "record"))


class LineError(BergenError):
    """A `BergenError` in line `line` (1-based) of a `.jsonl` file."""

    def __init__(self, line: int, err: BergenError):
        super().__init__(err.message, round=err.round, event=err.event, field=err.field)
        self.line = line

    def located(self, *, round=None, event=None, field=None) -> "LineError":
        return LineError(self.line, super().located(round=round, event=event, field=field))

    def __str__(self) -> str:
        return f"line {self.line}, {super().__str__()}" if (
            self.round is not None or self.event is not None or self.field is not None) \
            else f"line {self.line}: {self.message}"


def iter_records(text, check: bool = False, needed_by: str | None = None) -> Iterator[Record]:
    """The records of a `.jsonl` text; errors are `LineError`s (rule errors with `check`)."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = parse_record(parse_json(line, "record"), needed_by)
            if check:
                replay(rec)
        except BergenError as e:
            if e.message.startswith("bad JSON at line 1, column "):     # the line is said once
                e = BergenError("bad JSON at " + e.message[len("bad JSON at line 1, "):])
            raise LineError(n, e) from None
        yield rec


def load_records(text, needed_by: str | None = None) -> list:
    """The records of a file of one JSON record or one per line (structure only). A position is
    refused; `needed_by` names the command. With several records errors are `LineError`s."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    if text.lstrip().startswith("bergen1/"):
        raise BergenError(needs_record_message("position string", needed_by))
    try:
        obj = parse_json(text, "record")
    except JSONError as e:
        if not e.extra_data or not _first_line_whole(text):
            raise           # (a document over several lines, then more: said where it is)
        return list(iter_records(text, needed_by=needed_by))
    return [parse_record(obj, needed_by)]


def _first_line_whole(text: str) -> bool:
    """Whether the first line that is not blank is a JSON value by itself (a .jsonl file)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        parse_json(first)
    except BergenError:
        return False
    return True


def to_record(log) -> Record:
    """The `Record` of a `match.MatchLog` (a `Record` as it is)."""
    if isinstance(log, Record):
        return log
    if not isinstance(log, MatchLog) and not all(
            hasattr(log, k) for k in ("rules", "start_scores", "rounds")):
        raise TypeError(f"write_record takes a MatchLog or a Record, not {type(log).__name__}")
    rounds = [Round(tuple(rnd.hands), tuple(rnd.reserve), _events(rnd.events))
              for rnd in log.rounds]
    return Record(log.rules, tuple(log.start_scores), tuple(rounds), __version__)


def _events(log_events, seen=None) -> tuple:
    """A round log's `(seat, action, tile)` as `Event`s (with `seen`, others' draws unseen)."""
    events, led = [], False
    for seat, action, tile in log_events:
        if action == DRAW:
            events.append(Event(seat, "draw", tile if seen is None or seat == seen else None))
        elif action == PASS:
            events.append(Event(seat, "pass"))
        else:
            events.append(Event(seat, "play", action >> 1, action & 1 if led else None))
            led = True
    return tuple(events)


def seat_record(rules, start_scores, seat: int, hand: int, log_events) -> Record:
    """One round as `seat` alone saw it: its dealt `hand`, everything else unseen."""
    hands = tuple(hand if s == seat else None for s in range(rules.players))
    return Record(rules, tuple(start_scores), (Round(hands, None, _events(log_events, seat)),))


def write_record(log) -> dict:
    """The `bergen-record/1` dict of a `match.MatchLog` (or a `Record`)."""
    return to_record(log).to_dict()


def dump_record(obj) -> str:
    """One line of JSON (for `.jsonl`) of a dict, a `Record` or a `MatchLog`."""
    if not isinstance(obj, dict):
        obj = write_record(obj)
    return json.dumps(obj, separators=(",", ":"))
