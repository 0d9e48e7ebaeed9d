"""Shared loading and statistics for the settle analyses (read-only on the data files).

Records: data/probe.jsonl (probe.py), ../data/curve.jsonl (the lab's raw searches).
A probe record is turned into arrays: for each move (code, twins folded) and tree u, the
pass value at the checkpoints n/16, n/8, n/4, n/2 and n of that move's own iterations:
V[move][u] = [v16, v8, v4, v2, v1] (worlds W, the same for every checkpoint of a tree).
"""
import json
import math
import os
import statistics as st
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
Z99 = 2.576


def c4(n):
    return math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2)) * math.sqrt(2 / (n - 1))


def spread(xs):
    """(mean, stderr) as the engine's stats.spread (c4-corrected)."""
    n = len(xs)
    m = math.fsum(xs) / n
    if n < 2:
        return m, math.inf
    var = math.fsum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n) / c4(n)


def load_probes(path=None, sets=None):
    """{(set, id): {(N, seed): rec}} with rec['V'] = {move: [[v per checkpoint] per tree]}."""
    path = path or os.path.join(HERE, "data", "probe.jsonl")
    out = defaultdict(dict)
    for line in open(path):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if sets and d["set"] not in sets:
            continue
        V = {}
        for m in d["trees"][0]["n"]:
            rows = []
            for t in d["trees"]:
                w = t["worlds"]
                rows.append([s / w for _, s in t["marks"][m]])
            V[int(m)] = rows
        d["V"] = V
        d["N"] = {int(m): [t["n"][m] for t in d["trees"]] for m in d["trees"][0]["n"]}
        d["W"] = [t["worlds"] for t in d["trees"]]
        out[(d["set"], d["id"])][(d["iterations"], d["seed"])] = d
    return out


def load_curve(path=None):
    """{(set, id): {(N, seed): {move code: (value, stderr, samples)}}} of the distinct
    choices, and the meta; moves by code (the move string parsed)."""
    from bergen_search.formats.notation import Move
    path = path or os.path.join(LAB, "data", "curve.jsonl")
    runs = defaultdict(dict)
    meta = {}
    exact = set()
    for line in open(path):
        d = json.loads(line)
        key = (d["set"], d["id"])
        ch = {Move.parse(m["move"]).code: (m["value"], m["stderr"], tuple(m["samples"]))
              for m in d["moves"] if m["twin"] is None}
        runs[key][(d["iterations"], d["seed"])] = ch
        meta[key] = {k: d[k] for k in ("set", "id", "config", "players", "partnerships",
                                       "stage")}
        if d["info"]["exact"]:
            exact.add(key)
    return runs, meta, exact


def paired_se(a, b):
    d = [x - y for x, y in zip(a, b)]
    return spread(d)[1]


def zstats(zs):
    """(n, share |z| > 2.576, median |z|, mean z)."""
    if not zs:
        return 0, float("nan"), float("nan"), float("nan")
    a = [abs(z) for z in zs]
    return len(zs), sum(x > Z99 for x in a) / len(a), st.median(a), st.fmean(zs)


def fmt(zs, label=""):
    n, out, med, mz = zstats(zs)
    return f"{label:<28} n {n:4d}  |z|>2.576 {100 * out:5.1f}%  med|z| {med:4.2f}  mean z {mz:+.2f}"


def corr(xs, ys):
    mx, my = st.fmean(xs), st.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)


def ols(xs, ys):
    """slope through the origin, and the ordinary slope and intercept."""
    sxy = sum(x * y for x, y in zip(xs, ys))
    sxx = sum(x * x for x in xs)
    mx, my = st.fmean(xs), st.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return sxy / sxx, b, my - b * mx
