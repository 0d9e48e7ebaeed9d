"""Part 5: deepening "until stopped", prototyped. The 8 trees of a default search (seed S,
trees derive_seed(S, u)) grown in doubling cycles: cycle 0 a halving over 12.5k (the default
tree: cycle 0 is the 100k search of seed S, bit for bit), cycle c >= 1 a halving over the
budget added, which doubles the tree (12.5k -> 25k -> 50k -> 100k -> 200k per tree: the
answers at 100k, 200k, 400k, 800k and 1.6M in all). At each cycle's end: the final pass (W
as a search of that size would take: clip(n / (5 k), 100, 4000), the pass seed of the
tree), and the trend of the cycle: each move read at the cycle's start and end on the same
W worlds (one pass of the move alone at the start), per doubling of its own iterations.
Trees are grown one after the other (the memory cap counts the trees alive at once: 8
trees of 200k can pass 256 MB, see the README), CPU time (process_time) per cycle.

    python deepen.py SET SEED        (appends to data/deepen.jsonl)
"""
import json
import math
import os
import sys
import time

from bergen_search.constants import PASS_STREAM
from bergen_search.formats.game import load_game
from bergen_search.game.rng import derive_seed
try:        # the settle branch after its rebase on main (one home per engine)
    from bergen_search.search.engines import ismcts as alg_mod
    pool_bytes = None       # each tree counts its own memory there (account None)
except ImportError:         # the branch as the data were made (the lab snapshot's layout)
    from bergen_search.search.algorithms import ismcts as alg_mod
    from bergen_search._ismcts import pool_bytes
from bergen_search.search.api import Limits, search
from bergen_search.search.limits import Deadline
from bergen_search.search.registry import Settings, algorithms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe import corpus, exact_ids, make_tree  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "deepen.jsonl")
B0, CYCLES = 12_500, 5


def worlds_for(n, k):
    return max(alg_mod.PASS_MIN, min(alg_mod.PASS_MAX, n // (alg_mod.PASS_SPREAD * k)))


def deepen_tree(info, table, settings, seed):
    alg = algorithms()["ismcts"]
    tree = make_tree(alg.sampler(info, table), seed, settings)
    pseed = derive_seed(seed, PASS_STREAM)
    out = []
    size = 0
    for c in range(CYCLES):
        add = B0 if c == 0 else size
        t0 = time.process_time()
        before = {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}
        k = len(before)
        W = worlds_for(size + add, k)
        start = {}
        if c > 0:
            for m in before:
                (row,) = tree.evaluate_root(W, pseed, only=m)
                start[m] = row[1] / W
        t1 = time.process_time()
        done, _ = alg_mod.halving(tree, add, Deadline(None))
        size += done
        t2 = time.process_time()
        rows = tree.evaluate_root(W, pseed)
        t3 = time.process_time()
        end = {m: s / W for m, s, _, _ in rows if m in before}
        sq = {m: q for m, s, q, _ in rows if m in before}
        after = {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}
        out.append({"cycle": c, "size": size, "worlds": W, "value": end, "sq": sq,
                    "start": start, "n_before": before, "n": after,
                    "cpu_trend": t1 - t0, "cpu_tree": t2 - t1, "cpu_pass": t3 - t2,
                    "full": tree.full})
    return out


def main():
    name, seed = sys.argv[1], int(sys.argv[2])
    have = set()
    if os.path.exists(OUT):
        for line in open(OUT):
            d = json.loads(line)
            have.add((d["set"], d["id"], d["seed"]))
    skip = exact_ids()
    settings = dict(Settings.of("ismcts", {}))
    alg = algorithms()["ismcts"]
    with open(OUT, "a") as fh:
        for p in corpus(name):
            if p["id"] in skip or (p["set"], p["id"], seed) in have:
                continue
            info = load_game(json.dumps(p["doc"]))
            table = alg.table(info, settings)
            trees = []
            for u in range(8):
                trees.append(deepen_tree(info, table, settings, derive_seed(seed, u)))
            rec = {"set": p["set"], "id": p["id"], "config": p["config"], "stage": p["stage"],
                   "seed": seed,
                   "trees": [[{**c, "value": {str(k): v for k, v in c["value"].items()},
                               "sq": {str(k): v for k, v in c["sq"].items()},
                               "start": {str(k): v for k, v in c["start"].items()},
                               "n_before": {str(k): v for k, v in c["n_before"].items()},
                               "n": {str(k): v for k, v in c["n"].items()}} for c in t]
                             for t in trees]}
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            cpu = sum(c["cpu_trend"] + c["cpu_tree"] + c["cpu_pass"] for t in trees for c in t)
            print(f"{time.strftime('%H:%M:%S')} {p['id']} s{seed} cpu {cpu:.1f}s", flush=True)


if __name__ == "__main__":
    main()
