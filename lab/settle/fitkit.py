"""Fitting (kappa, a) by maximum likelihood of the z's under N(0, 1), on given pairs.

fit(pairs_fn, make, which): pairs_fn(est) -> [(key, base Ests, judge Ests)]; make(kappa, a)
-> estimator; which "v" (values) or "d" (vs best differences). Grid search.
"""
import math

from evalkit import best_of, pair

KAPPAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
AS = (0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0)


def nll(pairs, which):
    tot = 0.0
    for key, E, J in pairs:
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


def fit(pairs_fn, make, which, kappas=KAPPAS, as_=AS):
    best = None
    for kappa in kappas:
        for a in as_:
            v = nll(pairs_fn(make(kappa, a)), which)
            if best is None or v < best[0]:
                best = (v, kappa, a)
    return best[1], best[2]
