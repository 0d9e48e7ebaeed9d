"""Study 20 (after the test measurement, on dev only): would a per-move saturation help?
Out-of-sample (2-fold by position) residual rms of y = v(1.6M) - v(100k), dev, for:
- linear D1 D2 (the method's form),
- geometric per move: rho = clip(D1 / D2, 0, RMAX) (D1, D2 the trees' means), predicted
  drift g = D1 (rho + rho^2 + rho^3 + rho^4), scaled by a fitted factor,
- the linear form fitted per stage / with the reserve fraction as an interaction.

    python study20.py
"""
import json
import math
import statistics as st

import numpy as np

from common import load_curve, load_probes

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
corpus = {("dev", json.loads(l)["id"]): json.loads(l) for l in open("../corpus/dev.jsonl")}
R0 = {2: 16, 3: 10, 4: 8}
rows = []
keys = sorted(k for k in probes if k not in exact)
for i, key in enumerate(keys):
    for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
        rec = probes[key].get(b)
        if not rec:
            continue
        frac = corpus[key]["reserve"] / R0[corpus[key]["players"]]
        for m, t in rec["V"].items():
            D1 = st.fmean([r[4] - r[3] for r in t])
            D2 = st.fmean([r[3] - r[2] for r in t])
            v = st.fmean([r[4] for r in t])
            for j in ((1_600_000, 41), (1_600_000, 42)):
                rows.append(dict(pos=i, y=curve[key][j][m][0] - v, D1=D1, D2=D2, frac=frac,
                                 stage=meta[key]["stage"]))


def cv(featfn):
    res = []
    for fold in (0, 1):
        tr = [r for r in rows if r["pos"] % 2 != fold]
        te = [r for r in rows if r["pos"] % 2 == fold]
        X = np.array([featfn(r) for r in tr])
        beta, *_ = np.linalg.lstsq(X, np.array([r["y"] for r in tr]), rcond=None)
        res += [r["y"] - float(np.array(featfn(r)) @ beta) for r in te]
    return math.sqrt(st.fmean([x * x for x in res]))


def geo(rmax):
    def f(r):
        if r["D2"] == 0 or r["D1"] * r["D2"] <= 0:
            rho = 0.0
        else:
            rho = min(max(r["D1"] / r["D2"], 0.0), rmax)
        return [r["D1"] * (rho + rho ** 2 + rho ** 3 + rho ** 4)]
    return f


print(f"rms y {math.sqrt(st.fmean([r['y'] ** 2 for r in rows])):.4f}")
print(f"  linear D1 D2                 {cv(lambda r: [r['D1'], r['D2']]):.4f}")
for rmax in (0.5, 1.0, 1.5):
    print(f"  geometric, rho <= {rmax:<4}       {cv(geo(rmax)):.4f}")
    print(f"  linear + geometric ({rmax})    {cv(lambda r: [r['D1'], r['D2']] + geo(rmax)(r)):.4f}")
print(f"  D1 D2 x (1, reserve frac)    {cv(lambda r: [r['D1'], r['D2'], r['D1'] * r['frac'], r['D2'] * r['frac']]):.4f}")
