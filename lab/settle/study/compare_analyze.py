"""Section 4, the comparison: every decision of the 6 matches as `bergen analyze` judged it at
its default budget (20,000 iterations, seed 0) against the 16x judge (320,000, seed 7), from
data/analyze/<match>_{default,judge}.json (run_analyze.py). Prints the report and writes it
to report_analyze.txt (unless --no-save).

Verdicts: none, ?! (inaccuracy), ? (mistake), ?? (blunder), borderline ([?]: the interval
still straddled a threshold after the rechecks). A decision's "rank" is its label's order
(none 0, ?! 1, ? 2, ?? 3); a borderline decision's rank is that of its loss itself (the label
the JSON carries for it). A verdict change is "more severe" when the judge's severity is higher:
a settled verdict's rank, a borderline's the middle of the ranks at the two ends of its 99%
interval (so [0.10, 0.30] straddling none and ?! is 0.5); the losses' direction is given too.
"""
import argparse
import io
import json
import math
import os
import statistics as st
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
D = os.path.join(HERE, "data", "analyze")
RANK = {None: 0, "inaccuracy": 1, "mistake": 2, "blunder": 3}
SIGN = {None: "none", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def verdict(d):
    return "borderline" if d["borderline"] else SIGN[d["label"]]


THRESH = {"inaccuracy": 0.25, "mistake": 0.6, "blunder": 1.2}   # settings.thresholds


def rank_of(loss):
    r = 0
    for k, name in enumerate(("inaccuracy", "mistake", "blunder")):
        if loss >= THRESH[name]:
            r = k + 1
    return r


def severity(d):
    """A verdict's severity: a settled label's rank, a borderline's the middle of the ranks
    at its interval's two ends."""
    if not d["borderline"]:
        return RANK[d["label"]]
    lo, hi = d["loss_interval"]
    return (rank_of(lo) + rank_of(hi)) / 2


def load(name, kind):
    path = os.path.join(D, f"{name}_{kind}.json")
    if not os.path.exists(path):
        return None
    return json.load(open(path))


def report(out):
    names = sorted({f.rsplit("_", 1)[0] for f in os.listdir(D) if f.endswith("_default.json")})
    rows = []
    timings = {}
    tpath = os.path.join(D, "timings.jsonl")
    if os.path.exists(tpath):
        for line in open(tpath):
            t = json.loads(line)
            if t["exit"] == 0:
                timings[(t["match"], t["kind"])] = t["wall"]
    print("bergen analyze: default budget (20,000 it/decision, seed 0) vs the 16x judge "
          "(--iterations 320000, seed 7)", file=out)
    print("matches: corpus/records/analyze_*.jsonl (make_records.sh); every other option at its "
          "default (recheck 4, max-rechecks 2)\n", file=out)
    print(f"  {'match':8s} {'rules':>10s} {'decisions':>9s} {'default s':>9s} {'judge s':>8s} "
          f"{'changed':>8s} {'in 99%':>7s} {'tot loss d/j':>14s}", file=out)
    for name in names:
        a, b = load(name, "default"), load(name, "judge")
        if a is not None:
            THRESH.update(a["settings"]["thresholds"])
        if a is None or b is None:
            print(f"  {name:8s} (judge not done)", file=out)
            continue
        jb = {(d["round"], d["event"], d["seat"]): d for d in b["decisions"]}
        ch = inn = 0
        for d in a["decisions"]:
            j = jb[(d["round"], d["event"], d["seat"])]
            assert d["played"] == j["played"]
            rows.append((name, d, j))
            ch += verdict(d) != verdict(j)
            lo, hi = d["loss_interval"]
            inn += lo <= j["loss"] <= hi
        tl = sum(max(d["loss"], 0) for d in a["decisions"])
        tj = sum(max(d["loss"], 0) for d in b["decisions"])
        cfg = name.split("_")[1]
        print(f"  {name:8s} {cfg:>10s} {len(a['decisions']):9d} "
              f"{timings.get((name, 'default'), float('nan')):9.1f} "
              f"{timings.get((name, 'judge'), float('nan')):8.1f} {ch:8d} "
              f"{inn:3d}/{len(a['decisions']):<3d} {tl:6.2f}/{tj:<6.2f}", file=out)
    if not rows:
        return
    for label, sel in (("all decisions", lambda d, j: True),
                       ("ISMCTS-sampled (neither exact)", lambda d, j: not d["exact"] and not j["exact"]),
                       ("exact in either run", lambda d, j: d["exact"] or j["exact"])):
        rs = [(n, d, j) for n, d, j in rows if sel(d, j)]
        print(f"\n== {label}: {len(rs)} decisions", file=out)
        if not rs:
            continue
        summary(out, rs)


def summary(out, rs):
    n = len(rs)
    changed = [(d, j) for _, d, j in rs if verdict(d) != verdict(j)]
    up = sum(severity(j) > severity(d) for d, j in changed)
    down = sum(severity(j) < severity(d) for d, j in changed)
    lup = sum(j["loss"] > d["loss"] for d, j in changed)
    ldown = sum(j["loss"] < d["loss"] for d, j in changed)
    print(f"  verdict changed: {len(changed)}/{n} ({100.0 * len(changed) / n:.1f}%): the judge's "
          f"verdict more severe {up}, less severe {down} (a borderline counts as the middle of "
          f"the labels its interval straddles); the judge's loss bigger {lup}, smaller {ldown}",
          file=out)
    lab_changed = [(d, j) for _, d, j in rs
                   if not d["borderline"] and not j["borderline"] and d["label"] != j["label"]]
    print(f"  both settled (no borderline) and labelled differently: {len(lab_changed)}", file=out)
    inn = sum(d["loss_interval"][0] <= j["loss"] <= d["loss_interval"][1] for _, d, j in rs)
    inj = sum(j["loss_interval"][0] <= d["loss"] <= j["loss_interval"][1] for _, d, j in rs)
    print(f"  judge's loss inside the default's 99% loss interval: {inn}/{n} ({100.0 * inn / n:.1f}%)"
          f"; default's loss inside the judge's: {inj}/{n} ({100.0 * inj / n:.1f}%)", file=out)
    nz = [(d, j) for _, d, j in rs if d["loss"] > 0 or j["loss"] > 0]
    print(f"  (decisions where either run charged a loss > 0: {len(nz)}; of those the judge's loss "
          f"inside the default's interval: {sum(d['loss_interval'][0] <= j['loss'] <= d['loss_interval'][1] for d, j in nz)})",
          file=out)
    diff = [j["loss"] - d["loss"] for _, d, j in rs]
    z = [(d["loss"] - j["loss"]) / math.hypot(d["loss_stderr"], j["loss_stderr"])
         for _, d, j in rs if math.hypot(d["loss_stderr"] or 0, j["loss_stderr"] or 0) > 0]
    print(f"  loss judge - default: mean {st.fmean(diff):+.3f}, median {st.median(diff):+.3f}, "
          f"mean |.| {st.fmean(abs(x) for x in diff):.3f}; z = (L_d - L_j)/sqrt(se_d^2+se_j^2): "
          f"|z|>2.576 {sum(abs(x) > 2.576 for x in z)}/{len(z)}, median |z| "
          f"{st.median(abs(x) for x in z):.2f}", file=out)
    zn = [(d["loss"] - j["loss"]) / math.hypot(d["loss_stderr"], j["loss_stderr"])
          for d, j in nz if math.hypot(d["loss_stderr"] or 0, j["loss_stderr"] or 0) > 0]
    if zn:
        dn = [j["loss"] - d["loss"] for d, j in nz]
        print(f"  the same over the {len(nz)} with a loss > 0 in either run: loss judge - default mean "
              f"{st.fmean(dn):+.3f}, mean |.| {st.fmean(abs(x) for x in dn):.3f}; |z|>2.576 "
              f"{sum(abs(x) > 2.576 for x in zn)}/{len(zn)}, median |z| {st.median(abs(x) for x in zn):.2f}",
              file=out)
    same_best = sum(d["best"] == j["best"] or d["values"].get(j["best"]) == d["values"].get(d["best"])
                    for _, d, j in rs)
    print(f"  same best move (or its twin): {same_best}/{n}", file=out)
    order = ["none", "?!", "?", "??", "borderline"]
    m = Counter((verdict(d), verdict(j)) for _, d, j in rs)
    print("  verdicts, default (rows) x judge (columns):", file=out)
    print("    " + f"{'':11s}" + "".join(f"{c:>11s}" for c in order) + f"{'total':>8s}", file=out)
    for r in order:
        tot = sum(m[(r, c)] for c in order)
        print("    " + f"{r:11s}" + "".join(f"{m[(r, c)]:11d}" for c in order) + f"{tot:8d}",
              file=out)
    print("    " + f"{'total':11s}" + "".join(f"{sum(m[(r, c)] for r in order):11d}" for c in order),
          file=out)
    if changed:
        print("  the decisions whose verdict changed (match round event seat played: default "
              "verdict loss [99%] -> judge verdict loss [99%]):", file=out)
        for name, d, j in rs:
            if verdict(d) != verdict(j):
                print(f"    {name} r{d['round']} e{d['event']} s{d['seat']} {d['played']}: "
                      f"{verdict(d)} {d['loss']:.3f} [{d['loss_interval'][0]:.3f}, "
                      f"{d['loss_interval'][1]:.3f}] -> {verdict(j)} {j['loss']:.3f} "
                      f"[{j['loss_interval'][0]:.3f}, {j['loss_interval'][1]:.3f}]"
                      f"{' exact(default)' if d['exact'] else ''}{' exact(judge)' if j['exact'] else ''}",
                      file=out)
    outside = [(name, d, j) for name, d, j in rs
               if not d["loss_interval"][0] <= j["loss"] <= d["loss_interval"][1]]
    if outside:
        print("  the judge's loss outside the default's 99% interval (default verdict loss [99%] "
              "-> judge):", file=out)
        for name, d, j in outside:
            print(f"    {name} r{d['round']} e{d['event']} s{d['seat']} {d['played']}: "
                  f"{verdict(d)} {d['loss']:.3f} [{d['loss_interval'][0]:.3f}, "
                  f"{d['loss_interval'][1]:.3f}] -> {verdict(j)} {j['loss']:.3f} "
                  f"[{j['loss_interval'][0]:.3f}, {j['loss_interval'][1]:.3f}]"
                  f"{' exact(default)' if d['exact'] else ''}{' exact(judge)' if j['exact'] else ''}",
                  file=out)
    rech = Counter(d["rechecks"] for _, d, j in rs)
    rechj = Counter(j["rechecks"] for _, d, j in rs)
    print(f"  rechecks per decision, default: {dict(sorted(rech.items()))}; judge: "
          f"{dict(sorted(rechj.items()))}", file=out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "report_analyze.txt"))
    ap.add_argument("--no-save", action="store_true")
    a = ap.parse_args()
    buf = io.StringIO()
    report(buf)
    sys.stdout.write(buf.getvalue())
    if not a.no_save:
        open(a.out, "w").write(buf.getvalue())


if __name__ == "__main__":
    main()
