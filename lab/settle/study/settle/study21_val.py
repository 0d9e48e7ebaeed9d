"""Study 21 on val (held out): analyze's budget (20k a decision, 8 trees of 2.5k) with the
constants study21 fitted on dev, frozen here before val's runs were read: betas 0.90, 0.80;
gamma 1.5; kappa 1.0, a 0.5; kappa_d 1.0, a_d 0.5. Against today's 320k (s41, s42), and
the labels as study21 counts them.

    python study21_val.py
"""
import json
from collections import Counter

from common import load_probes
from estimators import corrected
from evalkit import Est, best_of, pair, table

BETAS, GAMMA, KV, AV, KD, AD = [0.90, 0.80], 1.5, 1.0, 0.5, 1.0, 0.5
probes = load_probes(sets={"val"})
corpus = {("val", json.loads(l)["id"]): json.loads(l) for l in open("corpus/val.jsonl")}
meta = {k: {"config": v["config"], "stage": v["stage"]} for k, v in corpus.items()}
big, exact = {}, set()
for line in open("data/big.jsonl"):
    d = json.loads(line)
    if d["set"] != "val":
        continue
    if d.get("exact"):
        exact.add(("val", d["id"]))
    big[(("val", d["id"]), d["iterations"], d["seed"])] = {
        m["code"]: Est(list(m["samples"])) for m in d["moves"] if m["twin"] is None}
BASES = [(20_000, 1), (20_000, 2), (20_000, 3)]
keys = sorted(k for k in probes if k not in exact and (k, 320_000, 41) in big
              and all(b in probes[k] for b in BASES))
est = lambda r: corrected(r, BETAS, KV, KD, AV, AD, gamma=GAMMA)
print(f"val at 20k: {len(keys)} positions")
table([(k, est(probes[k][b]), big[(k, 320_000, 41)]) for k in keys for b in BASES], meta,
      "method at 20k vs 320k s41")
table([(k, est(probes[k][b]), big[(k, 320_000, 42)]) for k in keys for b in BASES], meta,
      "method at 20k vs 320k s42", by=False)
table([(k, corrected(probes[k][b], []), big[(k, 320_000, 41)]) for k in keys for b in BASES],
      meta, "today's 20k vs 320k s41", by=False)
TH = (0.25, 0.6, 1.2)
band = lambda x: sum(x >= t for t in TH)
for name, E_fn, q in (("today (t7: 3.50 paired se)", lambda r: corrected(r, []), 3.4995),
                      ("method (2.576)", est, 2.576)):
    c = Counter()
    for k in keys:
        for b in BASES:
            E = E_fn(probes[k][b])
            bm = best_of(E)
            for seed in (41, 42):
                J = big[(k, 320_000, seed)]
                jb = best_of(J)
                for m in E:
                    if m == bm:
                        continue
                    d, s = pair(E, bm, m)
                    lo, hi = max(d - q * s, 0.0), max(d + q * s, 0.0)
                    c["moves"] += 1
                    if band(lo) != band(hi):
                        continue
                    c["labelled"] += 1
                    c["held"] += band(J[jb].value - J[m].value) == band(lo)
    print(f"  labels, {name}: {c['labelled']}/{c['moves']} labelled; the judge's point loss in "
          f"the same band {c['held']}/{c['labelled']} ({100 * c['held'] / max(c['labelled'], 1):.1f}%)")
