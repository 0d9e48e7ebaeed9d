"""Study 21 (e): analyze's budget, 20k a decision (8 trees of 2.5k), against its 16x judge
(today's 320k, seeds 41 and 42, data/big.jsonl), dev positions: the same method's form with
constants fitted for this tree size (betas by least squares, kappa/a/gamma by ML, as
studies 5 and 16 did for 100k), the z tables; and the labels: for every move but the best,
its loss (best - move) labelled by the thresholds (0.25, 0.6, 1.2) when its 99% interval lies
in one band (today: Student's t on 7 df, 3.50 paired se, as verdicts.loss_bounds; the
method: 2.576 of its error) against the judge's label of its point loss.

    python study21.py
"""
import json
import math
import statistics as st
from collections import Counter

import numpy as np

from common import load_curve, load_probes, spread
from estimators import corrected
from evalkit import Est, best_of, pair, table
from fitkit import fit, nll

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
big = {}
for line in open("data/big.jsonl"):
    d = json.loads(line)
    if d["iterations"] == 320_000:
        big[((d["set"], d["id"]), d["seed"])] = {m["code"]: Est(list(m["samples"]))
                                                 for m in d["moves"] if m["twin"] is None}
BASES = [(20_000, 1), (20_000, 2), (20_000, 3)]
keys = sorted(k for k in probes if k not in exact and (k, 41) in big)
xs, ys = [], []
for key in keys:
    for b in BASES:
        for m, t in probes[key][b]["V"].items():
            xs.append([st.fmean([r[4] - r[3] for r in t]), st.fmean([r[3] - r[2] for r in t])])
            ys.append(big[(key, 41)][m].value - st.fmean([r[4] for r in t]))
betas = [float(x) for x in np.linalg.lstsq(np.array(xs), np.array(ys), rcond=None)[0]]


def pairs_fn(est, seed=41):
    return [(k, est(probes[k][b]), big[(k, seed)]) for k in keys for b in BASES]


best = None
for gamma in (1.0, 1.5, 2.0):
    kv, av = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, k, 0, a, 0, gamma=gamma,
                                                              )), "v")
    v = nll(pairs_fn(lambda r: corrected(r, betas, kv, 0, av, 0, gamma=gamma)), "v")
    if best is None or v < best[0]:
        best = (v, gamma, kv, av)
_, gamma, kv, av = best
kd, ad = fit(pairs_fn, lambda k, a: (lambda r: corrected(r, betas, 0, k, 0, a, gamma=gamma)), "d")
est = lambda r: corrected(r, betas, kv, kd, av, ad, gamma=gamma)
print(f"20k (8 x 2.5k): betas {betas[0]:.2f}, {betas[1]:.2f}; gamma {gamma}; values kappa {kv} "
      f"a {av}; differences kappa_d {kd} a_d {ad}  ({len(keys)} positions)")
table(pairs_fn(est), meta, "method at 20k vs 320k s41")
table(pairs_fn(est, 42), meta, "method at 20k vs 320k s42", by=False)
table(pairs_fn(lambda r: corrected(r, [])), meta, "today's 20k vs 320k s41", by=False)

TH = (0.25, 0.6, 1.2)
band = lambda x: sum(x >= t for t in TH)


def label(lo, hi):
    return band(lo) if band(lo) == band(hi) else None


for name, E_fn, q in (("today (t7: 3.50 paired se)", lambda r: corrected(r, []), 3.4995),
                      ("today at 2.576", lambda r: corrected(r, []), 2.576),
                      ("method (2.576)", est, 2.576)):
    c = Counter()
    for k in keys:
        for b in BASES:
            E = E_fn(probes[k][b])
            bm = best_of(E)
            for seed in (41, 42):
                J = big[(k, seed)]
                jb = best_of(J)
                for m in E:
                    if m == bm:
                        continue
                    d, s = pair(E, bm, m)
                    lo, hi = max(d - q * s, 0.0), max(d + q * s, 0.0)
                    lab = label(lo, hi)
                    lj = J[jb].value - J[m].value
                    c["moves"] += 1
                    if lab is None:
                        c["borderline"] += 1
                        continue
                    c["labelled"] += 1
                    c["held"] += band(lj) == lab
                    c["in interval"] += lo <= lj <= hi
    print(f"  labels, {name}: {c['labelled']}/{c['moves']} labelled ({c['borderline']} borderline); "
          f"the judge's point loss in the same band {c['held']}/{c['labelled']} "
          f"({100 * c['held'] / max(c['labelled'], 1):.1f}%), inside the interval {c['in interval']}")
