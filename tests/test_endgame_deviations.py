"""A deviation's refined value lies within its bound of an independent sequence-form LP's."""
from __future__ import annotations

import json
import time

import pytest
from support import sizes, stage_cuts
from test_endgame import small_positions

from bergen_search.formats.game import load_game
from bergen_search.search import endgame
from bergen_search.search.endgame import reference as endgame_ref
from bergen_search.search.api import Limits, search


class HandLP:
    """The sequence form of a subgame split by the mover's hand; `least(i)` by two LPs."""

    def __init__(self, tree, p, n_hands):
        self.p, o = p, 1 - p
        self.n = n_hands
        self.mseq = [("empty", h) for h in range(n_hands)]   # mover's sequences
        self.mindex = {}
        self.minfo = [("root", h, None) for h in range(n_hands)]  # (node, row, parent seq)
        self.oseq = [None]
        self.oindex = {}
        self.oinfo = []                                           # (parent seq, [seqs])
        self.A = {}
        sign = 1.0 if p == 0 else -1.0

        def walk(nid, last):
            node = tree[nid]
            if node.player < 0:
                for i0, i1, wx, _ in node.pairs:
                    hp, ho = (i0, i1) if p == 0 else (i1, i0)
                    key = (last[p].get(hp, hp), last[o].get(ho, 0))
                    self.A[key] = self.A.get(key, 0.0) + sign * wx
                return
            q = node.player
            for j, h in enumerate(node.rows):
                own = []
                for c in range(len(node.moves)):
                    if node.legal[j][c]:
                        seqs, index = (self.mseq, self.mindex) if q == p else (self.oseq,
                                                                               self.oindex)
                        index[(nid, j, c)] = len(seqs)
                        own.append(len(seqs))
                        seqs.append((nid, j, c))
                if q == p:
                    self.minfo.append((nid, own, last[p].get(h, h)))
                else:
                    self.oinfo.append((last[o].get(h, 0), own))
            for c, child in enumerate(node.children):
                mine = dict(last[q])
                index = self.mindex if q == p else self.oindex
                for j, h in enumerate(node.rows):
                    if node.legal[j][c]:
                        mine[h] = index[(nid, j, c)]
                nxt = list(last)
                nxt[q] = mine
                walk(child, nxt)

        walk(0, [{}, {}])

    def _program(self):
        """(A_ub, b_ub, A_eq, b_eq, n_y, n_q) of the LP over y and the mover's q."""
        from scipy.sparse import lil_matrix
        ny, nq = len(self.oseq), len(self.minfo)
        owner = {h: h for h in range(self.n)}       # empty sequence h belongs to infoset h
        for k, (nid, own, _) in enumerate(self.minfo[self.n:], start=self.n):
            for s in own:
                owner[s] = k
        A_ub = lil_matrix((len(self.mseq), ny + nq))
        for (s, t), v in self.A.items():
            A_ub[s, t] += v
        for k, (nid, own, parent) in enumerate(self.minfo[self.n:], start=self.n):
            A_ub[parent, ny + k] += 1.0
        for s in range(len(self.mseq)):
            A_ub[s, ny + owner[s]] -= 1.0
        A_eq = lil_matrix((len(self.oinfo) + 1, ny + nq))
        A_eq[0, 0] = 1.0
        for r, (parent, own) in enumerate(self.oinfo, start=1):
            A_eq[r, parent] = -1.0
            for s in own:
                A_eq[r, s] = 1.0
        b_eq = [1.0] + [0.0] * len(self.oinfo)
        return A_ub.tocsr(), [0.0] * len(self.mseq), A_eq.tocsr(), b_eq, ny, nq

    def least(self, i):
        """(the mover's game value, hand i's least best-response value), both weighted."""
        from scipy.optimize import linprog
        from scipy.sparse import csr_matrix, vstack
        A_ub, b_ub, A_eq, b_eq, ny, nq = self._program()
        bounds = [(0, None)] * ny + [(None, None)] * nq
        total = [0.0] * ny + [1.0] * self.n + [0.0] * (nq - self.n)
        res = linprog(total, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                      method="highs")
        assert res.status == 0, res.message
        value = res.fun
        own = [0.0] * (ny + nq)
        own[ny + i] = 1.0
        res = linprog(own, A_ub=vstack([A_ub, csr_matrix([total])]),
                      b_ub=b_ub + [value + 1e-9 * max(1.0, abs(value))], A_eq=A_eq, b_eq=b_eq,
                      bounds=bounds, method="highs")
        assert res.status == 0, res.message
        return value, res.fun


def lp_value_after(g, move):
    """The hand's value after `move` against the most punishing answer, by LP."""
    sub = endgame.after(g, move.code)
    tree = endgame_ref.build(sub.rules, sub.root, sub.hands, sub.deals)
    lp = HandLP(tree, sub.seat, len(sub.hands[sub.seat]))
    _, least = lp.least(sub.hand_index)
    sign = 1.0 if g.seat == 0 else -1.0
    moved = sign * ((sub.root.scores[0] - g.root.scores[0])
                    - (sub.root.scores[1] - g.root.scores[1]))
    return moved + least / sub.hand_weight


@pytest.fixture(scope="module")
def solved():
    """(position, game, solution) of 8 small stage decisions with a move outside the mix."""
    out = []
    for info, _ in small_positions(n=60, seed=5, limit=8):
        g = endgame.game(info)
        sol = endgame.solve(g, tolerance=1e-3, hand_tolerance=1e-3)
        if any(endgame.after(g, m.code) is not None for m in sol.refined):
            out.append((info, g, sol))
        if len(out) == 8:
            return out
    raise AssertionError("too few stage decisions with a deviation")


def test_refined_values_agree_with_the_sequence_form_lp(solved):
    """Every refined deviation's value is within its bound of the LP's; the lax solve's is not."""
    checked = strays = 0
    for info, g, sol in solved:
        for m, ok in sol.refined.items():
            assert ok, "an unlimited solve refines every deviation"
            if endgame.after(g, m.code) is None:
                continue
            want = lp_value_after(g, m)
            assert abs(sol.values[m] - want) <= sol.move_bounds[m] + 1e-6, (info, m)
            strays += abs(sol.unrefined[m] - want) > sol.move_bounds[m] + 1e-6
            checked += 1
        for m, share in sol.mix.items():
            if share > 0:
                assert m not in sol.refined and m not in sol.unrefined
                assert sol.move_bounds[m] == sol.hand_bound
    assert checked >= 8 and strays >= 1


@pytest.mark.parametrize("which", sizes(([0, 1, 3],), (list(range(8)),)))
def test_the_solution_is_the_same_whichever_solver_is_loaded(solved, monkeypatch, which):
    """`solve` through the oracle gives the compiled values, mix, iterations and refined
    deviations to the bit (three of the decisions by default, all eight behind slow)."""
    for info, _, sol in (solved[k] for k in which):
        with monkeypatch.context() as m:
            m.setattr(endgame.deals, "compiled", lambda: None)
            ref = endgame.solve(endgame.game(info), tolerance=1e-3, hand_tolerance=1e-3)
        assert (ref.values, ref.mix, ref.iterations) == (sol.values, sol.mix, sol.iterations)
        assert ref.move_bounds == sol.move_bounds and ref.refined == sol.refined
        assert ref.pairs is None and sol.pairs is not None


def test_the_budget_counts_the_subgames_work(solved):
    """The subgames' work is within the budget; a short one leaves some unrefined; with none
    after the root every deviation stays unrefined, flagged so."""
    starved = 0
    for info, g, full in solved:
        root = endgame.solve(g, tolerance=1e-3, hand_tolerance=1e-3, refine=False)
        assert full.spent > root.spent or all(endgame.after(g, m.code) is None
                                              for m in full.refined)
        budget = max(root.spent, (2 * endgame.budget.MIN_ITERATIONS + 8) * root.work) + 100
        capped = endgame.solve(g, tolerance=1e-3, hand_tolerance=1e-3, max_work=budget)
        assert capped.spent <= budget
        starved += not all(capped.refined.values())
    assert starved >= 1
    _, g, _ = solved[0]
    sol = endgame.solve(g, tolerance=1e-3, hand_tolerance=1e-3, refine=False)
    assert sol.refined == {}
    values = dict(sol.values)
    endgame.solving.refine_deviations(g, sol, max_work=0, seconds=None, clock=time.perf_counter,
                                      stop=None, tolerance=1e-3, hand_tolerance=1e-3)
    assert sol.refined
    for m, ok in sol.refined.items():
        assert ok == (endgame.after(g, m.code) is None)
        assert sol.values[m] == sol.unrefined[m] == values[m]
        assert sol.move_bounds[m] == (0.0 if ok else sol.hand_bound)


@pytest.fixture(scope="module")
def cut():
    """(shown, hidden, search) of the first stage cut whose solve has a deviation not ending the
    round."""
    for shown, hidden in stage_cuts(900, 300, choices=3):
        res = search(load_game(shown), Limits(iterations=20000), seed=4)
        if any(res.info.get("endgame", {}).get("refined", {}).values()):
            return shown, hidden, res
    raise AssertionError("no stage decision with a deviation")


def test_no_peek_filling_in_the_hidden_hand_changes_nothing(cut):
    shown, hidden, res = cut
    other = search(load_game(hidden), Limits(iterations=20000), seed=4)
    assert other.moves == res.moves
    assert other.info["endgame"] == res.info["endgame"] | {
        "solve_seconds": other.info["endgame"]["solve_seconds"]}


def test_best_flags_each_deviation_in_its_text_and_json(cut, tmp_path):
    from click.testing import CliRunner

    from bergen_search.cli import main
    _, hidden, res = cut
    p = tmp_path / "cut.json"
    p.write_text(hidden)
    doc = json.loads(CliRunner().invoke(main, ["best", str(p), "--json"]).output)
    refined = doc["endgame"]["refined"]
    assert refined and all(v is True for v in refined.values())
    assert set(refined) == {m["move"] for m in doc["moves"] if m.get("share", 0) == 0}
    text = CliRunner().invoke(main, ["best", str(p)]).output
    assert "answered" in text and "unrefined" not in text
    rows = [ln for ln in text.splitlines() if ln.strip().endswith("answered")]
    assert len(rows) == len(refined)


def test_analyze_charges_a_deviation_its_refined_value(cut):
    """`analyze` charges a deviation from its refined value, within the bounds."""
    from bergen_search.analysis.verdicts import loss_bounds
    shown, _, res = cut
    refined = res.info["endgame"]["refined"]
    info = load_game(shown)
    g = endgame.game(info)
    for m in res.moves:
        if m.twin is not None or m.move not in refined:
            continue
        sub = endgame.after(g, m.code)
        if sub is not None:
            r = endgame.value_after(g, m.code, sub=sub)
            assert (m.value, m.bound, m.stderr) == (r.value, r.bound, 0.0)
        others = [x for x in res.moves if x.code != m.code and x.twin != m.move]
        lo, hi, _ = loss_bounds(m, res)
        assert lo == max([0.0] + [x.value - m.value - (x.bound + m.bound) for x in others])
        assert hi == max([0.0] + [x.value - m.value + (x.bound + m.bound) for x in others])
