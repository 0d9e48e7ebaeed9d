"""The cost of the checkpoints: CPU time (process_time, so that the shared machine's load
matters less) of a default search (search(), 100k) against the checkpoint passes the
method adds (one pass of each move alone at n/2 and at n/4 of its own iterations, on the
final pass's worlds), per dev position, seed 1. The checkpoint passes are timed inside the
second growth of each tree (probe.py's way: a tree grown once to learn the final counts,
then again with halving's Marks hook).

    python timing.py [SET] [ITERATIONS]
"""
import json
import os
import statistics as st
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

SET = sys.argv[1] if len(sys.argv) > 1 else "dev"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
rows = []
for p in corpus(SET):
    if p["id"] in exact_ids():
        continue
    info = load_game(json.dumps(p["doc"]))
    t0 = time.process_time()
    search(info, Limits(iterations=N), seed=1)
    t_search = time.process_time() - t0
    settings = dict(Settings.of("ismcts", {}))
    alg = algorithms()["ismcts"]
    table = alg.table(info, settings)
    extra = 0.0
    for u in range(8):
        seed = derive_seed(1, u)
        tree = make_tree(alg.sampler(info, table), seed, settings)
        done, _ = alg_mod.halving(tree, N // 8, Deadline(None))
        final = {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}
        k = len(final)
        del tree
        worlds = max(alg_mod.PASS_MIN, min(alg_mod.PASS_MAX, done // (alg_mod.PASS_SPREAD * k)))
        pseed = derive_seed(seed, PASS_STREAM)
        spent = [0.0]

        def reached(tree, move, count):
            t = time.process_time()
            tree.evaluate_root(worlds, pseed, only=move)
            spent[0] += time.process_time() - t

        marks = alg_mod.Marks({m: [n // 4, n // 2] for m, n in final.items()}, reached)
        tree = make_tree(alg.sampler(info, table), seed, settings)
        alg_mod.halving(tree, N // 8, Deadline(None), marks=marks)
        marks.reached = None
        del tree
        extra += spent[0]
    rows.append((p["id"], t_search, extra))
    print(f"{p['id']:<18} search {t_search:.3f} s  checkpoints (n/4, n/2) {extra:.3f} s  "
          f"+{100 * extra / t_search:.0f}%", flush=True)
ratio = sum(r[2] for r in rows) / sum(r[1] for r in rows)
print(f"\ntotal: search {sum(r[1] for r in rows):.1f} s, checkpoints {sum(r[2] for r in rows):.1f} s: "
      f"+{100 * ratio:.0f}% (median per position +{100 * st.median([r[2] / r[1] for r in rows]):.0f}%); "
      f"one checkpoint (n/2) alone about half of that")
