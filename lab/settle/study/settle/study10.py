"""Study 10: which target is common to all budgets? dev, 100k seeds 1-3 against 1.6M s41.

    python study10.py

The same corrected estimator (estimators.corrected; kappa/a as study9's fit) applied at
100k and at 1.6M (the 1.6M probe's own checkpoints), with the correction aimed at
- rel16: "16x of myself" at every budget (betas 1.75, 0.51 at 100k and at 1.6M),
- limit(c): a limit under a geometric model: c x the 16x betas at every budget (c = 1.5,
  2, 3: the limit's multiplier for rho per doubling about 0.7-0.85),
- fixed: the reference tree size n* = 200k (today's 1.6M): the 16x betas at 100k, none at 1.6M.
Each judged against raw 1.6M and against itself at 1.6M. The model variance (method.py's
constants) at both budgets; at the reference itself (fixed, 1.6M) none: today's engine.
"""
from common import load_curve, load_probes
from estimators import corrected
from evalkit import raw_from_curve, table

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
J = (1_600_000, 41)
import method
B16 = [method.BETA1, method.BETA2]
K, KD, A, AD, G = method.KAPPA, method.KAPPA_D, method.A, method.A_D, method.GAMMA


def run(label, b_small, b_big):
    raw, self_ = [], []
    for key, recs in sorted(probes.items()):
        if key in exact or J not in recs:
            continue
        Jr = raw_from_curve(curve[key][J])
        Js = corrected(recs[J], b_big, K, KD, A, AD, gamma=G) if b_big else \
            corrected(recs[J], [])
        for b in BASES:
            if b in recs:
                E = corrected(recs[b], b_small, K, KD, A, AD, gamma=G)
                raw.append((key, E, Jr))
                self_.append((key, E, Js))
    table(raw, meta, f"{label}: vs raw 1.6M", by=False)
    table(self_, meta, f"{label}: vs itself at 1.6M", by=False)


run("no correction, the model variance only (widened)", [], [])
run("rel16", B16, B16)
for c in (1.5, 2, 3):
    run(f"limit(c={c})", [c * b for b in B16], [c * b for b in B16])
run("fixed n*=200k/tree", B16, [])
