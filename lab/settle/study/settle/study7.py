"""Study 7: the fixed-reference estimator on dev: every search estimates v at the reference
tree size n* (16 x the default tree: 8 trees of 200k, today's 1.6M), each tree's value
corrected by its own trend, c_u = v_u + sum_j beta_j D_j,u (D_1 = v(n) - v(n/2), D_2 =
v(n/2) - v(n/4)), with a model variance kappa^2 se_c^2 (values) and kappa_d^2 se_d^2
(vs-best differences) on top of the trees' spread.

    python study7.py

beta by least squares on dev (study5); kappa, kappa_d such that median |z| = 0.674 on dev.
Judged against today's 1.6M s41 (= the new engine at 1.6M: h = 0, no correction), and s42.
"""
import math
import statistics as st
import sys

import numpy as np

from common import load_curve, load_probes, spread
from estimators import corrected
from evalkit import Est, raw_from_curve, table

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]


def pairs(est, judge=(1_600_000, 41), keys=None):
    res = []
    for key, recs in sorted(probes.items()):
        if key in exact or judge not in curve[key] or (keys and key not in keys):
            continue
        J = raw_from_curve(curve[key][judge])
        for b in BASES:
            if b in recs:
                res.append((key, est(recs[b]), J))
    return res


def med_z(betas, kappa, kappa_d, which):
    t = table(pairs(lambda r: corrected(r, betas, kappa, kappa_d)), meta, "", out=lambda s: None,
              by=False)
    zs = t.z if which == "v" else t.dz
    return st.median([abs(z) for z in zs])


def solve(betas, which):
    lo, hi = 0.0, 5.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if med_z(betas, mid if which == "v" else 0, mid if which == "d" else 0, which) > 0.6745:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def seed_calibration(betas, kappa):
    """rms over moves of (sd of the corrected value over seeds 1-3) / se_c and / se_total."""
    r1, r2 = [], []
    for key, recs in probes.items():
        if key in exact or not all(b in recs for b in BASES):
            continue
        ests = [corrected(recs[b], betas, kappa, 0) for b in BASES]
        for m in ests[0]:
            vals = [e[m].value for e in ests]
            sd = st.stdev(vals)
            se_c = math.sqrt(st.fmean([spread(e[m].samples)[1] ** 2 for e in ests]))
            se_t = math.sqrt(st.fmean([e[m].se ** 2 for e in ests]))
            if se_c > 0:
                r1.append((sd / se_c) ** 2)
                r2.append((sd / se_t) ** 2)
    return math.sqrt(st.fmean(r1)), math.sqrt(st.fmean(r2))


def main():
  for betas in ([], [2.06], [1.75, 0.51]):
      kv = solve(betas, "v")
      kd = solve(betas, "d")
      print(f"\n#### betas {betas}: kappa (values) {kv:.3f}, kappa_d (vs best) {kd:.3f}")
      est = lambda r: corrected(r, betas, kv, kd)
      table(pairs(est), meta, f"betas {betas} kappa {kv:.2f}/{kd:.2f} vs raw 1.6M s41")
      table(pairs(est, (1_600_000, 42)), meta, "the same vs raw 1.6M s42", by=False)
      a, b = seed_calibration(betas, kv)
      print(f"  seed calibration: sd over seeds 1-3 / se_c (rms) {a:.2f}; / printed se {b:.2f}")
      # widths
      w = [e.se for p in pairs(est) for e in p[1].values()]
      w0 = [spread([r[4] for r in rows])[1] for key, recs in probes.items() if key not in exact
            for bb in BASES if bb in recs for m, rows in recs[bb]["V"].items()]
      print(f"  printed se: median {st.median(w):.4f} (today's {st.median(w0):.4f})")


if __name__ == "__main__":
    main()
