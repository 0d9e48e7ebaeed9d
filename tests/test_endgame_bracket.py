"""The bracket where the exact endgame is out of reach, whole or depth-limited: floors hold, LP
within, core = oracle, budgets, stops, no peek."""
from __future__ import annotations

import dataclasses
import gc
import json
import threading
import weakref
from types import SimpleNamespace

import pytest
from support import bergen, sizes, stage_cuts
from test_endgame import SequenceForm, assert_same_tree, small_positions

from bergen_search.formats.game import load_game
from bergen_search.formats.notation import Move
from bergen_search.search import endgame
from bergen_search.search.endgame import public
from bergen_search.search.endgame import reference as endgame_ref
from bergen_search.search.api import Limits, Settings, search

eg = pytest.importorskip("bergen_search.search.endgame._endgame")
BRACKET = "examples/bracket.json"
DECISION = "examples/decision.json"


@pytest.fixture(scope="module")
def positions():
    return small_positions(n=16, seed=7, limit=8)


def _moves_after(info):
    g = endgame.game(info, shown=True)
    rep = g.deals[0]
    s = public.state_of(g.rules, g.root, [g.hands[q][rep[q]] for q in range(2)])
    return g, public.public_moves(s, [g.hands[g.seat][g.hand_index]])


def _subgames(info):
    """(the shown game, [(move, the subgame after it)]) for every move not ending the round."""
    g, moves = _moves_after(info)
    return g, [(m, sub) for m in moves if (sub := endgame.after(g, m)) is not None]


def _limited(g, sub, max_work, tolerance, max_iterations):
    """`sub` bracketed depth-limited with the play-out tables of `g`'s seat and of nobody."""
    tables = [endgame.compiled().PlayoutTable(g.rules, q) for q in (g.seat, -1)]
    return endgame.shown.limited(sub, max_work=max_work, memory_bytes=None, tolerance=tolerance,
                                 max_iterations=max_iterations, clock=lambda: 0.0, stop=None,
                                 playouts=tables)


@pytest.mark.parametrize("count", sizes(8, 16))
def test_every_floor_holds_against_the_full_games_answers(positions, count):
    """The shown game is the full game's deals with this hand; the whole bracket's floors (the
    pure-Python solver's alike, on four) and the depth-limited ones hold against the full
    game's solve."""
    checked = limited = 0
    for k, (info, _) in enumerate(positions[:count]):
        full = endgame.game(info)
        shown = endgame.game(info, shown=True)
        p = full.seat
        want = sorted((full.hands[1 - p][d[1 - p]], d[2]) for d in full.deals
                      if d[p] == full.hand_index)
        got = sorted((shown.hands[1 - p][d[1 - p]], d[2]) for d in shown.deals)
        # the same deals, their weights in the same proportions (a constant factor: the
        # histories of the seat's own tiles, the same for every deal of this hand)
        assert [h for h, _ in got] == [h for h, _ in want]
        ratios = [w / v for (_, w), (_, v) in zip(want, got)]
        assert max(ratios) - min(ratios) <= 1e-9 * max(ratios)
        assert {shown.hands[p][d[p]] for d in shown.deals} == {full.hands[p][full.hand_index]}
        b = endgame.bracket(info, tolerance=1e-4)
        assert not b.missing
        if k < 4:
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(endgame.deals, "compiled", lambda: None)
                ref = endgame.bracket(info, tolerance=1e-4)
            assert ref.floors.keys() == b.floors.keys() and ref.iterations == b.iterations
            for m in ref.floors:
                assert ref.floors[m] == pytest.approx(b.floors[m], abs=1e-9)
                assert ref.ceilings[m] == pytest.approx(b.ceilings[m], abs=1e-9)
        sol = endgame.solve(full, tolerance=1e-4)
        for m, floor in b.floors.items():
            assert floor <= b.ceilings[m] + 1e-12
            assert b.ceilings[m] - floor <= 1e-4 + 1e-12
            assert sol.values[m] >= floor - 1e-9, (m, sol.values[m], floor)
            checked += 1
        g, subs = _subgames(info)
        for m, sub in subs:
            got = _limited(g, sub, 200_000, 1e-3, 200)
            if got.floor is not None:
                assert got.floor <= got.ceiling + 1e-9
                moved = g.gained(sub.root.scores)
                assert sol.values[Move.from_code(m)] >= moved + got.floor - 1e-9
                limited += 1
    assert checked >= count and limited >= count


@pytest.mark.parametrize("count", sizes(8, 16))
def test_the_shown_games_value_lies_in_the_bracket_at_every_horizon(positions, count):
    """An independent sequence-form LP (scipy's HiGHS) of the shown game after each move lies
    in the whole bracket, and at each horizon between the floors and the ceiling."""
    pytest.importorskip("scipy")
    checked = 0
    for info, _ in positions[:count]:
        g, subs = _subgames(info)
        b = endgame.bracket(info, tolerance=0.05)
        p = g.seat
        sign = 1.0 if p == 0 else -1.0
        for m, sub in subs:
            lp = sign * SequenceForm(endgame_ref.build(
                sub.rules, sub.root, sub.hands, sub.deals)).value() / sub.weight
            moved = sign * ((sub.root.scores[0] - g.root.scores[0])
                            - (sub.root.scores[1] - g.root.scores[1]))
            name = Move.from_code(m)
            assert b.floors[name] - 1e-7 <= moved + lp <= b.ceilings[name] + 1e-7
            for horizon in (1, 2, 3):
                lows, high = [], None
                for greedy, policies in ((p, 1), (p, 3), (None, 1)):
                    solver, _, _ = endgame.solving.build(sub, 10 ** 7, horizon=horizon,
                                                         greedy_seat=greedy, policies=policies)
                    solver.run(12)
                    _, bounds = endgame.solving.exploitability(solver, sub.weight, p)
                    if greedy is None:
                        high = bounds[1]
                    else:
                        lows.append(bounds[0])
                for low in lows:
                    assert low - 1e-7 <= lp <= high + 1e-7, (horizon, low, lp, high)
            checked += 1
    assert checked >= count


def test_with_one_deal_left_the_bracket_is_the_minimax(positions):
    """One deal left, in the shown game or in a subgame after a move: floor = ceiling = the
    minimax of the hands, whole or cut one decision deep."""
    whole = cut = 0
    for info, state in positions:
        g, moves = _moves_after(info)
        if len(g.deals) == 1:
            b = endgame.bracket(info, tolerance=1e-9)
            hands = (state.hands[0], state.hands[1])
            sign = 1.0 if g.seat == 0 else -1.0
            for m in moves:
                s = public.state_of(g.rules, g.root, hands).apply(m)
                gained = sign * ((s.scores[0] - g.root.scores[0])
                                 - (s.scores[1] - g.root.scores[1]))
                if s.ended is None:
                    gained += sign * endgame_ref.minimax(g.rules, public.root_of(s), s.hands)
                name = Move.from_code(m)
                assert abs(b.floors[name] - gained) < 1e-7
                assert abs(b.ceilings[name] - gained) < 1e-7
            whole += 1
        for m in moves:
            sub = endgame.after(g, m)
            if sub is None or len(sub.deals) != 1:
                continue
            got = _limited(g, sub, 10 ** 7, 1e-6, 2000)
            hands = [sub.hands[q][sub.deals[0][q]] for q in range(2)]
            exact = endgame_ref.minimax(sub.rules, sub.root, hands)
            sign = 1.0 if sub.seat == 0 else -1.0
            assert got.floor == pytest.approx(sign * exact, abs=1e-5)
            assert got.ceiling == pytest.approx(sign * exact, abs=1e-5)
            assert got.horizons in ((0, 0), (1, 1))
            cut += 1
    assert whole and cut


# ---- the engine ---------------------------------------------------------------------------------
def _info(path=BRACKET):
    with open(path, encoding="utf-8") as f:
        return load_game(f.read())


def _count_brackets(monkeypatch):
    """The list each bracket appends to."""
    real, calls = endgame.bracket, []
    monkeypatch.setattr(endgame.shown, "bracket", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_a_declined_position_is_bracketed_under_an_iteration_budget(monkeypatch):
    calls = _count_brackets(monkeypatch)
    info = _info()
    res = search(info, Limits(iterations=100_000), seed=0)
    eg = res.info["endgame"]
    assert eg["solved"] is False and "too big" in eg["why"] and not res.info["exact"]
    b = eg["bracket"]
    assert calls and b["shown"] is True and not b["missing"] and b["deals"] == 36
    _, moves = _moves_after(info)
    assert set(b["floor"]) == set(b["ceiling"]) == {Move.from_code(m) for m in moves}
    for m in b["floor"]:
        assert b["floor"][m] <= b["ceiling"][m] <= b["floor"][m] + 0.02
    # the floors hold: the search's own values (an opponent who does not see the hand) are
    # no lower, beyond their error
    values = {mv.move: mv for mv in res.moves}
    for m, floor in b["floor"].items():
        assert values[m].value >= floor - 3 * values[m].stderr
    calls.clear()
    # under a time limit the clock is the move's: no bracket
    timed = search(info, Limits(time=0.05), seed=0)
    assert "bracket" not in timed.info["endgame"] and "bracket_why" not in timed.info["endgame"]
    off = search(info, Limits(iterations=100_000), seed=0, bracket=False)
    assert "bracket" not in off.info["endgame"] and "bracket_why" not in off.info["endgame"]
    # a match's engine (`values=False`) tries none
    quiet = search(info, Limits(iterations=100_000), seed=0, values=False)
    assert not calls and "bracket" not in quiet.info["endgame"]
    # the bracket is said, not played: the search's answer is the same without it
    assert off.moves == res.moves and off.best == res.best == quiet.best


def test_best_and_eval_print_the_bracket(one_search):
    """bracket.json's whole bracket and decision.json's depth-limited one in `best`'s text and
    JSON (two commands, one search) and `eval`'s (`best bracket.json --verbose` is GUIDE.md's
    example, run by test_doc_examples)."""
    short = bergen("best", BRACKET).output
    assert ("floor: 4-4:L/R secures at least -2.031 whatever the other side holds\n"
            "  (certified, against any play of the other side; --verbose: every move's bracket)"
            in short)
    assert "ceiling" not in short      # it bounds another game: only --verbose shows it
    doc = json.loads(bergen("best", BRACKET, "--json").output)
    assert doc["exact"] is False and doc["endgame"]["bracket"]["floor"]["4-4:L"] < -2.0
    assert doc["endgame"]["bracket"]["missing"] == []
    # (eval at 20,000 iterations: the whole bracket is the same at any budget it fits)
    out = bergen("eval", BRACKET, "--iterations", 20_000).output
    assert "floor: 4-4:L/R secures at least -2.031 whatever the other side holds" in out
    assert "ceiling" not in out
    out = bergen("eval", BRACKET, "--iterations", 20_000, "--verbose").output
    assert "bracket: the round solved with this hand shown to the other side, 36 deals" in out
    doc = json.loads(bergen("best", DECISION, "--iterations", 30_000, "--json").output)
    out = bergen("best", DECISION, "--iterations", 30_000, "--verbose").output
    b = doc["endgame"]["bracket"]
    assert not b["missing"] and set(b["horizon"]) == set(b["floor"])
    values = {m["move"]: m for m in doc["moves"]}
    for m, floor in b["floor"].items():
        assert values[m]["value"] >= floor - 3 * values[m]["stderr"]
    assert "  move         floor  ceiling if shown  cut at" in out
    assert "cut at f/c: the floor's tree cut f decisions below the move" in out
    assert doc["best"] in ("0-2:L", "0-2:R")
    h = b["horizon"]["0-2:L"]
    assert set(h) == {"floor", "ceiling"} and h["floor"] >= 3
    # a best move whose floor is not the best floor: the better one is named beside it
    from bergen_search.views.search import floor_lines
    top, low = Move.parse("0-2:L"), Move.parse("1-2:L")
    line = floor_lines({"bracket": {"floor": {top: 2.523, low: -0.114}}}, {top: "0-2:L/R"}, low)
    assert line[1].startswith("floor: 1-2:L secures at least -0.114 whatever the other side "
                              "holds (0-2:L/R secures +2.523)\n  (certified")


def test_a_decline_costs_no_build_and_no_memory(monkeypatch):
    """decision.json is declined from its prediction alone, nothing found or built."""
    import tracemalloc
    info = _info(DECISION)

    def never(*a, **k):
        raise AssertionError("built")
    for module, name in ((endgame.deals, "public_table"), (endgame.deals, "game"),
                         (endgame.solving, "solve"), (endgame.solving, "build")):
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


@pytest.mark.parametrize("rounds, iterations, horizon", [(300, 300, False), (60, 17_000, True)],
                         ids=["whole", "depth-limited"])
def test_no_peek_the_bracket_does_not_move_when_the_hidden_hand_is_filled_in(rounds, iterations,
                                                                             horizon):
    """The first stage cut bracketed (at a horizon): the same bracket and search with the other
    hand hidden or shown."""
    for shown, hidden in stage_cuts(1700, rounds):
        info = load_game(shown)
        if horizon:         # a horizon needs a decline and a big shown game
            size = endgame.predict(info, shown=True)
            if endgame.applicable(info) is not None or size is None or size.pairs < 3e5:
                continue
        a = search(info, Limits(iterations=iterations), seed=4)
        got = a.info.get("endgame", {}).get("bracket")
        if got is None or (horizon and not got.get("horizon")):
            continue
        b = search(load_game(hidden), Limits(iterations=iterations), seed=4)
        assert {k: v for k, v in got.items() if k != "seconds"} == \
            {k: v for k, v in b.info["endgame"]["bracket"].items() if k != "seconds"}
        assert a.moves == b.moves
        return
    pytest.fail("no cut was bracketed" + " at a horizon" * horizon)


def _stopped_attempt(iterations: int):
    """(the attempt at decision.json, its seconds) with its stop set 50 ms in."""
    import time
    stop = threading.Event()
    timer = threading.Timer(0.05, stop.set)
    timer.start()
    t0 = time.perf_counter()
    try:
        tried = endgame.attempt(_info(DECISION), Limits(iterations=iterations), seed=0,
                                objective="points", bracketing=True, stop=stop)
    finally:
        timer.cancel()
    return tried, time.perf_counter() - t0


def test_a_stop_ends_the_bracket_whole_or_depth_limited():
    """A stop already set: nothing bracketed past the first check, whole or depth-limited, and
    nothing of it left behind; a stop set inside the play-outs ends the attempt."""
    stop = threading.Event()
    stop.set()
    with pytest.raises(endgame.TooBig):
        endgame.bracket(_info(), stop=stop)
    with pytest.raises(endgame.TooBig):
        endgame.bracket(_info(DECISION), max_work=endgame.budget_work(100_000), stop=stop)
    b = endgame.bracket(_info())
    assert b.deals == 36 and not b.missing
    tried, _ = _stopped_attempt(100_000)
    assert tried.interrupted and tried.result is None


@pytest.mark.slow
def test_a_stop_inside_a_play_out_ends_the_attempt_at_once():
    """A stop 50 ms into a 13 s attempt ends it within 3 s."""
    tried, seconds = _stopped_attempt(1_000_000)
    assert tried.interrupted and tried.result is None
    assert seconds < 3.0, f"the attempt ran {seconds:.2f} s"


def test_the_engine_protocol_answers_with_the_bracket():
    """(The engine in this process: its client and its process are test_engine.py's.)"""
    from support import InProcessEngine
    engine = InProcessEngine()
    try:
        with open(BRACKET, encoding="utf-8") as f:
            engine.send({"cmd": "go", "game": json.load(f), "iterations": 20000, "id": "g"})
        doc = engine.until("bestmove")[-1]
    finally:
        engine.close()
    b = doc["endgame"]["bracket"]
    assert doc["exact"] is False and b["deals"] == 36 and b["missing"] == []
    assert b["floor"]["4-4:L"] == pytest.approx(-2.031, abs=0.002)


def test_a_move_predicted_beyond_its_share_is_never_built(monkeypatch):
    """A move predicted too big is missing, its tree never built."""
    info = _info()
    g, moves = _moves_after(info)
    big = moves[0]
    real_predict, real_build = endgame.predict, endgame.solving.build
    built = []

    def predict(info_, stop_above=0.0, shown=False, move=None):
        p = real_predict(info_, stop_above, shown, move)
        return p if move != big else endgame.Prediction(p.deals, 1e12, p.steps, p.walks)

    def build(sub, cap, seconds=0.0, **kwargs):
        built.append(sub.root)
        return real_build(sub, cap, seconds, **kwargs)
    monkeypatch.setattr(endgame.deals, "predict", predict)
    monkeypatch.setattr(endgame.solving, "build", build)
    b = endgame.bracket(info)
    assert b.missing == (Move.from_code(big),)
    assert endgame.after(g, big).root not in built
    assert len(built) == len(moves) - 1 and set(b.floors) == {Move.from_code(m) for m in moves[1:]}


def test_ctrl_c_heard_inside_the_bracket_stops_the_attempt(monkeypatch):
    """Ctrl-C inside a bracket's DCFR: the attempt says interrupted, moves kept."""
    info = _info()
    real = endgame.solving.iterate
    calls = []

    def iterate(*args, **kwargs):
        run = real(*args, **kwargs)
        calls.append(1)
        return dataclasses.replace(run, interrupted=True)
    monkeypatch.setattr(endgame.solving, "iterate", iterate)
    tried = endgame.attempt(info, Limits(iterations=100_000), seed=0, objective="points",
                            bracketing=True)
    assert tried.result is None and tried.interrupted
    assert tried.bracket is not None and tried.bracket.interrupted
    assert len(calls) == 1 and len(tried.bracket.floors) == 1 and len(tried.bracket.missing) == 2
    res = search(info, Limits(iterations=100_000), seed=0)
    assert res.info["interrupted"] and res.info["iterations"] < 100_000


def test_a_review_spends_nothing_on_brackets_unless_asked(monkeypatch):
    """`analyze` brackets only when its settings ask, and judges alike."""
    from bergen_search.analysis.review import analyze
    from bergen_search.formats.record import parse_record
    calls = _count_brackets(monkeypatch)
    with open("examples/match.json", encoding="utf-8") as f:
        record = parse_record(json.loads(f.read()))
    # (round 1 alone: its two stage decisions are declined)
    plain = analyze(record, limits=Limits(iterations=300), seed=0, rounds=[1])
    assert not calls
    asked = analyze(record, limits=Limits(iterations=300), seed=0, rounds=[1],
                    settings=Settings.of("ismcts", {"bracket": True}))
    assert calls, "no stage decision was declined: the test went untested"
    assert [d.to_json() for d in asked.decisions] == [d.to_json() for d in plain.decisions]


def _slow_clock():
    """A clock that reads 10 s more at every reading."""
    ticks = iter(range(10 ** 9))
    return lambda: 10.0 * next(ticks)


def test_under_a_work_budget_the_clock_changes_nothing():
    """The whole bracket (the depth-limited one: the budget test below)."""
    a = endgame.bracket(_info(), max_work=endgame.budget_work(17_000))
    b = endgame.bracket(_info(), max_work=endgame.budget_work(17_000), clock=_slow_clock())
    a.seconds = b.seconds = 0.0
    assert a == b and a.floors


# ---- the depth-limited bracket (`horizon`) ----------------------------------------------------
def cut_both(g, horizon, greedy, policies):
    """(the oracle's tree, the compiled solver) of `g` cut at `horizon`, checked the same."""
    tree = endgame_ref.build(g.rules, g.root, g.hands, g.deals, horizon=horizon,
                             greedy_seat=greedy, policies=policies)
    c = eg.EndgameSolver(g.rules, g.root, g.hands, g.deals, horizon=horizon, policies=policies,
                         greedy_seat=-1 if greedy is None else greedy)
    assert_same_tree(c, tree)
    return tree, c


@pytest.mark.parametrize("count, full", sizes((6, 3), (16, 12)))
def test_depth_limited_trees_core_and_oracle_agree_to_the_bit(positions, count, full):
    """Depth-limited trees and their best responses: the core's are the oracle's."""
    checked = other_policy = alone = 0
    for k, (info, _) in enumerate(positions[:count]):
        g, subs = _subgames(info)
        for horizon in (1, 2, 3):
            for greedy in (0, 1, None) if k < full else ():
                _, c = cut_both(endgame.game(info), horizon, greedy, 2)
                alone += greedy is not None and c.n_leaves > 0
        for _, sub in subs:
            for horizon in (1, 2, 3):
                for greedy, policies in ((sub.seat, 1), (sub.seat, 3), (None, 1)):
                    tree, c = cut_both(sub, horizon, greedy, policies)
                    ref = endgame_ref.Solver(tree, (len(sub.hands[0]), len(sub.hands[1])))
                    ref.run(10)
                    c.run(10)
                    for b in (0, 1):
                        assert c.best_response(b) == ref.best_response(b)
                    checked += c.n_leaves > 0
                    payoffs = [n.pairs for n in tree]
                    if policies == 1 and greedy is not None:
                        greedy_only = payoffs
                    elif policies == 3:
                        other_policy += payoffs != greedy_only
    assert checked >= count and alone
    assert other_policy, "no leaf chose a policy other than greedy: the choice went untested"


def test_a_shared_playout_table_changes_no_value(positions):
    """A shared play-out table changes no value; a foreign table is refused."""
    info, _ = positions[1]
    g, subs = _subgames(info)
    for greedy in (g.seat, -1):
        shared = eg.PlayoutTable(g.rules, greedy)
        for _, sub in subs:
            for horizon, policies in ((1, 1), (2, 3), (2, 1), (3, 2)):
                a = eg.EndgameSolver(sub.rules, sub.root, sub.hands, sub.deals, horizon=horizon,
                                     greedy_seat=greedy, playouts=shared, policies=policies)
                b = eg.EndgameSolver(sub.rules, sub.root, sub.hands, sub.deals, horizon=horizon,
                                     greedy_seat=greedy, policies=policies)
                assert [a.node(i) for i in range(a.n_nodes)] == \
                    [b.node(i) for i in range(b.n_nodes)]
    with pytest.raises(Exception, match="one rule set and one greedy_seat"):
        eg.EndgameSolver(sub.rules, sub.root, sub.hands, sub.deals, horizon=1, greedy_seat=-1,
                         playouts=eg.PlayoutTable(g.rules, g.seat))
    with pytest.raises(Exception, match="a PlayoutTable"):
        eg.EndgameSolver(sub.rules, sub.root, sub.hands, sub.deals, horizon=1,
                         playouts=object())
    whole = eg.EndgameSolver(sub.rules, sub.root, sub.hands, sub.deals)
    deep = eg.EndgameSolver(sub.rules, sub.root, sub.hands, sub.deals, horizon=30)
    assert deep.n_leaves == 0 and deep.n_nodes == whole.n_nodes
    assert [deep.node(i) for i in range(deep.n_nodes)] == \
        [whole.node(i) for i in range(whole.n_nodes)]


@pytest.mark.parametrize("iterations, least", sizes((30_000, (4, 1)), (100_000, (3, 3))))
def test_decision_json_is_bracketed_with_both_bounds_within_its_budget(monkeypatch, iterations,
                                                                        least):
    """decision.json gets both bounds within its budget (`Bracket.work` counts every build and
    run, at smaller budgets too), cut at least `least` decisions deep (floor, ceiling), one cut
    tree held at a time; the play-out tables take at most a quarter of a memory cap. (30,000
    iterations by default; the default budget, 100,000, behind slow.)"""
    assert eg.PlayoutTable(None, -1).nbytes == 24 << endgame.budget.PLAYOUT_TABLE_BITS
    assert eg.PlayoutTable(None, -1, 10).nbytes == 24 << 10
    with pytest.raises(Exception, match="bits"):
        eg.PlayoutTable(None, -1, 40)
    built, made, live, alive = [], [], weakref.WeakSet(), []

    def spent(real):        # every cut's deepening and every DCFR run
        def call(*args, **kwargs):
            out = real(*args, **kwargs)
            built.append(out.spent)
            return out
        return call
    monkeypatch.setattr(endgame.shown, "deepen", spent(endgame.shown.deepen))
    monkeypatch.setattr(endgame.solving, "iterate", spent(endgame.solving.iterate))

    class Table(eg.PlayoutTable):
        def __init__(self, *args):
            super().__init__(*args)
            made.append(self.nbytes)

    class Solver(eg.EndgameSolver):
        def __init__(self, *args, **kwargs):
            held = len(live)
            if held > 1:        # garbage not yet collected is not held
                gc.collect()
                held = len(live)
            alive.append(held)
            super().__init__(*args, **kwargs)
            live.add(self)
    monkeypatch.setattr(eg, "PlayoutTable", Table)
    monkeypatch.setattr(eg, "EndgameSolver", Solver)
    budget = endgame.budget_work(iterations)
    b = endgame.bracket(_info(DECISION), max_work=budget)
    assert not b.missing and not b.interrupted and b.deals == 36 and b.sizes == (11, 7)
    assert sum(built) <= b.work + 1e-6 <= budget + 1e-6
    assert set(b.horizons) == set(b.floors) == set(b.ceilings)
    for m in b.floors:
        assert b.floors[m] <= b.ceilings[m]
        assert all(h >= low for h, low in zip(b.horizons[m], least)), b.horizons
    # the move the search plays has the best floor here
    assert max(b.floors, key=b.floors.get) == Move.parse("0-2:L")
    assert sum(made) == 2 * 24 << endgame.budget.PLAYOUT_TABLE_BITS
    assert len(alive) > 10 and max(alive) == 1, alive
    built.clear()           # a smaller budget (declined at 16,000), one cut the shallower
    budget = endgame.budget_work(17_000)
    b = endgame.bracket(_info(DECISION), max_work=budget)
    assert sum(built) <= b.work + 1e-6 <= budget + 1e-6 and len(b.floors) == 3
    # under a work budget the clock changes nothing
    slow = endgame.bracket(_info(DECISION), max_work=budget, clock=_slow_clock())
    b.seconds = slow.seconds = 0.0
    assert slow == b
    made.clear()
    cap = 16 << 20
    b = endgame.bracket(_info(DECISION), max_work=endgame.budget_work(30_000), memory_bytes=cap)
    assert made and sum(made) <= cap // 4 and b.floors


def test_a_floor_leaf_next_to_mirror_twins_is_valued_alike_by_core_and_oracle():
    import itertools

    from bergen_search.game.rules import Rules
    from bergen_search.game.tiles import TILE_HIGH, TILE_LOW

    def tile(a, b):
        return next(i for i in range(28) if {TILE_LOW[i], TILE_HIGH[i]} == {a, b})
    rules = Rules(players=2, target=15, hand_size=6, reserve_kept=2, out_bonus=2,
                  blocked="german", endgame_cap=True)
    line = ((3, 6), (6, 6), (6, 5), (5, 1), (1, 3), (3, 0), (0, 6), (6, 4), (4, 4), (4, 3),
            (3, 5), (5, 2), (2, 0), (0, 4), (4, 5), (5, 0), (0, 0), (0, 1), (1, 6), (6, 2))
    root = public.Root(3, 2, False, False, (7, 10), 1, 0, 2, line)
    h1 = sum(1 << tile(*t) for t in ((2, 3), (2, 4), (3, 3)))
    free = [tile(*t) for t in ((1, 1), (1, 2), (1, 4), (2, 2), (5, 5))]
    h0s = sorted(sum(1 << i for i in c) for c in itertools.combinations(free, 3))
    game = SimpleNamespace(rules=rules, root=root, hands=(h0s, [h1]),
                           deals=[(i, 0, 1.0) for i in range(10)])
    for policies in (1, 2, 3):
        cut_both(game, 1, 1, policies)


def test_a_stop_heard_inside_a_cut_keeps_the_moves_bracketed(monkeypatch):
    """A stop inside the third move's cut keeps the two moves done."""
    real, calls = endgame.shown.deepen, []

    def deepen(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:         # two calls (ceiling, floor) per move: the third move
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(endgame.shown, "deepen", deepen)
    b = endgame.bracket(_info(DECISION), max_work=endgame.budget_work(30_000))
    assert b.interrupted and len(b.floors) == 2 and len(b.missing) == 3
    assert set(b.horizons) == set(b.floors)


def test_a_floor_leaf_plays_one_policy_for_all_its_deals(monkeypatch):
    """A floor's leaf plays one policy, the seat's best, for all its hidden deals."""
    real_playout, real_node = endgame_ref.playout, endgame_ref.Node
    pending, calls, depth = [], {}, [0]

    def playout(s, root_scores, greedy_seat=None, policy=0):
        depth[0] += 1
        try:
            v = real_playout(s, root_scores, greedy_seat, policy)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            pending.append((greedy_seat, policy, v))
        return v

    def node(*args, **kwargs):
        n = real_node(*args, **kwargs)
        if pending:
            calls[id(n)] = (n, list(pending))
            pending.clear()
        return n
    monkeypatch.setattr(endgame_ref, "playout", playout)
    monkeypatch.setattr(endgame_ref, "Node", node)
    checked = crossing = 0
    # Stage positions of up to 9 tiles: some leaves there have policies that cross (each
    # better on some deal), where only a choice per deal would differ.
    for info, _ in small_positions(n=24, seed=5, limit=9):
        g, subs = _subgames(info)
        for _, sub in subs:
            for horizon in (1, 2, 3):
                calls.clear()
                endgame_ref.build(sub.rules, sub.root, sub.hands, sub.deals, horizon=horizon,
                                  greedy_seat=sub.seat, policies=3)
                for leaf, made in calls.values():
                    n = len(leaf.pairs)
                    assert len(made) == 3 * n      # every policy, every deal, in order
                    values = {q: [made[q * n + i][2] for i in range(n)] for q in range(3)}
                    alone = [made[i][0] is None for i in range(n)]
                    weights = _leaf_weights(sub, leaf)
                    got = [wx / w for (_, _, wx, _), w in zip(leaf.pairs, weights)]
                    fits = [q for q in range(3)
                            if all(abs(got[i] - values[q][i]) < 1e-9 for i in range(n))]
                    assert fits, (got, values)      # one policy's play-outs, every deal
                    sign = 1.0 if sub.seat == 0 else -1.0
                    sums = [sign * sum(w * values[q][i] for i, w in enumerate(weights))
                            for q in range(3)]
                    assert sums[fits[0]] == max(sums)
                    hidden = [i for i in range(n) if not alone[i]]
                    crossing += not any(all(sign * values[q][i] >= sign * values[r][i]
                                            for r in range(3) for i in hidden)
                                        for q in range(3))
                    checked += 1
    assert checked and crossing, (checked, crossing)


def _leaf_weights(sub, leaf):
    """The chance weight of each deal of a leaf (the subgame's deal with those hands)."""
    weight = {(a, b): w for a, b, w in sub.deals}
    return [weight[(a, b)] for a, b, _, _ in leaf.pairs]
