"""The evaluation graph placed once (views/graph.py): known answers of `place`, and the board's
review lines carrying it (board/review_graph.py)."""
from __future__ import annotations

import json

from bergen_search.board.review_graph import ReviewGraphs
from bergen_search.formats.record_io import write_record
from bergen_search.game.rules import Rules
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines
from bergen_search.views.graph import Column, place, tick_text, ticks

MATCH = "examples/match.json"


def test_the_domain_is_whole_points_two_wide_at_least_and_its_ticks_round():
    p = place([Column(0, 0, None, 0.3), Column(0, 1, None, 0.1)], 2)
    assert (p.lo, p.hi) == (-1, 1) and p.axis == 0.0
    p = place([Column(0, 0, None, 0.3), Column(0, 1, None, 4.2)], 2)
    assert (p.lo, p.hi) == (-1, 5)
    p = place([Column(0, 0, None, float("inf")), Column(0, 0, None, None)], 2)
    assert (p.lo, p.hi) == (-1, 1)                    # only finite values widen it
    assert [c.points for c in p.curves] == [((0, float("inf")),)]
    m = place([Column(0, 0, None, 0.7)], 2, "match")
    assert (m.lo, m.hi, m.axis) == (0.0, 1.0, 0.5) and m.tick_texts[-1] == "100%"
    # round ticks, written with a true minus
    assert ticks(-3, 2) == [-3, -2, -1, 0, 1, 2]
    assert ticks(-10, 10) == [-10, -5, 0, 5, 10]
    assert [tick_text(t, "points") for t in (-2, 0, 1.5)] == ["−2", "0", "+1.5"]


def test_each_side_its_curve_dots_and_round_boundaries():
    cols = [Column(0, 0, (0.5, -0.5), 0.5),                       # every side's value known
            Column(0, 1, None, -1.0, 0, "mistake"),
            Column(1, 0, None, 2.0, 1, "blunder", borderline=True),
            Column(1, 1, None, 0.0, 2, exact=True)]
    p = place(cols, 2)
    assert p.columns == 4 and p.boundaries == ((0, 0), (2, 1))
    assert [(c.side, c.points) for c in p.curves] == [(0, ((0, 0.5), (2, 2.0))),
                                                     (1, ((0, -0.5), (1, -1.0), (3, 0.0)))]
    assert [(d.column, d.decision, d.side, d.label, d.borderline, d.exact) for d in p.dots] == \
        [(1, 0, 1, "mistake", False, False), (2, 1, 0, "blunder", True, False),
         (3, 2, 1, None, False, True)]
    # the marks' strip: a labelled call's marker, a borderline call's brackets (labelled or
    # not), nothing for a play without a call
    assert [d.mark for d in p.dots] == ["marker", "borderline", None]
    assert place([Column(0, 0, None, 0.0, 0, None, borderline=True)], 2).dots[0].mark == \
        "borderline"
    doc = p.to_json()
    assert json.loads(json.dumps(doc)) == doc and doc["ticks"][0] == [-1, "−1"]


def test_the_luck_lane_a_bar_per_column_with_luck_and_its_scale():
    cols = [Column(0, 0, None, 0.0, luck=2.5, luck_kind="deal"),
            Column(0, 1, None, 0.0, 0),                      # a decision: no luck there
            Column(0, 1, None, 0.0, luck=-0.75, luck_kind="draws")]
    p = place(cols, 2)
    assert [(b.column, b.side, b.value, b.kind) for b in p.luck] == \
        [(0, 0, 2.5, "deal"), (2, 1, -0.75, "draws")]
    assert p.luck_top == 2.5                           # the largest luck, either way
    small = place([Column(0, 0, None, 0.0, luck=-0.25, luck_kind="draws")], 2)
    assert small.luck_top == 1.0                       # 1 at least: a small luck looks small
    assert place([Column(0, 0, None, 0.0)], 2).luck == ()
    doc = p.to_json()
    assert doc["luck_top"] == 2.5 and doc["luck"][1] == {"column": 2, "side": 1,
                                                         "value": -0.75, "kind": "draws"}


def test_a_partnership_review_puts_each_seat_on_its_side():
    """Four seats, two curves: each seat's decisions on its side's curve."""
    rules = Rules(players=4, partnerships=True, target=4)
    record = write_record(play_engines(rules, parse_engine_list("greedy", 4), 5))
    graphs = ReviewGraphs()
    graphs.command(json.dumps({"cmd": "analyze", "id": 7, "record": record}))
    for k, seat in enumerate((0, 1, 2, 3, 2)):
        g = json.loads(graphs.line(_decision(k, seat, "1-2:L", float(k), rnd=k // 4,
                                             qid=7)))["graph"]
    assert [(d["decision"], d["side"]) for d in g["dots"]] == [(0, 0), (1, 1), (2, 0), (3, 1),
                                                              (4, 0)]
    assert [(c["side"], [i for i, _ in c["points"]]) for c in g["curves"]] == \
        [(0, [0, 2, 4]), (1, [1, 3])]
    assert g["boundaries"] == [[0, 0], [4, 1]] and (g["lo"], g["hi"]) == (-1, 4)
    assert g["sides"] == ["side 0 (seats 0 and 2)", "side 1 (seats 1 and 3)"]


def _decision(index, seat, played, value, label=None, rnd=0, qid="r1"):
    return json.dumps({"type": "decision", "index": index, "round": rnd, "event": index,
                       "seat": seat, "played": played, "best": played, "label": label,
                       "values": {played: value}, "borderline": False, "exact": False,
                       "id": qid})


def test_a_reviews_decisions_carry_the_placing_so_far():
    record = json.load(open(MATCH, encoding="utf-8"))
    graphs = ReviewGraphs()
    graphs.command(json.dumps({"cmd": "analyze", "id": "r1", "record": record}))
    graphs.command(json.dumps({"cmd": "go", "id": "g1"}))
    other = '{"type":"bestmove","best":"1-2:L","id":"g1"}'
    assert graphs.line(other) == other                         # not a review's: as it is
    first = json.loads(graphs.line(_decision(0, 0, "1-2:L", 0.4)))
    assert first["graph"]["columns"] == 1 and first["played"] == "1-2:L"
    second = json.loads(graphs.line(_decision(1, 1, "3-3:R", -2.5, "mistake")))
    g = second["graph"]
    assert g["columns"] == 2 and (g["lo"], g["hi"]) == (-3, 1)
    assert [(d["label"], d["mark"]) for d in g["dots"]] == [(None, None), ("mistake", "marker")]
    assert g["luck"] == [] and g["boundaries"] == [[0, 0]]     # decisions carry no luck
    assert [c["side"] for c in g["curves"]] == [0, 1]
    # the legend's names, and how many decisions the review judges, from the first one
    assert g["sides"] == ["seat 0", "seat 1"]
    assert first["decisions_total"] == second["decisions_total"] == 20   # match.json's decisions
    done = '{"type":"analysis","decisions":[],"id":"r1"}'
    assert graphs.line(done) == done and graphs.reviews == {}  # the review is over
    again = _decision(2, 0, "1-2:L", 0.1)
    assert graphs.line(again) == again                         # no review of that id now


def test_a_command_the_engine_refuses_starts_no_graph():
    graphs = ReviewGraphs()
    for raw in ('{"cmd": "analyze", "id": "x", "record": "not json"}', "analyze",
                '{"cmd": "analyze", "record": {}}', b'{"cmd": "analyze"}',
                '{"cmd": "analyze", "id": "y", "record": {"format": "bergen-record/1"}}'):
        graphs.command(raw)
    assert graphs.reviews == {}
