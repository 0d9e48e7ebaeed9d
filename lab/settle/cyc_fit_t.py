"""Part 2 (dev): the error model with heavier tails (cyc_fitlib.fit_all_t): the z's as a
unit-sd Student t, nu fitted by ML with the model's constants (values, and the differences
apart); the 99% intervals then q = t_nu's 99% quantile in sd units instead of 2.576. The z
tables count the tails of those intervals (errors x q / 2.576); beside, the normal fit.

    python lab/settle/cyc_fit_t.py [BUDGET JUDGE_N PREFIXES]
"""
import sys
from collections import defaultdict

from cyc_common import judges, load_cyc
from cyc_est import corrected
from cyc_fitlib import (calibration, estimator, estimator_q, fit_all_t, say, say_verdicts,
                        verdicts)
from evalkit import table

BUDGET = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
JN = int(sys.argv[2]) if len(sys.argv) > 2 else 1_600_000
PREFIXES = sys.argv[3].split(",") if len(sys.argv) > 3 else ["B", "p2", "p4"]
#: the tails' model: "student" (Welch-Satterthwaite df of se, the spread on 7), "free" (a
#: unit-sd t, nu fitted), "normal"
MODEL = sys.argv[4] if len(sys.argv) > 4 else "student"
FIXED = {"student": ("student", "student"), "normal": (float("inf"), float("inf")),
         "free": None}[MODEL]
cyc = load_cyc(sets={"dev"})
J, meta, exact = judges()
keys = sorted(k for k in cyc if k not in exact and (JN, 41) in J[k] and (JN, 42) in J[k])
recs = [(k, r) for k in keys for (b, s, d), r in sorted(cyc[k].items())
        if b == BUDGET and s in (1, 2, 3)]
by_key = defaultdict(list)
for k, r in recs:
    by_key[k].append(r)
j41 = {k: J[k][(JN, 41)] for k in keys}
j42 = {k: J[k][(JN, 42)] for k in keys}
raw = lambda r: corrected(r, 2)
print(f"dev, cycle engine {BUDGET} s1-3 ({len(keys)} positions) vs today's {JN} s41 (fit), s42")
for prefix in PREFIXES:
    c = fit_all_t(recs, j41, 2, prefix, fixed_nu=FIXED)
    print(f"\n#### prefix {prefix}: {say(c)}")
    est, est99 = estimator(c), estimator_q(c)
    table([(k, est99(r), j41[k]) for k, r in recs], meta, f"{prefix} t vs s41 (in sample)")
    table([(k, est99(r), j42[k]) for k, r in recs], meta, f"{prefix} t vs s42", by=False)
    table([(k, est(r), j41[k]) for k, r in recs], meta, f"{prefix} (sd units) vs s41", by=False)
    r1, r2, w, w0 = calibration(by_key, est, raw)
    print(f"  seed calibration: sd over seeds / trees' spread {r1:.2f}, / printed error (sd) "
          f"{r2:.2f}; printed error (sd) median {w:.4f} (raw spread's {w0:.4f}: x{w / w0:.2f}); "
          f"the 99% half-width x{c['q']} of it")
    say_verdicts(verdicts([(est99(r), [j41[k], j42[k]], raw(r)) for k, r in recs]),
                 label=" (t's 99%)")
