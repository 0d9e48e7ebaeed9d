"""The judges: today's search (the search before `settle`: `settle=off`, every other setting
the default, the exact endgame too) of every position of a set at a budget and seeds, one
line per (set, id, iterations, seed) appended to data/judges.jsonl: the moves with their
value, stderr and samples (the trees' values), "exact" when the exact endgame valued the
position (such a position is left out of every table). Resumable: what the file has is not
searched again; a line cut by a kill is ignored and searched again.

    nice -n 5 python lab/settle/judges.py SET ITERATIONS SEED [SEED ...]

data.sh runs every judge the page's tables read (1.6M and 320k s41, s42 of every set; 100k
s1-3 of dev and test; 50k s51, s52, 200k s21, 400k s21, 800k s31 of dev).
"""
import json
import os
import sys
import time

from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, search
from bergen_search.search.registry import Settings
from cyc_probe import DATA, corpus

OUT = os.path.join(DATA, "judges.jsonl")
TODAY = Settings.of("ismcts", {"settle": "off"})


def judge(p, n, seed):
    """One search of position p: its line."""
    t0 = time.time()
    res = search(load_game(json.dumps(p["doc"])), Limits(iterations=n), seed=seed,
                 settings=TODAY)
    ri = res.info
    return {"set": p["set"], "id": p["id"], "config": p["config"], "stage": p["stage"],
            "exact": bool(ri["exact"]), "players": p["players"],
            "partnerships": p["partnerships"], "iterations": n, "seed": seed,
            "moves": [{"move": str(m.move), "code": m.code,
                       "twin": None if m.twin is None else str(m.twin),
                       "value": m.value, "stderr": m.stderr, "samples": list(m.samples)}
                      for m in res.moves],
            "backend": ri["backend"], "memory": ri.get("memory"), "wall": time.time() - t0}


def main():
    name, n, seeds = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
    have = set()
    if os.path.exists(OUT):
        for line in open(OUT):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            have.add((d["set"], d["id"], d["iterations"], d["seed"]))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "a") as fh:
        for seed in seeds:
            for p in corpus(name):
                if (p["set"], p["id"], n, seed) in have:
                    continue
                row = judge(p, n, seed)
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                print(f"{time.strftime('%H:%M:%S')} {p['id']} {n} s{seed} {row['wall']:.1f}s",
                      flush=True)


if __name__ == "__main__":
    main()
