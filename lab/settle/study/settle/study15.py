"""Study 15: after the fitted model (betas 1.75, 0.51; values kappa 1.0, a 1.5), is any
observable still predictive of z^2? mean z^2 (1 if calibrated), median |z| and the share
beyond 2.576 in bins: stage, players, choices k, the move's n_m, sigma_w, |D1| / se(D1),
whether the move survived to the last phase. dev, 100k s1-3 vs raw 1.6M s41 and s42.

    python study15.py
"""
import json
import math
import statistics as st
from collections import defaultdict

from common import load_curve, load_probes, spread
from estimators import corrected, world_sd
from evalkit import raw_from_curve

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()
corpus = {("dev", json.loads(l)["id"]): json.loads(l) for l in open("../corpus/dev.jsonl")}
rows = []
for key, recs in sorted(probes.items()):
    if key in exact:
        continue
    for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
        rec = recs.get(b)
        if not rec:
            continue
        E = corrected(rec, [1.75, 0.51], 1.0, 0.75, 1.5, 1.25)
        top = max(st.fmean(rec["N"][m]) for m in E)
        for j in ((1_600_000, 41), (1_600_000, 42)):
            Jr = raw_from_curve(curve[key][j])
            for m in E:
                den = math.sqrt(E[m].se ** 2 + Jr[m].se ** 2)
                z = (E[m].value - Jr[m].value) / den if den else 0.0
                t = rec["V"][m]
                D1, se1 = spread([r[4] - r[3] for r in t])
                rows.append(dict(z=z, stage=meta[key]["stage"], config=meta[key]["config"],
                                 k=len(E), n=st.fmean(rec["N"][m]), sw=world_sd(rec, m),
                                 tr=abs(D1) / se1 if se1 > 0 else 0.0,
                                 last=st.fmean(rec["N"][m]) == top,
                                 reserve=corpus[key]["reserve"]))


def line(label, rs):
    z = [r["z"] for r in rs]
    return (f"     {label:<14} n {len(rs):4d}  mean z^2 {st.fmean([x * x for x in z]):5.2f}  "
            f"med|z| {st.median([abs(x) for x in z]):.2f}  >2.576 "
            f"{100 * sum(abs(x) > 2.576 for x in z) / len(z):4.1f}%")


def cats(name):
    g = defaultdict(list)
    for r in rows:
        g[r[name]].append(r)
    print(f"  by {name}:")
    for k in sorted(g, key=str):
        print(line(str(k), g[k]))


def bins(name, edges):
    g = defaultdict(list)
    for r in rows:
        g[sum(r[name] > e for e in edges)].append(r)
    print(f"  by {name} (edges {edges}):")
    for k in sorted(g):
        print(line(f"bin {k}", g[k]))


print(line("all", rows))
for c in ("stage", "config", "k", "last"):
    cats(c)
bins("n", [1600, 3200, 6300])
bins("sw", [1.5, 2.5, 3.5])
bins("tr", [0.5, 1, 2, 3])
bins("reserve", [2, 4, 6, 9])
