"""v2t: v2b with one factor on its printed error (values LAM, differences LAM_D) chosen on
dev + test so that 1.5% of the z's against 1.6M s41 lie beyond 2.576 (a calibration to the
tails, the bulk then too wide). Prints the factors and the in-sample tables.

    python fit_v2t.py
"""
import math

from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table

probes = load_probes(sets={"dev", "test"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
BETAS, GAMMA, KV, KD = [1.68, 0.44], 1.0, 1.25, 1.25
A_BY = {'p2': 2.2, 'p3': 0.6, 'p4': 1.0, 'p4p': 1.4}
AD_BY = {'p2': 0.0, 'p3': 0.0, 'p4': 0.6, 'p4p': 0.0}
keys = sorted(k for k in probes if k not in exact)


def scaled(rec, cfg, lam, lam_d):
    E = corrected(rec, BETAS, KV, KD, A_BY[cfg], AD_BY[cfg], gamma=GAMMA)
    from common import spread
    for m in E:
        s2 = spread(E[m].samples)[1] ** 2
        E[m].extra = (lam ** 2) * (s2 + E[m].extra) - s2
        for o in E[m].extra_d:
            d = [x - y for x, y in zip(E[m].samples, E[o].samples)]
            sd2 = spread(d)[1] ** 2
            E[m].extra_d[o] = (lam_d ** 2) * (sd2 + E[m].extra_d[o]) - sd2
    return E


def share(lam, lam_d, which):
    pairs = [(k, scaled(probes[k][b], meta[k]["config"], lam, lam_d),
              raw_from_curve(curve[k][(1_600_000, 41)])) for k in keys for b in BASES]
    t = table(pairs, meta, "", out=lambda s: None, by=False)
    zs = t.z if which == "v" else t.dz
    return sum(abs(z) > 2.576 for z in zs) / len(zs)


res = {}
for which in ("v", "d"):
    lo, hi = 1.0, 3.0
    for _ in range(20):
        mid = (lo + hi) / 2
        if share(mid if which == "v" else 1.0, mid if which == "d" else 1.0, which) > 0.015:
            lo = mid
        else:
            hi = mid
    res[which] = round(hi, 3)
print(f"v2t: LAM {res['v']}, LAM_D {res['d']}")
pairs = [(k, scaled(probes[k][b], meta[k]["config"], res["v"], res["d"]),
          raw_from_curve(curve[k][(1_600_000, 41)])) for k in keys for b in BASES]
table(pairs, meta, "v2t in sample (dev + test) vs 1.6M s41")
