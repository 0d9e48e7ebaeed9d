"""Beyond 16x: today's 6.4M (seed 61, data/big.jsonl) against today's 1.6M (s41, s42) and
100k, and the method's 100k estimate against 6.4M: does the drift go on past the reference?

    python beyond.py
"""
import json
import math
import statistics as st

from common import load_curve, load_probes
from evalkit import Est, raw_from_curve, table
import method

curve, meta, exact = load_curve()
probes = load_probes(sets={"dev"})
big = {}
for line in open("data/big.jsonl"):
    d = json.loads(line)
    big[(d["set"], d["id"])] = {m["code"]: Est(list(m["samples"])) for m in d["moves"]
                                if m["twin"] is None}
keys = sorted(k for k in big if k not in exact)
print(f"{len(keys)} dev positions at 6.4M")
for label, src in (("today 1.6M s41", (1_600_000, 41)), ("today 1.6M s42", (1_600_000, 42)),
                   ("today 800k s31", (800_000, 31)), ("today 400k s21", (400_000, 21))):
    table([(k, raw_from_curve(curve[k][src]), big[k]) for k in keys], meta,
          f"{label} vs today 6.4M s61", by=False)
table([(k, raw_from_curve(curve[k][(1_600_000, 42)]), raw_from_curve(curve[k][(1_600_000, 41)]))
       for k in keys], meta, "for scale: today 1.6M s42 vs 1.6M s41", by=False)
table([(k, method.estimate(probes[k][b]), big[k]) for k in keys
       for b in ((100_000, 1), (100_000, 2), (100_000, 3))], meta,
      "the method at 100k (aimed at 1.6M) vs today 6.4M", by=False)
d16 = [abs(big[k][m].value - curve[k][(1_600_000, 41)][m][0]) for k in keys for m in big[k]]
d100 = [abs(curve[k][(1_600_000, 41)][m][0] - st.fmean([curve[k][(100_000, s)][m][0] for s in (1, 2, 3)]))
        for k in keys for m in big[k]]
print(f"mean |v6.4M - v1.6M| {st.fmean(d16):.4f} (2 doublings); mean |v1.6M - v100k| "
      f"{st.fmean(d100):.4f} (4 doublings)")
