"""Part 5, the measures of the deepening prototype (data/deepen.jsonl, deepen.py):
(i) the raw answer after each cycle against a direct search of the same total budget (the
curve's: 100k s1 is cycle 0 itself, bit for bit; then 200k s21, 400k s21, 800k s31, 1.6M
s41): does deepening give what a direct search of that size gives?
(ii) the answer after each cycle corrected toward the reference (8 x 200k) with the
one-checkpoint constants per horizon h = 4 - c (study18, D1 = the cycle's own trend per
doubling, read on the cycle's worlds at its start and end), against today's 1.6M s41;
(iii) the CPU cost: deepening up to cycle c (every cycle's tree, pass and trend pass)
against a direct search of that size (its tree and one pass, estimated from the same runs:
the iterations cost the same however the tree is grown).

    python deepen_eval.py
"""
import json
import math
import statistics as st

from common import load_curve, spread
from evalkit import Est, raw_from_curve, table

curve, meta, exact = load_curve()
DIRECT = {0: (100_000, 1), 1: (200_000, 21), 2: (400_000, 21), 3: (800_000, 31),
          4: (1_600_000, 41)}
# study18's one-checkpoint constants per horizon h: beta, gamma, kappa, a, kappa_d, a_d
C18 = {4: (2.090, 1.5, 0.75, 1.25, 0.5, 1.25), 3: (1.281, 1.5, 1.25, 1.5, 0.0, 1.5),
       2: (1.232, 2.0, 1.25, 2.5, 0.25, 3.0), 1: (0.771, 1.0, 0.75, 0.5, 1.0, 0.0),
       0: (0.0, 1.0, 0.0, 0.0, 0.0, 0.0)}
N0 = 5000.0
recs = [json.loads(l) for l in open("data/deepen.jsonl")]


def answer(rec, c, corrected):
    trees = [t[c] for t in rec["trees"]]
    moves = list(trees[0]["value"])
    h = 4 - c
    beta, gamma, kappa, a, kd, ad = C18[h]
    out, unexpl = {}, {}
    for m in moves:
        s = []
        for t in trees:
            v = t["value"][m]
            if corrected and c > 0:
                r = math.log2(t["n"][m] / t["n_before"][m]) if t["n_before"][m] else 1.0
                d1 = (v - t["start"][m]) / r if r > 0 else 0.0
                v = v + beta * d1
            s.append(v)
        out[int(m)] = Est(s)
        var = st.fmean([t["sq"][m] / t["worlds"] - (t["value"][m]) ** 2 for t in trees])
        n = st.fmean([t["n"][m] for t in trees])
        unexpl[int(m)] = max(var, 0) / N0 * (N0 / max(n, 1)) ** gamma
    if corrected:
        for m in out:
            se = spread(out[m].samples)[1]
            out[m].extra = kappa ** 2 * se ** 2 + a ** 2 * unexpl[m]
            for o in out:
                if o != m:
                    d = [x - y for x, y in zip(out[m].samples, out[o].samples)]
                    out[m].extra_d[o] = kd ** 2 * spread(d)[1] ** 2 + ad ** 2 * (unexpl[m] + unexpl[o])
    return out


keys = [(r["set"], r["id"]) for r in recs]
same0 = sum(all(abs(answer(r, 0, False)[m].value - curve[(r["set"], r["id"])][(100_000, 1)][m][0])
                < 1e-12 for m in answer(r, 0, False)) for r in recs)
print(f"{len(recs)} positions; cycle 0 equals the 100k s1 search in {same0}")
for c in range(1, 5):
    table([((r["set"], r["id"]), answer(r, c, False), raw_from_curve(curve[(r["set"], r["id"])][DIRECT[c]]))
           for r in recs], meta, f"(i) raw answer after cycle {c} ({DIRECT[c][0] // 1000}k) vs a direct "
           f"search of that budget", by=False)
for c in range(0, 5):
    table([((r["set"], r["id"]), answer(r, c, True), raw_from_curve(curve[(r["set"], r["id"])][(1_600_000, 41)]))
           for r in recs], meta, f"(ii) corrected answer after cycle {c} (h {4 - c}) vs 1.6M s41", by=False)
    table([((r["set"], r["id"]), answer(r, c, False), raw_from_curve(curve[(r["set"], r["id"])][(1_600_000, 41)]))
           for r in recs], meta, f"     raw answer after cycle {c} vs 1.6M s41", by=False)
print("\n(iii) CPU seconds (sum over positions): deepening up to cycle c against a direct search")
for c in range(5):
    deep = sum(t[x]["cpu_tree"] + t[x]["cpu_pass"] + t[x]["cpu_trend"]
               for r in recs for t in r["trees"] for x in range(c + 1))
    direct = sum(sum(t[x]["cpu_tree"] for x in range(c + 1)) + t[c]["cpu_pass"]
                 for r in recs for t in r["trees"])
    trend = sum(t[c]["cpu_trend"] for r in recs for t in r["trees"])
    print(f"  cycle {c} ({DIRECT[c][0] // 1000}k): deepening {deep:7.1f} s, direct {direct:7.1f} s "
          f"(+{100 * (deep / direct - 1):.0f}%; of which this cycle's trend pass {trend:.1f} s)")
full = sum(t[c]["full"] for r in recs for t in r["trees"] for c in range(5))
print(f"trees at the memory cap in some cycle: {full}")
