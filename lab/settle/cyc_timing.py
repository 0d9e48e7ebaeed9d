"""Part 2: the cost. CPU (process_time) of search() at the same iterations: today's default,
and the cycle engine (settle=best, the default) with the checkpoints on all the final pass's worlds
(CHECK_SHARE 1), half (the product's: 1/2) and a quarter; also the cycles with no checkpoint
pass at all (CHECK_SHARE ~0: the cycles' own cost), per dev position (seed 1), the variants
interleaved and the whole repeated ROUNDS times (the machine is shared: the minimum of the
rounds per position and variant is kept).

    python lab/settle/cyc_timing.py [SET ITERATIONS ROUNDS]
"""
import json
import os
import statistics as st
import sys
import time

from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, search
from bergen_search.search.engines import ismcts as alg_mod
from bergen_search.search.registry import Settings

from bergen_search.search.engines.ismcts import settle  # noqa: E402
from cyc_probe import EXACT, corpus  # noqa: E402

SET = sys.argv[1] if len(sys.argv) > 1 else "dev"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
VARIANTS = [("today", None), ("cycles, checkpoints on all W", 1.0),
            ("cycles, on half (the product's)", 0.5), ("cycles, on a quarter", 0.25),
            ("cycles, 1 world (the cycles alone)", 1e-9)]
on, off = Settings.of("ismcts", {}), Settings.of("ismcts", {"settle": "off"})
ps = [p for p in corpus(SET) if p["id"] not in EXACT]
infos = [load_game(json.dumps(p["doc"])) for p in ps]
cpu = {(i, v): [] for i in range(len(ps)) for v in range(len(VARIANTS))}
for rnd in range(ROUNDS):
    for i, info in enumerate(infos):
        for v, (name, share) in enumerate(VARIANTS):
            if share is not None:
                settle.CHECK_SHARE = share
            t = time.process_time()
            search(info, Limits(iterations=N), seed=1, settings=off if share is None else on)
            cpu[(i, v)].append(time.process_time() - t)
    print(f"round {rnd + 1} done", flush=True)
settle.CHECK_SHARE = 0.5
best = {k: min(x) for k, x in cpu.items()}
base = sum(best[(i, 0)] for i in range(len(ps)))
print(f"{SET}, {len(ps)} positions, {N} iterations, seed 1, min of {ROUNDS} rounds (CPU s):")
for v, (name, _) in enumerate(VARIANTS):
    tot = sum(best[(i, v)] for i in range(len(ps)))
    med = st.median(best[(i, v)] / best[(i, 0)] for i in range(len(ps)))
    print(f"  {name:36s} {tot:7.2f} s  x{tot / base:.3f} (median per position x{med:.3f})")
