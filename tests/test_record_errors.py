"""Malformed and illegal documents: a `BergenError` in one line naming what is wrong and where
(a record's round from 1 and event from 0, as `bergen replay` numbers them; the field). The
commands print that line alone, exit 2 (test_messages.py: exact lines, and a round numbered
through every command)."""
import copy
import json
from pathlib import Path
from typing import NamedTuple

import pytest

from bergen_search.errors import BergenError
from bergen_search.formats.position import load_position
from bergen_search.formats.record_io import (LineError, dump_record, iter_records, load_record,
    load_records, write_record)
from bergen_search.formats.replay import replay
from bergen_search.game.match import play_match
from bergen_search.game.rules import Rules

DATA = Path(__file__).resolve().parent / "data"
BASE = json.loads((DATA / "record_base.json").read_text())
PARTIAL = json.loads((DATA / "record_formats_example.json").read_text())
POSITION = json.loads((DATA / "position_formats_example.json").read_text())
DELETE = object()


class Case(NamedTuple):
    id: str
    record: object          # a dict to write as JSON, or the text itself
    words: str              # a piece of the message
    round: int | None
    event: int | None
    field: str | None = "-"  # "-": not checked
    position: bool = False  # read as a position (else a record, replayed)

    @property
    def text(self) -> str:
        return self.record if isinstance(self.record, str) else json.dumps(self.record)


def base(fn=None, src=BASE):
    """A copy of the base record (see tests/data/record_base.json), changed by `fn`."""
    d = copy.deepcopy(src)
    if fn is not None:
        fn(d)
    return d


def pos(**changes):
    """The position of FORMATS.md (tests/data/position_formats_example.json), changed."""
    return {k: v for k, v in dict(POSITION, **changes).items() if v is not DELETE}


def P(id, doc, words, field):
    return Case("position-" + id, doc, words, None, None, field, position=True)


def events(d, r=0):
    return d["rounds"][r]["events"]


def set_event(i, ev, r=0):
    def fn(d):
        events(d, r)[i] = ev
    return fn


def keep_events(n, r=0):
    def fn(d):
        d["rounds"][r]["events"] = events(d, r)[:n]
    return fn


def chain(*fns):
    def fn(d):
        for f in fns:
            f(d)
    return fn


def set_path(path, value=DELETE):
    """Set the value at `path` (keys and indices), or delete it."""
    def fn(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        if value is DELETE:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
    return fn


def swap_tiles(a, b):
    """Exchange two tiles wherever they are in the deal (hands and reserve)."""
    def fn(d):
        rnd = d["rounds"][0]
        for lst in rnd["hands"] + [rnd["reserve"]]:
            for i, t in enumerate(lst):
                if t == a:
                    lst[i] = b
                elif t == b:
                    lst[i] = a
    return fn


# ---- a self-played match: its rounds end out, blocked, out, target ------------------------------
MATCH = write_record(play_match(Rules(), [1, 1], 0))
BLOCKED, BLOCKED_R = MATCH, 1
_PASS_R, _PASS_J = BLOCKED_R, next(j for j, ev in enumerate(events(BLOCKED, BLOCKED_R))
                                   if "pass" in ev)


def _draw_instead_of_pass(d):
    events(d, _PASS_R)[_PASS_J] = {"seat": events(d, _PASS_R)[_PASS_J]["seat"], "draw": None}


def _hide_blocked(d):
    """Only the blocked round, seen by seat 0: seat 1's hand, its draws and the reserve hidden."""
    rnd = d["rounds"][BLOCKED_R]
    d["start_scores"] = list(replay(BLOCKED)["rounds"][BLOCKED_R]["start_scores"])
    rnd["hands"][1] = None
    rnd["reserve"] = None
    for ev in rnd["events"]:
        if ev["seat"] == 1 and "draw" in ev:
            ev["draw"] = None
    d["rounds"] = [rnd]


_LAST_PASS = len(BLOCKED["rounds"][BLOCKED_R]["events"]) - 1
_N_MATCH_ROUNDS = len(MATCH["rounds"])

# A deal where seat 0's first draw (at ends 0 and 0) brings 1-3, which does not fit.
_NO_FIT_FIRST = swap_tiles("0-0", "1-3")


# ---- proofs about hidden hands ------------------------------------------------------------------
# RULES.md ("Decisions and chance"): "A draw or a pass by seat j at ends (x, y) proves that j held
# no tile showing x or y, and neither does any tile j drew in that same turn except the one j then
# played: right after that turn, j's whole hand is free of x and y."
VOID_AFTER_DRAW = {"format": "bergen-record/1", "rules": {"players": 2}, "rounds": [{
    "hands": [["3-3", "5-6", "0-1", "0-2", "1-2", "2-6"], None], "reserve": None,
    "events": [{"seat": 0, "play": "3-3"}, {"seat": 1, "draw": None},
               {"seat": 1, "play": "3-5:R"}, {"seat": 0, "play": "5-6:R"},
               {"seat": 1, "play": "3-4:L"}]}]}
VOID_AFTER_PASS = {"format": "bergen-record/1", "rules": {"players": 2}, "rounds": [{
    "hands": [["3-3", "5-6", "0-1", "0-2", "1-2", "2-6"], None], "reserve": None,
    "events": [{"seat": 0, "play": "3-3"}, {"seat": 1, "play": "3-5:R"},
               {"seat": 0, "play": "5-6:R"}] + [{"seat": 1, "draw": None}] * 14 +
              [{"seat": 1, "pass": True}, {"seat": 0, "play": "2-6:R"},
               {"seat": 1, "play": "3-4:L"}]}]}
TWO_DRAWS_FEWER = copy.deepcopy(VOID_AFTER_PASS)
del TWO_DRAWS_FEWER["rounds"][0]["events"][3:5]      # 17 tiles, still more than 15
# RULES.md ("The lead"): the forced lead "tells everyone that no other hand held a lower double".
# Seat 0 (hidden) leads 3-3 and later, without having drawn, plays 1-1: it held 1-1 at the lead.
LEAD_PROVES_NO_LOWER_DOUBLE = {"format": "bergen-record/1", "rules": {"players": 2}, "rounds": [{
    "hands": [None, ["1-3", "0-4", "0-5", "2-4", "2-5", "4-6"]], "reserve": None,
    "events": [{"seat": 0, "play": "3-3"}, {"seat": 1, "play": "1-3:L"},
               {"seat": 0, "play": "1-1:L"}]}]}


CASES = [
    # ---- JSON (its messages, exact: test_messages.py) -----------------------------------------
    Case("json-empty", "  \n", "the record is empty", None, None),
    # `load_record` takes one record; `bergen replay` also takes .jsonl, so this is legal there.
    Case("json-two-records", json.dumps(BASE) + "\n" + json.dumps(BASE),
         "extra data after the first JSON value", None, None),
    # ---- the top level ----------------------------------------------------------------------
    Case("format-missing", base(set_path(["format"])), "a record has no 'format' field", None,
         None, "format"),
    Case("unknown-top-field", base(set_path(["players"], 2)),
         "unknown field 'players' in a record", None, None, "players"),
    Case("rounds-missing", base(set_path(["rounds"])), "a record has no 'rounds' field", None,
         None, "rounds"),
    Case("rounds-empty", base(set_path(["rounds"], [])), "a record needs at least one round",
         None, None, "rounds"),
    Case("rounds-not-list", base(set_path(["rounds"], {"0": {}})),
         "expected a list of rounds, got an object",
         None, None, "rounds"),
    # ---- rules --------------------------------------------------------------------------------
    Case("rules-unknown-field", base(set_path(["rules", "speed"], 3)), "unknown rule 'speed'",
         None, None, "rules.speed"),
    Case("rules-unknown-value", base(set_path(["rules", "lead"], "highest")),
         "rule 'lead' must be one of lowest-double, highest-double; got 'highest'", None, None,
         "rules.lead"),
    Case("rules-players", base(set_path(["rules", "players"], 5)),
         "rule 'players' must be 2, 3 or 4, got 5", None, None, "rules.players"),
    Case("rules-partnerships-2p", base(set_path(["rules", "partnerships"], True)),
         "partnerships need 4 players", None, None, "rules.partnerships"),
    Case("rules-target-string", base(set_path(["rules", "target"], "15")),
         "rule 'target' must be an integer, got '15'", None, None, "rules.target"),
    Case("rules-not-object", base(set_path(["rules"], "german")), "rules must be a JSON object",
         None, None, "rules"),
    # ---- start_scores -------------------------------------------------------------------------
    Case("start-scores-length", base(set_path(["start_scores"], [0, 0, 0])),
         "expected 2 entries (one per side), got 3", None, None, "start_scores"),
    Case("start-scores-target", base(set_path(["start_scores"], [15, 0])),
         "side 0 has 15 points, which already reaches the target 15", None, None,
         "start_scores[0]"),
    Case("start-scores-negative", base(set_path(["start_scores"], [0, -1])),
         "side 1's score must be a non-negative integer, got -1", None, None,
         "start_scores[1]"),
    # ---- rounds and the deal --------------------------------------------------------------------
    Case("round-unknown-field", base(set_path(["rounds", 0, "scores"], [0, 0])),
         "unknown field 'scores' in a round", 0, None, "scores"),
    Case("round-not-object", base(set_path(["rounds", 0], [])), "a round must be a JSON object",
         0, None),
    Case("round-no-hands", base(set_path(["rounds", 0, "hands"])), "a round has no 'hands'",
         0, None, "hands"),
    Case("round-no-events", base(set_path(["rounds", 0, "events"])), "a round has no 'events'",
         0, None, "events"),
    Case("events-not-list", base(set_path(["rounds", 0, "events"], "1-1")),
         "'events' must be a list", 0, None, "events"),
    Case("hands-count", base(set_path(["rounds", 0, "hands"], BASE["rounds"][0]["hands"] + [None])),
         "'hands' needs 2 entries", 0, None, "hands"),
    Case("hand-not-list", base(set_path(["rounds", 0, "hands", 1], "0-1 0-2 0-3 2-2 4-6 6-6")),
         "seat 1's hand must be a list of tiles", 0, None, "hands[1]"),
    Case("tile-7-1", base(set_path(["rounds", 0, "hands", 0, 2], "7-1")),
         "bad tile '7-1': halves must be 0..6", 0, None, "hands[0][2]"),
    Case("tile-a-number", base(set_path(["rounds", 0, "hands", 1, 5], 66)),
         "expected a tile like '3-5', got 66", 0, None, "hands[1][5]"),
    Case("tile-in-reserve-bad", base(set_path(["rounds", 0, "reserve", 3], "6-7")),
         "bad tile '6-7'", 0, None, "reserve[3]"),
    Case("tile-twice-one-hand", base(set_path(["rounds", 0, "hands", 0, 1], "1-1")),
         "tile 1-1 is listed twice in seat 0's hand", 0, None, "hands[0][1]"),
    Case("tile-twice-two-hands", base(set_path(["rounds", 0, "hands", 1, 0], "1-1")),
         "tile 1-1 is held twice", 0, None, "hands[1]"),
    Case("tile-hand-and-reserve", base(set_path(["rounds", 0, "reserve", 0], "1-1")),
         "tile 1-1 is both in a hand and in the reserve", 0, None, "reserve"),
    Case("tile-twice-in-reserve", base(set_path(["rounds", 0, "reserve", 0], "0-4")),
         "tile 0-4 is in the reserve twice", 0, None, "reserve"),
    Case("hand-too-small", base(lambda d: d["rounds"][0]["hands"][0].pop()),
         "seat 0's hand has 5 tiles, the rules deal 6", 0, None, "hands[0]"),
    Case("hand-too-big", base(lambda d: d["rounds"][0]["hands"][1].append(
        d["rounds"][0]["reserve"].pop())), "seat 1's hand has 7 tiles, the rules deal 6", 0, None,
        "hands[1]"),
    Case("reserve-length", base(lambda d: d["rounds"][0]["reserve"].pop()),
         "the reserve has 15 tiles, expected 16", 0, None, "reserve"),
    Case("reserve-not-list", base(set_path(["rounds", 0, "reserve"], "0-0 0-4")),
         "'reserve' must be a list of tiles in draw order, or null", 0, None, "reserve"),
    Case("no-double-redeal", base(chain(swap_tiles("1-1", "1-3"), swap_tiles("2-2", "2-4"),
                                        swap_tiles("6-6", "2-5"))),
         "nobody holds a double: under no_double 'redeal' these tiles are dealt again", 0, None,
         "hands"),
    # ---- event structure ---------------------------------------------------------------------
    Case("event-not-object", base(set_event(1, "0-1:L")), "an event must be a JSON object", 0, 1),
    Case("event-unknown-field", base(set_event(1, {"seat": 1, "play": "0-1:L", "tile": "0-1"})),
         "unknown field 'tile' in an event", 0, 1, "tile"),
    Case("event-no-seat", base(set_event(1, {"play": "0-1:L"})), "an event has no 'seat' field",
         0, 1, "seat"),
    Case("event-seat-string", base(set_event(1, {"seat": "1", "play": "0-1:L"})),
         "'seat' must be an integer seat number, got '1'", 0, 1, "seat"),
    Case("event-seat-out-of-range", base(set_event(1, {"seat": 2, "play": "0-1:L"})),
         "seat 2 does not exist with 2 players", 0, 1, "seat"),
    Case("event-seat-negative", base(set_event(1, {"seat": -1, "play": "0-1:L"})),
         "seat -1 does not exist with 2 players", 0, 1, "seat"),
    Case("event-no-action", base(set_event(1, {"seat": 1})),
         "an event needs one of 'play', 'draw' or 'pass'", 0, 1),
    Case("event-two-actions", base(set_event(1, {"seat": 1, "play": "0-1:L", "draw": None})),
         "an event is one action, but this one has play and draw", 0, 1, "draw"),
    Case("event-pass-false", base(set_event(4, {"seat": 0, "pass": False})),
         "'pass' must be true, got false", 0, 4, "pass"),
    Case("event-play-number", base(set_event(1, {"seat": 1, "play": 1})),
         "expected a move 'a-b'", 0, 1, "play"),
    Case("event-play-bad-end", base(set_event(1, {"seat": 1, "play": "0-1:X"})),
         "bad move '0-1:X': the end after ':' must be L or R", 0, 1, "play"),
    Case("event-play-line-break", base(set_event(1, {"seat": 1, "play": "0-1:a\nb"})),
         "bad move '0-1:a\\nb': expected a move", 0, 1, "play"),
    Case("event-draw-bad-tile", base(set_event(6, {"seat": 0, "draw": "9-9"})),
         "bad tile '9-9': halves must be 0..6", 0, 6, "draw"),
    # ---- the lead ------------------------------------------------------------------------------
    Case("lead-with-an-end", base(set_event(0, {"seat": 0, "play": "1-1:L"})),
         "the lead is written '1-1', without an end", 0, 0, "play"),
    Case("lead-not-a-double", base(set_event(0, {"seat": 0, "play": "1-2"})),
         "the lead must be a double, not 1-2", 0, 0, "play"),
    Case("lead-higher-double-same-hand", base(chain(swap_tiles("2-3", "3-3"),
                                                     set_event(0, {"seat": 0, "play": "3-3"}))),
         "wrong lead: seat 0 must lead 1-1, not seat 0 3-3", 0, 0, "play"),
    Case("lead-by-the-wrong-seat", base(set_event(0, {"seat": 1, "play": "2-2"})),
         "out of turn: seat 0 is to move, not seat 1", 0, 0, "seat"),
    Case("lead-lower-double-held-elsewhere",
         base(chain(set_path(["rounds", 0, "hands", 1], None),
                    set_path(["rounds", 0, "reserve"], None),
                    keep_events(1), set_event(0, {"seat": 1, "play": "2-2"}))),
         "wrong lead: seat 0 holds 1-1, which leads before 2-2", 0, 0, "play"),
    Case("lead-highest-double-rule", base(set_path(["rules", "lead"], "highest-double")),
         "out of turn: seat 1 is to move, not seat 0", 0, 0, "seat"),
    Case("draw-before-lead", base(set_event(0, {"seat": 0, "draw": None})),
         "a draw before the lead", 0, 0),
    Case("pass-before-lead", base(set_event(0, {"seat": 0, "pass": True})),
         "a pass before the lead", 0, 0),
    # ---- plays ---------------------------------------------------------------------------------
    Case("play-does-not-fit", base(set_event(2, {"seat": 0, "play": "4-5:R"})),
         "4-5 does not fit the right end (ends 0 and 1)", 0, 2, "play"),
    Case("play-bare-fits-neither", base(set_event(2, {"seat": 0, "play": "4-5"})),
         "4-5 fits neither end (ends 0 and 1)", 0, 2, "play"),
    Case("play-bare-ambiguous", base(set_event(1, {"seat": 1, "play": "0-1"})),
         "0-1 fits both ends (1 and 1): write 0-1:L or 0-1:R", 0, 1, "play"),
    Case("play-bare-ambiguous-after-draw", base(set_event(7, {"seat": 0, "play": "0-0"})),
         "0-0 fits both ends (0 and 0): write 0-0:L or 0-0:R", 0, 7, "play"),
    Case("play-out-of-turn", base(set_event(1, {"seat": 0, "play": "1-2:R"})),
         "out of turn: seat 1 is to move, not seat 0", 0, 1, "seat"),
    Case("play-tile-another-hand-holds", base(set_event(1, {"seat": 1, "play": "1-2:R"})),
         "seat 1 does not hold 1-2: it is in seat 0's hand", 0, 1, "play"),
    Case("play-tile-in-the-reserve", base(set_event(1, {"seat": 1, "play": "1-3:R"})),
         "seat 1 does not hold 1-3: it is in the reserve", 0, 1, "play"),
    Case("play-tile-on-the-line", base(set_event(2, {"seat": 0, "play": "1-1:R"})),
         "seat 0 does not hold 1-1: it is on the line", 0, 2, "play"),
    Case("play-not-the-drawn-tile", base(set_event(1, {"seat": 1, "draw": "2-4"}), PARTIAL),
         "after drawing 2-4 seat 1 must play it, not 2-3", 0, 2, "play"),
    # ---- draws and passes ------------------------------------------------------------------------
    Case("pass-while-able-to-play", base(set_event(4, {"seat": 0, "pass": True})),
         "seat 0 may not pass: it holds 2-3, which fits", 0, 4),
    Case("draw-while-able-to-play", base(set_event(4, {"seat": 0, "draw": "0-0"})),
         "seat 0 may not draw: it holds 2-3, which fits", 0, 4),
    Case("pass-while-able-to-draw", base(set_event(6, {"seat": 0, "pass": True})),
         "seat 0 may not pass: it must draw (the reserve holds 16, 2 kept)", 0, 6),
    Case("pass-after-drawing-a-fit", base(set_event(7, {"seat": 0, "pass": True})),
         "seat 0 may not pass: it holds 0-0, which fits", 0, 7),
    Case("draw-after-drawing-a-fit", base(set_event(7, {"seat": 0, "draw": "0-4"})),
         "seat 0 may not draw: it holds 0-0, which fits", 0, 7),
    Case("draw-out-of-reserve-order", base(set_event(6, {"seat": 0, "draw": "0-4"})),
         "draw of 0-4, but the next reserve tile is 0-0", 0, 6, "draw"),
    Case("draw-a-tile-already-placed", base(set_event(1, {"seat": 1, "draw": "0-6"}), PARTIAL),
         "draw of 0-6, which is already in seat 0's hand", 0, 1, "draw"),
    Case("draw-one-twice", base(chain(_NO_FIT_FIRST, set_path(["rules", "draw"], "one"),
                                      keep_events(8), set_event(6, {"seat": 0, "draw": "1-3"}),
                                      set_event(7, {"seat": 0, "draw": None}))),
         "seat 0 may not draw twice in a turn under draw 'one'", 0, 7),
    Case("draw-kept-tiles-by-rule", base(set_path(["rules", "reserve_kept"], 16)),
         "seat 0 may not draw: the reserve is down to 16 and the last 16 are never drawn", 0, 6),
    Case("draw-last-two-tiles", base(_draw_instead_of_pass, BLOCKED),
         "may not draw: the reserve is down to 2 and the last 2 are never drawn", _PASS_R, _PASS_J),
    # ---- the end of rounds and of the match ------------------------------------------------------
    Case("event-after-round-out", base(lambda d: events(d).append({"seat": 0, "pass": True})),
         "no event may follow: the round ended (out)", 0, 18),
    Case("event-after-round-bare-play",
         base(lambda d: events(d).append({"seat": 0, "play": "3-4"})),
         "no event may follow: the round ended (out)", 0, 18),
    Case("play-out-of-turn-bare-ambiguous", base(set_event(1, {"seat": 0, "play": "0-1"})),
         "out of turn: seat 1 is to move, not seat 0", 0, 1, "seat"),
    Case("event-after-match-target", base(chain(set_path(["start_scores"], [13, 0]),
                                                keep_events(9))),
         "no event may follow: the match ended", 0, 8),
    Case("round-after-match-ended", base(lambda d: d["rounds"].append(copy.deepcopy(
        d["rounds"][0])), MATCH),
         f"the match ended in round {_N_MATCH_ROUNDS} ", _N_MATCH_ROUNDS, None),
    Case("unfinished-round-then-another", base(lambda d: events(d).pop(), MATCH),
         "but round 2 follows", 0, None),
    Case("blocked-with-unknown-hands", base(_hide_blocked, BLOCKED),
         "the round is blocked but the hands are not all known", 0, _LAST_PASS),
    # ---- proofs about hidden hands (above): a play or draw they rule out, refused at its event --
    Case("void-after-a-draw", VOID_AFTER_DRAW, "seat 1 cannot hold 3-4: its draw or pass at "
         "event 1 (ends 3 and 3) proved it held no 3", 0, 4, "play"),
    # Seat 1 of VOID_AFTER_PASS draws at ends 3 and 6: its hand and every tile it drew but the
    # last show neither. Only 12 unseen tiles do (15 in the set, 3 of them in seat 0's hand), so
    # its ninth draw (event 11: 5 held + 8 drawn before it = 13) is already impossible; the
    # whole hand is judged at each draw, not only when the turn ends (the pass, event 17).
    Case("void-after-a-pass", VOID_AFTER_PASS, "no deal of the hidden tiles fits", 0, 11, "draw"),
    Case("void-after-a-pass-two-draws-fewer", TWO_DRAWS_FEWER, "no deal of the hidden tiles fits",
         0, 11, "draw"),                                                   # still too many
    Case("no-double-lower-than-the-lead", LEAD_PROVES_NO_LOWER_DOUBLE,
         "seat 0 cannot hold 1-1: the lead proved no hand was dealt 1-1", 0, 2, "play"),
    # ---- positions ---------------------------------------------------------------------------
    P("json", '{"format": "bergen-position/1",\n "hand": [}', "bad JSON at line 2, column", None),
    P("format", pos(format="bergen-position/2"), "expected 'bergen-position/1'", "format"),
    P("format-record", pos(format="bergen-record/1"), "this is a record", "format"),
    P("unknown-field", pos(seat=0), "unknown field 'seat' in a position", "seat"),
    P("missing-hand-sizes", pos(hand_sizes=DELETE), "the 'hand_sizes' field is missing",
     "hand_sizes"),
    P("rules", pos(rules={"players": 2, "blocked": "french"}), "rule 'blocked' must be one of",
     "rules.blocked"),
    P("to-move-range", pos(to_move=2), "'to_move' must be a seat 0..1 with 2 players, got 2",
     "to_move"),
    P("to-move-string", pos(to_move="0"), "'to_move' must be a seat number", "to_move"),
    P("scores-length", pos(scores=[4, 7, 0]), "expected 2 entries (one per side), got 3",
     "scores"),
    P("scores-target", pos(scores=[4, 15]), "side 1 has 15 points, which already reaches the "
     "target 15", "scores[1]"),
    P("hand-bad-tile", pos(hand=["0-3", "1-2", "2-5", "7-7"]), "bad tile '7-7'", "hand"),
    P("hand-number", pos(hand=["0-3", "1-2", "2-5", 56]), "entry 3 must be a tile string",
     "hand"),
    P("hand-twice", pos(hand=["0-3", "1-2", "2-5", "3-0"]), "tile 0-3 is listed twice", "hand"),
    P("hand-empty", pos(hand=[]), "the hand is empty", "hand"),
    P("hand-on-line", pos(hand=["0-3", "1-2", "2-5", "1-4"]),
     "tile 1-4 is both in the hand and on the line", "hand"),
    P("line-disconnected", pos(line="1-1 1-4 4-6 4-4 6-3"), "6 does not touch 4", "line"),
    P("line-number", pos(line=11), "'line' must be a string", "line"),
    P("reserve-negative", pos(reserve_size=-1), "'reserve_size' must be a non-negative integer",
     "reserve_size"),
    P("reserve-string", pos(reserve_size="14"), "'reserve_size' must be a non-negative integer",
     "reserve_size"),
    P("reserve-too-big", pos(reserve_size=17, hand_sizes=[4, 2]),
     "the reserve holds 17 tiles, more than the 16 it starts with", "reserve_size"),
    P("sizes-length", pos(hand_sizes=[4, 5, 5]), "'hand_sizes' needs 2 entries", "hand_sizes"),
    P("sizes-not-list", pos(hand_sizes="4,5"), "'hand_sizes' must be a list", "hand_sizes"),
    P("sizes-own-hand", pos(hand_sizes=[5, 4]), "hand_sizes[0] is 5, but the hand of seat 0 "
     "(to move) holds 4 tiles", "hand_sizes[0]"),
    P("sizes-zero", pos(hand_sizes=[4, 0]),
     "seat 1 holds 0 tiles: with an empty hand the round is over", "hand_sizes[1]"),
    P("accounting", pos(reserve_size=13), "the tiles add up to 27, not 28: 4 in the hand, 5 on "
     "the line, 5 in the other hands, 13 in the reserve", "hand_sizes"),
    P("empty-line-drawn", pos(line="", hand_sizes=[4, 6], reserve_size=18 - 0 - 0),
     "the reserve holds 18 tiles, more than the 16", "reserve_size"),
    P("empty-line-reserve", pos(line="", hand=["0-3", "1-2", "2-5", "5-6", "3-3", "4-6"],
                                hand_sizes=[6, 7], reserve_size=15),
     "no tile is laid yet, so nobody has drawn: the reserve must hold 16, not 15",
     "reserve_size"),
    P("line-without-double", pos(line="1-4 4-6", hand_sizes=[4, 6], reserve_size=16),
     "the line holds no double, but under no_double 'redeal' the lead is a double", "line"),
    P("voids-not-object", pos(voids=[1, 4]), "'voids' must be an object", "voids"),
    P("voids-seat-range", pos(voids={"2": [1]}), "voids: seat 2 does not exist with 2 players",
     "voids.2"),
    P("voids-seat-name", pos(voids={"one": [1]}), "voids: 'one' is not a seat number", "voids"),
    P("voids-number", pos(voids={"1": [7]}), "voids of seat 1: 7 is not a number 0..6",
     "voids.1"),
    P("voids-own-hand", pos(voids={"0": [3]}), "seat 0 is listed void in 3, but its hand holds "
     "0-3", "voids.0"),
    P("voids-no-deal", pos(voids={"1": [0, 1, 2, 3, 4, 5]}), "no deal fits the voids: seat 1 "
     "must hold 5 tiles, but only 1 unseen tiles avoid their voids", "voids"),
]

IDS = [c.id for c in CASES]


def test_the_cases_are_many_named_once_and_the_base_records_legal():
    assert len(CASES) >= 40 and len(set(IDS)) == len(IDS)
    for d in (BASE, PARTIAL, MATCH):
        assert replay(load_record(json.dumps(d)))["ok"]
    assert replay(BLOCKED)["rounds"][BLOCKED_R]["end"] == "blocked"
    assert replay(base(chain(_NO_FIT_FIRST, keep_events(6))))["ok"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_error_is_one_line_that_starts_with_where(case):
    """`load_record` + `replay` (`load_position`): the error, located, in one line."""
    with pytest.raises(BergenError) as info:
        load_position(case.text) if case.position else replay(load_record(case.text))
    err = info.value
    text = str(err)
    assert case.words in text and "\n" not in text, text
    assert (err.round, err.event) == (case.round, case.event), text
    if case.field != "-":
        assert err.field == case.field, text
    where = [f"round {case.round + 1}"] if case.round is not None else []
    where += [f"event {case.event}"] if case.event is not None else []
    if where:
        assert text.startswith(where[0]) and all(w in text for w in where)


# ---- .jsonl --------------------------------------------------------------------------------------
def test_jsonl_errors_name_the_line():
    good = dump_record(BASE)
    bad = dump_record(base(set_event(2, {"seat": 0, "play": "4-5:R"})))
    text = good + "\n\n" + good + "\n" + bad + "\n"
    with pytest.raises(LineError) as info:
        list(iter_records(text, check=True))
    err = info.value
    assert (err.line, err.round, err.event) == (4, 0, 2)
    assert str(err).startswith("line 4, round 1, event 2")
    assert isinstance(err, BergenError)
    with pytest.raises(LineError, match=r"^line 2: bad JSON at column"):
        list(iter_records(good + "\n{oops\n"))
    # without check, only the structure is read
    assert len(list(iter_records(text))) == 3
    # `load_records` (`bergen replay`'s): a pretty record's line and column; a line's field
    pretty = (DATA / "record_base.json").read_text()
    assert pretty.splitlines()[3] == '  "start_scores": [0, 0],'
    with pytest.raises(BergenError, match=r"^bad JSON at line 5, column 3: expecting ','"):
        load_records(pretty.replace('"start_scores": [0, 0],', '"start_scores": [0, 0]'))
    with pytest.raises(LineError) as info:
        load_records(good + "\n" + good.replace('"format"', '"formats"') + "\n")
    assert info.value.line == 2 and "unknown field 'formats'" in str(info.value)
