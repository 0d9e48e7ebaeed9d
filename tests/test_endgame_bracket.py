"""The bracket where the exact endgame is out of reach: floors hold, LP within, no peek."""
from __future__ import annotations

import dataclasses
import json

import pytest
from support import sizes, stage_cuts
from test_endgame import SequenceForm, small_positions

from bergen_search.formats.game import load_game
from bergen_search.formats.notation import Move
from bergen_search.search import endgame
from bergen_search.search.endgame import public
from bergen_search.search.endgame import reference as endgame_ref
from bergen_search.search.api import Limits, Settings, search

pytest.importorskip("bergen_search.search.endgame._endgame")
BRACKET = "examples/bracket.json"


@pytest.fixture(scope="module")
def positions():
    return small_positions(n=16, seed=7, limit=8)


def _moves_after(info):
    g = endgame.game(info, shown=True)
    rep = g.deals[0]
    s = public.state_of(g.rules, g.root, [g.hands[q][rep[q]] for q in range(2)])
    return g, public.public_moves(s, [g.hands[g.seat][g.hand_index]])


@pytest.mark.parametrize("count", sizes(8, 16))
def test_the_shown_game_is_the_full_games_deals_with_this_hand(positions, count):
    for info, _ in positions[:count]:
        full = endgame.game(info)
        shown = endgame.game(info, shown=True)
        p = full.seat
        mine = full.hands[p][full.hand_index]
        want = sorted((full.hands[1 - p][d[1 - p]], d[2]) for d in full.deals
                      if d[p] == full.hand_index)
        got = sorted((shown.hands[1 - p][d[1 - p]], d[2]) for d in shown.deals)
        # the same deals, their weights in the same proportions (a constant factor: the
        # histories of the seat's own tiles, the same for every deal of this hand)
        assert [h for h, _ in got] == [h for h, _ in want]
        ratios = [w / v for (_, w), (_, v) in zip(want, got)]
        assert max(ratios) - min(ratios) <= 1e-9 * max(ratios)
        assert {shown.hands[p][d[p]] for d in shown.deals} == {mine}


@pytest.mark.parametrize("count", sizes(8, 16))
def test_every_floor_holds_against_the_full_games_answers(positions, count):
    """Every floor holds against the full game's solve."""
    checked = 0
    for info, _ in positions[:count]:
        b = endgame.bracket(info, tolerance=1e-4)
        assert not b.missing
        sol = endgame.solve(endgame.game(info), tolerance=1e-4)
        for m, floor in b.floors.items():
            assert floor <= b.ceilings[m] + 1e-12
            assert b.ceilings[m] - floor <= 1e-4 + 1e-12
            assert sol.values[m] >= floor - 1e-9, (m, sol.values[m], floor)
            checked += 1
    assert checked >= count


def test_the_shown_games_value_lies_in_the_bracket(positions):
    """An independent sequence-form LP of the shown game after each move (scipy's HiGHS)."""
    pytest.importorskip("scipy")
    checked = 0
    for info, _ in positions[:8]:
        g, moves = _moves_after(info)
        b = endgame.bracket(info, tolerance=0.05)
        sign = 1.0 if g.seat == 0 else -1.0
        for m in moves:
            sub = endgame.after(g, m)
            if sub is None:
                continue
            tree = endgame_ref.build(sub.rules, sub.root, sub.hands, sub.deals)
            lp = sign * SequenceForm(tree).value() / sub.weight
            moved = sign * ((sub.root.scores[0] - g.root.scores[0])
                            - (sub.root.scores[1] - g.root.scores[1]))
            name = Move.from_code(m)
            assert b.floors[name] - 1e-7 <= moved + lp <= b.ceilings[name] + 1e-7
            checked += 1
    assert checked >= 8


def test_with_one_deal_left_the_bracket_is_the_minimax(positions):
    """With one deal left floor = ceiling = the minimax of the hands after the move."""
    found = 0
    for info, state in positions:
        g, moves = _moves_after(info)
        if len(g.deals) != 1:
            continue
        b = endgame.bracket(info, tolerance=1e-9)
        hands = (state.hands[0], state.hands[1])
        sign = 1.0 if g.seat == 0 else -1.0
        for m in moves:
            s = public.state_of(g.rules, g.root, hands).apply(m)
            gained = sign * ((s.scores[0] - g.root.scores[0]) - (s.scores[1] - g.root.scores[1]))
            if s.ended is None:
                gained += sign * endgame_ref.minimax(g.rules, public.root_of(s), s.hands)
            name = Move.from_code(m)
            assert abs(b.floors[name] - gained) < 1e-7 and abs(b.ceilings[name] - gained) < 1e-7
        found += 1
    assert found


# ---- the engine ---------------------------------------------------------------------------------
def _bracket_info():
    with open(BRACKET, encoding="utf-8") as f:
        return load_game(f.read())


def test_a_declined_position_is_bracketed_under_an_iteration_budget():
    info = _bracket_info()
    res = search(info, Limits(iterations=100_000), seed=0)
    eg = res.info["endgame"]
    assert eg["solved"] is False and "too big" in eg["why"] and not res.info["exact"]
    b = eg["bracket"]
    assert b["shown"] is True and not b["missing"] and b["deals"] == 36
    _, moves = _moves_after(info)
    assert set(b["floor"]) == set(b["ceiling"]) == {Move.from_code(m) for m in moves}
    for m in b["floor"]:
        assert b["floor"][m] <= b["ceiling"][m] <= b["floor"][m] + 0.02
    # the floors hold: the search's own values (an opponent who does not see the hand) are
    # no lower, beyond their error
    values = {mv.move: mv for mv in res.moves}
    for m, floor in b["floor"].items():
        assert values[m].value >= floor - 3 * values[m].stderr
    # under a time limit the clock is the move's: no bracket
    timed = search(info, Limits(time=0.3), seed=0)
    assert "bracket" not in timed.info["endgame"] and "bracket_why" not in timed.info["endgame"]
    off = search(info, Limits(iterations=100_000), seed=0, bracket=False)
    assert "bracket" not in off.info["endgame"] and "bracket_why" not in off.info["endgame"]
    # the bracket is said, not played: the search's answer is the same without it
    assert off.moves == res.moves and off.best == res.best


def test_best_and_eval_print_the_bracket(tmp_path):
    from click.testing import CliRunner

    from bergen_search.cli import main
    short = CliRunner().invoke(main, ["best", BRACKET]).output
    assert ("floor: 4-4:L/R secures at least -2.031 whatever the other side holds\n"
            "  (certified, against any play of the other side; --verbose: every move's bracket)"
            in short)
    assert "ceiling" not in short      # it bounds another game: only --verbose shows it
    out = CliRunner().invoke(main, ["best", BRACKET, "--verbose"]).output
    assert "bracket: the round solved with this hand shown to the other side, 36 deals" in out
    assert "  move         floor  ceiling if shown" in out
    assert "  4-4:L/R     -2.03" in out
    doc = json.loads(CliRunner().invoke(main, ["best", BRACKET, "--json"]).output)
    assert doc["exact"] is False and doc["endgame"]["bracket"]["floor"]["4-4:L"] < -2.0
    assert doc["endgame"]["bracket"]["missing"] == []
    out = CliRunner().invoke(main, ["eval", BRACKET]).output
    assert "floor: 4-4:L/R secures at least -2.031 whatever the other side holds" in out
    assert "ceiling" not in out
    out = CliRunner().invoke(main, ["eval", BRACKET, "--verbose"]).output
    assert "bracket: the round solved with this hand shown to the other side, 36 deals" in out


def test_a_decline_costs_no_build_and_no_memory(monkeypatch):
    """decision.json is declined from its prediction alone, nothing found or built."""
    import tracemalloc
    info = load_game(open("examples/decision.json", encoding="utf-8").read())

    def never(*a, **k):
        raise AssertionError("built")
    for module, name in ((endgame.deals, "public_table"), (endgame.deals, "game"),
                         (endgame.solving, "solve"), (endgame.solvers, "build")):
        monkeypatch.setattr(module, name, never)
    tracemalloc.start()
    try:
        tried = endgame.attempt(info, Limits(iterations=100_000), seed=0, objective="points")
        with pytest.raises(endgame.TooBig, match="with this hand shown its tree is still too "
                                                 "big .*predicted"):
            endgame.bracket(info, max_work=endgame.budget_work(100_000), seconds=1.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tried.result is None and tried.bracket is None and "predicted" in tried.why
    assert "too big" in tried.why and peak < 200_000
    shown = endgame.predict(info, shown=True)
    assert shown.steps <= endgame.budget.PREDICT_STEPS
    p = endgame.predict(info, stop_above=endgame.allowance(100_000 * 600, None)[1]
                        / endgame.budget.PREDICT_WORK_PER_PAIR)
    assert p.steps <= endgame.budget.PREDICT_STEPS and p.walks == endgame.budget.PREDICT_MIN_WALKS
    # the seat's own hand plays no part in it (what is declined reveals nothing)
    assert endgame.predict(dataclasses.replace(info, hand=info.hand ^ 0b11)) == \
        endgame.predict(info)


def test_no_peek_the_bracket_does_not_move_when_the_hidden_hand_is_filled_in():
    """The bracket is the same with the other hand hidden or shown."""
    for shown, hidden in stage_cuts(1700, 300):
        a_res = search(load_game(shown), Limits(iterations=300), seed=4)
        b_res = search(load_game(hidden), Limits(iterations=300), seed=4)
        a_eg, b_eg = a_res.info.get("endgame", {}), b_res.info.get("endgame", {})
        if "bracket" in a_eg:
            drop = ("seconds",)
            assert {k: v for k, v in a_eg["bracket"].items() if k not in drop} == \
                {k: v for k, v in b_eg["bracket"].items() if k not in drop}
            assert a_res.moves == b_res.moves
            return
    pytest.fail("no cut was bracketed")


def test_the_bracket_hears_stop():
    """A stop already set: nothing bracketed past the first check, the rest missing."""
    import threading
    info = _bracket_info()
    stop = threading.Event()
    stop.set()
    with pytest.raises(endgame.TooBig):
        endgame.bracket(info, stop=stop)
    b = endgame.bracket(info)           # and nothing of that stop is left behind
    assert b.deals == 36 and not b.missing


def test_the_oracle_brackets_alike(positions, monkeypatch):
    """The pure-Python solver gives the compiled solver's floors and ceilings."""
    compiled = {}
    for k, (info, _) in enumerate(positions[:4]):
        compiled[k] = endgame.bracket(info, tolerance=1e-3)
    monkeypatch.setattr(endgame.native, "compiled", lambda: None)
    for k, (info, _) in enumerate(positions[:4]):
        ref = endgame.bracket(info, tolerance=1e-3)
        assert ref.floors.keys() == compiled[k].floors.keys()
        for m in ref.floors:
            assert ref.floors[m] == pytest.approx(compiled[k].floors[m], abs=1e-9)
            assert ref.ceilings[m] == pytest.approx(compiled[k].ceilings[m], abs=1e-9)
        assert ref.iterations == compiled[k].iterations


def test_the_engine_protocol_answers_with_the_bracket():
    from bergen_search.protocol.client import EngineProcess
    with open(BRACKET, encoding="utf-8") as f:
        text = f.read()
    with EngineProcess.start(timeout=60) as engine:
        doc = engine.analyse(text, Limits(iterations=20000))
    b = doc["endgame"]["bracket"]
    assert doc["exact"] is False and b["deals"] == 36 and b["missing"] == []
    assert b["floor"]["4-4:L"] == pytest.approx(-2.031, abs=0.002)


def test_a_move_predicted_beyond_its_share_is_never_built(monkeypatch):
    """A move predicted too big is missing, its tree never built."""
    info = _bracket_info()
    g, moves = _moves_after(info)
    big = moves[0]
    real_predict, real_build = endgame.predict, endgame.solvers.build
    built = []

    def predict(info_, stop_above=0.0, shown=False, move=None):
        p = real_predict(info_, stop_above, shown, move)
        return p if move != big else endgame.Prediction(p.deals, 1e12, p.steps, p.walks)

    def build(sub, cap, seconds=0.0, **kwargs):
        built.append(sub.root)
        return real_build(sub, cap, seconds, **kwargs)
    monkeypatch.setattr(endgame.prediction, "predict", predict)
    monkeypatch.setattr(endgame.solvers, "build", build)
    b = endgame.bracket(info)
    assert b.missing == (Move.from_code(big),)
    assert endgame.after(g, big).root not in built
    assert len(built) == len(moves) - 1 and set(b.floors) == {Move.from_code(m) for m in moves[1:]}


def test_ctrl_c_heard_inside_the_bracket_stops_the_attempt(monkeypatch):
    """Ctrl-C inside a bracket's DCFR: the attempt says interrupted, moves kept."""
    info = _bracket_info()
    real = endgame.solvers.iterate
    calls = []

    def iterate(*args, **kwargs):
        run = real(*args, **kwargs)
        calls.append(1)
        return dataclasses.replace(run, interrupted=True)
    monkeypatch.setattr(endgame.solvers, "iterate", iterate)
    tried = endgame.attempt(info, Limits(iterations=100_000), seed=0, objective="points",
                            bracketing=True)
    assert tried.result is None and tried.interrupted
    assert tried.bracket is not None and tried.bracket.interrupted
    assert len(calls) == 1 and len(tried.bracket.floors) == 1 and len(tried.bracket.missing) == 2
    res = search(info, Limits(iterations=100_000), seed=0)
    assert res.info["interrupted"] and res.info["iterations"] < 100_000


def _count_brackets(monkeypatch):
    """The list each bracket appends to."""
    real, calls = endgame.bracket, []

    def bracket(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(endgame.shown, "bracket", bracket)
    return calls


def test_a_review_spends_nothing_on_brackets_unless_asked(monkeypatch):
    """`analyze` runs with `bracket` off unless its settings ask for it."""
    from bergen_search.analysis.review import analyze
    from bergen_search.formats.record import parse_record
    with open("examples/match.json", encoding="utf-8") as f:
        record = parse_record(json.loads(f.read()))
    calls = _count_brackets(monkeypatch)
    plain = analyze(record, limits=Limits(iterations=300), seed=0)
    assert not calls
    asked = analyze(record, limits=Limits(iterations=300), seed=0,
                    settings=Settings.of("ismcts", {"bracket": True}))
    assert calls, "no stage decision was declined: the test went untested"
    assert [d.to_json() for d in asked.decisions] == [d.to_json() for d in plain.decisions]


def test_a_match_engine_spends_nothing_on_brackets(monkeypatch):
    """A match's engine (`values=False`) tries no bracket; `best` still brackets."""
    calls = _count_brackets(monkeypatch)
    info = _bracket_info()
    quiet = search(info, Limits(iterations=20_000), seed=0, values=False)
    assert not calls and "bracket" not in quiet.info["endgame"]
    said = search(info, Limits(iterations=20_000), seed=0)
    assert calls and "bracket" in said.info["endgame"] and said.best == quiet.best


def test_under_a_work_budget_the_clock_changes_nothing():
    """Under an iteration budget a very slow clock changes no bracket."""
    ticks = iter(range(10 ** 9))

    def slow():
        return 10.0 * next(ticks)
    for path in (BRACKET, "examples/decision.json"):
        with open(path, encoding="utf-8") as f:
            info = load_game(f.read())
        a = endgame.bracket(info, max_work=endgame.budget_work(30_000))
        b = endgame.bracket(info, max_work=endgame.budget_work(30_000), clock=slow)
        for x in (a, b):
            x.seconds = 0.0
        assert a == b and a.floors
