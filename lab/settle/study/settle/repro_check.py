"""After the branch's rebase on main: the probes reproduce the stored data bit for bit (a
few positions of each set at 100k s1, and one at 1.6M s41), and probe.py's check.

    python repro_check.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe  # noqa: E402

stored = {}
for line in open(os.path.join(probe.HERE, "data", "probe.jsonl")):
    d = json.loads(line)
    stored[(d["set"], d["id"], d["iterations"], d["seed"])] = d
probe.check()
n = 0
for name in ("dev", "test", "val"):
    ps = [p for p in probe.corpus(name) if (name, p["id"], 100_000, 1) in stored][::10]
    for p in ps:
        rec = probe.probe_search(p, 100_000, 1)
        old = stored[(name, p["id"], 100_000, 1)]
        assert rec["trees"] == old["trees"], p["id"]
        n += 1
p = [p for p in probe.corpus("dev") if p["id"] == "dev-p3-middle-1"][0]
assert probe.probe_search(p, 1_600_000, 41)["trees"] == stored[("dev", p["id"], 1_600_000, 41)]["trees"]
print(f"the same checkpoints, bit for bit: {n} probes at 100k and one at 1.6M")
