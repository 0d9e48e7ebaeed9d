"""Study 9: the model variance a^2 sigma_w^2 / n_m (study8) with or without a factor on the
trees' spread; (kappa, a) and (kappa_d, a_d) fitted on dev by maximum likelihood of the
z's under N(0, 1) (grid search), then the z tables. dev, 100k seeds 1-3 vs raw 1.6M.

    python study9.py
"""
import math
import statistics as st

from common import load_curve, load_probes, spread
from estimators import corrected
from evalkit import raw_from_curve, table

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
BETAS = [1.75, 0.51]


def pairs(est, judge=(1_600_000, 41)):
    res = []
    for key, recs in sorted(probes.items()):
        if key in exact or judge not in curve[key]:
            continue
        J = raw_from_curve(curve[key][judge])
        for b in BASES:
            if b in recs:
                res.append((key, est(recs[b]), J))
    return res


def nll(zs_and_scales):
    return sum(math.log(s) + 0.5 * (x / s) ** 2 for x, s in zs_and_scales)


def fit(which):
    """Grid ML for (kappa, a) of values (which='v') or of differences ('d')."""
    best = None
    base = pairs(lambda r: corrected(r, BETAS))
    # residuals and their parts, once
    items = []
    for key, B, J in base:
        rec = None
    for key, recs in sorted(probes.items()):
        if key in exact:
            continue
        J = raw_from_curve(curve[key][(1_600_000, 41)])
        for b in BASES:
            if b not in recs:
                continue
            E = corrected(recs[b], BETAS, 0, 0, 1.0, 1.0)     # extra = unexplained (a = 1)
            if which == "v":
                for m in E:
                    sc = spread(E[m].samples)[1] ** 2
                    items.append((E[m].value - J[m].value, sc, E[m].extra, J[m].se ** 2))
            else:
                bm = max(E, key=lambda m: (E[m].value, -m))
                for m in E:
                    if m == bm:
                        continue
                    d = [x - y for x, y in zip(E[m].samples, E[bm].samples)]
                    dj = [x - y for x, y in zip(J[m].samples, J[bm].samples)]
                    mu, s = spread(d)
                    muj, sj = spread(dj)
                    items.append((mu - muj, s * s, E[m].extra_d[bm], sj * sj))
    for kappa in [x / 20 for x in range(0, 41)]:
        for a in [x / 4 for x in range(0, 41)]:
            tot = [(r, math.sqrt(sc * (1 + kappa ** 2) + a * a * u + sj) or 1e-9)
                   for r, sc, u, sj in items]
            val = nll(tot)
            if best is None or val < best[0]:
                best = (val, kappa, a)
    return best[1], best[2]


kv, av = fit("v")
kd, ad = fit("d")
print(f"ML fit: values kappa {kv:.2f}, a {av:.2f}; differences kappa_d {kd:.2f}, a_d {ad:.2f}")
est = lambda r: corrected(r, BETAS, kv, kd, av, ad)
table(pairs(est), meta, f"betas {BETAS}, kappa {kv:.2f}/{kd:.2f}, a {av:.2f}/{ad:.2f} vs raw s41")
table(pairs(est, (1_600_000, 42)), meta, "the same vs raw s42", by=False)
for kappa, a in ((0.0, av), (0.0, 3.0), (0.5, 2.5)):
    e2 = lambda r: corrected(r, BETAS, kappa, kappa, a, a)
    table(pairs(e2), meta, f"kappa {kappa} a {a:.2f} (both)", by=False)
w = [e.se for p in pairs(est) for e in p[1].values()]
print(f"printed se median {st.median(w):.4f}")
