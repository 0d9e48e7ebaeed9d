"""Part 2 (dev): deepening until stopped. The 100k s1 search deepened by cycles of B, 2B, 4B,
8B (totals 200k .. 1.6M: horizons h = 3, 2, 1, 0 doublings to the reference), each answer
corrected toward the reference with the trend of its own last two cycles read on the same
prefix p2 of W_B (the default's checkpoint worlds; every pass sums them apart, so deepening
needs no checkpoint pass of its own). Per horizon: betas by least squares, free and in the
form beta_j(h) = (h / 4) beta_j(4) (beta_j(4) best's, cyc_fit_final's), the error model
(Student-Welch quantile, lam) by ML; z tables against today's 1.6M s41 and s42.

    python lab/settle/cyc_deepen.py [B1 B2 | fit]      (B1 B2: beta_j(4) for the proportional form)
"""
import math
import sys

from cyc_common import judges, load_cyc
from cyc_est import corrected
from cyc_fitlib import estimator_q, fit_all_t, fit_betas, say
from evalkit import table

B4 = [float(x) for x in sys.argv[1:3]] if len(sys.argv) > 2 else None
LAMS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0)
cyc = load_cyc(sets={"dev"})
J, meta, exact = judges()
keys = sorted(k for k in cyc if k not in exact and (1_600_000, 41) in J[k])
recs = [(k, r) for k in keys for (b, s, d), r in cyc[k].items() if b == 100_000 and d == 4]
j41 = {k: J[k][(1_600_000, 41)] for k in keys}
j42 = {k: J[k][(1_600_000, 42)] for k in keys}
print(f"dev, 100k s1 deepened: {len(recs)} positions")
for cf, h in ((2, 4), (3, 3), (4, 2), (5, 1), (6, 0)):
    T = 100 * 2 ** (cf - 2)
    raw = lambda r: corrected(r, cf)
    print(f"\n#### after cycle {cf + 1}: {T}k, h {h}")
    table([(k, raw(r), j41[k]) for k, r in recs], meta, "raw vs s41", by=False)
    if h == 0:
        rq = lambda r: corrected(r, cf, q="t", q_d="t")
        table([(k, rq(r), j42[k]) for k, r in recs], meta, "raw, Student 99% (7 df), vs s42",
              by=False)
        continue
    free = fit_betas(recs, j41, cf, "p2", "doubling")
    print(f"  least squares betas: {free[0]:.3f}, {free[1]:.3f}")
    forms = [("free", free)]
    if B4:
        forms.append(("h/4 x best's", [B4[0] * h / 4, B4[1] * h / 4]))
    for name, betas in forms:
        if name.startswith("h/4"):           # the shared rule: best's error constants too
            from cyc_fitlib import estimator_q as eq
            shared = {"cf": cf, "betas": betas, "gamma": 2.0, "kappa": 0.75, "a": 0.75,
                      "lam": 0.8, "kappa_d": 0.0, "a_d": 0.75, "lam_d": 1.0, "prefix": "p2",
                      "norm": "doubling", "q": "t", "q_d": "t"}
            est = eq(shared)
            table([(k, est(r), j41[k]) for k, r in recs], meta,
                  "h/4 x best's betas, best's error constants vs s41", by=False)
            table([(k, est(r), j42[k]) for k, r in recs], meta, "   the same vs s42", by=False)
        c = fit_all_t(recs, j41, cf, "p2", fixed_nu=("student", "student"), lams=LAMS,
                      betas=betas)
        print(f"  {name}: {say(c)}")
        est = estimator_q(c)
        table([(k, est(r), j41[k]) for k, r in recs], meta, f"{name} vs s41 (in sample)", by=False)
        table([(k, est(r), j42[k]) for k, r in recs], meta, f"{name} vs s42", by=False)
