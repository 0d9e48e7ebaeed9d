"""Part 2, study 3 (dev): the tails. With the p2 fit (cyc_fitlib.fit_all), the values' z
against today's 1.6M s41: their shape (quantiles against a normal's, and the Student t whose
quantiles match best), and what observables scale z^2 (the mean z^2 by bins of: the move's own
iterations, the trees' spread against the model part, the size of the correction against the
spread, the position's trend energy (the rms over its moves of the trees' mean D1 divided by
sigma_w / sqrt(n_m)), players, stage, reserve). Each observable is known to the search.

    python lab/settle/cyc_study3.py [PREFIX]
"""
import math
import statistics as st
import sys
from collections import defaultdict

from scipy import stats as sps

from common import spread
from cyc_common import judges, load_cyc, own, sigma_w
from cyc_est import corrected, features
from cyc_fitlib import estimator, fit_all, say
from evalkit import zof

PREFIX = sys.argv[1] if len(sys.argv) > 1 else "p2"
cyc = load_cyc(sets={"dev"})
J, meta, exact = judges()
keys = sorted(k for k in cyc if k not in exact and (1_600_000, 41) in J[k])
recs = [(k, r) for k in keys for (b, s, d), r in sorted(cyc[k].items())
        if b == 100_000 and s in (1, 2, 3)]
j41 = {k: J[k][(1_600_000, 41)] for k in keys}
c = fit_all(recs, j41, 2, PREFIX)
print(f"dev 100k, prefix {PREFIX}: {say(c)}")
est = estimator(c)
rows = []
for k, r in recs:
    E = est(r)
    f = features(r, 2, PREFIX)
    energy = math.sqrt(st.fmean([(f[m][1] / max(st.fmean([sigma_w(t, m, 2) for t in r["trees"]])
                                                / math.sqrt(st.fmean([own(t, m, 2) for t in r["trees"]])),
                                                1e-9)) ** 2 for m in E]))
    for m in E:
        z = zof(E[m].value - j41[k][m].value, math.sqrt(E[m].se ** 2 + j41[k][m].se ** 2))
        if not math.isfinite(z):
            z = 0.0 if False else z
        sp = spread(E[m].samples)[1]
        n_m = st.fmean([own(t, m, 2) for t in r["trees"]])
        share = sp ** 2 * (1 + c["kappa"] ** 2) / max(E[m].se ** 2, 1e-18)
        corr = abs(c["betas"][0] * f[m][1] + c["betas"][1] * f[m][2]) / max(sp, 1e-9)
        rows.append({"z": z, "n_m": n_m, "share": share, "corr": corr, "energy": energy,
                     "config": meta[k]["config"], "stage": meta[k]["stage"], "key": k})
zs = [x["z"] for x in rows]
print(f"\n{len(zs)} z's: sd {st.pstdev(zs):.2f}, median |z| {st.median(abs(z) for z in zs):.2f}, "
      f"kurtosis {sps.kurtosis(zs):.2f} (normal 0)")
for p in (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995):
    qz = sorted(abs(z) for z in zs)[int(p * (len(zs) - 1))]
    print(f"  |z| quantile {p:5.3f}: {qz:.2f} (normal {sps.norm.ppf(0.5 + p / 2):.2f})")
# the Student t (location 0, scale s) of best likelihood
best = max(((nu, s) for nu in (2, 3, 4, 5, 6, 8, 10, 15, 30, 1000)
            for s in [x / 100 for x in range(40, 121, 2)]),
           key=lambda p: sum(sps.t.logpdf(z / p[1], p[0]) - math.log(p[1]) for z in zs))
nu, s = best
print(f"  Student t of best likelihood: nu {nu}, scale {s:.2f}: its 99% quantile x scale "
      f"{sps.t.ppf(0.995, nu) * s:.2f} (normal's 2.58)")


def bins(name, edges):
    out = defaultdict(list)
    for x in rows:
        v = x[name]
        b = sum(v >= e for e in edges)
        out[b].append(x["z"])
    lab = ["<" + str(edges[0])] + [f"{edges[i]}-{edges[i + 1]}" for i in range(len(edges) - 1)] + [
        ">=" + str(edges[-1])]
    print(f"  {name:7s}: " + "; ".join(
        f"{lab[b]} n {len(v)} z^2 {st.fmean(z * z for z in v):.2f} tails "
        f"{100 * sum(abs(z) > 2.576 for z in v) / len(v):.1f}%" for b, v in sorted(out.items())))


print("\nmean z^2 (and tails) by observable:")
bins("n_m", [1000, 2000, 4000])
bins("share", [0.5, 0.7, 0.85])
bins("corr", [1.0, 2.0, 4.0])
bins("energy", [1.0, 2.0, 3.0])
for g in ("config", "stage"):
    out = defaultdict(list)
    for x in rows:
        out[x[g]].append(x["z"])
    print(f"  {g:7s}: " + "; ".join(f"{k} n {len(v)} z^2 {st.fmean(z * z for z in v):.2f} tails "
                                     f"{100 * sum(abs(z) > 2.576 for z in v) / len(v):.1f}%"
                                     for k, v in sorted(out.items())))
print("\nthe tails (|z| > 2.576):")
for x in sorted(rows, key=lambda x: -abs(x["z"]))[:14]:
    print(f"  {x['key'][1]:18s} z {x['z']:+.2f} n_m {x['n_m']:6.0f} share {x['share']:.2f} "
          f"corr/spread {x['corr']:.1f} energy {x['energy']:.1f}")
