"""Part 2 (dev): the choice of the tails' model by cross-validation on dev alone: positions in
K folds (by index, stratified by player count and stage: the i-th position of each cell to
fold i mod K); betas and the error model fitted on the other folds (cyc_fitlib.fit_all_t)
and the held fold's 99% intervals measured (values and vs-best: beyond the 99% interval,
|z| beyond it with the judge's error, median |z| in the interval's units, the 99% half-width's
median), summed over the folds. Models: normal (the z's N(0, 1)), student (a Student t of
scale se on the Welch-Satterthwaite df of se^2, the spread's part on 7), free (a unit-sd t
whose nu is fitted); "+lam": with the random-coefficient term (cyc_est: lam x the correction).

    python lab/settle/cyc_cv.py [BUDGET JUDGE_N PREFIXES MODELS K]
"""
import math
import statistics as st
import sys
from collections import defaultdict

from cyc_common import judges, load_cyc
from cyc_fitlib import estimator_q, fit_all_t, say
from evalkit import Tally

BUDGET = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
JN = int(sys.argv[2]) if len(sys.argv) > 2 else 1_600_000
PREFIXES = sys.argv[3].split(",") if len(sys.argv) > 3 else ["p2", "p4"]
MODELS = sys.argv[4].split(",") if len(sys.argv) > 4 else ["normal", "student", "free",
                                                            "normal+lam", "student+lam"]
K = int(sys.argv[5]) if len(sys.argv) > 5 else 4
FIXED = {"student": ("student", "student"), "normal": (math.inf, math.inf), "free": None}
LAMS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0)
NUS = (2.5, 3, 4, 5, 6, 8, 12, math.inf)
cyc = load_cyc(sets={"dev"})
J, meta, exact = judges()
keys = sorted(k for k in cyc if k not in exact and (JN, 41) in J[k])
cells = defaultdict(list)
for k in keys:
    cells[(meta[k]["config"], meta[k]["stage"])].append(k)
fold = {k: i % K for ks in cells.values() for i, k in enumerate(ks)}
recs = [(k, r) for k in keys for (b, s, d), r in sorted(cyc[k].items())
        if b == BUDGET and s in (1, 2, 3)]
j41 = {k: J[k][(JN, 41)] for k in keys}
print(f"dev {BUDGET} vs {JN} s41: {len(keys)} positions in {K} folds")
for prefix in PREFIXES:
    for model in MODELS:
        tally, widths = Tally(), []
        for f in range(K):
            train = [(k, r) for k, r in recs if fold[k] != f]
            test = [(k, r) for k, r in recs if fold[k] == f]
            base, _, lam = model.partition("+")
            c = fit_all_t(train, j41, 2, prefix, fixed_nu=FIXED[base], nus=NUS,
                          lams=LAMS if lam else (0.0,))
            est = estimator_q(c)
            for k, r in test:
                E = est(r)
                tally.add(E, j41[k])
                widths += [2.576 * E[m].se for m in E]
            print(f"    fold {f}: {say(c)}")
        print(tally.row(f"{prefix} {model}") + f" | 99% half-width median {st.median(widths):.3f}",
              flush=True)
