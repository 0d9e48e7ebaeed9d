"""Raw searches of today's engine at budgets beyond the lab's judges (6.4M by default), to
see whether the drift goes on past 16x. One line per (set, id, iterations, seed) in
data/big.jsonl, as the lab's curve.jsonl (moves with value, stderr, samples).

    nice -n 5 python run_big.py SET ITERATIONS SEED

A position the exact endgame solves is kept with "exact": true (probe.py then skips it).
"""
import json
import os
import sys
import time

from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, search

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "big.jsonl")


def main():
    name, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    have = set()
    if os.path.exists(OUT):
        for line in open(OUT):
            d = json.loads(line)
            have.add((d["set"], d["id"], d["iterations"], d["seed"]))
    sys.path.insert(0, HERE)
    from probe import corpus, exact_ids
    exact = exact_ids()
    ps = corpus(name)
    with open(OUT, "a") as fh:
        for p in ps:
            if p["id"] in exact or (p["set"], p["id"], n, seed) in have:
                continue
            t0 = time.time()
            res = search(load_game(json.dumps(p["doc"])), Limits(iterations=n), seed=seed)
            ri = res.info
            assert ri["backend"] == "core"
            row = {"set": p["set"], "id": p["id"], "config": p["config"], "stage": p["stage"],
                   "exact": bool(ri["exact"]),
                   "players": p["players"], "partnerships": p["partnerships"],
                   "iterations": n, "seed": seed,
                   "moves": [{"move": str(m.move), "code": m.code,
                              "twin": None if m.twin is None else str(m.twin),
                              "value": m.value, "stderr": m.stderr,
                              "samples": list(m.samples)} for m in res.moves],
                   "memory": ri.get("memory"), "values": ri.get("values"),
                   "wall": time.time() - t0}
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(f"{time.strftime('%H:%M:%S')} {p['id']} {n} s{seed} {row['wall']:.1f}s "
                  f"memory {ri.get('memory')}", flush=True)


if __name__ == "__main__":
    main()
