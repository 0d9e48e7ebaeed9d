"""v2b: v2 with the model variance's factor by the player count (p2, p3, p4, p4p: the
engine knows it), fitted on dev + test (ML per group for a and a_d, kappa and kappa_d shared
from v2's fit, gamma as v2's). Prints the constants and the in-sample tables.

    python fit_v2b.py
"""
import statistics as st

from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table
from fitkit import fit

probes = load_probes(sets={"dev", "test"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
BETAS, GAMMA, KV, KD = [1.68, 0.44], 1.0, 1.25, 1.25
keys = sorted(k for k in probes if k not in exact)
AS = tuple(x / 10 for x in range(0, 41, 2)) + (5.0, 6.0, 8.0)
a_by, ad_by = {}, {}
for cfg in ("p2", "p3", "p4", "p4p"):
    ks = [k for k in keys if meta[k]["config"] == cfg]

    def pairs_fn(est, ks=ks):
        return [(k, est(probes[k][b]), raw_from_curve(curve[k][(1_600_000, 41)]))
                for k in ks for b in BASES]

    _, a_by[cfg] = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, BETAS, KV, 0, a, 0, gamma=GAMMA)),
                       "v", kappas=(KV,), as_=AS)
    _, ad_by[cfg] = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, BETAS, 0, KD, 0, a, gamma=GAMMA)),
                        "d", kappas=(KD,), as_=AS)
print(f"v2b: A by players {a_by}; A_D by players {ad_by}")
pairs = [(k, corrected(probes[k][b], BETAS, KV, KD, a_by[meta[k]['config']], ad_by[meta[k]['config']],
                       gamma=GAMMA), raw_from_curve(curve[k][(1_600_000, 41)])) for k in keys for b in BASES]
table(pairs, meta, "v2b in sample (dev + test) vs 1.6M s41")
