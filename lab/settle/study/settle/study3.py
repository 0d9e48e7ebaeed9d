"""Study 3: pass variants on the same trees (data/probe_passes.jsonl; run_passes.sh).

    python study3.py

Variants (IsmctsTree.set_pass in the LAB engine copy): minimum chosen visits to follow a
child, pick 0 best mean / 1 most chosen / 2 mean shrunk (prior), and the pure playout
policy after the root move (min 2^30: a fixed policy, the tree unused below the move).
Per variant: the within-tree increments per doubling (signal rms, noise rms), the per-tree
spread, and each variant at 100k against the same variant at 1.6M (z tables).
"""
import json
import math
import statistics as st
import sys
from collections import defaultdict

from common import load_curve, spread
from evalkit import Est, table

curve, meta, exact = load_curve()
recs = defaultdict(dict)
FILE = sys.argv[1] if len(sys.argv) > 1 else "data/probe_passes.jsonl"
for line in open(FILE):
    d = json.loads(line)
    recs[(d["set"], d["id"])][(d["iterations"], d["seed"])] = d
names = None


def V(d, k):
    """{move: [[v per checkpoint] per tree]} for variant k."""
    out = {}
    for m in d["trees"][0]["n"]:
        out[int(m)] = [[s[k] / t["worlds"] for _, s in t["marks"][m]] for t in d["trees"]]
    return out


first = next(iter(next(iter(recs.values())).values()))
P = first["passes"]
label = lambda p: ("rollout" if p[0] > 1e6 else
                   f"min{int(p[0])}/{['mean', 'robust', 'shrunk%g' % p[2]][int(p[1])]}"
                   + (f"/depth{int(p[3])}" if len(p) > 3 and p[3] else ""))
for N in (100_000, 1_600_000):
    print(f"\n== within-tree increments at {N // 1000}k: signal rms (noise rms) per doubling, "
          "j=0 the last; tree sd of v(n)")
    for k, p in enumerate(P):
        cols = []
        for j in range(4):
            Ds, ses = [], []
            for key, r in recs.items():
                if key in exact or (N, 1 if N == 100_000 else 41) not in r:
                    continue
                for m, rows in V(r[(N, 1 if N == 100_000 else 41)], k).items():
                    mu, se = spread([x[4 - j] - x[3 - j] for x in rows])
                    Ds.append(mu)
                    ses.append(se)
            if not Ds:
                continue
            ms, mn = st.fmean([x * x for x in Ds]), st.fmean([x * x for x in ses])
            cols.append(f"{math.sqrt(max(ms - mn, 0)):.3f} ({math.sqrt(mn):.3f})")
        sds = [st.stdev([x[4] for x in rows]) for key, r in recs.items() if key not in exact
               and (N, 1 if N == 100_000 else 41) in r
               for m, rows in V(r[(N, 1 if N == 100_000 else 41)], k).items()]
        print(f"  {label(p):<14} " + "  ".join(cols) + f"   tree sd median {st.median(sds):.3f}")

print()
for k, p in enumerate(P):
    pairs = []
    for key, r in sorted(recs.items()):
        if key in exact or (1_600_000, 41) not in r:
            continue
        J = {m: Est([x[4] for x in rows]) for m, rows in V(r[(1_600_000, 41)], k).items()}
        for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
            if b in r:
                B = {m: Est([x[4] for x in rows]) for m, rows in V(r[b], k).items()}
                pairs.append((key, B, J))
    table(pairs, meta, f"{label(p)}: 100k vs the same pass at 1.6M", by=(k == 0))

print("\n== offline strength: the regret of each variant's best move at 100k (seeds 1-3), valued "
      "by today's 1.6M (mean of s41, s42)")
for k, p in enumerate(P):
    reg, agree, n = [], 0, 0
    for key, r in sorted(recs.items()):
        if key in exact or (1_600_000, 42) not in curve[key]:
            continue
        J = {m: (curve[key][(1_600_000, 41)][m][0] + curve[key][(1_600_000, 42)][m][0]) / 2
             for m in curve[key][(1_600_000, 41)]}
        jb = max(J, key=J.get)
        for b in ((100_000, 1), (100_000, 2), (100_000, 3)):
            if b not in r:
                continue
            vals = {m: st.fmean([x[4] for x in rows]) for m, rows in V(r[b], k).items()}
            mb = max(vals, key=vals.get)
            reg.append(J[jb] - J[mb])
            agree += mb == jb
            n += 1
    print(f"  {label(p):<16} mean regret {st.fmean(reg):.4f}  same best as 1.6M {agree}/{n}")
