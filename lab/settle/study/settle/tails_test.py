"""The tail cases of the frozen method on a set (|z| > 2.576 against 1.6M s41), for the
diagnosis after the one test measurement (nothing refitted).

    python tails_test.py SET
"""
import math
import statistics as st
import sys

from common import load_curve, load_probes, spread
from estimators import world_sd
from evalkit import raw_from_curve
import method

SET = sys.argv[1]
probes = load_probes(sets={SET})
curve, meta, exact = load_curve()
for key, recs in sorted(probes.items()):
    if key in exact:
        continue
    J = raw_from_curve(curve[key][(1_600_000, 41)])
    for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
        if b not in recs:
            continue
        E = method.estimate(recs[b])
        for m in E:
            den = math.sqrt(E[m].se ** 2 + J[m].se ** 2)
            z = (E[m].value - J[m].value) / den if den else 0.0
            if abs(z) > 2.576:
                rows = recs[b]["V"][m]
                v = st.fmean([r[4] for r in rows])
                print(f"{key[1]:<18} s{b[1]} m{m:2d} k{len(E)} z {z:+.2f} v {v:+.3f} c {E[m].value:+.3f} "
                      f"vJ {J[m].value:+.3f} se {E[m].se:.3f} (trees {spread(E[m].samples)[1]:.3f}) "
                      f"D1 {st.fmean([r[4]-r[3] for r in rows]):+.3f} D2 {st.fmean([r[3]-r[2] for r in rows]):+.3f} "
                      f"n {st.fmean(recs[b]['N'][m]):.0f} sw {world_sd(recs[b], m):.2f}")
