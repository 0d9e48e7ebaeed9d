"""Study 13: the D1-only correction (one checkpoint at n/2: the cheaper one), and whether
the vs-best differences need the correction at all (d): differences of uncorrected values
with only a model variance. dev, 100k seeds 1-3 vs raw 1.6M s41 (and s42). (kappa, a) by ML.

    python study13.py
"""
import statistics as st

from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table
from fitkit import fit

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]


def pairs_fn(est, judge=(1_600_000, 41)):
    res = []
    for key, recs in sorted(probes.items()):
        if key in exact or judge not in curve[key]:
            continue
        J = raw_from_curve(curve[key][judge])
        for b in BASES:
            if b in recs:
                res.append((key, est(recs[b]), J))
    return res


for betas in ([2.06], [1.75, 0.51], []):
    kv, av = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, k, 0, a, 0)), "v")
    kd, ad = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, 0, k, 0, a)), "d")
    print(f"\n#### betas {betas}: values kappa {kv}, a {av}; differences kappa_d {kd}, a_d {ad}")
    est = lambda r: corrected(r, betas, kv, kd, av, ad)
    table(pairs_fn(est), meta, f"betas {betas}")
    table(pairs_fn(est, (1_600_000, 42)), meta, "the same vs s42", by=False)
    w = [e.se for p in pairs_fn(est) for e in p[1].values()]
    print(f"  printed se median {st.median(w):.4f}")
