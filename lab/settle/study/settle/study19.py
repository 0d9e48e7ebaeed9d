"""Study 19: the verdicts. For every dev position x 100k seed: the best by the corrected
value, whether it is settled (method.settled) and whether the measured trend is larger than
the noise; against each 1.6M judge: does the judge's best differ (re-rank), and does the
judge separate its own top two. Also today's best by the raw value.

    python study19.py [SET]
"""
import sys
from collections import Counter

from common import load_curve, load_probes
from evalkit import raw_from_curve, best_of, pair
import method

SET = sys.argv[1] if len(sys.argv) > 1 else "dev"
probes = load_probes(sets={SET})
curve, meta, exact = load_curve()
c = Counter()
for key, recs in sorted(probes.items()):
    if key in exact:
        continue
    for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
        rec = recs.get(b)
        if not rec:
            continue
        best, ok, trend = method.settled(rec)
        raw_best = max(rec["V"], key=lambda m: (sum(r[4] for r in rec["V"][m]), -m))
        for j in ((1_600_000, 41), (1_600_000, 42)):
            J = raw_from_curve(curve[key][j])
            jb = best_of(J)
            second = max((m for m in J if m != jb), key=lambda m: J[m].value)
            d, s = pair(J, jb, second)
            sep = d > 2.576 * s
            c[("all",)] += 1
            c[("settled", ok)] += 1
            c[("settled", ok, "rerank")] += best != jb
            c[("settled", ok, "rerank sep")] += best != jb and sep
            c[("trend", trend)] += 1
            c[("trend", trend, "rerank")] += best != jb
            c[("trend", trend, "rerank sep")] += best != jb and sep
            c[("raw rerank",)] += raw_best != jb
            c[("corr vs raw differ",)] += raw_best != best
print(f"{SET}: {c[('all',)]} (position x 100k seed x judge) cases; today's best (raw) differs "
      f"from the judge's {c[('raw rerank',)]}; the corrected best differs from today's "
      f"{c[('corr vs raw differ',)]}")
for name in ("settled", "trend"):
    for v in (True, False):
        n = c[(name, v)]
        if n:
            print(f"  {name}={v}: {n:4d} cases; the judge's best differs in {c[(name, v, 'rerank')]} "
                  f"({100 * c[(name, v, 'rerank')] / n:.1f}%), of which the judge separates its "
                  f"top two: {c[(name, v, 'rerank sep')]}")
