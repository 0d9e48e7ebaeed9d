"""The depth-limited bracket: core = oracle, floor <= LP value <= ceiling, budgets, stops."""
from __future__ import annotations

import gc
import json
import weakref
from types import SimpleNamespace

import pytest
from support import sizes
from test_endgame import SequenceForm, assert_same_tree, small_positions
from test_endgame_bracket import _moves_after, positions  # noqa: F401 (a fixture)

from bergen_search.formats.game import load_game
from bergen_search.formats.notation import Move
from bergen_search.search import endgame
from bergen_search.search.endgame import public
from bergen_search.search.endgame import reference as endgame_ref
from bergen_search.search.api import Limits, search

eg = pytest.importorskip("bergen_search.search.endgame._endgame")
DECISION = "examples/decision.json"


def _subgames(info):
    """(the shown game, [(move, the subgame after it)]) for every move not ending the round."""
    g, moves = _moves_after(info)
    return g, [(m, sub) for m in moves if (sub := endgame.after(g, m)) is not None]


def _decision():
    with open(DECISION, encoding="utf-8") as f:
        return load_game(f.read())


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


@pytest.mark.parametrize("count", sizes(8, 16))
def test_the_shown_games_value_lies_between_floor_and_ceiling_at_every_horizon(positions,
                                                                              count):
    """At every horizon floor <= the shown subgame's LP value <= ceiling."""
    pytest.importorskip("scipy")
    checked = 0
    for info, _ in positions[:count]:
        _, subs = _subgames(info)
        for _, sub in subs:
            p = sub.seat
            sign = 1.0 if p == 0 else -1.0
            lp = sign * SequenceForm(endgame_ref.build(
                sub.rules, sub.root, sub.hands, sub.deals)).value() / sub.weight
            for horizon in (1, 2, 3):
                lows, high = [], None
                for greedy, policies in ((p, 1), (p, 3), (None, 1)):
                    solver, _, _ = endgame.solvers.build(sub, 10 ** 7, horizon=horizon,
                                                  greedy_seat=greedy, policies=policies)
                    solver.run(12)
                    _, bounds = endgame.solvers.exploitability(solver, sub.weight, p)
                    if greedy is None:
                        high = bounds[1]
                    else:
                        lows.append(bounds[0])
                for low in lows:
                    assert low - 1e-7 <= lp <= high + 1e-7, (horizon, low, lp, high)
                checked += 1
    assert checked >= count


def test_a_depth_limited_floor_holds_against_the_real_games_answers(positions):
    """A depth-limited floor holds against the full game's solve."""
    checked = 0
    for info, _ in positions[:8]:
        g, subs = _subgames(info)
        sol = endgame.solve(endgame.game(info), tolerance=1e-4)
        tables = [endgame.compiled().PlayoutTable(g.rules, q) for q in (g.seat, -1)]
        for m, sub in subs:
            got = endgame.shown.limited(sub, max_work=200_000, memory_bytes=None, tolerance=1e-3,
                                   max_iterations=200, clock=lambda: 0.0, stop=None,
                                   playouts=tables)
            if got.floor is None:
                continue
            low, high = got.floor, got.ceiling
            moved = g.gained(sub.root.scores)
            assert low <= high + 1e-9
            assert sol.values[Move.from_code(m)] >= moved + low - 1e-9
            checked += 1
    assert checked >= 8


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


def _count_spent(monkeypatch):
    """The list that every cut's deepening and every DCFR run appends its `spent` to."""
    built = []

    def spent(real):
        def call(*args, **kwargs):
            out = real(*args, **kwargs)
            built.append(out.spent)
            return out
        return call
    monkeypatch.setattr(endgame.shown, "deepen", spent(endgame.shown.deepen))
    monkeypatch.setattr(endgame.solvers, "iterate", spent(endgame.solvers.iterate))
    return built


def test_decision_json_is_bracketed_with_both_bounds_within_its_budget(monkeypatch):
    """decision.json gets both bounds within its budget, one cut tree held at a time."""
    built, made, live, alive = _count_spent(monkeypatch), [], weakref.WeakSet(), []

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
    budget = endgame.budget_work(100_000)
    b = endgame.bracket(_decision(), max_work=budget)
    assert not b.missing and not b.interrupted and b.deals == 36 and b.sizes == (11, 7)
    assert sum(built) <= b.work + 1e-6 <= budget + 1e-6
    assert set(b.horizons) == set(b.floors) == set(b.ceilings)
    for m in b.floors:
        assert b.floors[m] <= b.ceilings[m]
        assert all(h >= 3 for h in b.horizons[m]), b.horizons
    # the move the search plays has the best floor here
    assert max(b.floors, key=b.floors.get) == Move.parse("0-2:L")
    assert sum(made) == 2 * 24 << endgame.budget.PLAYOUT_TABLE_BITS
    assert len(alive) > 10 and max(alive) == 1, alive


def test_the_engine_reports_the_depth_limited_bracket(one_search):
    """`best` shows the bracket and its cuts; floors hold; the best move is 0-2."""
    from click.testing import CliRunner

    from bergen_search.cli import main
    doc = json.loads(CliRunner().invoke(main, ["best", DECISION, "--json"]).output)
    out = CliRunner().invoke(main, ["best", DECISION, "--verbose"]).output
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


def _stopped_attempt(iterations: int):
    """(the attempt at decision.json, its seconds) with its stop set 50 ms in."""
    import threading
    import time
    stop = threading.Event()
    timer = threading.Timer(0.05, stop.set)
    timer.start()
    t0 = time.perf_counter()
    try:
        tried = endgame.attempt(_decision(), Limits(iterations=iterations), seed=0,
                                objective="points", bracketing=True, stop=stop)
    finally:
        timer.cancel()
    return tried, time.perf_counter() - t0


def test_a_stop_ends_a_depth_limited_bracket():
    """A stop, set before or inside the play-outs, ends the bracket and the attempt."""
    import threading
    stop = threading.Event()
    stop.set()
    with pytest.raises(endgame.TooBig):
        endgame.bracket(_decision(), max_work=endgame.budget_work(100_000), stop=stop)
    tried, _ = _stopped_attempt(100_000)
    assert tried.interrupted and tried.result is None


@pytest.mark.slow
def test_a_stop_inside_a_play_out_ends_the_attempt_at_once():
    """A stop 50 ms into a 13 s attempt ends it within 3 s."""
    tried, seconds = _stopped_attempt(1_000_000)
    assert tried.interrupted and tried.result is None
    assert seconds < 3.0, f"the attempt ran {seconds:.2f} s"


def test_the_play_out_tables_keep_within_the_memory_cap():
    """Under a memory cap the play-out tables take at most a quarter of it."""
    assert eg.PlayoutTable(None, -1).nbytes == 24 << endgame.budget.PLAYOUT_TABLE_BITS
    assert eg.PlayoutTable(None, -1, 10).nbytes == 24 << 10
    with pytest.raises(Exception, match="bits"):
        eg.PlayoutTable(None, -1, 40)
    made = []
    real = eg.PlayoutTable

    class Counted(real):
        def __init__(self, *args):
            super().__init__(*args)
            made.append(self.nbytes)
    cap = 16 << 20
    try:
        eg.PlayoutTable = Counted
        b = endgame.bracket(_decision(), max_work=endgame.budget_work(30_000),
                            memory_bytes=cap)
    finally:
        eg.PlayoutTable = real
    assert made and sum(made) <= cap // 4 and b.floors


def test_one_deal_left_is_bracketed_by_its_minimax(positions):
    """A subgame with one deal: floor = ceiling = the minimax of the hands."""
    found = 0
    for info, state in positions:
        g, subs = _subgames(info)
        tables = [endgame.compiled().PlayoutTable(g.rules, q) for q in (g.seat, -1)]
        for m, sub in subs:
            if len(sub.deals) != 1:
                continue
            got = endgame.shown.limited(sub, max_work=10 ** 7, memory_bytes=None, tolerance=1e-6,
                                   max_iterations=2000, clock=lambda: 0.0, stop=None,
                                   playouts=tables)
            hands = [sub.hands[q][sub.deals[0][q]] for q in range(2)]
            exact = endgame_ref.minimax(sub.rules, sub.root, hands)
            sign = 1.0 if sub.seat == 0 else -1.0
            assert got.floor == pytest.approx(sign * exact, abs=1e-5)
            assert got.ceiling == pytest.approx(sign * exact, abs=1e-5)
            assert got.horizons in ((0, 0), (1, 1))   # whole, or cut one decision deep
            found += 1
    assert found


def test_no_peek_a_depth_limited_bracket_does_not_move_when_the_hidden_hand_is_filled_in():
    """A depth-limited bracket and search are the same with the other hand shown."""
    from support import stage_cuts
    for shown, hidden in stage_cuts(1700, 60):
        a_info = load_game(shown)
        if endgame.applicable(a_info) is not None:
            continue
        size = endgame.predict(a_info, shown=True)
        if size is None or size.pairs < 3e5:
            continue
        a = search(a_info, Limits(iterations=30_000), seed=4)
        eg = a.info["endgame"]
        if not eg.get("bracket", {}).get("horizon"):
            continue
        b = search(load_game(hidden), Limits(iterations=30_000), seed=4)
        drop = ("seconds",)
        assert {k: v for k, v in eg["bracket"].items() if k not in drop} == \
            {k: v for k, v in b.info["endgame"]["bracket"].items() if k not in drop}
        assert a.moves == b.moves
        return
    pytest.fail("no cut was bracketed at a horizon")


def test_a_floor_leaf_next_to_mirror_twins_is_valued_alike_by_core_and_oracle():
    """A floor leaf next to mirror twins: core and oracle alike."""
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


@pytest.mark.parametrize("iterations", [17_000, 20_000, 25_000])
def test_a_brackets_work_counts_every_build_and_stays_within_the_budget(iterations,
                                                                         monkeypatch):
    """`Bracket.work` counts every build and run and stays within the budget."""
    built = _count_spent(monkeypatch)
    budget = endgame.budget_work(iterations)
    try:
        b = endgame.bracket(_decision(), max_work=budget)
        work = b.work
    except endgame.TooBig:
        return
    assert sum(built) <= work + 1e-6 <= budget + 1e-6


def test_a_stop_heard_inside_a_cut_keeps_the_moves_bracketed(monkeypatch):
    """A stop inside the third move's cut keeps the two moves done."""
    real, calls = endgame.shown.deepen, []

    def deepen(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:         # two calls (ceiling, floor) per move: the third move
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(endgame.shown, "deepen", deepen)
    b = endgame.bracket(_decision(), max_work=endgame.budget_work(30_000))
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
