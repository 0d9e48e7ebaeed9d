"""Study 17: one family for every budget below the reference (n* = 200k per tree, today's
1.6M): h = log2(n* / n) doublings to go; the correction c_u = v_u + b h D1_u (D1 = v(n) -
v(n/2), one checkpoint) and the model variance se_c^2 (1 + kappa^2) + (a h)^2 sigma_w^2 / N0
(N0 / n_m)^gamma (differences: kappa_d, a_d). Least squares for b (per budget, then jointly),
ML for the rest, jointly over 100k (h 4), 200k (3), 400k (2), 800k (1). dev, vs raw 1.6M
s41 (and s42 for the check).

    python study17.py
"""
import math
import statistics as st

import numpy as np

from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table
from fitkit import nll

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
SEARCHES = {4: [(100_000, 1), (100_000, 2), (100_000, 3)], 3: [(200_000, 21)],
            2: [(400_000, 21)], 1: [(800_000, 31)]}
J = (1_600_000, 41)

# b per horizon, by least squares through the origin (y = vJ - v on D1)
bs = {}
for h, searches in SEARCHES.items():
    xs, ys = [], []
    for key, recs in probes.items():
        if key in exact:
            continue
        for s in searches:
            if s in recs:
                for m, rows in recs[s]["V"].items():
                    xs.append(st.fmean([r[4] - r[3] for r in rows]))
                    ys.append(curve[key][J][m][0] - st.fmean([r[4] for r in rows]))
    bs[h] = sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
    print(f"h {h}: beta {bs[h]:.3f} = {bs[h] / h:.3f} per doubling to go  (n {len(xs)})")
num = den = 0.0
for h in bs:
    pass
b = st.fmean([bs[h] / h for h in bs])
print(f"b (mean of the per-horizon ratios) {b:.3f}")


def pairs_fn(make, judge=J, only=None):
    res = []
    for h, searches in SEARCHES.items():
        if only is not None and h != only:
            continue
        est = make(h)
        for key, recs in sorted(probes.items()):
            if key in exact:
                continue
            Jr = raw_from_curve(curve[key][judge])
            for s in searches:
                if s in recs:
                    res.append((key, est(recs[s]), Jr))
    return res


def fit(which, gammas=(1.0, 1.5, 2.0)):
    best = None
    for gamma in gammas:
        for kappa in (0.25, 0.5, 0.75, 1.0, 1.25):
            for a in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8):
                if which == "v":
                    mk = lambda h: (lambda r: corrected(r, [b * h], kappa, 0, a * h, 0, gamma=gamma))
                else:
                    mk = lambda h: (lambda r: corrected(r, [b * h], 0, kappa, 0, a * h, gamma=gamma))
                v = nll(pairs_fn(mk), which)
                if best is None or v < best[0]:
                    best = (v, gamma, kappa, a)
    return best


fv = fit("v")
fd = fit("d", gammas=(fv[1],))
print(f"values: gamma {fv[1]}, kappa {fv[2]}, a {fv[3]} per doubling; differences: kappa_d "
      f"{fd[2]}, a_d {fd[3]}")
mk = lambda h: (lambda r: corrected(r, [b * h], fv[2], fd[2], fv[3] * h, fd[3] * h, gamma=fv[1]))
for h in SEARCHES:
    P = pairs_fn(mk, only=h)
    table(P, meta, f"h {h} ({SEARCHES[h][0][0] // 1000}k)", by=(h == 4))
    print(f"  printed se median {st.median([e.se for p in P for e in p[1].values()]):.4f}")
table(pairs_fn(mk, (1_600_000, 42), only=4), meta, "h 4 vs raw s42", by=False)
