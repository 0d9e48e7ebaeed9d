"""Study 12: better corrections? Out-of-sample (2-fold by position) residual rms of
y = v(1.6M) - v(100k) (raw judges s41, s42; dev 100k seeds 1-3), and of the vs-best drift
y_d = d(1.6M) - d(100k) (d = v_m - v_best, best: the base's), for:
- D1 D2 pooled over all positions (study5's best),
- the same fitted per player count, per stage,
- empirical-Bayes shrinkage of each move's trend: D * s^2 / (s^2 + se_D^2), s^2 fitted,
- values corrected by the position's common trend only, differences by the own trend.

    python study12.py
"""
import math
import statistics as st
from collections import defaultdict

import numpy as np

from common import load_curve, load_probes, spread

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
JUDGES = [(1_600_000, 41), (1_600_000, 42)]
keys = sorted(k for k in probes if k not in exact)
rows = []        # values
drows = []       # differences
for i, key in enumerate(keys):
    for b in BASES:
        rec = probes[key].get(b)
        if not rec:
            continue
        V = rec["V"]
        moves = list(V)
        feat = {}
        for m in moves:
            t = V[m]
            D1, se1 = spread([r[4] - r[3] for r in t])
            D2, se2 = spread([r[3] - r[2] for r in t])
            v = st.fmean([r[4] for r in t])
            feat[m] = dict(v=v, D1=D1, D2=D2, se1=se1, se2=se2)
        C1 = st.fmean([feat[m]["D1"] for m in moves])
        C2 = st.fmean([feat[m]["D2"] for m in moves])
        best = max(moves, key=lambda m: feat[m]["v"])
        for j in JUDGES:
            for m in moves:
                f = feat[m]
                rows.append(dict(pos=i, y=curve[key][j][m][0] - f["v"], C1=C1, C2=C2,
                                 config=meta[key]["config"], stage=meta[key]["stage"], **f))
            for m in moves:
                if m == best:
                    continue
                t, tb = V[m], V[best]
                dD1, sd1 = spread([(r[4] - r[3]) - (q[4] - q[3]) for r, q in zip(t, tb)])
                dD2, sd2 = spread([(r[3] - r[2]) - (q[3] - q[2]) for r, q in zip(t, tb)])
                yd = (curve[key][j][m][0] - curve[key][j][best][0]) - (feat[m]["v"] - feat[best]["v"])
                drows.append(dict(pos=i, y=yd, D1=dD1, D2=dD2, se1=sd1, se2=sd2,
                                  config=meta[key]["config"], stage=meta[key]["stage"]))


def cv(data, featfn, group=None):
    res = []
    for fold in (0, 1):
        train = [r for r in data if r["pos"] % 2 != fold]
        test = [r for r in data if r["pos"] % 2 == fold]
        groups = {None} if group is None else {r[group] for r in data}
        for g in groups:
            tr = [r for r in train if group is None or r[group] == g]
            te = [r for r in test if group is None or r[group] == g]
            X = np.array([featfn(r) for r in tr])
            y = np.array([r["y"] for r in tr])
            beta, *_ = np.linalg.lstsq(X, y, rcond=None)
            for r in te:
                res.append(r["y"] - float(np.array(featfn(r)) @ beta))
    return math.sqrt(st.fmean([x * x for x in res]))


def shrunk(s2):
    return lambda r: [r["D1"] * s2 / (s2 + r["se1"] ** 2), r["D2"] * s2 / (s2 + r["se2"] ** 2)]


for name, data in (("values", rows), ("vs best", drows)):
    print(f"\n{name}: rms y {math.sqrt(st.fmean([r['y'] ** 2 for r in data])):.4f} "
          f"({len(data)} rows)")
    print(f"  D1 D2 pooled            {cv(data, lambda r: [r['D1'], r['D2']]):.4f}")
    print(f"  D1 D2 by player count   {cv(data, lambda r: [r['D1'], r['D2']], 'config'):.4f}")
    print(f"  D1 D2 by stage          {cv(data, lambda r: [r['D1'], r['D2']], 'stage'):.4f}")
    for s in (0.02, 0.04, 0.06, 0.1):
        print(f"  shrunk s={s:<5}           {cv(data, shrunk(s * s)):.4f}")
    if name == "values":
        print(f"  common C1 C2 only       {cv(data, lambda r: [r['C1'], r['C2']]):.4f}")
        print(f"  C1 C2 + own D1 D2       {cv(data, lambda r: [r['C1'], r['C2'], r['D1'] - r['C1'], r['D2'] - r['C2']]):.4f}")
