"""Study 14 (b): fewer, bigger trees at the default budget (100k), with the same kind of
correction. 4 trees of 25k = trees 0-3 (and 4-7) of the 200k s21 probe (trees 0-3 are the
4-tree search of seed 21 bit for bit: same seeds derive_seed(21, u), budget share and pass
worlds); 2 trees of 50k = the pairs of trees of the 400k s21 probe. Against raw 1.6M s41.
For each shape: betas (D1, D2) by least squares on dev (y = v(1.6M) - v), (kappa, a) by ML,
then the z tables and the printed se (median). With 4 or 2 trees the spread has 3 or 1
degrees of freedom.

    python study14.py
"""
import math
import statistics as st

import numpy as np

from common import load_curve, load_probes, spread
from estimators import corrected
from evalkit import raw_from_curve, table
from fitkit import fit

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
J = (1_600_000, 41)
SHAPES = {
    "8 x 12.5k": [((100_000, s), list(range(8))) for s in (1, 2, 3)],
    "4 x 25k": [((200_000, 21), [0, 1, 2, 3]), ((200_000, 21), [4, 5, 6, 7])],
    "2 x 50k": [((400_000, 21), [0, 1]), ((400_000, 21), [2, 3]), ((400_000, 21), [4, 5]),
                ((400_000, 21), [6, 7])],
}


def subrec(rec, trees):
    return {"V": {m: [rows[u] for u in trees] for m, rows in rec["V"].items()},
            "N": {m: [ns[u] for u in trees] for m, ns in rec["N"].items()},
            "trees": [rec["trees"][u] for u in trees]}


def betas_for(shape):
    X, y = [], []
    for key, recs in probes.items():
        if key in exact:
            continue
        for b, trees in SHAPES[shape]:
            if b not in recs:
                continue
            r = subrec(recs[b], trees)
            for m, rows in r["V"].items():
                X.append([st.fmean([q[4] - q[3] for q in rows]), st.fmean([q[3] - q[2] for q in rows])])
                for j in ((1_600_000, 41), (1_600_000, 42)):
                    pass
                y.append(curve[key][J][m][0] - st.fmean([q[4] for q in rows]))
    beta, *_ = np.linalg.lstsq(np.array(X), np.array(y), rcond=None)
    return [float(b) for b in beta]


for shape in SHAPES:
    betas = betas_for(shape)

    def pairs_fn(est, shape=shape):
        res = []
        for key, recs in sorted(probes.items()):
            if key in exact:
                continue
            Jr = raw_from_curve(curve[key][J])
            for b, trees in SHAPES[shape]:
                if b in recs:
                    res.append((key, est(subrec(recs[b], trees)), Jr))
        return res

    kv, av = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, k, 0, a, 0)), "v")
    kd, ad = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, 0, k, 0, a)), "d")
    est = lambda r: corrected(r, betas, kv, kd, av, ad)
    print(f"\n#### {shape}: betas {', '.join(f'{b:.2f}' for b in betas)}; values kappa {kv}, "
          f"a {av}; differences kappa_d {kd}, a_d {ad}")
    table(pairs_fn(est), meta, shape)
    w = [e.se for p in pairs_fn(est) for e in p[1].values()]
    raw = pairs_fn(lambda r: corrected(r, []))
    table(raw, meta, f"{shape} uncorrected (today's estimator of that shape)", by=False)
    print(f"  printed se median {st.median(w):.4f}; uncorrected "
          f"{st.median([e.se for p in raw for e in p[1].values()]):.4f}")
