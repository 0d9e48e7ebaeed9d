"""The tail cases of study7's estimator (betas 1.75, 0.51; kappa 0.945): which moves have
|z| > 2.576 against raw 1.6M s41, with their figures.

    python tails.py
"""
import math
import statistics as st
import sys

import study7 as S
from common import spread

betas, kv, kd = [1.75, 0.51], 0.945, 0.913
for key, recs in sorted(S.probes.items()):
    if key in S.exact:
        continue
    J = S.raw_from_curve(S.curve[key][(1_600_000, 41)])
    for b in S.BASES:
        if b not in recs:
            continue
        E = S.corrected(recs[b], betas, kv, kd)
        for m in E:
            den = math.sqrt(E[m].se ** 2 + J[m].se ** 2)
            z = (E[m].value - J[m].value) / den if den else 0.0
            if abs(z) > 2.576:
                rows = recs[b]["V"][m]
                v = st.fmean([r[4] for r in rows])
                print(f"{key[1]:<18} s{b[1]} m{m:2d} z {z:+.2f}  v {v:+.3f} c {E[m].value:+.3f} "
                      f"vJ {J[m].value:+.3f}  se_c {spread(E[m].samples)[1]:.3f} se {E[m].se:.3f} "
                      f"seJ {J[m].se:.3f}  D1 {st.fmean([r[4]-r[3] for r in rows]):+.3f} "
                      f"D2 {st.fmean([r[3]-r[2] for r in rows]):+.3f}  N {recs[b]['N'][m][0]}")
