"""Part 2 (dev): the method's form refitted for the cycle engine (cyc_fitlib.fit_all), at a
budget against its judge, for each checkpoint prefix (B, p2, p4), per doubling of the
move's own iterations; the z tables against the fitted judge's seed and the other; the seed
calibration, the printed error; the verdicts.

    python lab/settle/cyc_fit100.py [BUDGET JUDGE_N]    (100000 1600000: best's; 20000 320000: analyze's)
"""
import sys
from collections import defaultdict

from cyc_common import judges, load_cyc
from cyc_est import corrected
from cyc_fitlib import calibration, estimator, fit_all, say, say_verdicts, verdicts
from evalkit import table

BUDGET = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
JN = int(sys.argv[2]) if len(sys.argv) > 2 else 1_600_000
PREFIXES = sys.argv[3].split(",") if len(sys.argv) > 3 else ["B", "p2", "p4"]
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
print(f"dev, cycle engine {BUDGET} s1-3 ({len(keys)} positions, {len(recs)} searches) vs "
      f"today's {JN} s41 (fit) and s42")
raw = lambda r: corrected(r, 2)
table([(k, raw(r), j41[k]) for k, r in recs], meta, f"raw (uncorrected) vs s41", by=False)
for prefix in PREFIXES:
    c = fit_all(recs, j41, 2, prefix)
    print(f"\n#### prefix {prefix}: {say(c)}")
    est = estimator(c)
    table([(k, est(r), j41[k]) for k, r in recs], meta, f"{prefix} vs s41 (in sample)")
    table([(k, est(r), j42[k]) for k, r in recs], meta, f"{prefix} vs s42", by=False)
    r1, r2, w, w0 = calibration(by_key, est, raw)
    print(f"  seed calibration: sd over seeds / trees' spread {r1:.2f}, / printed error {r2:.2f}; "
          f"printed error median {w:.4f} (raw spread's {w0:.4f}: x{w / w0:.2f})")
    say_verdicts(verdicts([(est(r), [j41[k], j42[k]], raw(r)) for k, r in recs]))
