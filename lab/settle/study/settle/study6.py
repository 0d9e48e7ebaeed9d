"""Study 6: what predicts the size of the drift left after the trend correction?
(dev, 100k seeds 1-3 against raw 1.6M s41/s42; correction c = v + 2.06 D1, study5's.)

    python study6.py

For each move: r = y - 2.06 D1 (y = v_J - v), the noise part n2 = se_c^2 + se_J^2 (se_c the
trees' spread of v + 2.06 D1 per tree); excess = r^2 - n2. Mean excess (= model variance) in
bins of candidate scales: |D1|, the trees' sd of v, se of D1, the players, stage, reserve.
"""
import math
import statistics as st
from collections import defaultdict

from common import load_curve, load_probes, spread

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
corpus = {}
import json
for line in open("../corpus/dev.jsonl"):
    d = json.loads(line)
    corpus[("dev", d["id"])] = d
B = 2.06
rows = []
for key, recs in probes.items():
    if key in exact:
        continue
    for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
        rec = recs.get(b)
        if not rec:
            continue
        V = rec["V"]
        moves = list(V)
        for m in moves:
            t = V[m]
            v, sev = spread([r[4] for r in t])
            D, seD = spread([r[4] - r[3] for r in t])
            c, sec = spread([r[4] + B * (r[4] - r[3]) for r in t])
            C = st.fmean([st.fmean([r[4] - r[3] for r in V[x]]) for x in moves])
            for j in ((1_600_000, 41), (1_600_000, 42)):
                vj, sej, _ = curve[key][j][m]
                r_ = vj - c
                rows.append(dict(excess=r_ * r_ - sec ** 2 - sej ** 2, r2=r_ * r_, absD=abs(D),
                                 sdv=sev * math.sqrt(8), seD=seD, config=meta[key]["config"],
                                 stage=meta[key]["stage"], reserve=corpus[key]["reserve"],
                                 absC=abs(C), k=len(moves), noise=sec ** 2 + sej ** 2))


def bins(name, edges=None):
    xs = sorted(r[name] for r in rows)
    if edges is None:
        edges = [xs[int(len(xs) * q)] for q in (0.25, 0.5, 0.75)]
    print(f"  by {name} (edges {', '.join(f'{e:.3g}' for e in edges)}):")
    groups = defaultdict(list)
    for r in rows:
        g = sum(r[name] > e for e in edges)
        groups[g].append(r)
    for g in sorted(groups):
        rs = groups[g]
        ex = st.fmean([r["excess"] for r in rs])
        print(f"     bin {g}: n {len(rs):4d}  model rms {math.sqrt(max(ex, 0)):.4f}  "
              f"noise rms {math.sqrt(st.fmean([r['noise'] for r in rs])):.4f}  "
              f"mean |x| {st.fmean([r[name] for r in rs]):.4f}")


def cats(name):
    groups = defaultdict(list)
    for r in rows:
        groups[r[name]].append(r)
    print(f"  by {name}:")
    for g in sorted(groups):
        rs = groups[g]
        ex = st.fmean([r["excess"] for r in rs])
        print(f"     {g!s:<7} n {len(rs):4d}  model rms {math.sqrt(max(ex, 0)):.4f}  noise rms "
              f"{math.sqrt(st.fmean([r['noise'] for r in rs])):.4f}")


print(f"rows {len(rows)}; model rms overall {math.sqrt(st.fmean([r['excess'] for r in rows])):.4f}")
for n in ("absD", "sdv", "seD", "absC", "reserve"):
    bins(n)
for n in ("config", "stage", "k"):
    cats(n)
