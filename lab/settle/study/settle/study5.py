"""Study 5: how well can a 100k search predict the 16x value? Linear predictors of
y = v(1.6M) - v(n) (raw judges s41, s42) from the search's own checkpoints, dev.

    python study5.py

Features per move (trees' means): D1 = v(n) - v(n/2), D2 = v(n/2) - v(n/4), D3, D4; the
position's common part C1 (mean over its moves of D1) and own part O1 = D1 - C1. Fit by
least squares through the origin; 2-fold cross-validation by position (even/odd index).
Reports the fitted coefficients, the residual rms in and out of sample, the rms of y, and
the noise part (the trees' spread of the corrected value, c = v + fit, as each tree's).
"""
import math
import statistics as st

import numpy as np

from common import load_curve, load_probes, spread

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
JUDGES = [(1_600_000, 41), (1_600_000, 42)]

rows = []   # (pos index, y, features per tree matrix [T x F], v per tree, judge se)
keys = sorted(k for k in probes if k not in exact and all(j in curve[k] for j in JUDGES))


def features(V, m, moves, u):
    r = V[m][u]
    D = [r[4 - j] - r[3 - j] for j in range(4)]
    C1 = st.fmean([V[x][u][4] - V[x][u][3] for x in moves])
    C2 = st.fmean([V[x][u][3] - V[x][u][2] for x in moves])
    return [D[0], D[1], D[2], D[3], C1, D[0] - C1, C2, D[1] - C2]


NAMES = ["D1", "D2", "D3", "D4", "C1", "O1", "C2", "O2"]
for i, key in enumerate(keys):
    for b in BASES:
        rec = probes[key].get(b)
        if rec is None:
            continue
        V = rec["V"]
        moves = list(V)
        T = len(V[moves[0]])
        for m in moves:
            F = np.array([features(V, m, moves, u) for u in range(T)])
            v = np.array([V[m][u][4] for u in range(T)])
            for j in JUDGES:
                vj, sej, _ = curve[key][j][m]
                rows.append((i, vj - v.mean(), F, v, sej))


def fit(cols, train):
    X = np.array([r[2].mean(0)[cols] for r in train])
    y = np.array([r[1] for r in train])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    return beta


def evaluate(cols, label):
    out_res, in_res, noise = [], [], []
    for fold in (0, 1):
        train = [r for r in rows if r[0] % 2 != fold]
        test = [r for r in rows if r[0] % 2 == fold]
        beta = fit(cols, train)
        for r in test:
            pred = float(r[2].mean(0)[cols] @ beta) if cols else 0.0
            out_res.append(r[1] - pred)
            per_tree = r[3] + (r[2][:, cols] @ beta if cols else 0)
            noise.append(spread(list(per_tree))[1] ** 2 + r[4] ** 2)
    beta = fit(cols, rows) if cols else []
    for r in rows:
        pred = float(r[2].mean(0)[cols] @ beta) if cols else 0.0
        in_res.append(r[1] - pred)
    rms = lambda xs: math.sqrt(st.fmean([x * x for x in xs]))
    model = max(rms(out_res) ** 2 - st.fmean(noise), 0)
    print(f"  {label:<22} beta {' '.join(f'{NAMES[c]}={b:+.2f}' for c, b in zip(cols, beta)):<44}"
          f" resid rms in {rms(in_res):.4f} out {rms(out_res):.4f}  noise rms {math.sqrt(st.fmean(noise)):.4f}"
          f"  model rms {math.sqrt(model):.4f}")


print(f"y = v(1.6M) - v(100k), {len(rows)} (move, base seed, judge) rows, {len(keys)} positions; "
      f"rms y {math.sqrt(st.fmean([r[1] ** 2 for r in rows])):.4f}")
evaluate([], "none")
evaluate([0], "D1")
evaluate([0, 1], "D1 D2")
evaluate([0, 1, 2], "D1 D2 D3")
evaluate([0, 1, 2, 3], "D1..D4")
evaluate([4, 5], "C1 O1")
evaluate([4, 5, 6, 7], "C1 O1 C2 O2")
evaluate([4], "C1 only")
