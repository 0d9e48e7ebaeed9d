"""Study 11: the variance model's shape: own spread (8 trees) or the position's pooled spread
(scaled by each move's per-world variance), each with (kappa, a) fitted by ML on dev; the z
tables. dev, 100k seeds 1-3 vs raw 1.6M s41.

    python study11.py
"""
import math
import statistics as st

from common import load_curve, load_probes, spread
from estimators import corrected, pooled
from evalkit import raw_from_curve, table, best_of, pair

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
BETAS = [1.75, 0.51]
JUDGE = (1_600_000, 41)


def pairs(est, judge=JUDGE):
    res = []
    for key, recs in sorted(probes.items()):
        if key in exact or judge not in curve[key]:
            continue
        J = raw_from_curve(curve[key][judge])
        for b in BASES:
            if b in recs:
                res.append((key, est(recs[b]), J))
    return res


def nll(est_fn, which):
    tot = 0.0
    for key, E, J in pairs(est_fn):
        if which == "v":
            for m in E:
                s = math.sqrt(max(E[m].se ** 2 + J[m].se ** 2, 1e-12))
                tot += math.log(s) + 0.5 * ((E[m].value - J[m].value) / s) ** 2
        else:
            b = best_of(E)
            for m in E:
                if m == b:
                    continue
                d, s = pair(E, m, b)
                dj, sj = pair(J, m, b)
                sd = math.sqrt(max(s * s + sj * sj, 1e-12))
                tot += math.log(sd) + 0.5 * ((d - dj) / sd) ** 2
    return tot


def fit(kind, which):
    f = corrected if kind == "own" else pooled
    best = None
    for kappa in (0.0, 0.25, 0.5, 0.75, 1.0, 1.25):
        for a in (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0):
            e = (lambda r: f(r, BETAS, kappa, 0, a, 0)) if which == "v" else \
                (lambda r: f(r, BETAS, 0, kappa, 0, a))
            v = nll(e, which)
            if best is None or v < best[0]:
                best = (v, kappa, a)
    return best


for kind in ("own", "pooled"):
    f = corrected if kind == "own" else pooled
    nv, kv, av = fit(kind, "v")
    nd, kd, ad = fit(kind, "d")
    print(f"\n#### {kind}: values kappa {kv}, a {av} (nll {nv:.1f}); differences kappa_d {kd}, "
          f"a_d {ad} (nll {nd:.1f})")
    est = lambda r: f(r, BETAS, kv, kd, av, ad)
    table(pairs(est), meta, f"{kind} spread, ML fit")
    w = [e.se for p in pairs(est) for e in p[1].values()]
    print(f"  printed se median {st.median(w):.4f}")
