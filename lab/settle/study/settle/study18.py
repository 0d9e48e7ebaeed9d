"""Study 18: the candidate to freeze: one checkpoint (D1), per horizon h its own constants
(beta_h by least squares; kappa, a, gamma and kappa_d, a_d by ML). dev, vs raw 1.6M s41;
h 4 = 100k seeds 1-3, h 3 = 200k s21, h 2 = 400k s21, h 1 = 800k s31.

    python study18.py
"""
import statistics as st

from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table
from fitkit import fit, nll

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
SEARCHES = {4: [(100_000, 1), (100_000, 2), (100_000, 3)], 3: [(200_000, 21)],
            2: [(400_000, 21)], 1: [(800_000, 31)]}
J = (1_600_000, 41)
AS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0)

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
    beta = sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)

    def pairs_fn(est, judge=J):
        res = []
        for key, recs in sorted(probes.items()):
            if key in exact:
                continue
            Jr = raw_from_curve(curve[key][judge])
            for s in searches:
                if s in recs:
                    res.append((key, est(recs[s]), Jr))
        return res

    best = None
    for gamma in (1.0, 1.5, 2.0):
        kv, av = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, [beta], k, 0, a, 0, gamma=gamma)),
                     "v", as_=AS)
        v = nll(pairs_fn(lambda r: corrected(r, [beta], kv, 0, av, 0, gamma=gamma)), "v")
        if best is None or v < best[0]:
            best = (v, gamma, kv, av)
    _, gamma, kv, av = best
    kd, ad = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, [beta], 0, k, 0, a, gamma=gamma)),
                 "d", as_=AS)
    est = lambda r: corrected(r, [beta], kv, kd, av, ad, gamma=gamma)
    P = pairs_fn(est)
    print(f"\n#### h {h}: beta {beta:.3f}; gamma {gamma}; values kappa {kv} a {av}; "
          f"differences kappa_d {kd} a_d {ad}")
    table(P, meta, f"h {h} ({searches[0][0] // 1000}k) vs raw 1.6M s41", by=(h == 4))
    table(pairs_fn(est, (1_600_000, 42)), meta, "the same vs raw s42", by=False)
    print(f"  printed se median {st.median([e.se for p in P for e in p[1].values()]):.4f}; "
          f"today's {st.median([e.se for p in pairs_fn(lambda r: corrected(r, [])) for e in p[1].values()]):.4f}")
