"""`bergen-record/1`: a match as it happened (FORMATS.md), read, checked, replayed and written.

Reading is two steps. `parse_record` (or `load_record` for JSON text) checks the structure:
the format string, the field names (an unknown field anywhere is an error), the rules, the
tile and move notation. `replay` then runs every round through the reference `state.State`,
which checks every rule as far as the record's information allows (hidden hands are counts,
an unknown reserve only a size), and scores the match event by event. Every error is a
`BergenError` located by `round`, `event` (0-based, as in the record) and `field`.

>>> from bergen_search.playout import play_match
>>> from bergen_search.rules import Rules
>>> log = play_match(Rules(), [1, 1], seed=7)
>>> report = replay(parse_record(write_record(log)))
>>> report["ok"], tuple(report["scores"]) == tuple(log.scores), report["winner"] == log.winner
(True, True, True)
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterator, NamedTuple

from . import __version__
from .errors import BergenError
from .infoset import Observer
from .notation import parse_move_text, resolve_move
from .playout import MatchLog
from .rules import Rules
from .sampler import count_worlds
from .state import DRAW, NO_TILE, PASS, State, move_str
from .tiles import format_mask, parse_tile, tile_str

FORMAT = "bergen-record/1"
POSITION_FORMAT = "bergen-position/1"

_TOP_FIELDS = ("format", "version", "rules", "start_scores", "rounds")
_ROUND_FIELDS = ("hands", "reserve", "events")
_ACTIONS = ("play", "draw", "pass")
_EVENT_FIELDS = ("seat",) + _ACTIONS


# ---- the parsed record ------------------------------------------------------------------------
@dataclass(frozen=True)
class Event:
    """One event of a round: a play, a draw or a pass by `seat`.

    For a play, `tile` is the tile laid and `end` LEFT/RIGHT, or None when written bare (the
    lead, or a tile the replay resolves to the one end it fits). For a draw, `tile` is the
    tile drawn, or None when the record's author did not see it.
    """
    seat: int
    kind: str
    tile: int | None = None
    end: int | None = None

    def to_dict(self) -> dict:
        if self.kind == "play":
            text = tile_str(self.tile) + ("" if self.end is None else ":" + "LR"[self.end])
            return {"seat": self.seat, "play": text}
        if self.kind == "draw":
            return {"seat": self.seat, "draw": None if self.tile is None else tile_str(self.tile)}
        return {"seat": self.seat, "pass": True}


@dataclass(frozen=True)
class Round:
    """A round: each seat's hand as dealt (a mask, or None when unseen), the reserve in draw
    order (tile indices, or None when unknown) and the events."""
    hands: tuple
    reserve: tuple | None
    events: tuple

    def to_dict(self) -> dict:
        return {"hands": [None if h is None else format_mask(h) for h in self.hands],
                "reserve": None if self.reserve is None else [tile_str(t) for t in self.reserve],
                "events": [e.to_dict() for e in self.events]}


@dataclass(frozen=True)
class Record:
    """A parsed `bergen-record/1`. `complete` when every hand and every reserve is known.
    `version`: the version of the program that wrote it, when the record says."""
    rules: Rules
    start_scores: tuple
    rounds: tuple
    version: str | None = None

    @property
    def complete(self) -> bool:
        return all(r.reserve is not None and all(h is not None for h in r.hands)
                   for r in self.rounds)

    def to_dict(self) -> dict:
        out = {"format": FORMAT}
        if self.version is not None:
            out["version"] = self.version
        out.update(rules=self.rules.to_dict(), start_scores=list(self.start_scores),
                   rounds=[r.to_dict() for r in self.rounds])
        return out


# ---- JSON -------------------------------------------------------------------------------------
def _pairs_no_duplicates(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise BergenError(f"duplicate key {k!r} in a JSON object")
        obj[k] = v
    return obj


def _reject_constant(name):
    raise BergenError(f"bad JSON: {name} is not a JSON number")


def parse_json(text, what: str = "JSON") -> object:
    """JSON text to Python objects; errors name the line and column, duplicate keys and
    NaN/Infinity are errors."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise BergenError(f"bad {what}: not UTF-8 text (byte {e.start})") from None
    if not isinstance(text, str):
        raise BergenError(f"expected {what} text, got {type(text).__name__}")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise BergenError(f"bad {what}: the input is empty")
    try:
        return json.loads(text, object_pairs_hook=_pairs_no_duplicates,
                          parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        msg = e.msg[0].lower() + e.msg[1:]
        if e.msg == "Extra data":
            msg = "extra data after the first JSON value (a .jsonl file holds one record per line)"
        raise BergenError(f"bad JSON at line {e.lineno}, column {e.colno}: {msg}") from None
    except RecursionError:
        raise BergenError("bad JSON: arrays or objects nested too deeply") from None
    except ValueError as e:
        # Python refuses integers of thousands of digits (int_max_str_digits).
        if "digits" in str(e):
            raise BergenError("bad JSON: a number with thousands of digits") from None
        raise BergenError(f"bad JSON: {e}") from None


# ---- structure checks -------------------------------------------------------------------------
def _type_name(v) -> str:
    if v is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(v), type(v).__name__)


def _check_fields(obj, known, what, required=(), **where):
    if not isinstance(obj, dict):
        raise BergenError(f"{what} must be a JSON object, got {_type_name(obj)}", **where)
    for k in obj:
        if k not in known:
            raise BergenError(f"unknown field {k!r} in {what} (known: {', '.join(known)})",
                              field=k if isinstance(k, str) else None, **where)
    for k in required:
        if k not in obj:
            raise BergenError(f"{what} has no {k!r} field", field=k, **where)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_scores(value, rules: Rules, field: str, **where) -> tuple:
    """A scores list: one non-negative integer per side, each below the target."""
    n = rules.n_sides
    if not isinstance(value, list):
        raise BergenError(f"expected a list of {n} integers (one per side), got "
                          f"{_type_name(value)}", field=field, **where)
    if len(value) != n:
        raise BergenError(f"expected {n} entries (one per side), got {len(value)}",
                          field=field, **where)
    for i, v in enumerate(value):
        if not _is_int(v) or v < 0:
            raise BergenError(f"side {i}'s score must be a non-negative integer, got {v!r}",
                              field=f"{field}[{i}]", **where)
        if v >= rules.target:
            raise BergenError(f"side {i} has {v} points, which already reaches the target "
                              f"{rules.target}: the match would be over", field=f"{field}[{i}]",
                              **where)
    return tuple(value)


def _parse_tile_at(value, field, **where) -> int:
    try:
        return parse_tile(value)
    except BergenError as e:
        raise BergenError(e.message, field=field, **where) from None


def _parse_round(obj, rules: Rules, r: int) -> Round:
    _check_fields(obj, _ROUND_FIELDS, "a round", required=("hands", "events"), round=r)
    hands_obj = obj["hands"]
    n = rules.players
    if not isinstance(hands_obj, list):
        raise BergenError(f"'hands' must be a list with one hand (a list of tiles, or null) per "
                          f"seat, got {_type_name(hands_obj)}", round=r, field="hands")
    if len(hands_obj) != n:
        raise BergenError(f"'hands' needs {n} entries (one per seat, null for an unseen hand), "
                          f"got {len(hands_obj)}", round=r, field="hands")
    hands = []
    for seat, h in enumerate(hands_obj):
        if h is None:
            hands.append(None)
            continue
        if not isinstance(h, list):
            raise BergenError(f"seat {seat}'s hand must be a list of tiles like [\"0-3\", "
                              f"\"1-2\"] or null, got {_type_name(h)}", round=r,
                              field=f"hands[{seat}]")
        mask = 0
        for i, tok in enumerate(h):
            t = _parse_tile_at(tok, f"hands[{seat}][{i}]", round=r)
            if mask >> t & 1:
                raise BergenError(f"tile {tile_str(t)} is listed twice in seat {seat}'s hand",
                                  round=r, field=f"hands[{seat}][{i}]")
            mask |= 1 << t
        hands.append(mask)
    reserve_obj = obj.get("reserve")
    reserve = None
    if reserve_obj is not None:
        if not isinstance(reserve_obj, list):
            raise BergenError(f"'reserve' must be a list of tiles in draw order, or null, got "
                              f"{_type_name(reserve_obj)}", round=r, field="reserve")
        reserve = tuple(_parse_tile_at(tok, f"reserve[{i}]", round=r)
                        for i, tok in enumerate(reserve_obj))
    events_obj = obj["events"]
    if not isinstance(events_obj, list):
        raise BergenError(f"'events' must be a list of events, got {_type_name(events_obj)}",
                          round=r, field="events")
    events = tuple(_parse_event(e, rules, r, j) for j, e in enumerate(events_obj))
    return Round(tuple(hands), reserve, events)


def _parse_event(obj, rules: Rules, r: int, j: int) -> Event:
    where = {"round": r, "event": j}
    if not isinstance(obj, dict):
        raise BergenError(f"an event must be a JSON object like {{\"seat\": 0, \"play\": "
                          f"\"3-3\"}}, got {_type_name(obj)}", **where)
    _check_fields(obj, _EVENT_FIELDS, "an event", required=("seat",), **where)
    seat = obj["seat"]
    if not _is_int(seat):
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
    kind = kinds[0]
    value = obj[kind]
    if kind == "pass":
        if value is not True:
            raise BergenError(f"'pass' must be true, got {json.dumps(value)}", field="pass",
                              **where)
        return Event(seat, "pass")
    if kind == "draw":
        if value is None:
            return Event(seat, "draw")
        return Event(seat, "draw", _parse_tile_at(value, "draw", **where))
    try:
        t, end = parse_move_text(value)
    except BergenError as e:
        raise BergenError(e.message, field="play", **where) from None
    return Event(seat, "play", t, end)


def parse_record(obj, needed_by: str | None = None) -> Record:
    """Check the structure of a decoded `bergen-record/1` and return it as a `Record`.

    The rules are checked here; the play is checked by `replay`. A position given instead is
    refused as such (`needed_by`: the command that needs a record, for the message).
    """
    if isinstance(obj, Record):
        return obj
    if isinstance(obj, dict) and obj.get("format") == POSITION_FORMAT:
        raise BergenError(_needs_record(POSITION_FORMAT, needed_by), field="format")
    _check_fields(obj, _TOP_FIELDS, "a record", required=("format",))
    fmt = obj["format"]
    if fmt != FORMAT:
        raise BergenError(f"expected {FORMAT!r}, got {fmt!r}", field="format")
    if "rounds" not in obj:
        raise BergenError("a record has no 'rounds' field", field="rounds")
    version = parse_version(obj)
    rules = Rules.from_dict(obj.get("rules"))
    start = obj.get("start_scores")
    start_scores = (0,) * rules.n_sides if start is None else parse_scores(
        start, rules, "start_scores")
    rounds_obj = obj["rounds"]
    if not isinstance(rounds_obj, list):
        raise BergenError(f"expected a list of rounds, got {_type_name(rounds_obj)}",
                          field="rounds")
    if not rounds_obj:
        raise BergenError("the list is empty: a record needs at least one round", field="rounds")
    rounds = tuple(_parse_round(ro, rules, r) for r, ro in enumerate(rounds_obj))
    return Record(rules, start_scores, rounds, version)


def parse_version(obj: dict):
    """The optional `version` of a document (the program that wrote it): a string, or None."""
    version = obj.get("version")
    if version is not None and (not isinstance(version, str) or len(version) > 100):
        raise BergenError(f"'version' must be the version string of the program that wrote "
                          f"the document, got {_type_name(version)}", field="version")
    return version


def load_record(text) -> Record:
    """Parse JSON text holding one `bergen-record/1` (structure only; see `replay`)."""
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
    """The records of a `.jsonl` text, one per non-empty line.

    Errors are `LineError`s (a `BergenError` with `.line`, 1-based). With `check=True` each
    record is also replayed, so rule errors are reported with their line too.
    """
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
            raise LineError(n, e) from None
        yield rec


def _needs_record(what: str, needed_by: str | None) -> str:
    """The message for a position given where a record is needed."""
    who = f"{needed_by} needs" if needed_by else "this needs"
    return (f"this is a {what} (a position, with no history); {who} a record "
            f"({FORMAT}: the game as it happened)")


def load_records(text, needed_by: str | None = None) -> list:
    """The records of a file holding either one JSON record (pretty-printed or not) or several,
    one per line (`.jsonl`). Structure only, like `load_record`. A position (or a position
    string) is refused as such; `needed_by` names the command for the message.

    A single record's errors are plain `BergenError`s (JSON errors name the line and column in
    the file); with several records they are `LineError`s naming the line.
    """
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    if text.lstrip().startswith("bergen1/"):
        raise BergenError(_needs_record("position string", needed_by))
    try:
        obj = parse_json(text, "record")
    except BergenError as e:
        if "extra data after the first JSON value" not in e.message:
            raise
        return list(iter_records(text, needed_by=needed_by))
    return [parse_record(obj, needed_by)]


# ---- writing ----------------------------------------------------------------------------------
def write_record(log) -> dict:
    """A complete `bergen-record/1` dict from a `playout.MatchLog` (or a `Record`).

    Every hand and reserve is written, the drawn tiles too, and the rules in full
    (`rules.to_dict()`), so the record stands on its own; a match's record says which version
    of the program wrote it (a `Record` keeps the version it was read with).
    """
    if isinstance(log, Record):
        return log.to_dict()
    if not isinstance(log, MatchLog) and not all(
            hasattr(log, k) for k in ("rules", "start_scores", "rounds")):
        raise TypeError(f"write_record takes a MatchLog or a Record, not {type(log).__name__}")
    rounds = []
    for rnd in log.rounds:
        events = []
        led = False
        for seat, action, tile in rnd.events:
            if action == DRAW:
                events.append({"seat": seat, "draw": tile_str(tile)})
            elif action == PASS:
                events.append({"seat": seat, "pass": True})
            else:
                events.append({"seat": seat, "play": move_str(action, lead=not led)})
                led = True
        rounds.append({"hands": [format_mask(h) for h in rnd.hands],
                       "reserve": [tile_str(t) for t in rnd.reserve],
                       "events": events})
    return {"format": FORMAT, "version": __version__, "rules": log.rules.to_dict(),
            "start_scores": list(log.start_scores), "rounds": rounds}


def dump_record(obj) -> str:
    """One line of JSON (for `.jsonl`); takes a dict, a `Record` or a `MatchLog`."""
    if not isinstance(obj, dict):
        obj = write_record(obj)
    return json.dumps(obj, separators=(",", ":"))


def pretty_json(obj, width: int = 96, indent: int = 2, _level: int = 0) -> str:
    """JSON for people: a list or object stays on one line when it fits in `width` or holds
    no list or object."""
    flat = json.dumps(obj, separators=(", ", ": "))
    pad = " " * (indent * _level)
    if not isinstance(obj, (list, dict)) or not obj or len(pad) + len(flat) <= width:
        return flat
    children = obj.values() if isinstance(obj, dict) else obj
    if not any(isinstance(v, (list, dict)) for v in children):
        return flat
    inner = " " * (indent * (_level + 1))
    if isinstance(obj, list):
        items = [inner + pretty_json(v, width, indent, _level + 1) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [inner + json.dumps(k) + ": " + pretty_json(v, width, indent, _level + 1).lstrip()
             for k, v in obj.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


# ---- replay -----------------------------------------------------------------------------------
class Step(NamedTuple):
    """One replayed event: the states before and after it, and the action as a move int
    (`DRAW`, `PASS`, or a play resolved to its end)."""
    round: int
    event: int
    seat: int
    action: int
    before: State
    after: State


def _action_of(ev: Event, state: State) -> int:
    if ev.kind == "draw":
        return DRAW
    if ev.kind == "pass":
        return PASS
    if state.over or (state.to_move >= 0 and ev.seat != state.to_move):
        return ev.tile * 2 + (ev.end or 0)      # State.apply names the real problem
    if not state.led:
        if ev.end is not None:
            raise BergenError(f"the lead is written '{tile_str(ev.tile)}', without an end; got "
                              f"'{tile_str(ev.tile)}:{'LR'[ev.end]}'", field="play")
        return ev.tile * 2
    try:
        return resolve_move(ev.tile, ev.end, state)
    except BergenError as e:
        raise BergenError(e.message, field="play") from None


def _run(record):
    """The replay: yields ("deal", r, state), ("step", Step) and ("end", r, state)."""
    scores = record.start_scores
    last = len(record.rounds) - 1
    for r, rnd in enumerate(record.rounds):
        try:
            state = State.deal(record.rules, list(rnd.hands), rnd.reserve, scores)
        except BergenError as e:
            raise e.located(round=r) from None
        yield ("deal", r, state)
        known = {s for s, h in enumerate(rnd.hands) if h is not None}
        observer = Observer(record.rules, known, state) if len(known) < len(rnd.hands) else None
        for j, ev in enumerate(rnd.events):
            try:
                action = _action_of(ev, state)
                tile = ev.tile if ev.kind == "draw" else None
                after = state.apply(action, seat=ev.seat, tile=tile)
                if observer is not None:
                    observer.step(ev.seat, action, after)
                    if ev.seat not in known:
                        _check_hidden(observer, ev.seat, action)
            except BergenError as e:
                raise e.located(round=r, event=j, field=ev.kind) from None
            yield ("step", Step(r, j, ev.seat, action, state, after))
            state = after
        if state.ended is None and r < last:
            raise BergenError(f"the round is unfinished after its {len(rnd.events)} events, but "
                              f"round {r + 1} follows: only the last round may stop mid-round",
                              round=r)
        if state.winner is not None and r < last:
            raise BergenError(f"the match ended in round {r} (side {state.winner} reached the "
                              f"target {record.rules.target}), so no round may follow",
                              round=r + 1)
        yield ("end", r, state)
        scores = state.scores


def _check_hidden(observer: Observer, seat: int, action: int):
    """What a hidden seat did must fit some deal of the hidden tiles that also fits what its
    draws and passes proved and what the lead proved (RULES.md, "Decisions and chance")."""
    groups, free, _ = observer.constraints()
    if action < DRAW:
        t = action >> 1
        if dict(free).get(t, 1) == 0:
            raise BergenError(f"seat {seat} cannot hold {tile_str(t)}: "
                              f"{observer.why_not(seat, t)}", field="play")
    try:
        n = count_worlds(groups, free)
    except BergenError:
        return      # too unconstrained to tabulate: nothing provable is broken
    if n == 0:
        raise BergenError(f"no deal of the hidden tiles fits the events so far: seat {seat}'s "
                          f"draws, passes and plays contradict each other")


def walk(record) -> Iterator[Step]:
    """Replay `record` event by event through `State`, yielding a `Step` per event.

    Raises `BergenError` located by round, event and field at the first broken rule: anything
    `State` rejects, a round left unfinished that is not the last, a round after the match
    ended. Each round starts with the scores the round before ended with.
    """
    for item in _run(parse_record(record)):
        if item[0] == "step":
            yield item[1]


def _replay(record):
    record = parse_record(record)
    rounds = []
    state = None
    for item in _run(record):
        if item[0] == "deal":
            state = item[2]
            cur = _new_round_report(item[1], state.scores)
            rounds.append(cur)
        elif item[0] == "step":
            step = item[1]
            a = step.after
            entry = {"event": step.event, "seat": step.seat,
                     "action": move_str(step.action, lead=not step.before.led)}
            if step.action == DRAW:
                entry["tile"] = None if a.last_drawn == NO_TILE else tile_str(a.last_drawn)
            entry["points"] = list(a.last_points)
            entry["scores"] = list(a.scores)
            cur["events"].append(entry)
        else:
            state = item[2]
            _finish_round_report(cur, state)
    winner = state.winner
    report = {"ok": True, "rounds": rounds, "scores": list(state.scores), "winner": winner,
              "match_over": winner is not None}
    return report, state


def _new_round_report(r: int, scores) -> dict:
    return {"round": r, "start_scores": list(scores), "events": [], "end": "unfinished",
            "scores": list(scores), "match_over": False, "to_move": None}


def _finish_round_report(cur: dict, state: State):
    cur["end"] = state.ended or "unfinished"
    cur["scores"] = list(state.scores)
    cur["match_over"] = state.winner is not None
    cur["to_move"] = None if state.ended is not None or state.to_move < 0 else state.to_move


def replay(record) -> dict:
    """Check a record against the rules and score it event by event (FORMATS.md report).

    Returns `{"ok": true, "rounds": [...], "scores", "winner", "match_over"}`, with per round
    `{"round", "start_scores", "events": [{"event", "seat", "action", "tile" (draws only),
    "points", "scores"}], "end", "scores", "match_over", "to_move"}`: `points` is what the
    event scored per side, `scores` the running totals per side, `winner` the side that
    reached the target (or null), `to_move` the seat to move in an unfinished round.

    A round's `end` is:
    - "out" when a player laid their last tile (even if that play reached the target);
    - "blocked" when nobody could play or draw and every player passed in turn;
    - "target" when a side reached the target mid-round, tiles still in hands;
    - "unfinished" when the record stops mid-round (only the last round may).
    `match_over` is true once a side has reached the target.

    Raises `BergenError` with `round`, `event` and `field` for the first error.
    """
    return _replay(record)[0]


def final_state(record) -> State:
    """The `State` after the record's last event (for an unfinished last round: the position
    the record describes, whose seat to move is the record's viewpoint)."""
    return _replay(record)[1]
