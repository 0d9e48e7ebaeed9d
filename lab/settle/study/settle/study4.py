"""Study 4: the common and the move's own drift, by tree size (probe.jsonl, dev).

    python study4.py

For each search, each tree: the increments per doubling D_j of every move; split into the
position's common part (mean over its moves) and each move's own part relative to the best
(by the search's value): D_m - D_best. Signal rms (noise removed) of each, by tree size.
Then the cross-budget drifts (curve), split the same way: common (mean over moves of
v(N') - v(N)) and own (d(N') - d(N), d = v_m - v_best).
"""
import math
import statistics as st
from collections import defaultdict

from common import load_curve, load_probes, spread

probes = load_probes(sets={"dev"})
curve, meta, exact = load_curve()


def sig(items):
    ms = st.fmean([x * x for x, _ in items])
    mn = st.fmean([s * s for _, s in items])
    return math.sqrt(max(ms - mn, 0)), math.sqrt(mn)


print("within-tree increments per doubling: signal rms (noise rms)")
print("  budget j  size     common            own (m - best)")
for N, seed in ((100_000, 1), (100_000, 2), (200_000, 21), (400_000, 21), (800_000, 31),
                (1_600_000, 41), (1_600_000, 42)):
    for j in range(4):
        com, own = [], []
        for key, recs in probes.items():
            if key in exact or (N, seed) not in recs:
                continue
            V = recs[(N, seed)]["V"]
            moves = list(V)
            T = len(V[moves[0]])
            vals = {m: st.fmean([V[m][u][4] for u in range(T)]) for m in moves}
            b = max(moves, key=lambda m: vals[m])
            D = {m: [V[m][u][4 - j] - V[m][u][3 - j] for u in range(T)] for m in moves}
            c = [st.fmean([D[m][u] for m in moves]) for u in range(T)]
            com.append(spread(c))
            for m in moves:
                if m != b:
                    own.append(spread([D[m][u] - D[b][u] for u in range(T)]))
        a, b_ = sig(com), sig(own)
        print(f"  {N // 1000:5d}k {j} {N // 8 // 2 ** j:7d}  {a[0]:.4f} ({a[1]:.4f})   "
              f"{b_[0]:.4f} ({b_[1]:.4f})")

print("\ncross-budget drift from 100k (mean of seeds 1-3) to N (curve): rms common, rms own "
      "(noise not removed)")
for tgt in ((200_000, 21), (400_000, 21), (800_000, 31), (1_600_000, 41), (1_600_000, 42)):
    com, own = [], []
    for key, runs in curve.items():
        if key in exact or key[0] != "dev" or tgt not in runs:
            continue
        base = {m: st.fmean([runs[(100_000, s)][m][0] for s in (1, 2, 3)]) for m in runs[tgt]}
        b = max(base, key=lambda m: base[m])
        dv = {m: runs[tgt][m][0] - base[m] for m in base}
        com.append(st.fmean(dv.values()))
        own += [dv[m] - dv[b] for m in base if m != b]
    print(f"  -> {tgt[0] // 1000}k s{tgt[1]}: common {math.sqrt(st.fmean([x * x for x in com])):.4f}"
          f"  own {math.sqrt(st.fmean([x * x for x in own])):.4f}")
