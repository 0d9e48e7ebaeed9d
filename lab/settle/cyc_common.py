"""The settle analyses' loading (read-only): the cycle probes (cyc_probe.py) and the judges.

A cycle record (one search: set, id, budget, seed, deepen) becomes, per move m (code) and
tree u, its cycles: n[c] own iterations after cycle c, and the pass sums at the prefixes
(W_T or None, W_B, p2, p4) divided by their worlds: `val(rec, m, u, c, which)` with which in
"T" (the pass of a search of T: W_T, or below B the W_B pass), "B", "p2", "p4".

Judges: `judges()` = {(set, id): {(N, seed): {move: Est}}} from data/judges.jsonl (judges.py:
today's search, `settle=off`: 1.6M and 320k s41, s42 of every set, 100k s1-3 of dev and
test, 50k s51, s52, 200k s21, 400k s21, 800k s31 of dev); exact positions apart (`exact`),
and the positions' meta.
"""
import json
import math
import os
from collections import defaultdict

from evalkit import Est

HERE = os.path.dirname(os.path.abspath(__file__))
#: Where the data are (data.sh makes them there); SETTLE_DATA names another folder (the tests'
#: fixture).
DATA = os.environ.get("SETTLE_DATA") or os.path.join(HERE, "data")
WHICH = {"T": 0, "B": 1, "p2": 2, "p4": 3}


def load_cyc(path=None, sets=None):
    """{(set, id): {(budget, seed, deepen): rec}}."""
    path = path or os.path.join(DATA, "cyc.jsonl")
    out = defaultdict(dict)
    if not os.path.exists(path):
        return out
    for line in open(path):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if sets and d["set"] not in sets:
            continue
        out[(d["set"], d["id"])][(d["iterations"], d["seed"], d["deepen"])] = as_record(d)
    return out


def worlds_of(t, c, which):
    cyc = t["cycles"][c]
    if which == "T":
        return cyc["W"] or t["WB"]
    return {"B": t["WB"], "p2": t["p2"], "p4": t["p4"]}[which]


def val(t, m, c, which):
    """Tree t's value of move m after cycle c on the worlds `which`."""
    cyc = t["cycles"][c]
    s = cyc["s"][str(m)]
    x = s[WHICH[which]] if which != "T" else (s[0] if s[0] is not None else s[1])
    return x / worlds_of(t, c, which)


def own(t, m, c):
    return t["cycles"][c]["n"][str(m)]


def sigma_w(t, m, c):
    """The move's per-world outcome sd in the pass after cycle c (W_T, or W_B below B)."""
    cyc = t["cycles"][c]
    W = worlds_of(t, c, "T")
    s = cyc["s"][str(m)]
    x = s[0] if s[0] is not None else s[1]
    return math.sqrt(max(cyc["sq"][str(m)] / W - (x / W) ** 2, 0.0))


def raw(rec, c):
    """The raw answer after cycle c: {move: Est(per-tree values on the pass of T)}."""
    return {m: Est([val(t, m, c, "T") for t in rec["trees"]]) for m in rec["moves"]}


def as_record(d):
    """A probe line (cyc_probe.py) as load_cyc gives it: its moves (codes) named."""
    d["moves"] = [int(m) for m in d["trees"][0]["cycles"][0]["n"]]
    return d


def judges(path=None):
    runs = defaultdict(dict)
    meta, exact = {}, set()
    for line in open(path or os.path.join(DATA, "judges.jsonl")):
        try:
            d = json.loads(line)
        except ValueError:
            continue            # a line cut by a kill
        key = (d["set"], d["id"])
        meta.setdefault(key, {"config": d["config"], "stage": d["stage"]})
        if d.get("exact"):
            exact.add(key)
            continue
        runs[key][(d["iterations"], d["seed"])] = {m["code"]: Est(list(m["samples"]))
                                                  for m in d["moves"] if m["twin"] is None}
    return runs, meta, exact
