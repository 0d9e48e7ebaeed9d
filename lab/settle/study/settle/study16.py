"""Study 16: the model variance's dependence on the move's iterations, sigma_w^2 / N0 x
(N0 / n_m)^gamma (N0 = 5000): gamma by ML with (kappa, a), values and differences. dev,
100k s1-3 vs raw 1.6M s41.

    python study16.py
"""
import statistics as st

from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table
from fitkit import fit, nll

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
BETAS = [1.75, 0.51]


def pairs_fn(est, judge=(1_600_000, 41)):
    res = []
    for key, recs in sorted(probes.items()):
        if key in exact:
            continue
        J = raw_from_curve(curve[key][judge])
        for b in BASES:
            if b in recs:
                res.append((key, est(recs[b]), J))
    return res


AS = tuple(x / 10 for x in range(0, 41, 2)) + (5.0, 6.0, 8.0)
for gamma in (0.5, 1.0, 1.5, 2.0):
    kv, av = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, BETAS, k, 0, a, 0, gamma=gamma)),
                 "v", as_=AS)
    kd, ad = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, BETAS, 0, k, 0, a, gamma=gamma)),
                 "d", as_=AS)
    est = lambda r: corrected(r, BETAS, kv, kd, av, ad, gamma=gamma)
    P = pairs_fn(est)
    print(f"\n#### gamma {gamma}: values kappa {kv} a {av} (nll {nll(P, 'v'):.1f}); "
          f"differences kappa_d {kd} a_d {ad} (nll {nll(P, 'd'):.1f})")
    table(P, meta, f"gamma {gamma}", by=False)
    print(f"  printed se median {st.median([e.se for p in P for e in p[1].values()]):.4f}")
