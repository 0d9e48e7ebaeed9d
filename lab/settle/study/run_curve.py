"""Section 2: the value curve over budgets. Every position of corpus/dev.jsonl and
corpus/test.jsonl searched by today's engine (default settings, 1 worker) at

    block A (dev) and B (test): 100,000 x seeds 1, 2, 3 and 1,600,000 seed 41
    block C (dev, then test):   200,000 and 400,000 seed 21, 800,000 seed 31,
                                1,600,000 seed 42

one JSON line per (set, id, iterations, seed) appended to data/curve.jsonl (flushed and
synced after every line). Resumable: a key already in the file is not searched again.

    nice -n 5 python run_curve.py A B        (from any directory but the snapshot's)
"""
import json
import os
import sys
import time

from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, search

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "curve.jsonl")
SETS = ("dev", "test")
FIRST = [(100_000, 1), (100_000, 2), (100_000, 3), (1_600_000, 41)]
REST = [(200_000, 21), (400_000, 21), (800_000, 31), (1_600_000, 42)]


def corpus(name):
    return [json.loads(line) for line in open(os.path.join(HERE, "corpus", f"{name}.jsonl"))]


def work(blocks):
    items = []
    for b in blocks:
        if b == "A":
            items += [(p, n, s) for p in corpus("dev") for n, s in FIRST]
        elif b == "B":
            items += [(p, n, s) for p in corpus("test") for n, s in FIRST]
        elif b == "C":
            items += [(p, n, s) for name in SETS for p in corpus(name) for n, s in REST]
        else:
            raise SystemExit(f"unknown block {b}")
    return items


def done_keys():
    keys = set()
    if os.path.exists(OUT):
        for line in open(OUT):
            try:
                d = json.loads(line)
            except ValueError:
                continue            # a line cut by a kill: searched again
            keys.add((d["set"], d["id"], d["iterations"], d["seed"]))
    return keys


def one(p, n, seed):
    info = load_game(json.dumps(p["doc"]))
    t0 = time.time()
    res = search(info, Limits(iterations=n), seed=seed)
    wall = time.time() - t0
    ri = res.info
    eg = ri.get("endgame") or {}
    assert ri.get("backend") == "core", ri.get("backend")
    return {
        "set": p["set"], "id": p["id"], "config": p["config"], "players": p["players"],
        "partnerships": p["partnerships"], "stage": p["stage"],
        "iterations": n, "seed": seed,
        "best": str(res.best),
        "moves": [{"move": str(m.move), "twin": None if m.twin is None else str(m.twin),
                   "value": m.value, "stderr": m.stderr, "visits": m.visits,
                   "samples": list(m.samples), "share": m.share} for m in res.moves],
        "info": {"iterations": ri.get("iterations"), "seconds": ri.get("seconds"),
                 "exact": bool(ri.get("exact")), "endgame_solved": bool(eg.get("solved")),
                 "endgame_why": eg.get("why"), "replicates": ri.get("replicates"),
                 "values": ri.get("values"), "memory": ri.get("memory"),
                 "nodes": ri.get("nodes"), "worlds_consistent": ri.get("worlds_consistent"),
                 "backend": ri.get("backend"), "interrupted": ri.get("interrupted"),
                 "empty": ri.get("empty")},
        "wall": wall,
    }


def main():
    blocks = sys.argv[1:] or ["A", "B", "C"]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    keys = done_keys()
    items = [w for w in work(blocks) if (w[0]["set"], w[0]["id"], w[1], w[2]) not in keys]
    print(f"{time.strftime('%H:%M:%S')} blocks {blocks}: {len(items)} searches to do",
          flush=True)
    with open(OUT, "a") as fh:
        for k, (p, n, seed) in enumerate(items):
            row = one(p, n, seed)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
            print(f"{time.strftime('%H:%M:%S')} {k + 1}/{len(items)} {p['id']} {n} s{seed} "
                  f"{row['wall']:.1f}s exact={row['info']['exact']}", flush=True)
    print(f"{time.strftime('%H:%M:%S')} blocks {blocks} done", flush=True)


if __name__ == "__main__":
    main()
