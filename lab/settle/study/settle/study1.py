"""Study 1: the within-tree trend on dev (data/probe.jsonl against ../data/curve.jsonl).

    python study1.py [SET]      (default dev)

1. The probes' final values are the curve's (same seeds, same budgets).
2. The increments per doubling of a move's own iterations, D_j = v(n/2^j) - v(n/2^(j+1))
   (j = 0: the last doubling), mean over the 8 trees, by the tree budget at the upper end:
   their rms, the rms of their noise (the trees' spread) and the signal left.
3. Does the within-tree trend predict the drift across budgets? x = D_0 of a search
   (v(n) - v(n/2), trees' mean), y = v(N') - v(N) of independent searches.
"""
import math
import statistics as st
import sys
from collections import defaultdict

from common import corr, load_curve, load_probes, ols, spread

SET = sys.argv[1] if len(sys.argv) > 1 else "dev"
probes = load_probes(sets={SET})
curve, meta, exact = load_curve()

# 1. same values
same = diff = 0
for key, recs in probes.items():
    for (N, s), rec in recs.items():
        ch = curve[key].get((N, s))
        if ch is None:
            continue
        for m, rows in rec["V"].items():
            v = math.fsum(r[-1] for r in rows) / len(rows)
            if ch[m][0] == v or abs(ch[m][0] - v) < 1e-12:
                same += 1
            else:
                diff += 1
print(f"1. probe final values equal to the curve's: {same} equal, {diff} different")

# 2. increments by tree size
print("\n2. increments per doubling of the move's own iterations (mean over trees), by the "
      "tree budget at the upper checkpoint")
print("   budget  j  tree-size   moves   rms D    rms noise  rms signal  mean D")
by_size = defaultdict(list)
for key, recs in probes.items():
    if key in exact:
        continue
    for (N, s), rec in sorted(recs.items()):
        B = N // 8
        for j in range(4):
            Ds, ses = [], []
            for m, rows in rec["V"].items():
                d = [r[4 - j] - r[3 - j] for r in rows]
                mu, se = spread(d)
                Ds.append(mu)
                ses.append(se)
            by_size[(N, j)].append((Ds, ses))
for (N, j), items in sorted(by_size.items()):
    Ds = [x for D, _ in items for x in D]
    ses = [x for _, S in items for x in S]
    ms = st.fmean([x * x for x in Ds])
    mn = st.fmean([x * x for x in ses])
    print(f"   {N // 1000:5d}k  {j}  {N // 8 // 2 ** j:8d}  {len(Ds):6d}  {math.sqrt(ms):.4f}"
          f"    {math.sqrt(mn):.4f}     {math.sqrt(max(ms - mn, 0)):.4f}    {st.fmean(Ds):+.4f}")

# 3. within-tree trend against the drift across budgets
print("\n3. the within-tree trend x = v(n) - v(n/2) (trees' mean) of a search at N against the "
      "drift y = v(N') - v(N) of independent searches (curve)")
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
TARGETS = [(200_000, 21), (400_000, 21), (800_000, 31), (1_600_000, 41), (1_600_000, 42)]
for tN, ts in TARGETS:
    xs, ys, x4 = [], [], []
    for key, recs in probes.items():
        if key in exact or (tN, ts) not in curve[key]:
            continue
        for b in BASES:
            if b not in recs:
                continue
            rec = recs[b]
            for m, rows in rec["V"].items():
                x = st.fmean([r[4] - r[3] for r in rows])
                # the base's value from another 100k seed (independent of x's noise)
                other = [bb for bb in BASES if bb != b and bb in curve[key]]
                v0 = st.fmean([curve[key][bb][m][0] for bb in other])
                y = curve[key][(tN, ts)][m][0] - v0
                xs.append(x)
                ys.append(y)
                x4.append(st.fmean([r[4] - r[2] for r in rows]))
    b0, b1, a = ols(xs, ys)
    c0, c1, _ = ols(x4, ys)
    print(f"   100k -> {tN // 1000}k s{ts}: n {len(xs)}  corr(x,y) {corr(xs, ys):+.2f}  "
          f"slope {b1:.2f} (origin {b0:.2f})   with x = v(n)-v(n/4): corr {corr(x4, ys):+.2f} "
          f"slope {c1:.2f}")
