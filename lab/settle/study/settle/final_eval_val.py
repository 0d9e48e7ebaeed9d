"""The one held-out measurement on val (make_val.sh): v1 (method.py, frozen on dev) and v2,
v2b (primary), v2t (method_v2.py, frozen on dev + test), 100k seeds 1-3 against today's 1.6M
seeds 41 and 42 (data/big.jsonl); the seed calibration and the error's width; the verdicts.

    python final_eval_val.py
"""
import json
import math
import statistics as st
from collections import Counter, defaultdict

from common import load_probes, spread
from estimators import corrected
from evalkit import Est, best_of, pair, table
import method
import method_v2

probes = load_probes(sets={"val"})
corpus = {("val", json.loads(l)["id"]): json.loads(l) for l in open("corpus/val.jsonl")}
meta = {k: {"config": v["config"], "stage": v["stage"]} for k, v in corpus.items()}
big = {}
exact = set()
for line in open("data/big.jsonl"):
    d = json.loads(line)
    if d["set"] != "val":
        continue
    key = ("val", d["id"])
    if d.get("exact"):
        exact.add(key)
    big[(key, d["iterations"], d["seed"])] = {m["code"]: Est(list(m["samples"]))
                                              for m in d["moves"] if m["twin"] is None}
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
keys = sorted(k for k in probes if k not in exact and (k, 1_600_000, 41) in big)
print(f"val: {len(keys)} ISMCTS-sampled positions ({len(exact)} exact apart)")
METHODS = {"v1": lambda r, c: method.estimate(r), "v2": method_v2.v2, "v2b (primary)": method_v2.v2b,
           "v2t": method_v2.v2t, "today": lambda r, c: corrected(r, [])}
for name, f in METHODS.items():
    for seed in (41, 42):
        pairs = [(k, f(probes[k][b], meta[k]["config"]), big[(k, 1_600_000, seed)])
                 for k in keys for b in BASES if b in probes[k]]
        table(pairs, meta, f"{name}: 100k s1-3 vs 1.6M s{seed}",
              by=(seed == 41 and name in ("v1", "v2b (primary)", "today")))
    r1, r2, w = [], [], []
    for k in keys:
        ests = [f(probes[k][b], meta[k]["config"]) for b in BASES]
        for m in ests[0]:
            vals = [e[m].value for e in ests]
            se_c = math.sqrt(st.fmean([spread(e[m].samples)[1] ** 2 for e in ests]))
            se_t = math.sqrt(st.fmean([e[m].se ** 2 for e in ests]))
            if se_c > 0:
                r1.append((st.stdev(vals) / se_c) ** 2)
                r2.append((st.stdev(vals) / se_t) ** 2)
            w += [e[m].se for e in ests]
    print(f"  seed calibration: sd over seeds / trees' spread {math.sqrt(st.fmean(r1)):.2f}, "
          f"/ printed error {math.sqrt(st.fmean(r2)):.2f}; printed error median {st.median(w):.4f}")

# verdicts (v1's rule on each method's values)
for name, f in METHODS.items():
    if name == "today":
        continue
    c = Counter()
    for k in keys:
        for b in BASES:
            E = f(probes[k][b], meta[k]["config"])
            bm = best_of(E)
            ok = all(pair(E, bm, m)[0] - 2.576 * pair(E, bm, m)[1] > 0 for m in E if m != bm)
            for seed in (41, 42):
                jb = best_of(big[(k, 1_600_000, seed)])
                c[(ok, "n")] += 1
                c[(ok, "rerank")] += jb != bm
    print(f"  verdicts {name}: settled {c[(True, 'n')]} (the judge's best differs in "
          f"{c[(True, 'rerank')]}), not settled {c[(False, 'n')]} (differs in {c[(False, 'rerank')]})")
