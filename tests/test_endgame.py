"""The exact endgame: the C solver equals its oracle; deals, LP checks, bounds, engine, stops."""
from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import signal
import threading
import time

import pytest
from click.testing import CliRunner
from support import sizes

from bergen_search.analysis.review import analyze
from bergen_search.cli import main
from bergen_search.errors import BergenError, NotApplicable, TooBig
from bergen_search.formats.game import load_game
from bergen_search.formats.notation import Move
from bergen_search.formats.record_io import dump_record, write_record
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.play.bench import endgame_positions
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines
from bergen_search.search import endgame
from bergen_search.search.endgame import reference as endgame_ref
from bergen_search.search.api import Limits, search
from bergen_search.views.report import html_report, text, to_json

KNOWN = ('{"format":"bergen-position/1","rules":{"players":2},"scores":[5,3],"to_move":1,'
         '"hand":["1-2","1-5"],"line":"6-4 4-0 0-1 1-3 3-2 2-4 4-4 4-3 3-3 3-6 6-5 5-0 0-6 '
         '6-6 6-2 2-5 5-5 5-4 4-1 1-1","hand_sizes":[4,2],"reserve_size":2,'
         '"voids":{"0":[4,6],"1":[3]}}')


def small_positions(n=24, seed=5, limit=7):
    """Stage decisions of greedy self-play whose hands hold at most `limit` tiles in all."""
    out = []
    for _, info, state in endgame_positions(400, seed):
        if sum(info.hand_sizes) <= limit:
            out.append((info, state))
        if len(out) == n:
            break
    return out


@pytest.fixture(scope="module")
def positions():
    return small_positions()


def core():
    return pytest.importorskip("bergen_search.search.endgame._endgame")


def assert_same_tree(c, tree) -> None:
    """The compiled solver `c` holds the oracle's tree `tree`, node for node, payoffs too."""
    assert c.n_nodes == len(tree)
    for i, node in enumerate(tree):
        player, moves, children, rows, legal, pairs = c.node(i)
        assert (player, moves, children, rows, legal) == (
            node.player, node.moves, node.children, node.rows, node.legal)
        assert [tuple(p) for p in pairs] == [tuple(p) for p in node.pairs]


# ---- the solver against its oracle -------------------------------------------------------------
def agree_to_the_bit(info, iterations=20):
    """Both solvers are `endgame.Solver`s with the same tree, strategies and values; returns
    (the game, the compiled solver, the oracle's tree)."""
    g = endgame.game(info)
    tree = endgame_ref.build(g.rules, g.root, g.hands, g.deals)
    ref = endgame_ref.Solver(tree, (len(g.hands[0]), len(g.hands[1])))
    c = core().EndgameSolver(g.rules, g.root, g.hands, g.deals)
    assert isinstance(ref, endgame.Solver) and isinstance(c, endgame.Solver)
    assert c.root_moves == ref.root_moves == tree[0].moves
    assert c.root_rows == ref.root_rows == tree[0].rows
    assert ref.n_pairs is None and c.n_pairs == sum(len(n.pairs) for n in tree)
    assert_same_tree(c, tree)
    ref.run(iterations)
    c.run(iterations)
    for b in (0, 1):
        assert c.best_response(b) == ref.best_response(b)
        assert c.values(b) == ref.values(b)
        assert c.values(b, gains=True) == ref.values(b, gains=True)
    for i, node in enumerate(tree):
        if node.player >= 0:
            assert c.average(i) == ref.average(i)
    return g, c, tree


@pytest.mark.parametrize("count", sizes(6, 16))
def test_core_and_reference_agree_to_the_bit(positions, count):
    for info, _ in positions[:count]:
        agree_to_the_bit(info)


@pytest.mark.parametrize("first", sizes(5, 0))
def test_deals_are_the_public_views_worlds(positions, first):
    """The compiled deals are the public table's worlds, weights too, the true deal among them."""
    eg = core()
    for info, state in positions[first:10]:
        for inference in (False, True):
            table = endgame.public_table(info, inference)
            h0, h1, w = eg.enumerate_deals(table)
            ref = sorted((hands[0], hands[1], wt) for (hands, _), wt in table.enumerate().items())
            assert list(zip(h0, h1)) == [(a, b) for a, b, _ in ref]
            assert all(math.isclose(x, y[2], rel_tol=1e-12) for x, y in zip(w, ref))
            # the true deal is one of them, and the seat's own hand too
            assert (state.hands[0], state.hands[1]) in set(zip(h0, h1))
        assert sum(endgame.public_table(info).enumerate().values()) == \
            endgame.public_table(info).total


def test_a_mid_turn_decision_knows_that_the_earlier_tiles_did_not_fit():
    """After a draw at the stage, every public deal's earlier tiles fit neither end."""
    from bergen_search.game.tiles import TILES_WITH, popcount
    seen = 0
    for _, info, state in endgame_positions(3000, 77):
        if not state.draws_this_turn:
            continue
        g = endgame.game(info)
        fit = TILES_WITH[state.left] | TILES_WITH[state.right]
        p = info.seat
        assert all(popcount(g.hands[p][d[p]] & fit) <= 1 for d in g.deals)
        assert state.hands[p] in g.hands[p] and state.hands[1 - p] in g.hands[1 - p]
        seen += 1
        if seen == 2:
            break
    assert seen == 2


# ---- the sequence-form LP: an independent check --------------------------------------------------
class SequenceForm:
    """The sequence form (Koller, Megiddo & von Stengel 1996) of a public tree."""

    def __init__(self, tree):
        self.tree = tree
        self.seqs = ([None], [None])           # sequence 0: the empty one
        self.index = ({}, {})
        self.infosets = ([], [])               # (node, row, parent sequence, [its sequences])
        self.A = {}

        def walk(nid, last):
            node = tree[nid]
            if node.player < 0:
                for i0, i1, wx, _ in node.pairs:
                    key = (last[0].get(i0, 0), last[1].get(i1, 0))
                    self.A[key] = self.A.get(key, 0.0) + wx
                return
            p = node.player
            for j, h in enumerate(node.rows):
                own = []
                for c in range(len(node.moves)):
                    if node.legal[j][c]:
                        self.index[p][(nid, j, c)] = len(self.seqs[p])
                        own.append(len(self.seqs[p]))
                        self.seqs[p].append((nid, j, c))
                self.infosets[p].append((nid, j, last[p].get(h, 0), own))
            for c, child in enumerate(node.children):
                mine = dict(last[p])
                for j, h in enumerate(node.rows):
                    if node.legal[j][c]:
                        mine[h] = self.index[p][(nid, j, c)]
                walk(child, [mine, last[1]] if p == 0 else [last[0], mine])

        walk(0, [{}, {}])

    def constraints(self, p):
        """(E, e): E r = e for player p's realization plans r."""
        from scipy.sparse import lil_matrix
        sets = self.infosets[p]
        E = lil_matrix((len(sets) + 1, len(self.seqs[p])))
        E[0, 0] = 1
        for k, (_, _, parent, own) in enumerate(sets, start=1):
            E[k, parent] = -1
            for s in own:
                E[k, s] = 1
        e = [1.0] + [0.0] * len(sets)
        return E.tocsr(), e

    def matrix(self):
        from scipy.sparse import coo_matrix
        rows, cols, vals = zip(*((a, b, v) for (a, b), v in self.A.items()))
        return coo_matrix((vals, (rows, cols)),
                          shape=(len(self.seqs[0]), len(self.seqs[1]))).tocsr()

    def value(self):
        """max_x min_y x'Ay over the realization plans: the game's value (side 0, weighted)."""
        from scipy.optimize import linprog
        from scipy.sparse import csr_matrix, hstack
        A = self.matrix()
        E, e = self.constraints(0)
        F, f = self.constraints(1)
        n0, m1 = A.shape[0], F.shape[0]
        # variables (x, q): maximise f'q subject to F'q - A'x <= 0, E x = e, x >= 0
        A_ub = hstack([-A.T, F.T]).tocsr()
        A_eq = hstack([E, csr_matrix((E.shape[0], m1))]).tocsr()
        c = [0.0] * n0 + [-x for x in f]
        res = linprog(c, A_ub=A_ub, b_ub=[0.0] * A_ub.shape[0], A_eq=A_eq, b_eq=e,
                      bounds=[(0, None)] * n0 + [(None, None)] * m1, method="highs")
        assert res.status == 0, res.message
        return -res.fun

    def plan(self, p, average):
        """Player p's realization plan of a behavioural strategy (average(nid) per row)."""
        r = [0.0] * len(self.seqs[p])
        r[0] = 1.0
        for nid, j, parent, own in self.infosets[p]:      # in tree order: parents first
            sigma = average(nid)[j]
            for s in own:
                r[s] = r[parent] * sigma[self.seqs[p][s][2]]
        return r

    def best_response_value(self, b, other_plan):
        """Side 0's value when player b best responds to the other's plan, by LP."""
        from scipy.optimize import linprog
        A, sign = (self.matrix(), 1) if b == 0 else (self.matrix().T, -1)
        E, e = self.constraints(b)
        gain = sign * (A @ other_plan)              # side 0's gain, as player b sees it
        res = linprog(list(-gain), A_eq=E, b_eq=e, bounds=[(0, None)] * len(gain),
                      method="highs")
        return -sign * res.fun


def _solved(info, iterations):
    eg = core()
    g = endgame.game(info)
    c = eg.EndgameSolver(g.rules, g.root, g.hands, g.deals)
    c.run(iterations)
    tree = endgame_ref.build(g.rules, g.root, g.hands, g.deals)
    return g, c, tree


@pytest.mark.parametrize("count", sizes(3, 8))
def test_exploitability_is_an_exact_best_response(positions, count):
    """The stated exploitability is an LP best response's; the solved value is the LP's."""
    pytest.importorskip("scipy")
    checked = 0
    for k, (info, _) in enumerate(positions[:10]):
        g, c, tree = _solved(info, 16)
        sf = SequenceForm(tree)
        if k < count:
            x, y = sf.plan(0, c.average), sf.plan(1, c.average)
            br0 = sf.best_response_value(0, y) / g.weight
            br1 = sf.best_response_value(1, x) / g.weight
            stated, _ = endgame.solving.exploitability(c, g.weight, g.seat)
            assert math.isclose(br0 - br1, stated, abs_tol=1e-7)
            assert stated >= -1e-12
            sol = endgame.solve(g)
            assert sol.exploitability <= sol.tolerance
        c.run(384)
        exploit, (low, high) = endgame.solving.exploitability(c, g.weight, g.seat)
        if exploit > 1e-7:
            c.run(2000)
            exploit, (low, high) = endgame.solving.exploitability(c, g.weight, g.seat)
        lp = sf.value() / g.weight
        lp_seat = lp if g.seat == 0 else -lp
        assert low - 1e-9 <= lp_seat <= high + 1e-9
        values, _ = c.values(0)
        assert abs(sum(values) / g.weight - lp) < 1e-6
        checked += 1
    assert checked >= 8


# ---- the engine ---------------------------------------------------------------------------------
def test_too_big_is_a_type_not_a_message(positions):
    """The build and the solve past their caps raise `TooBig`, not interrupted."""
    eg = core()
    g = endgame.game(positions[-1][0])
    with pytest.raises(TooBig) as e:
        eg.EndgameSolver(g.rules, g.root, g.hands, g.deals, max_nodes=2)
    assert not e.value.interrupted
    with pytest.raises(TooBig) as e:
        endgame.solve(g, max_work=10)
    assert not e.value.interrupted and "(interrupted)" not in str(e.value)
    cut = TooBig("no time", interrupted=True, spent=7)
    assert (str(cut), cut.interrupted, cut.spent) == ("no time (interrupted)", True, 7)


def test_where_it_does_not_apply_or_is_too_big_the_engine_says_so():
    info = load_game(KNOWN)
    assert endgame.applicable(info) is None
    assert "points objective" in endgame.applicable(info, "match")
    res = search(info, Limits(iterations=500), seed=0, objective="match")
    assert res.info["endgame"]["solved"] is False and not res.info["exact"]
    for changed, why in ((dict(rules=Rules(players=3)), "not a zero-sum game"),
                         (dict(rules=Rules(players=4, partnerships=True)), "team game"),
                         (dict(reserve_size=5), "draws can still happen")):
        assert why in endgame.applicable(dataclasses.replace(info, **changed))
    early = dataclasses.replace(info, reserve_size=5)
    with pytest.raises(NotApplicable, match="no exact endgame here: .*draws can still happen"):
        search(early, Limits(iterations=10), algorithm="endgame")
    off = search(info, Limits(iterations=500), seed=0, endgame=False)
    assert "endgame" not in off.info and not off.info["exact"]
    # too big: today's engine answers
    with open("examples/decision.json") as f:
        info = load_game(f.read())
    res = search(info, Limits(iterations=500), seed=0)
    assert res.info["endgame"] == {"solved": False, "why": res.info["endgame"]["why"],
                                   "bracket_why": res.info["endgame"]["bracket_why"]}
    assert "too big" in res.info["endgame"]["why"]
    # 500 iterations buy 300,000 work: not even the first move's shallowest cut fits its share
    assert "no move could be bracketed within the budget" in res.info["endgame"]["bracket_why"]
    assert res.info["iterations"] == 500


# ---- the hand's bound ---------------------------------------------------------------------
def _tight(g):
    return endgame.solve(g, tolerance=1e-5, hand_tolerance=1e-5, max_work=10 ** 12,
                         max_iterations=200_000)


@pytest.mark.parametrize("count", sizes(12, 24))
def test_zero_sum_bounded_and_the_printed_bound_covers_the_distance_to_a_tight_solve(positions,
                                                                                   count):
    """Values sum to zero and the game's value lies within the bounds; a played move's value is
    within the printed bound of a tight solve's; the mix is bounded; with one deal left the
    equilibrium is the minimax of the hands."""
    for info, state in positions[:count]:
        g = endgame.game(info)
        tight, default = _tight(g), endgame.solve(g)
        assert tight.hand_bound <= 1e-5
        c = core().EndgameSolver(g.rules, g.root, g.hands, g.deals)
        c.run(default.iterations)
        assert abs(sum(c.values(0)[0]) + sum(c.values(1)[0])) < 1e-9 * max(1.0, g.weight)
        for sol in (default, endgame.solve(g, max_iterations=8)):
            low, high = sol.bounds
            assert low - 1e-12 <= sol.game_value <= high + 1e-12
            assert math.isclose(high - low, sol.exploitability, abs_tol=1e-12)
            assert sol.hand_bound == pytest.approx(sol.exploitability * g.weight / g.hand_weight)
            if sol.iterations < 8:
                assert sol.hand_bound <= endgame.budget.HAND_TOLERANCE
                assert sol.exploitability <= sol.tolerance
            for m, v in sol.values.items():
                if sol.average[m] >= endgame.budget.MIN_SHARE:     # a move the solution plays
                    assert abs(v - tight.values[m]) <= sol.hand_bound + tight.hand_bound, m
            for m, p in sol.mix.items():
                assert p == 0 or sol.values[m] >= sol.value - 2 * sol.hand_bound
            assert sum(sol.mix.values()) == pytest.approx(1.0)
        hands = (state.hands[0], state.hands[1])
        one = endgame.Endgame(g.rules, g.root, ([hands[0]], [hands[1]]), [(0, 0, 1.0)],
                              g.seat, 0)
        sol = endgame.solve(one, tolerance=1e-9)
        assert sol.exploitability < 1e-9
        want = endgame_ref.minimax(g.rules, g.root, hands)
        assert abs(sol.game_value - (want if g.seat == 0 else -want)) < 1e-9
        assert abs(sol.value - sol.game_value) < 1e-9


def test_the_mix_leaves_out_a_move_the_bound_rules_out():
    """played_mix drops a move over twice the bound below the best; the move is drawn from it."""
    a, b, c = Move.parse("1-1:R"), Move.parse("6-6:L"), Move.parse("1-2:L")
    values = {a: 3.667, b: 3.833, c: 3.82}
    mix = endgame.played_mix(values, {a: 0.287, b: 0.5, c: 0.213}, 0.01)
    assert mix[a] == 0 and mix[b] == pytest.approx(0.5 / 0.713) and mix[c] > 0
    wide = endgame.played_mix(values, {a: 0.287, b: 0.5, c: 0.213}, 0.1)
    assert wide[a] == pytest.approx(0.287)
    alone = endgame.played_mix(values, {a: 1.0, b: 0.0, c: 0.0}, 0.01)
    assert alone == {a: 0.0, b: 1.0, c: 0.0}
    # the mix is drawn with the seed (the same seed's same bytes: test_engine_contract.py)
    sol = endgame.Solution({"a": 0.0, "b": 0.0, "c": 0.0}, {"a": 0.7, "b": 0.295, "c": 0.005},
                           0.0, 0.0, (0.0, 0.0), 0.0, 0.01, 1, 1, 1, 1, 1, 0.0)
    draws = [sol.choose(seed) for seed in range(2000)]
    assert set(draws) == {"a", "b"}                      # below MIN_SHARE: never played
    assert abs(draws.count("a") / 2000 - 0.7 / 0.995) < 0.04
    assert all(sol.choose(s) == d for s, d in zip(range(50), draws))


# ---- the size predicted before anything is built ------------------------------------------------
def test_the_prediction_is_unbiased(positions, monkeypatch):
    """Knuth's estimator's mean is the count of deals and of terminal deals; seeded."""
    eg = core()
    monkeypatch.setattr(endgame.budget, "PREDICT_WALKS", 8_000)
    monkeypatch.setattr(endgame.budget, "PREDICT_STEPS", 0)
    for info, _ in positions[:3]:
        g = endgame.game(info)
        solver = eg.EndgameSolver(g.rules, g.root, g.hands, g.deals)
        p = endgame.predict(info)
        assert p.walks == 8_000 and p == endgame.predict(info)
        assert abs(p.deals / len(g.deals) - 1) < 0.05, (p, len(g.deals))
        assert abs(p.pairs / solver.n_pairs - 1) < 0.08, (p, solver.n_pairs)


# ---- stops heard while the deals and the tree are built (in C, without the GIL) -------------
def _big_game():
    """examples/decision.json's endgame (31,482 deals): its build runs about a second."""
    info = load_game(open("examples/decision.json", encoding="utf-8").read())
    return info, endgame.public_table(info)


def test_each_build_hears_its_own_stop():
    """A build's own stop stops its enumeration and build, not another thread's build."""
    info, table = _big_game()
    compiled = core()
    g = endgame.game(info)
    assert len(g.deals) == 31482
    stopped = threading.Event()
    stopped.set()
    for build in (lambda: compiled.enumerate_deals(table, stop=stopped.is_set),
                  lambda: endgame.solve(g, stop=stopped)):
        with pytest.raises(KeyboardInterrupt):
            build()
    found = []
    beside = threading.Thread(
        target=lambda: found.append(endgame.game(info, stop=threading.Event())))
    beside.start()
    try:
        for _ in range(20):             # stopped builds, one after the other, meanwhile
            with pytest.raises(KeyboardInterrupt):
                compiled.enumerate_deals(table, stop=stopped.is_set)
    finally:
        beside.join()
    assert len(found[0].deals) == 31482
    with pytest.raises(BergenError, match="callable"):
        compiled.enumerate_deals(table, stop=stopped)


def test_dcfr_hears_a_stop_and_its_deadline_between_iterations():
    """`solve` reads its clock before each DCFR iteration: a stop or the deadline found there
    ends the run where it is, measured once more after its last iteration (a stop marks it
    interrupted); a deadline after one iteration, short of the accepted exploitability, is
    TooBig saying so. Deterministic through the clock: the stop is set at its 5th reading, the
    time is a millisecond a reading."""
    g = endgame.game(load_game(KNOWN))
    full = endgame.solve(g, tolerance=1e-6)
    stop, reads, ticks = threading.Event(), itertools.count(1), itertools.count(1)

    def stopping():
        if next(reads) == 5:
            stop.set()
        return 0.0
    stopped = endgame.solve(g, tolerance=1e-6, stop=stop, clock=stopping)
    late = endgame.solve(g, tolerance=1e-6, seconds=0.008, clock=lambda: next(ticks) * 1e-3)
    for sol in (stopped, late):
        assert 0 < sol.iterations < full.iterations
        assert full.exploitability < sol.exploitability < endgame.solving.ACCEPT
        assert sol.exploitability == endgame.solve(g, tolerance=1e-6,
                                                   max_iterations=sol.iterations).exploitability
    assert stopped.interrupted and not late.interrupted
    ticks = itertools.count(1)
    with pytest.raises(TooBig, match="ran out before the solution was exact enough"):
        endgame.solve(g, tolerance=1e-6, seconds=0.004, clock=lambda: next(ticks) * 1e-3)


def test_a_search_stop_is_heard_inside_the_build(monkeypatch):
    """A stop set at the start interrupts the attempt's build and leaves nothing behind."""
    core()
    info, _ = _big_game()
    monkeypatch.setattr(endgame.budget, "PREDICT_WALKS", 0)     # built, not declined at once
    stop = threading.Event()
    stop.set()
    tried = endgame.attempt(info, Limits(), seed=0, objective="points", budget=None,
                            stop=stop)
    assert tried.result is None and tried.interrupted and tried.why == "interrupted"
    # and nothing of that stop is left behind: the next attempt builds as far as its budget
    again = endgame.attempt(info, Limits(iterations=1000), seed=0, objective="points")
    assert not again.interrupted and "too big" in again.why


def test_ctrl_c_is_heard_inside_the_build():
    """SIGINT while the tree is built: the signal's exception comes out of the build."""

    class Signalled(Exception):
        pass
    armed = [True]

    def handler(signum, frame):
        if armed[0]:
            raise Signalled
    core()
    info, _ = _big_game()
    g = endgame.game(info)
    old = signal.signal(signal.SIGINT, handler)
    # The sender is running before the signal is armed: on a loaded machine a thread's start
    # can take longer than the delay, and the signal would come before the build began.
    go = threading.Event()

    def send():
        go.wait()
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)
    sender = threading.Thread(target=send)
    sender.start()
    try:
        with pytest.raises(Signalled) as caught:
            go.set()
            endgame.solve(g)
        assert any("/search/endgame/" in str(entry.path) for entry in caught.traceback), \
            "the signal came before the build began"
    finally:
        armed[0] = False
        go.set()
        sender.join()
        signal.signal(signal.SIGINT, old)


def test_the_known_case_tells_the_two_moves_apart_and_best_and_eval_say_exact(tmp_path):
    """Issue 22's position: ISMCTS values 1-2:R and 1-5:R alike; the equilibrium does not.
    (`best`'s text on it is GUIDE.md's transcript, run by test_doc_examples.py.)"""
    sol = endgame.solve(endgame.game(load_game(KNOWN)), tolerance=1e-6)
    assert abs(sol.values[Move.parse("1-5:R")] - 1.2) < 1e-4 and abs(
        sol.values[Move.parse("1-2:R")] + 0.4) < 1e-4
    assert sol.mix[Move.parse("1-5:R")] > 0.999
    p = tmp_path / "p.json"
    p.write_text(KNOWN)
    doc = json.loads(CliRunner().invoke(main, ["best", str(p), "--json"]).output)
    assert doc["best"] == "1-5:R" and doc["exact"] is True and doc["endgame"]["solved"] is True
    assert doc["endgame"]["deals"] == 125 and doc["endgame"]["worlds"] == 5
    assert abs(sum(m.get("share", 0) for m in doc["moves"]) - 1) < 1e-6
    assert doc["stderr"] == doc["endgame"]["hand_bound"] >= doc["endgame"]["exploitability"]
    # (the exact value does not depend on the budget; the chances to win, ISMCTS's, do)
    ev = CliRunner().invoke(main, ["eval", str(p), "--iterations", "1000"]).output
    assert "exact: equilibrium" in ev and "value +1.20" in ev
    big = CliRunner().invoke(main, ["best", "examples/decision.json", "--iterations", "300",
                                    "--verbose"]).output
    assert "exact: not solved, its public tree is too big" in big
    assert "bracket: none, with this hand shown no move could be bracketed" in big
    strict = CliRunner().invoke(main, ["best", "examples/decision.json", "--algorithm",
                                       "endgame"])
    assert strict.exit_code == 2


def test_analyze_charges_exact_losses_and_marks_them(tmp_path):
    i = next(i for i, info, _ in endgame_positions(100, 5) if sum(info.hand_sizes) <= 8)
    log = play_engines(Rules(), parse_engine_list("greedy", 2), derive_seed(5, i), max_rounds=1)
    # (the exact losses do not depend on the budget, which only the other decisions use;
    # seat 1 makes this round's two exact decisions)
    result = analyze(write_record(log), limits=Limits(iterations=300), seed=1, seats={1})
    exact = [d for d in result.decisions if d.exact]
    assert exact, "the round reaches the endgame with a choice"
    for d in exact:
        assert d.loss == pytest.approx(max(d.values.values()) - d.values[d.played])
        assert not d.rechecked
    assert "(exact)" in text(result)
    assert any(d["exact"] for d in to_json([result], 0.0)["decisions"])
    assert 'data-exact="1"' in html_report([result])


@pytest.mark.parametrize("variant", [
    {"draw": "one"}, {"blocked": "pips"}, {"blocked": "american"}, {"out_bonus": 5},
    {"endgame_cap": False, "target": 8}, {"lead": "highest-double", "no_double": "lowest-tile"},
])
def test_every_rule_variant(variant):
    """Under each variant: oracle = core, value = LP, the true deal among the deals."""
    pytest.importorskip("scipy")
    found = 0
    for _, info, state in endgame_positions(300, 13, rules=Rules(players=2, **variant)):
        if sum(info.hand_sizes) > 6:
            continue
        g, c, tree = agree_to_the_bit(info, 10)
        assert (state.hands[0], state.hands[1]) in {
            (g.hands[0][a], g.hands[1][b]) for a, b, _ in g.deals}
        c.run(1500)
        exploit, _ = endgame.solving.exploitability(c, g.weight, g.seat)
        lp = SequenceForm(tree).value() / g.weight
        assert abs(sum(c.values(0)[0]) / g.weight - lp) < max(1e-6, exploit)
        found += 1
        if found == 2:
            break
    assert found == 2


def test_an_engine_plays_through_the_endgame_reproducibly():
    """A match's engine solves at the stage and plays on; the same seed, the same match."""
    i = next(i for i, info, _ in endgame_positions(100, 5) if sum(info.hand_sizes) <= 8)
    specs = parse_engine_list("ismcts:iterations=2000,ismcts:iterations=2000,endgame=off", 2)
    a = play_engines(Rules(), specs, derive_seed(5, i), max_rounds=1)
    b = play_engines(Rules(), specs, derive_seed(5, i), max_rounds=1)
    assert dump_record(write_record(a)) == dump_record(write_record(b))
    assert a.rounds[0].end in ("out", "blocked", "target")
