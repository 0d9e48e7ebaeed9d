"""The frozen method (method.py) measured on a set: z tables against today's 1.6M (seeds 41
and 42; at the reference budget the new engine is today's engine, so these are also the
tables against the new engine at 16x), by player count and stage; the seed calibration;
the printed error against today's; the verdicts (study19's).

    python final_eval.py SET        (dev, or test once the method is frozen)
"""
import math
import statistics as st
import sys

from common import load_curve, load_probes, spread
from evalkit import raw_from_curve, table
import method

SET = sys.argv[1]
probes = load_probes(sets={SET})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]


def pairs(est, judge):
    res = []
    for key, recs in sorted(probes.items()):
        if key in exact or judge not in curve[key]:
            continue
        J = raw_from_curve(curve[key][judge])
        for b in BASES:
            if b in recs:
                res.append((key, est(recs[b]), J))
    return res


n_pos = len([k for k in probes if k not in exact])
print(f"{SET}: {n_pos} ISMCTS-sampled positions; constants BETA {method.BETA1}, {method.BETA2}; "
      f"KAPPA {method.KAPPA}, A {method.A}; KAPPA_D {method.KAPPA_D}, A_D {method.A_D}; "
      f"GAMMA {method.GAMMA}, N0 {method.N0}")
for j in ((1_600_000, 41), (1_600_000, 42)):
    table(pairs(method.estimate, j), meta, f"method, 100k s1-3 vs 1.6M s{j[1]}")
today = lambda rec: {m: method.corrected(rec, [])[m] for m in rec["V"]}
table(pairs(today, (1_600_000, 41)), meta, "today's values, 100k s1-3 vs 1.6M s41 (the baseline)")

r1, r2, w, w0 = [], [], [], []
for key, recs in probes.items():
    if key in exact or not all(b in recs for b in BASES):
        continue
    ests = [method.estimate(recs[b]) for b in BASES]
    raws = [today(recs[b]) for b in BASES]
    for m in ests[0]:
        vals = [e[m].value for e in ests]
        se_c = math.sqrt(st.fmean([spread(e[m].samples)[1] ** 2 for e in ests]))
        se_t = math.sqrt(st.fmean([e[m].se ** 2 for e in ests]))
        if se_c > 0:
            r1.append((st.stdev(vals) / se_c) ** 2)
            r2.append((st.stdev(vals) / se_t) ** 2)
        w += [e[m].se for e in ests]
        w0 += [e[m].se for e in raws]
print(f"\nseed calibration (rms over moves, 3 seeds): sd of the value over seeds / trees' spread "
      f"{math.sqrt(st.fmean(r1)):.2f}; / printed error {math.sqrt(st.fmean(r2)):.2f}")
print(f"printed error: median {st.median(w):.4f}, mean {st.fmean(w):.4f}; today's median "
      f"{st.median(w0):.4f}, mean {st.fmean(w0):.4f}; ratio of medians {st.median(w) / st.median(w0):.2f}")
