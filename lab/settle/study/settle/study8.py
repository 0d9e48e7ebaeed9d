"""Study 8: the unexplained drift (after the correction betas 1.75, 0.51) against the move's
own iterations n_m and the per-world outcome sd sigma_w (from the final pass's sums of
squares), dev 100k seeds 1-3 vs raw 1.6M s41 and s42.

    python study8.py

excess = r^2 - se_c^2 - se_J^2; its mean in bins = the model variance; printed as rms and
as rms / sigma_w.
"""
import math
import statistics as st
from collections import defaultdict

from common import load_curve, load_probes, spread
from estimators import corrected

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
BETAS = [1.75, 0.51]
rows = []
for key, recs in probes.items():
    if key in exact:
        continue
    for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
        rec = recs.get(b)
        if not rec:
            continue
        E = corrected(rec, BETAS)
        for m in E:
            # per-world sd of the final pass, pooled over trees
            var = []
            for t in rec["trees"]:
                W = t["worlds"]
                s = t["marks"][str(m)][-1][1]
                q = t["sq"][str(m)]
                var.append(q / W - (s / W) ** 2)
            sw = math.sqrt(max(st.fmean(var), 0))
            n_m = st.fmean(rec["N"][m])
            sec = spread(E[m].samples)[1]
            for j in ((1_600_000, 41), (1_600_000, 42)):
                vj, sej, _ = curve[key][j][m]
                r = vj - E[m].value
                rows.append(dict(ex=r * r - sec ** 2 - sej ** 2, sw=sw, n=n_m, sec=sec,
                                 config=meta[key]["config"], stage=meta[key]["stage"],
                                 k=len(E)))


def show(name, key, edges):
    g = defaultdict(list)
    for r in rows:
        g[sum(key(r) > e for e in edges)].append(r)
    print(f"  by {name} (edges {edges}):")
    for i in sorted(g):
        rs = g[i]
        ex = st.fmean([r["ex"] for r in rs])
        exn = st.fmean([r["ex"] / r["sw"] ** 2 for r in rs if r["sw"] > 0])
        print(f"     bin {i}: n {len(rs):4d}  model rms {math.sqrt(max(ex, 0)):.4f}  "
              f"model rms / sigma_w {math.sqrt(max(exn, 0)):.4f}  mean sigma_w "
              f"{st.fmean([r['sw'] for r in rs]):.2f}  mean n {st.fmean([r['n'] for r in rs]):.0f}")


show("n_m", lambda r: r["n"], [1600, 3200, 6300])
show("sigma_w", lambda r: r["sw"], [1.5, 2.5, 3.5])
show("se_c / sigma_w", lambda r: r["sec"] / r["sw"] if r["sw"] else 0, [0.006, 0.01, 0.015])
for c in ("config", "stage"):
    g = defaultdict(list)
    for r in rows:
        g[r[c]].append(r)
    print(f"  by {c}:")
    for k_, rs in sorted(g.items()):
        exn = st.fmean([r["ex"] / r["sw"] ** 2 for r in rs if r["sw"] > 0])
        print(f"     {k_:<7} n {len(rs):4d}  model rms / sigma_w {math.sqrt(max(exn, 0)):.4f}")
