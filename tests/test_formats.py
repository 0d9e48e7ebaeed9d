"""The formats layer (FORMATS.md): notation, bergen-record/1, bergen-position/1; what must work,
round trips, known answers, the bundled examples (bad documents: test_record_errors.py)."""
import copy
import json
from pathlib import Path

import pytest
from support import ALL_VARIANTS, sizes

from bergen_search import __version__
from bergen_search.errors import BergenError
from bergen_search.formats.game import load
from bergen_search.formats.jsondoc import pretty_json
from bergen_search.formats.notation import (Line, Move, format_hand, format_line, format_move,
    format_tile, parse_hand, parse_int_list, parse_line, parse_move, parse_move_text,
    parse_tiles, resolve_move)
from bergen_search.formats.position import (Position, load_position, parse_position,
    position_from_flags, write_position)
from bergen_search.formats.record import FORMAT, Event, parse_record
from bergen_search.formats.record_io import (dump_record, iter_records, load_record,
    load_records, write_record)
from bergen_search.formats.replay import Step, events, final_state, replay, walk
from bergen_search.game.match import play_match
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, State
from bergen_search.game.tiles import parse_tile, popcount

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = ROOT / "examples"


def record_position(record):
    """The position an unfinished record describes, seen by its seat to move."""
    return load(record).position


def T(text):
    return parse_tile(text)


def data(name):
    return json.loads((DATA / name).read_text())


# ---- notation ---------------------------------------------------------------------------------
class TestTiles:
    def test_tiles_parse(self):
        assert parse_tiles("0-3 1-2") == [T("0-3"), T("1-2")]
        assert parse_tiles(["3-0", " 2-1 "]) == [T("0-3"), T("1-2")]
        assert parse_tiles("0-3, 1-2") == [T("0-3"), T("1-2")]
        assert parse_tiles("") == [] and parse_tiles([]) == []
        assert format_tile(T("5-3")) == "3-5"
        m = parse_hand("6-6 0-3 2-1")
        assert popcount(m) == 3
        assert format_hand(m) == ["0-3", "1-2", "6-6"]

    @pytest.mark.parametrize("reader, text, words", [
        ("hand", "0-3 3-0", "listed twice"),
        ("hand", "0-3 7-1", "halves must be 0..6"),
        ("hand", "0-3 3_4", "expected 'a-b'"),
        ("hand", "33", "expected 'a-b'"),
        ("hand", ["0-3", 12], "entry 1 must be a tile string"),
        ("hand", 12, "a string or a list of strings"),
        ("line", "5-3 4-6", "3 does not touch 4"),
        ("line", "3-5 3-3", "5 does not touch 3"),      # orientation matters
        ("line", "1-1 1-4 4-1", "tile 1-4 is laid twice"),
        ("line", "1-1 1-9", "halves must be 0..6"),
        ("line", ["1-1", None], "entry 1 must be a tile string"),
    ])
    def test_bad_tiles_and_lines(self, reader, text, words):
        with pytest.raises(BergenError, match=words):
            parse_tiles(text, "hand") if reader == "hand" else parse_line(text)


class TestLine:
    def test_formats_example(self):
        line = parse_line("5-3 3-3 3-6")
        assert line.pairs == ((5, 3), (3, 3), (3, 6))
        assert line.ends == (5, 6) and (line.left, line.right) == (5, 6)
        assert not line.left_double and not line.right_double
        assert line.mask == (1 << T("3-5")) | (1 << T("3-3")) | (1 << T("3-6"))
        assert str(line) == format_line(line) == "5-3 3-3 3-6"
        assert parse_line(["5-3", "3-3", "3-6"]) == line
        assert eval(repr(line)) == line
        line = parse_line("1-1 1-4 4-4")
        assert line.left_double and line.right_double and line.ends == (1, 4)
        single = parse_line("2-2")
        assert single.ends == (2, 2) and single.left_double and single.right_double
        for v in ("", "  ", [], None):
            line = parse_line(v)
            assert line.empty and line.ends is None and line.left == -1 and line.mask == 0


class TestMoves:
    line = parse_line("3-3 3-6")          # ends 3 and 6, left a double

    @pytest.mark.parametrize("text, line, move", [
        ("3-3", None, T("3-3") * 2),                    # the lead
        ("3-3", Line(), T("3-3") * 2),
        ("1-3:L", line, T("1-3") * 2),                  # an explicit end
        ("6-1:R", line, T("1-6") * 2 + 1),
        ("3-4:R", None, T("3-4") * 2 + 1),              # no line: taken as written
        ("4-3", line, T("3-4") * 2 + 0),                # bare, resolved to the one end
        ("6-4", line, T("4-6") * 2 + 1),
        ("6-4", (3, 6), T("4-6") * 2 + 1),              # ends as a pair
    ])
    def test_move_against_a_line(self, text, line, move):
        assert parse_move(text, line) == move

    @pytest.mark.parametrize("text, line, message", [
        ("3-3:R", Line(), "the lead is written '3-3', without an end"),
        ("1-3:R", line, r"1-3 does not fit the right end \(ends 3 and 6\)"),
        ("3-6", line, r"^3-6 fits both ends \(3 and 6\): write 3-6:L or 3-6:R$"),
        ("3-4", parse_line("3-1 1-1 1-6 6-3"), "write 3-4:L or 3-4:R"),
        ("1-2", line, r"1-2 fits neither end \(ends 3 and 6\)"),
        *((text, None, "L or R|expected a move|'a-b'") for text in (     # not a move at all
            "3-5:X", "3-5:", "3-5:l", "3-5:LR", "7-1:L", "35", "", 35, None, "3-5-6",
            "3-5:a\nb")),      # a line break after ':' included: a message, not a traceback
    ])
    def test_a_bad_move_names_why(self, text, line, message):
        with pytest.raises(BergenError, match=message):
            parse_move(text, line)

    def test_resolve_against_a_state(self):
        rules = Rules()
        s = State.deal(rules, [parse_hand("1-1 1-2 2-3 3-4 4-5 5-6"),
                               parse_hand("0-1 0-2 0-3 2-2 4-6 6-6")])
        s = s.apply(T("1-1") * 2)
        assert resolve_move(T("0-1"), 0, s) == T("0-1") * 2
        with pytest.raises(BergenError, match="fits both ends"):
            resolve_move(T("0-1"), None, s)

    def test_format_and_move_type(self):
        assert parse_move_text("3-5") == (T("3-5"), None)
        assert parse_move_text(" 5-3:L ") == (T("3-5"), 0)
        assert parse_move_text("5-3 : R") == (T("3-5"), 1)
        assert format_move(T("3-5") * 2 + 1) == "3-5:R"
        assert format_move(T("3-3") * 2, lead=True) == "3-3"
        assert format_move(DRAW) == "draw" and format_move(PASS) == "pass"
        m = Move.parse("5-3:R")
        assert m == Move(T("3-5"), 1) and m.code == T("3-5") * 2 + 1
        assert repr(m) == "Move.parse('3-5:R')" and eval(repr(m)) == m
        assert Move.parse("6-4", self.line) == Move(T("4-6"), 1)
        assert Move.parse("3-3", Line()) == Move(T("3-3"), None) and str(Move(T("3-3"))) == "3-3"
        assert Move.from_code(T("3-5") * 2, lead=True) == Move(T("3-5"))

    def test_reprs_paste_back(self):
        """repr of a Tile, a Move and a Line is an expression that makes an equal value (as
        python-chess's reprs are), for every tile, every move and the lines of real matches."""
        from bergen_search.game.tiles import N_TILES, Tile
        values = [Tile(t) for t in range(N_TILES)]
        values += [Move(t, end) for t in range(N_TILES) for end in (None, 0, 1)]
        values += [Move.parse("5-3:R"), Move.parse("6-4", self.line), Line(), self.line]
        for seed in range(3):
            for step in walk(write_record(play_match(Rules(), [0, 1], seed))):
                values.append(Line(tuple(step.after.line)))
        assert len({repr(v) for v in values if isinstance(v, Line)}) > 50
        for v in values:
            assert eval(repr(v)) == v, repr(v)
        assert repr(Move.parse("5-3:R")) == "Move.parse('3-5:R')"
        assert repr(Tile.parse("5-3")) == "Tile.parse('3-5')"
        assert repr(Line.parse("5-3 3-3")) == "Line.parse('5-3 3-3')"

    def test_int_lists(self):
        assert parse_int_list("4,7", "scores", 2) == [4, 7]
        assert parse_int_list(" 4 7 ", "scores") == [4, 7]
        with pytest.raises(BergenError, match="^expected 2 scores, got 1$"):
            parse_int_list("4", "scores", 2)
        with pytest.raises(BergenError, match="integers"):
            parse_int_list("4,x", "scores", 2)


# ---- records ----------------------------------------------------------------------------------
class TestRecordRoundTrip:
    @pytest.mark.parametrize("variant", ALL_VARIANTS, ids=lambda v: "-".join(map(str, v.values())))
    @pytest.mark.parametrize("matches", sizes(1, 2))
    def test_selfplay_replays_and_round_trips(self, variant, matches):
        """A whole match of every variant (two behind slow): written, read and replayed."""
        rules = Rules(**variant)
        for seed in range(matches):
            log = play_match(rules, [1, 0, 1, 0][:rules.players], seed)
            d = write_record(log)
            assert d["format"] == FORMAT and d["rules"] == rules.to_dict()
            rec = parse_record(d)
            assert rec.complete
            # parse -> write -> parse is the identity, and JSON text round trips too
            assert write_record(rec) == d
            assert parse_record(write_record(rec)) == rec
            assert load_record(dump_record(log)) == rec
            report = replay(rec)
            assert report["ok"] is True
            assert report["scores"] == list(log.scores)
            assert report["winner"] == log.winner and report["match_over"]
            assert [r["end"] for r in report["rounds"]] == [r.end for r in log.rounds]
            assert [r["scores"] for r in report["rounds"]] == [list(r.scores) for r in log.rounds]
            assert all(r["match_over"] == (i == len(log.rounds) - 1)
                       for i, r in enumerate(report["rounds"]))

    def test_start_scores_carry_over(self):
        log = play_match(Rules(), [1, 1], 3, start_scores=(9, 4))
        report = replay(write_record(log))
        assert report["rounds"][0]["start_scores"] == [9, 4]
        for prev, nxt in zip(report["rounds"], report["rounds"][1:]):
            assert nxt["start_scores"] == prev["scores"]
        assert report["scores"] == list(log.scores)

    def test_the_text_forms(self):
        """One line (`dump_record`), pretty (one event a line), `.jsonl` (`iter_records`, blank
        lines skipped); `load_records` takes one record, pretty or not, or a `.jsonl` file."""
        log = play_match(Rules(players=3), [0, 0, 0], 5)
        text = dump_record(log)
        assert "\n" not in text and json.loads(text) == write_record(log)
        assert dump_record(write_record(log)) == text == dump_record(parse_record(json.loads(text)))
        d = write_record(play_match(Rules(), [1, 1], 0))
        assert json.loads(pretty_json(d)) == d
        assert '{"seat": 0, "play": "2-2"}' in pretty_json(d)
        text = (DATA / "matches.jsonl").read_text()
        recs = list(iter_records(text, check=True))
        assert [r.rules.players for r in recs] == [2, 3, 4] and recs[2].rules.partnerships
        assert list(iter_records("\n\n" + text.splitlines()[0] + "\n   \n")) == recs[:1]
        assert load_records(text) == recs
        text = (DATA / "record_base.json").read_text()
        assert load_records(text) == [load_record(text)]

    def test_a_version_is_kept_and_any_string_is_read(self):
        """A record keeps the version it was written with (another's too; none without one);
        a position from another version is read."""
        d = write_record(play_match(Rules(), [1, 1], 4))
        assert d["version"] == __version__
        for version in (__version__, "0.0.1", None):
            doc = {k: v for k, v in dict(d, version=version).items() if v is not None}
            rec = load_record(json.dumps(doc))
            assert rec.version == version and write_record(rec) == rec.to_dict() == doc
        assert parse_position(dict(data("position_formats_example.json"), version="9"))


class TestReplay:
    def test_known_answer_base_record(self):
        report = replay(data("record_base.json"))
        events = report["rounds"][0]["events"]
        assert [e["event"] for e in events] == list(range(18))
        assert events[0] == {"event": 0, "seat": 0, "action": "1-1", "points": [2, 0],
                             "scores": [2, 0]}
        assert events[5]["points"] == [0, 2]          # 0-3:R: ends 0 and 0, a double match
        assert events[6] == {"event": 6, "seat": 0, "action": "draw", "tile": "0-0",
                             "points": [0, 0], "scores": [2, 2]}
        assert events[7]["points"] == [3, 0]          # 0-0:L: a triple match
        assert events[17]["points"] == [0, 2]         # 6-6:R: out, bonus 2
        rnd = report["rounds"][0]
        assert (rnd["end"], rnd["scores"], rnd["match_over"], rnd["to_move"]) == \
            ("out", [5, 4], False, None)
        assert (report["scores"], report["winner"], report["match_over"]) == ([5, 4], None, False)

    def test_formats_example_partial_record(self):
        rec = load_record((DATA / "record_formats_example.json").read_text())
        assert not rec.complete and rec.rounds[0].hands[1] is None
        report = replay(rec)
        rnd = report["rounds"][0]
        assert rnd["end"] == "unfinished" and rnd["to_move"] == 1
        assert rnd["events"][1] == {"event": 1, "seat": 1, "action": "draw", "tile": None,
                                    "points": [0, 0], "scores": [2, 0]}
        state = final_state(rec)
        assert state.to_move == 1 and state.line == ((0, 2), (2, 2), (2, 3), (3, 6), (6, 5))
        assert state.hand_size(1) == 5 and state.reserve_size == 15

    def test_every_end_and_unfinished_rounds(self):
        report = replay(write_record(play_match(Rules(), [1, 1], 0)))
        assert [r["end"] for r in report["rounds"]] == ["out", "blocked", "out", "target"]
        assert [e["action"] for e in report["rounds"][1]["events"][-2:]] == ["pass", "pass"]
        d = data("record_base.json")
        d["rounds"][0]["events"] = []
        assert replay(d)["rounds"][0]["end"] == "unfinished"
        assert replay(d)["rounds"][0]["to_move"] == final_state(d).to_move == 0
        assert not final_state(d).led
        log = play_match(Rules(), [1, 1], 2)
        d = write_record(log)
        d["rounds"][-1]["events"] = d["rounds"][-1]["events"][:3]
        report = replay(d)
        assert report["rounds"][-1]["end"] == "unfinished" and report["winner"] is None
        assert report["rounds"][-1]["start_scores"] == list(log.rounds[-2].scores)
        state = final_state(d)
        assert state.ended is None and len(state.line) == sum(
            1 for e in d["rounds"][-1]["events"] if "play" in e)

    def test_bare_moves_resolved_against_the_line(self):
        d = data("record_base.json")
        bare = copy.deepcopy(d)
        for i in (2, 4, 10, 12):      # plays that fit one end only
            e = bare["rounds"][0]["events"][i]
            e["play"] = e["play"].split(":")[0]
        rec = parse_record(bare)
        assert rec.rounds[0].events[2] == Event(0, "play", T("1-2"), None)
        assert replay(rec) == replay(d)
        assert write_record(rec)["rounds"][0]["events"][2] == {"seat": 0, "play": "1-2"}

    def test_events_are_typed(self):
        """`replay.events`: per round a RoundStart, a Play/Draw/Pass per event with the public
        types (the move as the record writes it, the tile drawn or None when unseen), the states
        chained, then a RoundEnd; the same steps as `walk`, one per event of the match."""
        from bergen_search.formats.replay import (Draw, Pass, Play, RoundEnd, RoundStart, Step,
            events)
        log = play_match(Rules(players=3), [1, 0, 1], 4)
        rec = write_record(log)
        items = list(events(rec))
        assert [type(e) for e in items if not isinstance(e, Step)] == \
            [RoundStart, RoundEnd] * len(log.rounds)
        def key(e):
            return type(e), e.round, e.event, e.seat, e.action
        assert [key(e) for e in items if isinstance(e, Step)] == [key(e) for e in walk(rec)]
        assert [(st.seat, st.action) for st in walk(rec)] == \
            [(s, a) for r in log.rounds for s, a, _ in r.events]
        state = None
        for e in items:
            if isinstance(e, RoundStart):
                assert e.state.to_move >= 0 and not e.state.led
                state = e.state
                continue
            if isinstance(e, RoundEnd):
                assert e.state is state and e.state.ended == log.rounds[e.round].end
                continue
            assert e.before is state and e.seat == state.to_move
            written = rec["rounds"][e.round]["events"][e.event]
            assert e.kind in written and e.action == log.rounds[e.round].events[e.event][1]
            if isinstance(e, Play):
                assert e.move == Move.parse(written["play"]) and e.move.code == e.action
                assert e.tile.index == e.action >> 1
            elif isinstance(e, Draw):
                assert str(e.tile) == written["draw"] and e.action == DRAW
            else:
                assert isinstance(e, Pass) and e.action == PASS
            state = e.after
        assert {type(e) for e in items} >= {Play, Draw, Pass}
        # A draw the record's author did not see is a Draw whose tile is None.
        unseen = [e for e in events(data("record_formats_example.json"))
                  if isinstance(e, Draw) and e.tile is None]
        assert unseen and all(e.seat == 1 for e in unseen)

    def test_optional_fields(self):
        d = data("record_base.json")
        del d["start_scores"]
        del d["rules"]
        del d["rounds"][0]["reserve"]
        rec = parse_record(d)
        assert rec.rules == Rules() and rec.start_scores == (0, 0)
        assert rec.rounds[0].reserve is None
        assert replay(rec)["scores"] == [5, 4]   # all hands known: blocked-free, scorable


# ---- positions --------------------------------------------------------------------------------
class TestPosition:
    def test_formats_example_round_trips(self):
        """FORMATS.md's example (examples/position.json too): its fields, written and read back."""
        assert json.loads((EXAMPLES / "position.json").read_text()) == \
            data("position_formats_example.json")
        pos = load_position((DATA / "position_formats_example.json").read_text())
        assert pos.to_move == 0 and pos.scores == (4, 7)
        assert pos.hand == parse_hand("0-3 1-2 2-5 5-6")
        assert pos.line == ((1, 1), (1, 4), (4, 4), (4, 6), (6, 3))
        assert pos.ends == (1, 3) and pos.left_double and not pos.right_double
        assert pos.hand_sizes == (4, 5) and pos.reserve_size == 14
        assert pos.voids == {1: frozenset({1, 4})}
        assert popcount(pos.unseen) == 28 - 4 - 5
        d = write_position(pos)
        assert d["line"] == "1-1 1-4 4-4 4-6 6-3" and d["voids"] == {"1": [1, 4]}
        assert d["rules"] == Rules().to_dict()
        assert parse_position(d) == pos
        assert parse_position(json.loads(json.dumps(d))) == pos
        no_voids = Position(pos.rules, pos.scores, 0, pos.hand, pos.line, pos.hand_sizes,
                            pos.reserve_size)
        assert "voids" not in write_position(no_voids)
        d = data("position_formats_example.json")     # the line as a list, no optional field
        d["line"] = d["line"].split()
        del d["voids"], d["rules"], d["scores"]
        assert parse_position(d).scores == (0, 0) and parse_position(d).voids == {}

    def test_from_flags(self):
        """The flags give FORMATS.md's example; the sizes left out are derived; rules taken."""
        pos = position_from_flags(hand="0-3 1-2 2-5 5-6", line="1-1 1-4 4-4 4-6 6-3",
                                  hand_sizes="4,5", reserve_size="14", scores="4,7",
                                  players=2, to_move="0", voids={"1": [1, 4]})
        assert pos == parse_position(data("position_formats_example.json"))
        base = dict(hand="0-3 1-2 2-5 5-6", line="1-1 1-4 4-4 4-6 6-3")
        assert position_from_flags(**base, hand_sizes="4,5").reserve_size == 14
        assert position_from_flags(**base, reserve_size=14).hand_sizes == (4, 5)
        lead = position_from_flags(hand="0-3 1-1 2-5 5-6 3-4 0-0")
        assert lead.hand_sizes == (6, 6) and lead.reserve_size == 16 and lead.ends is None
        three = position_from_flags(hand="0-3 1-1 2-5 5-6 3-4 0-0", players=3, to_move=2)
        assert three.hand_sizes == (6, 6, 6) and three.reserve_size == 10
        assert three.rules.target == 10 and three.scores == (0, 0, 0)
        four = position_from_flags(hand="0-3 1-1 2-5 5-6 3-4", players=4, partnerships=True,
                                   scores="3,4")
        assert four.rules.n_sides == 2 and four.hand_sizes == (5,) * 4
        pos = position_from_flags(hand="0-3 1-1 2-5 5-6 3-4 0-0", rules={"target": 21},
                                  scores="18,20")
        assert pos.rules.target == 21
        pos = position_from_flags(hand="0-3 1-1 2-5 5-6 3-4 0-0", rules=Rules(out_bonus=5),
                                  players=3)
        assert pos.rules.players == 3 and pos.rules.out_bonus == 5 and pos.rules.target == 10

    def test_voids_from_a_record(self):
        """Seat 1 drew at ends 2 and 2, then played the drawn 2-3: its hand holds no 2 (and
        still after a play); a pass without drawing adds the ends it passed at."""
        d = data("record_formats_example.json")
        d["rounds"][0]["events"] += [{"seat": 1, "play": "0-5:L"}]
        pos = record_position(d)
        assert pos.to_move == 0 and pos.voids == {1: frozenset({2})}
        assert pos.hand_sizes == (3, 4) and pos.reserve_size == 15
        d = data("record_base.json")
        d["rules"] = {"reserve_kept": 16}       # nobody may draw: seats pass instead
        d["rounds"][0]["events"] = d["rounds"][0]["events"][:6] + [{"seat": 0, "pass": True}]
        assert record_position(d).voids == {0: frozenset({0})}


# ---- the bundled examples ----------------------------------------------------------------------
class TestExamples:
    def test_match_is_complete_and_replays(self):
        rec = load_record((EXAMPLES / "match.json").read_text())
        assert rec.complete and rec.rules.players == 2
        report = replay(rec)
        assert report["match_over"] and report["winner"] is not None
        assert all(r["end"] != "unfinished" for r in report["rounds"])
        assert json.loads((EXAMPLES / "match.json").read_text()) == write_record(rec)

    def test_partial_is_seen_from_one_seat_with_voids(self):
        rec = load_record((EXAMPLES / "partial.json").read_text())
        assert not rec.complete
        assert [h is None for h in rec.rounds[-1].hands] == [False, True]
        report = replay(rec)
        assert report["rounds"][-1]["end"] == "unfinished"
        assert report["rounds"][-1]["to_move"] == 0
        # the other seat's draws were not seen
        assert all(e.tile is None for e in rec.rounds[-1].events
                   if e.kind == "draw" and e.seat == 1)
        pos, state = record_position(rec), final_state(rec)
        assert pos.to_move == state.to_move == 0
        assert pos.hand == state.hands[0] and pos.line == state.line
        assert sum(pos.hand_sizes) + pos.reserve_size + len(pos.line) == 28
        assert pos.voids and 0 not in pos.voids


# ---- positions the readers refuse (documents: test_record_errors.py) ----------------------
def test_a_hand_without_a_double_before_the_lead_is_a_position():
    """Before the lead a hand without a double is a position: another seat leads."""
    from bergen_search.information.lead import leads
    pos = parse_position(dict(data("position_formats_example.json"), line="",
                              hand=["0-3", "1-2", "2-5", "5-6", "3-4", "4-6"],
                              hand_sizes=[6, 6], reserve_size=16))
    assert not pos.line and {seat for seat, _, _ in leads(pos.rules, 0, pos.hand)} == {1}


def test_voids_joint_deal_is_checked():
    # 3 players: seats 1 and 2 each fit alone, but not both at once (Hall's condition).
    d = {"format": "bergen-position/1", "rules": {"players": 3}, "to_move": 0,
         "hand": ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5"], "line": "6-6",
         "hand_sizes": [6, 6, 5], "reserve_size": 10}     # seat 2 led 6-6
    d["voids"] = {"1": [1, 2, 3], "2": [1, 2, 3]}   # both draw from {0-6, 4-4, 4-5, 4-6, 5-5, 5-6}
    with pytest.raises(BergenError, match="no deal fits the voids: seats 1 and 2 must hold 11"):
        parse_position(d)
    d["voids"] = {"1": [1, 2, 3]}
    assert parse_position(d).voids == {1: frozenset({1, 2, 3})}


def test_position_four_players_partnerships():
    d = {"format": "bergen-position/1", "rules": {"players": 4, "partnerships": True},
         "scores": [3, 8], "to_move": 3, "hand": ["0-0", "0-3", "1-2", "2-5", "5-6"],
         "line": "1-1 1-4", "hand_sizes": [5, 4, 4, 5], "reserve_size": 8,
         "voids": {"0": [1], "2": [4, 1]}}
    pos = parse_position(d)
    assert pos.rules.n_sides == 2 and pos.voids == {0: frozenset({1}), 2: frozenset({1, 4})}
    assert parse_position(write_position(pos)) == pos


#: (the flags, a piece of the message, the flag it names; more, exact: test_messages.py)
@pytest.mark.parametrize("kw, words, field", [
    (dict(hand="0-3 1-2", line="1-1 1-4 4-4 4-6 6-3"), "give --hand-sizes or --reserve-size",
     "--hand-sizes"),
    (dict(hand="0-3 1-2", line="1-1 1-4 4-4 4-6 6-3", reserve_size=10, players=3),
     "give --hand-sizes", "--hand-sizes"),
    (dict(hand=None), "the hand of the seat to move is needed", "--hand"),
    (dict(hand="0-3 1-2", line="1-1 4-4", hand_sizes="2,5"), "1 does not touch 4", "--line"),
    (dict(hand="0-3 1-2", line="1-1 1-4", hand_sizes="2,2"), "the hand sizes 2,2 leave 22 tiles "
     "for the reserve, which holds 0..16", "--hand-sizes"),
    (dict(hand="0-3 1-1 2-2 3-4 5-5 6-6", scores="4,15"), "side 1 has 15 points",
     "--scores[1]"),
    (dict(hand="0-3 1-1 2-2 3-4 5-5 6-6", to_move="x"), "expected a seat number",
     "--to-move"),
    (dict(hand="0-3 1-2", line="1-1 1-4", reserve_size="many"), "expected a number of tiles",
     "--reserve-size"),
    (dict(hand="0-3 1-1 2-2 3-4 5-5 6-6", players=5), "rule 'players' must be 2, 3 or 4",
     "--players"),
    (dict(hand="0-3 1-1 2-2 3-4 5-5 6-6", partnerships=True), "partnerships need 4 players",
     "--partnerships"),
])
def test_bad_flags(kw, words, field):
    with pytest.raises(BergenError) as info:
        position_from_flags(**kw)
    assert words in str(info.value), str(info.value)
    assert info.value.field == field, str(info.value)


def test_position_from_record_needs_the_viewpoint_hand():
    d = data("record_formats_example.json")     # seat 1 (hand unseen) is to move
    with pytest.raises(BergenError, match="seat 1 is to move, but the record does not show"):
        record_position(d)
    with pytest.raises(BergenError, match=r"round is over \(out\)"):
        record_position(data("record_base.json"))


def test_json_lines_read_as_one_document_are_told_by_a_field_not_the_message():
    """`extra_data` marks a whole JSON value followed by more (a .jsonl file), and only that."""
    from bergen_search.errors import JSONError
    from bergen_search.formats.jsondoc import parse_json
    with pytest.raises(JSONError) as e:
        parse_json('{"a": 1}\n{"a": 2}\n')
    assert e.value.extra_data and e.value.line == 2
    with pytest.raises(JSONError) as e:
        parse_json('{"a": 1')
    assert not e.value.extra_data


def test_seen_steps_gives_each_step_with_every_seats_view_before_it():
    """`seen_steps`: one pair per Step, in order; the view of the seat to move is its
    information set before the step (its own hand, the line as it stood)."""
    from bergen_search.formats.record_io import write_record
    from bergen_search.formats.replay import seen_steps
    played = write_record(play_match(Rules(), [0, 1], 7))
    steps = [s for s in events(played) if isinstance(s, Step)]
    seen = 0
    for (step, observers), want in zip(seen_steps(played), steps):
        assert (step.round, step.event) == (want.round, want.event)
        if step.before.led:
            info = observers[step.seat].infoset(step.seat)
            assert info.hand == step.before.hands[step.seat]
            assert (info.left, info.right) == (step.before.left, step.before.right)
        seen += 1
    assert seen == len(steps) > 10
