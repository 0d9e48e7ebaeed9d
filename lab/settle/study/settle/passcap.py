"""(a) The pass world cap (PASS_MAX 4000): per budget, the trees' spread of a move's value
against the part the pass's worlds alone explain (sigma_w / sqrt(W)), and what W would be
without the cap (n / (5 k)); dev probes (data/probe.jsonl).

    python passcap.py
"""
import math
import statistics as st
from collections import defaultdict

from common import load_curve, load_probes
from estimators import world_sd

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
rows = defaultdict(list)
for key, recs in probes.items():
    if key in exact:
        continue
    for (N, s), rec in recs.items():
        k = len(rec["V"])
        W = rec["W"][0]
        uncapped = max(100, (N // 8) // (5 * k))
        for m, t in rec["V"].items():
            sd = st.stdev([r[4] for r in t])
            ws = world_sd(rec, m) / math.sqrt(W)
            sd2 = st.stdev([r[4] - r[3] for r in t])
            rows[N].append((sd, ws, W, uncapped, sd2))
print("budget  W median (uncapped)  tree sd median  world part median  ratio  trend D1 tree sd")
for N in sorted(rows):
    r = rows[N]
    print(f"{N // 1000:6d}k  {st.median([x[2] for x in r]):5.0f} ({st.median([x[3] for x in r]):6.0f})"
          f"        {st.median([x[0] for x in r]):.4f}          {st.median([x[1] for x in r]):.4f}"
          f"        {st.median([x[0] / x[1] for x in r if x[1] > 0]):.2f}   {st.median([x[4] for x in r]):.4f}")
