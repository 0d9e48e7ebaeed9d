"""Part 2, study 1 (dev): is the tree grown in cycles the search of the budget spent so far?
z tables (the lab's measures, evalkit.table) of the cycle engine's raw answers against
today's direct searches of the same size and another seed, beside today's seed to seed:
  (a) the 3 cycles at 100k (s1-3) vs today's 100k (s2, s3, s1); today s1-3 vs s2, s3, s1;
  (b) after cycle 2 (two halvings of a quarter: 8 x 6.25k, read on the W_B pass) vs today's
      direct 50k (s51; data/big.jsonl), beside today's 50k s52 vs s51;
  (c) the product's 3 cycles at 1.6M (s41: 8 x (50k, 50k, 100k)) vs today's 1.6M s42 and
      s41, beside today's s41 vs s42;
  (d) deepening (100k s1 deepened, cycles of B, 2B, 4B, 8B): after each, the raw answer vs
      today's direct search of that total (200k s21, 400k s21, 800k s31, 1.6M s41 and s42).

    python lab/settle/cyc_study1.py
"""
from cyc_common import judges, load_cyc
from cyc_est import raw
from evalkit import table

cyc = load_cyc(sets={"dev"})
J, meta, exact = judges()
keys = sorted(k for k in cyc if k not in exact)
print(f"dev: {len(keys)} positions with cycle probes")


def rows(base_fn, judge_key):
    out = []
    for k in keys:
        b = base_fn(k)
        if b is not None and judge_key in J[k]:
            out.append((k, b, J[k][judge_key]))
    return out


def get(k, budget, seed, deepen=None):
    recs = cyc[k]
    for (b, s, d), r in recs.items():
        if b == budget and s == seed and (deepen is None or d == deepen):
            return r
    return None


print("\n(a) 100k")
pairs = []
for s, o in ((1, 2), (2, 3), (3, 1)):
    pairs += rows(lambda k: (lambda r: raw(r, 2) if r else None)(get(k, 100_000, s)),
                  (100_000, o))
table(pairs, meta, "cycles 100k s1-3 vs today's 100k s2,s3,s1", by=False)
pairs = []
for s, o in ((1, 2), (2, 3), (3, 1)):
    pairs += [(k, J[k][(100_000, s)], J[k][(100_000, o)]) for k in keys]
table(pairs, meta, "today's 100k s1-3 vs s2,s3,s1 (seed to seed)", by=False)
pairs = []
for s in (1, 2, 3):
    pairs += rows(lambda k: (lambda r: raw(r, 2) if r else None)(get(k, 100_000, s)),
                  (100_000, s))
table(pairs, meta, "cycles 100k s vs today's 100k s (same seeds: other trees)", by=False)

print("\n(b) after cycle 2 (50k) vs direct 50k")
pairs = []
for s in (1, 2, 3):
    pairs += rows(lambda k: (lambda r: raw(r, 1) if r else None)(get(k, 100_000, s)),
                  (50_000, 51))
table(pairs, meta, "cycles after cycle 2 (s1-3) vs today's 50k s51", by=False)
pairs = [(k, J[k][(50_000, 52)], J[k][(50_000, 51)]) for k in keys if (50_000, 52) in J[k]]
table(pairs, meta, "today's 50k s52 vs s51 (seed to seed)", by=False)
pairs = []
for s in (1, 2, 3):
    pairs += rows(lambda k: (lambda r: raw(r, 0) if r else None)(get(k, 100_000, s)),
                  (100_000, 1))
table(pairs, meta, "(after cycle 1: 25k, vs today's 100k s1: the drift, for scale)", by=False)

print("\n(c) 1.6M")
for j in (42, 41):
    table(rows(lambda k: (lambda r: raw(r, 2) if r else None)(get(k, 1_600_000, 41)),
               (1_600_000, j)), meta, f"cycles 1.6M s41 vs today's 1.6M s{j}", by=(j == 42))
table([(k, J[k][(1_600_000, 41)], J[k][(1_600_000, 42)]) for k in keys], meta,
      "today's 1.6M s41 vs s42 (seed to seed)", by=False)

print("\n(d) deepening (100k s1 deepened)")
for c, direct in ((3, (200_000, 21)), (4, (400_000, 21)), (5, (800_000, 31)),
                  (6, (1_600_000, 41)), (6, (1_600_000, 42))):
    table(rows(lambda k: (lambda r: raw(r, c) if r else None)(get(k, 100_000, 1, 4)), direct),
          meta, f"deepened, after cycle {c + 1} vs today's {direct[0] // 1000}k s{direct[1]}",
          by=False)
table(rows(lambda k: (lambda r: raw(r, 6) if r else None)(get(k, 100_000, 1, 4)),
           (1_600_000, 41)) and [(k, raw(get(k, 100_000, 1, 4), 6), raw(get(k, 1_600_000, 41), 2))
                                 for k in keys if get(k, 100_000, 1, 4) and get(k, 1_600_000, 41)],
      meta, "deepened to 1.6M (7 cycles) vs the product's 3 cycles at 1.6M", by=False)
