"""Part 2, study 2 (dev): the correction of the cycle engine's 100k answer toward the reference
(today's 1.6M s41), by least squares on the trees' means, 2-fold by position (the fold of a
position by its index): the rms of the judge minus the answer, raw and corrected, for every
variant of the trend: the checkpoints' prefix (B: all W_B worlds, p2: the first half, p4: a
quarter) and its normalisation (cycle: the difference per cycle; doubling: per doubling of
the move's own iterations, log2 of its count ratio; floor: the same with the log2 at least
0.5), with D1 alone or D1 and D2. Also: the count ratios the cycles give (how far from 2).

    python lab/settle/cyc_study2.py [BUDGET JUDGE_N JUDGE_SEED]     (default 100000 1600000 41)
"""
import math
import statistics as st
import sys

import numpy as np

from cyc_common import judges, load_cyc, own
from cyc_est import features

BUDGET = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
JN = int(sys.argv[2]) if len(sys.argv) > 2 else 1_600_000
JS = int(sys.argv[3]) if len(sys.argv) > 3 else 41
cyc = load_cyc(sets={"dev"})
J, meta, exact = judges()
keys = sorted(k for k in cyc if k not in exact and (JN, JS) in J[k])
recs = [(i, k, r) for i, k in enumerate(keys) for (b, s, d), r in cyc[k].items()
        if b == BUDGET and s in (1, 2, 3)]
print(f"dev {BUDGET}: {len(keys)} positions, {len(recs)} searches; judge {JN} s{JS}")

ratios = []
for _, _, r in recs:
    for t in r["trees"]:
        for m in r["moves"]:
            ratios.append((own(t, m, 2) / own(t, m, 1), own(t, m, 1) / own(t, m, 0)))
for j, name in ((0, "n3/n2 (cycle 3)"), (1, "n2/n1 (cycle 2)")):
    xs = sorted(x[j] for x in ratios)
    q = lambda p: xs[int(p * (len(xs) - 1))]
    print(f"  count ratio {name}: 5% {q(.05):.2f}, 25% {q(.25):.2f}, median {q(.5):.2f}, "
          f"75% {q(.75):.2f}, 95% {q(.95):.2f}; below 1.3: {100 * sum(x < 1.3 for x in xs) / len(xs):.1f}%")


def data(prefix, norm):
    X, y, fold = [], [], []
    for i, k, r in recs:
        f = features(r, 2, prefix, norm)
        for m, (v, d1, d2) in f.items():
            X.append((d1, d2))
            y.append(J[k][(JN, JS)][m].value - v)
            fold.append(i % 2)
    return np.array(X), np.array(y), np.array(fold)


def cv(X, y, fold, cols):
    res = np.zeros_like(y)
    betas = []
    for f in (0, 1):
        tr, te = fold != f, fold == f
        b = np.linalg.lstsq(X[tr][:, cols], y[tr], rcond=None)[0] if cols else np.zeros(0)
        res[te] = y[te] - (X[te][:, cols] @ b if cols else 0)
        betas.append(b)
    full = np.linalg.lstsq(X[:, cols], y, rcond=None)[0] if cols else np.zeros(0)
    return math.sqrt(float(np.mean(res ** 2))), full


X, y, fold = data("B", "doubling")
print(f"\n  rms of the drift (judge - raw answer): {math.sqrt(float(np.mean(y ** 2))):.4f}")
for prefix in ("B", "p2", "p4"):
    for norm in ("cycle", "doubling", "floor"):
        X, y, fold = data(prefix, norm)
        r1, b1 = cv(X, y, fold, [0])
        r2, b2 = cv(X, y, fold, [0, 1])
        print(f"  prefix {prefix:2s} {norm:8s}: D1 rms {r1:.4f} (beta {b1[0]:.2f});  D1 D2 rms "
              f"{r2:.4f} (betas {b2[0]:.2f}, {b2[1]:.2f})")
