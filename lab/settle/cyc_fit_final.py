"""Part 2 (dev): the constants to freeze, fitted on all of dev in the form the cross-validation
chose (cyc_cv.py: prefix p2, per doubling, Student-Welch quantile, the random-coefficient term
lam): best's 100k against today's 1.6M s41, analyze's 20k against today's 320k s41; printed in
cyc_method.py's syntax, with the in-sample tables (and against s42), the seed calibration and
the verdicts.

    python lab/settle/cyc_fit_final.py
"""
from collections import defaultdict

from cyc_common import judges, load_cyc
from cyc_est import corrected
from cyc_fitlib import calibration, estimator, estimator_q, fit_all_t, say, say_verdicts, verdicts
from evalkit import table

LAMS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0)
cyc = load_cyc(sets={"dev"})
J, meta, exact = judges()
for name, budget, jn in (("BEST", 100_000, 1_600_000), ("ANALYZE", 20_000, 320_000)):
    keys = sorted(k for k in cyc if k not in exact and (jn, 41) in J[k] and (jn, 42) in J[k])
    recs = [(k, r) for k in keys for (b, s, d), r in sorted(cyc[k].items())
            if b == budget and s in (1, 2, 3)]
    by_key = defaultdict(list)
    for k, r in recs:
        by_key[k].append(r)
    j41 = {k: J[k][(jn, 41)] for k in keys}
    j42 = {k: J[k][(jn, 42)] for k in keys}
    c = fit_all_t(recs, j41, 2, "p2", fixed_nu=("student", "student"), lams=LAMS)
    print(f"\n#### {name}: {budget} ({len(keys)} positions) vs {jn} s41: {say(c)}")
    print(f"{name} = dict(betas=({c['betas'][0]:.3f}, {c['betas'][1]:.3f}), gamma={c['gamma']}, "
          f"kappa={c['kappa']}, a={c['a']}, lam={c['lam']}, kappa_d={c['kappa_d']}, "
          f"a_d={c['a_d']}, lam_d={c['lam_d']})")
    est, est99 = estimator(c), estimator_q(c)
    raw = lambda r: corrected(r, 2)
    table([(k, est99(r), j41[k]) for k, r in recs], meta, f"{name} vs s41 (in sample)")
    table([(k, est99(r), j42[k]) for k, r in recs], meta, f"{name} vs s42", by=False)
    table([(k, corrected(r, 2, q="t", q_d="t"), j41[k]) for k, r in recs], meta,
          "raw answer (Student 99%) vs s41", by=False)
    r1, r2, w, w0 = calibration(by_key, est, raw)
    w99 = calibration(by_key, est99, raw)[2]
    print(f"  seed calibration: sd over seeds / trees' spread of the corrected values {r1:.2f}, / "
          f"printed error (se) {r2:.2f}; printed error median {w:.4f} (today's spread {w0:.4f}: "
          f"x{w / w0:.2f}); 99% half-width median {2.576 * w99:.4f} (today's 2.576 x spread "
          f"{2.576 * w0:.4f}: x{w99 / w0:.2f})")
    say_verdicts(verdicts([(est99(r), [j41[k], j42[k]], raw(r)) for k, r in recs]))
