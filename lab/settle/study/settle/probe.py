"""The within-tree trend: every tree of a default search, with each root move's final-pass
value read at checkpoints of that move's own iterations (n/16, n/8, n/4, n/2 of its final
n), on the very worlds and playout seeds of the final pass (common random numbers).

How: a search is replicated tree by tree as `algorithms.ismcts.Ismcts.worker` runs it
(same sampler, settings, seeds `derive_seed(seed, u)`, budget share, sequential halving,
final pass W = clip(done // (5 k), 100, 4000) on `derive_seed(seed_u, PASS_STREAM)`). Each
tree is grown twice: once to learn every root move's final forced iterations n_m, then
again from the same seed with `run_move` sliced at the checkpoints (a tree is the same
however its runs are sliced, and a pass draws nothing from the tree's RNG), where
`evaluate_root(W, pass_seed, only=m)` reads the move's value. The second tree's final
pass is the search's: `check` compares it with `search()` bit for bit.

    python probe.py SET BUDGET SEED [SEED ...]     (appends to data/probe.jsonl; resumable)
    python probe.py check                          (a few positions against search())

Output, one line per (set, id, budget, seed): per tree u: `worlds` W, `n` {move: n_m},
`marks` {move: [[count, sum], ...]} (the checkpoints, then the final: count n_m with the
final pass's sum), `sq` {move: final pass's sum of squares}; per move the search's value
(`value`, the trees' mean). A move is its code (int); mirror twins are folded (the left
one kept).
"""
import json
import math
import os
import sys
import time
from functools import partial

from bergen_search.constants import PASS_STREAM
from bergen_search.formats.game import load_game
from bergen_search.game.rng import derive_seed
from bergen_search.search import backend
try:        # the settle branch after its rebase on main (one home per engine)
    from bergen_search.search.engines import ismcts as alg_mod
    pool_bytes = None       # each tree counts its own memory there (account None)
except ImportError:         # the branch as the data were made (the lab snapshot's layout)
    from bergen_search.search.algorithms import ismcts as alg_mod
    from bergen_search._ismcts import pool_bytes
from bergen_search.search.api import Limits, search
from bergen_search.search.limits import DEFAULT_MEMORY_MB, Deadline
from bergen_search.search.registry import Settings, algorithms

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
OUT = os.path.join(HERE, "data", "probe.jsonl")
FRACTIONS = (16, 8, 4, 2)           # checkpoints at n // 16, n // 8, n // 4, n // 2
#: Pass variants (LAB engine copy xengine/ only: IsmctsTree.set_pass(minimum, pick, prior)),
#: from the environment PASSES="min:pick:prior,..." ; unset: today's pass alone.
PASSES = [tuple(float(x) for x in v.split(":")) for v in os.environ.get("PASSES", "").split(",")
          if v]
TAG = os.environ.get("TAG", "")
if TAG:
    OUT = os.path.join(HERE, "data", f"probe_{TAG}.jsonl")


def corpus(name):
    """A set's positions: the lab's dev and test, or this folder's val (make_val.sh)."""
    mine = os.path.join(HERE, "corpus", f"{name}.jsonl")
    path = mine if os.path.exists(mine) else os.path.join(LAB, "corpus", f"{name}.jsonl")
    return [json.loads(line) for line in open(path)]


class Probed:
    """A tree whose `run_move` stops at the given own-iteration counts of each move and
    reads that move's pass value there (`on_mark`). Everything else is the tree's."""

    def __init__(self, tree, marks, on_mark):
        self.tree, self.marks, self.on_mark = tree, marks, on_mark
        self.own = {}

    def __getattr__(self, name):
        return getattr(self.tree, name)

    def run_move(self, move, iterations, seconds):
        key = self.tree.twins.get(move, move)
        done_now = self.own.get(key, 0)
        todo = [c for c in self.marks.get(key, ()) if c > done_now]
        n = min(iterations, todo[0] - done_now) if todo else iterations
        got = self.tree.run_move(move, n, seconds)
        self.own[key] = done_now + got
        if todo and self.own[key] == todo[0]:
            self.on_mark(key, self.own[key])
        return got


def make_tree(sampler, seed, settings):
    where = (f"{alg_mod.__name__}._ismcts.IsmctsTree" if alg_mod.__name__.endswith("engines.ismcts")
             else "_ismcts.IsmctsTree")
    cls = backend.SEARCH.pick(where, alg_mod.ReferenceTree)
    return cls(sampler, seed, settings["exploration"], 0, settings["playout"],
               merge_twins=settings["twins"], choice_stats=settings["stats"] == "choices",
               max_bytes=DEFAULT_MEMORY_MB << 20)


def probe_tree(info, table, settings, budget, seed, fractions=FRACTIONS):
    """One tree (budget, seed) as the worker grows it, with checkpoints. Returns the
    record of that tree, or None when the root has fewer than two choices."""
    alg = algorithms()["ismcts"]
    tree = make_tree(alg.sampler(info, table), seed, settings)
    done, _ = alg_mod.halving(tree, budget, Deadline(None))
    choices = [m for m, *_ in tree.root_stats() if m not in tree.twins]
    if len(choices) < 2:
        return None
    final_n = {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}
    worlds = max(alg_mod.PASS_MIN, min(alg_mod.PASS_MAX, done // (alg_mod.PASS_SPREAD
                                                                  * len(choices))))
    pseed = derive_seed(seed, PASS_STREAM)
    del tree
    marks = {m: sorted({n // f for f in fractions if n // f > 0}) for m, n in final_n.items()}
    got = {m: [] for m in choices}

    def passes(tree, m):
        if not PASSES:
            (row,) = tree.evaluate_root(worlds, pseed, only=m)
            return row[1]
        out = []
        for mn, pick, prior, *depth in PASSES:
            tree.set_pass(int(mn), int(pick), prior, int(depth[0]) if depth else 0)
            (row,) = tree.evaluate_root(worlds, pseed, only=m)
            out.append(row[1])
        tree.set_pass(0, 0, 0.0, 0)
        return out

    def on_mark(m, count):
        got[m].append([count, passes(probed.tree, m)])

    probed = Probed(make_tree(alg.sampler(info, table), seed, settings), marks, on_mark)
    done2, _ = alg_mod.halving(probed, budget, Deadline(None))
    assert done2 == done
    rows = probed.tree.evaluate_root(worlds, pseed)
    sq = {}
    for m, s, q, _ in rows:
        if m in got:
            got[m].append([final_n[m], s if not PASSES else passes(probed.tree, m)])
            sq[m] = q
    nodes = probed.tree.n_nodes
    # on_mark and probed refer to each other: break the cycle so that the tree is freed
    # now (the memory cap counts every tree alive in the process, as the search's would).
    probed.on_mark = probed.tree = None
    assert pool_bytes is None or pool_bytes() == 0, pool_bytes()
    return {"worlds": worlds, "n": final_n, "marks": got, "sq": sq, "nodes": nodes}


def probe_search(p, budget, seed, fractions=FRACTIONS):
    info = load_game(json.dumps(p["doc"]))
    settings = dict(Settings.of("ismcts", {}))
    alg = algorithms()["ismcts"]
    table = alg.table(info, settings)
    units = settings["replicates"]
    shares = [budget // units + (u < budget % units) for u in range(units)]
    t0 = time.time()
    trees = [probe_tree(info, table, settings, shares[u], derive_seed(seed, u), fractions)
             for u in range(units)]
    wall = time.time() - t0
    if any(t is None for t in trees):
        return None
    moves = list(trees[0]["n"])
    value = {m: math.fsum((t["marks"][m][-1][1] if not PASSES else t["marks"][m][-1][1][0])
                          / t["worlds"] for t in trees) / units for m in moves}
    return {"set": p["set"], "id": p["id"], "config": p["config"], "stage": p["stage"],
            "players": p["players"], "iterations": budget, "seed": seed,
            "trees": [{**t, "n": {str(k): v for k, v in t["n"].items()},
                       "marks": {str(k): v for k, v in t["marks"].items()},
                       "sq": {str(k): v for k, v in t["sq"].items()}} for t in trees],
            "value": {str(k): v for k, v in value.items()}, "wall": wall,
            "passes": PASSES}


def exact_ids():
    """Positions the exact endgame valued in some run (the lab's curve, or data/big.jsonl)."""
    out = set()
    for line in open(os.path.join(LAB, "data", "curve.jsonl")):
        d = json.loads(line)
        if d["info"]["exact"]:
            out.add(d["id"])
    big = os.path.join(HERE, "data", "big.jsonl")
    if os.path.exists(big):
        for line in open(big):
            d = json.loads(line)
            if d.get("exact"):
                out.add(d["id"])
    return out


def check():
    """The probed searches' values are search()'s, to the bit (a few positions)."""
    ps = [p for p in corpus("dev") if p["id"] not in exact_ids()][:: 12]
    for p in ps:
        rec = probe_search(p, 20_000, 5)
        res = search(load_game(json.dumps(p["doc"])), Limits(iterations=20_000), seed=5)
        for m in res.moves:
            if m.twin is None:
                assert rec["value"][str(m.code)] == m.value, (p["id"], m, rec["value"])
        print("same values:", p["id"], flush=True)


def main():
    if sys.argv[1:] == ["check"]:
        return check()
    name, budget, seeds = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
    skip = exact_ids()
    have = set()
    if os.path.exists(OUT):
        for line in open(OUT):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            have.add((d["set"], d["id"], d["iterations"], d["seed"]))
    todo = [(p, s) for s in seeds for p in corpus(name)
            if p["id"] not in skip and (p["set"], p["id"], budget, s) not in have]
    print(f"{time.strftime('%H:%M:%S')} {name} {budget} {seeds}: {len(todo)} to do", flush=True)
    with open(OUT, "a") as fh:
        for k, (p, s) in enumerate(todo):
            rec = probe_search(p, budget, s)
            if rec is None:
                continue
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            print(f"{time.strftime('%H:%M:%S')} {k + 1}/{len(todo)} {p['id']} {budget} s{s} "
                  f"{rec['wall']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
