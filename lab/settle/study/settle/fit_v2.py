"""The second method (v2): v1's form and fitting procedure (method.py; studies 5 and 16) on
dev + test together (117 positions), once the test measurement of v1 was spent; its one
held-out measurement is on val (a fresh set, make_val.sh). Prints the constants (copied into
method_v2.py by hand) and the in-sample tables.

    python fit_v2.py
"""
import statistics as st

import numpy as np

from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table
from fitkit import fit, nll

probes = load_probes(sets={"dev", "test"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
keys = sorted(k for k in probes if k not in exact)
X, y = [], []
for key in keys:
    for b in BASES:
        for m, t in probes[key][b]["V"].items():
            for j in ((1_600_000, 41), (1_600_000, 42)):
                X.append([st.fmean([r[4] - r[3] for r in t]), st.fmean([r[3] - r[2] for r in t])])
                y.append(curve[key][j][m][0] - st.fmean([r[4] for r in t]))
betas = [float(b) for b in np.linalg.lstsq(np.array(X), np.array(y), rcond=None)[0]]


def pairs_fn(est, judge=(1_600_000, 41)):
    return [(k, est(probes[k][b]), raw_from_curve(curve[k][judge])) for k in keys for b in BASES]


AS = tuple(x / 10 for x in range(0, 41, 2)) + (5.0, 6.0)
best = None
for gamma in (1.0, 1.5, 2.0):
    kv, av = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, k, 0, a, 0, gamma=gamma)),
                 "v", as_=AS)
    v = nll(pairs_fn(lambda r: corrected(r, betas, kv, 0, av, 0, gamma=gamma)), "v")
    if best is None or v < best[0]:
        best = (v, gamma, kv, av)
_, gamma, kv, av = best
kd, ad = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, 0, k, 0, a, gamma=gamma)),
             "d", as_=AS)
print(f"v2 constants: BETA1 {betas[0]:.2f}, BETA2 {betas[1]:.2f}; GAMMA {gamma}; KAPPA {kv}, "
      f"A {av}; KAPPA_D {kd}, A_D {ad}")
est = lambda r: corrected(r, [round(betas[0], 2), round(betas[1], 2)], kv, kd, av, ad, gamma=gamma)
table(pairs_fn(est), meta, "v2 in sample (dev + test) vs 1.6M s41")
