"""Part 2's loading (read-only): the cycle probes (cyc_probe.py) and the judges.

A cycle record (one search: set, id, budget, seed, deepen) becomes, per move m (code) and
tree u, its cycles: n[c] own iterations after cycle c, and the pass sums at the prefixes
(W_T or None, W_B, p2, p4) divided by their worlds: `val(rec, m, u, c, which)` with which in
"T" (the pass of a search of T: W_T, or below B the W_B pass), "B", "p2", "p4".

Judges: `judges()` = {(set, id): {(N, seed): {move: Est}}} from the lab's curve.jsonl (dev,
test: 100k s1-3, 200k s21, 400k s21, 800k s31, 1.6M s41 s42) and data/big.jsonl (val, fresh,
dev 320k/6.4M/50k, test 320k); exact positions apart (`exact`), and the positions' meta.
"""
import json
import math
import os
from collections import defaultdict

from evalkit import Est

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
WHICH = {"T": 0, "B": 1, "p2": 2, "p4": 3}


def load_cyc(path=None, sets=None):
    """{(set, id): {(budget, seed, deepen): rec}}."""
    path = path or os.path.join(HERE, "data", "cyc.jsonl")
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
        d["moves"] = [int(m) for m in d["trees"][0]["cycles"][0]["n"]]
        out[(d["set"], d["id"])][(d["iterations"], d["seed"], d["deepen"])] = d
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


def judges():
    from bergen_search.formats.notation import Move
    runs = defaultdict(dict)
    meta, exact = {}, set()
    for line in open(os.path.join(LAB, "data", "curve.jsonl")):
        d = json.loads(line)
        key = (d["set"], d["id"])
        runs[key][(d["iterations"], d["seed"])] = {
            Move.parse(m["move"]).code: Est(list(m["samples"])) for m in d["moves"]
            if m["twin"] is None}
        meta[key] = {"config": d["config"], "stage": d["stage"]}
        if d["info"]["exact"]:
            exact.add(key)
    for line in open(os.path.join(HERE, "data", "big.jsonl")):
        d = json.loads(line)
        key = (d["set"], d["id"])
        meta.setdefault(key, {"config": d["config"], "stage": d["stage"]})
        if d.get("exact"):
            exact.add(key)
            continue
        runs[key][(d["iterations"], d["seed"])] = {m["code"]: Est(list(m["samples"]))
                                                  for m in d["moves"] if m["twin"] is None}
    return runs, meta, exact
