"""Section 3: how far the engine's printed values move when the search gets 16 times the
default budget. Reads data/curve.jsonl (run_curve.py) and prints a compact report, also
written to report_baseline.txt (unless --no-save).

    python zscores.py [--data data/curve.jsonl] [--out report_baseline.txt] [--no-save]

Conventions
- Moves are the distinct choices: a mirror twin (`twin` set) is the same choice as the move
  it mirrors, with the same value, and is dropped.
- "100k" is each of the three default searches (seeds 1, 2, 3), each compared with the
  judge: 1.6M seed 41. So a move gives three comparisons (figures "over 100k seeds 1-3";
  the seed-1-only figures are printed beside them).
- z = (v_100k - v_1.6M) / sqrt(se_100k^2 + se_1.6M^2). Under an honest +-, N(0, 1):
  share |z| > 2.576 = 1%, median |z| = 0.674, mean z = 0.
- "out99": the issue's own measure, |v_100k - v_1.6M| > 2.576 se_100k (the 1.6M value
  outside the default's own 99% interval).
- "1sign": positions (x 100k seed) whose moves all moved the same way, sign(v_1.6M - v_100k)
  equal for every choice; "null" is what independent signs would give, mean of 2^(1-k).
- vs best: d = v_m - v_best, best = the 100k search's best by value, for every other choice,
  with the paired stderr (tree-by-tree differences of the samples); the same pair at 1.6M.
  out99 = |d_100k - d_1.6M| > 2.576 pse_100k; z = (d_100k - d_1.6M)/sqrt(pse100^2 + pse1.6^2).
- A position is "exact" when the exact endgame valued it (info.exact) in any of its runs;
  such positions are listed apart and kept out of every statistic but their own list.
"""
import argparse
import io
import json
import math
import os
import statistics as st
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
Z99 = 2.576
BASE = [(100_000, 1), (100_000, 2), (100_000, 3)]
J1, J2 = (1_600_000, 41), (1_600_000, 42)
CURVE = [(200_000, 21), (400_000, 21), (800_000, 31), J1]
CONFIGS = ["p2", "p3", "p4", "p4p"]
STAGES = ["early", "middle", "late"]


def load(path):
    runs = defaultdict(dict)      # (set, id) -> {(N, seed): row}
    meta = {}
    for line in open(path):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        key = (d["set"], d["id"])
        runs[key][(d["iterations"], d["seed"])] = d
        meta[key] = {k: d[k] for k in ("set", "id", "config", "players", "partnerships",
                                       "stage")}
    return runs, meta


def choices(row):
    """{move: (value, stderr, samples)} of the distinct choices."""
    return {m["move"]: (m["value"], m["stderr"], tuple(m["samples"]))
            for m in row["moves"] if m["twin"] is None}


def paired_se(a, b):
    """Standard error of the mean of the tree-by-tree differences of two sample lists."""
    d = [x - y for x, y in zip(a, b)]
    if len(d) < 2:
        return float("nan")
    return st.stdev(d) / math.sqrt(len(d))


def best_of(ch):
    return max(ch, key=lambda m: (ch[m][0], m))


def is_exact(r):
    return any(row["info"]["exact"] for row in r.values())


def fmt_share(k, n):
    return f"{100.0 * k / n:5.1f}% ({k}/{n})" if n else "   -  "


def med(xs):
    return st.median(xs) if xs else float("nan")


def mean(xs):
    return st.fmean(xs) if xs else float("nan")


def corr(xs, ys):
    if len(xs) < 3:
        return float("nan")
    mx, my = st.fmean(xs), st.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


class Stats:
    """The comparisons of section 3 over a group of positions."""

    def __init__(self, runs, keys, bases=BASE, judge=J1):
        self.n_pos = 0
        self.z, self.out99, self.z_s1, self.out99_s1 = [], [], [], []
        self.onesign, self.onesign_null = [], []
        self.dz, self.dout99 = [], []
        self.best_sep = self.best_same = 0
        self.best_sep_s1 = self.best_same_s1 = 0
        self.seed_z = []                     # 100k seed i vs seed j (i < j)
        self.ratio = []                      # |v100k - v1.6M| / se100k
        self.shift, self.resid, self.delta = [], [], []   # common shift per position x seed
        for key in keys:
            r = runs[key]
            if judge not in r or not any(b in r for b in bases):
                continue
            self.n_pos += 1
            J = choices(r[judge])
            for b in bases:
                if b not in r:
                    continue
                C = choices(r[b])
                moves = [m for m in C if m in J]
                signs = []
                for m in moves:
                    v, se, _ = C[m]
                    vj, sej, _ = J[m]
                    z = (v - vj) / math.hypot(se, sej) if math.hypot(se, sej) > 0 else 0.0
                    o = abs(v - vj) > Z99 * se
                    self.z.append(z)
                    self.out99.append(o)
                    if b[1] == 1:
                        self.z_s1.append(z)
                        self.out99_s1.append(o)
                    signs.append(vj - v > 0)
                    if se > 0:
                        self.ratio.append(abs(v - vj) / se)
                ds = [J[m][0] - C[m][0] for m in moves]
                if ds:
                    mu = st.fmean(ds)
                    self.shift += [mu] * len(ds)
                    self.resid += [x - mu for x in ds]
                    self.delta += ds
                if len(signs) >= 2:
                    self.onesign.append(all(signs) or not any(signs))
                    self.onesign_null.append(2.0 ** (1 - len(signs)))
                bm = best_of(C)
                for m in moves:
                    if m == bm:
                        continue
                    d = C[m][0] - C[bm][0]
                    pse = paired_se(C[m][2], C[bm][2])
                    dj = J[m][0] - J[bm][0]
                    psej = paired_se(J[m][2], J[bm][2])
                    self.dout99.append(abs(d - dj) > Z99 * pse)
                    self.dz.append((d - dj) / math.hypot(pse, psej) if math.hypot(pse, psej) > 0 else 0.0)
                # best move, where the judge separates its first two
                order = sorted(J, key=lambda m: (-J[m][0], m))
                if len(order) >= 2:
                    a, c = order[0], order[1]
                    if J[a][0] - J[c][0] > Z99 * paired_se(J[a][2], J[c][2]):
                        self.best_sep += 1
                        self.best_same += bm == a
                        if b[1] == 1:
                            self.best_sep_s1 += 1
                            self.best_same_s1 += bm == a
            for i in range(len(bases)):
                for j in range(i + 1, len(bases)):
                    if bases[i] in r and bases[j] in r:
                        A, B = choices(r[bases[i]]), choices(r[bases[j]])
                        for m in A:
                            if m in B:
                                s = math.hypot(A[m][1], B[m][1])
                                if s > 0:
                                    self.seed_z.append((A[m][0] - B[m][0]) / s)


def z_line(zs):
    if not zs:
        return "   -"
    k = sum(abs(z) > Z99 for z in zs)
    return (f"|z|>2.576 {fmt_share(k, len(zs))}  median|z| {med([abs(z) for z in zs]):.2f}  "
            f"mean z {mean(zs):+.2f}")


def table(out, title, runs, groups):
    """groups: [(label, keys)]."""
    print(f"\n{title}", file=out)
    hdr = (f"  {'group':14s} {'pos':>3s} {'z-n':>4s} {'out99':>16s} {'|z|>2.576':>16s} "
           f"{'med|z|':>6s} {'mean z':>6s} {'1sign':>7s} {'null':>5s} "
           f"{'vsbest out99':>17s} {'vsb|z|>2.58':>16s} {'vsb med|z|':>10s} {'best kept':>11s}")
    print(hdr, file=out)
    for label, keys in groups:
        s = Stats(runs, keys)
        if not s.n_pos:
            print(f"  {label:14s}   0", file=out)
            continue
        n = len(s.z)
        print(f"  {label:14s} {s.n_pos:3d} {n:4d} "
              f"{fmt_share(sum(s.out99), n):>16s} "
              f"{fmt_share(sum(abs(z) > Z99 for z in s.z), n):>16s} "
              f"{med([abs(z) for z in s.z]):6.2f} {mean(s.z):+6.2f} "
              f"{100.0 * mean(s.onesign):6.1f}% {100.0 * mean(s.onesign_null):4.0f}% "
              f"{fmt_share(sum(s.dout99), len(s.dout99)):>17s} "
              f"{fmt_share(sum(abs(z) > Z99 for z in s.dz), len(s.dz)):>16s} "
              f"{med([abs(z) for z in s.dz]):10.2f} "
              f"{s.best_same:>4d}/{s.best_sep:<4d}", file=out)


def report(path, out):
    runs, meta = load(path)
    keys_all = sorted(runs)
    exact = [k for k in keys_all if is_exact(runs[k])]
    sampled = [k for k in keys_all if k not in exact]
    sets = sorted({k[0] for k in keys_all}, key=lambda s: ("dev", "test").index(s))

    print("bergen_search lab50: the default budget (100k) against the 16x judge (1.6M)", file=out)
    print(f"data: {os.path.relpath(path, HERE)}; {sum(len(r) for r in runs.values())} searches "
          f"of {len(keys_all)} positions", file=out)
    have = defaultdict(int)
    for r in runs.values():
        for nk in r:
            have[nk] += 1
    print("searches per (iterations, seed): " + ", ".join(
        f"{n // 1000}k s{s}: {have[(n, s)]}" for n, s in sorted(have)), file=out)
    print(f"ISMCTS-sampled positions: {len(sampled)}; exact (endgame-solved in some run), "
          f"listed apart: {len(exact)}", file=out)
    print("figures over the three 100k seeds, each against 1.6M seed 41 (seed 1 alone below)",
          file=out)

    groups = []
    for s in sets:
        for c in CONFIGS:
            groups.append((f"{s} {c}", [k for k in sampled if k[0] == s and meta[k]["config"] == c]))
        groups.append((f"{s} all", [k for k in sampled if k[0] == s]))
    groups.append(("ALL", sampled))
    table(out, "== 100k vs 1.6M s41, per set and player count (ISMCTS-sampled positions)",
          runs, groups)
    table(out, "== the same, per stage (both sets)", runs,
          [(f"{st_}", [k for k in sampled if meta[k]["stage"] == st_]) for st_ in STAGES]
          + [(f"{s} {st_}", [k for k in sampled if k[0] == s and meta[k]["stage"] == st_])
             for s in sets for st_ in STAGES])
    print("  columns: pos = positions; z-n = (move, 100k seed) comparisons; out99 = "
          "|v100k-v1.6M| > 2.576 se100k;\n  1sign = positions x seeds whose choices all "
          "moved the same way (null: independent signs); vsbest = d = v_m - v_best (100k "
          "best)\n  vs the same at 1.6M, out99 against 2.576 paired se at 100k; best kept = "
          "100k best is the 1.6M best / positions x seeds\n  where 1.6M separates its first "
          "two (difference > 2.576 paired se)", file=out)

    for s in sets + ["ALL"]:
        keys = sampled if s == "ALL" else [k for k in sampled if k[0] == s]
        a = Stats(runs, keys)
        b = Stats(runs, keys, bases=[(100_000, 1)])
        print(f"\n== {s}: summary", file=out)
        print(f"  100k (seeds 1-3) vs 1.6M s41: {z_line(a.z)}", file=out)
        print(f"     out99 (issue's measure) {fmt_share(sum(a.out99), len(a.out99))}; "
              f"one sign per position {100.0 * mean(a.onesign):.1f}% (null {100.0 * mean(a.onesign_null):.0f}%)",
              file=out)
        rms = lambda xs: math.sqrt(st.fmean([x * x for x in xs])) if xs else float("nan")
        print(f"     median |v100k - v1.6M| / se100k {med(a.ratio):.2f}; rms of v1.6M - v100k "
              f"{rms(a.delta):.3f} = the position's common shift (rms {rms(a.shift):.3f}) + "
              f"each move's own (rms {rms(a.resid):.3f})", file=out)
        print(f"     vs best: out99 {fmt_share(sum(a.dout99), len(a.dout99))}; "
              f"{z_line(a.dz)}", file=out)
        print(f"     best kept {a.best_same}/{a.best_sep} (100k seeds x positions where 1.6M separates)",
              file=out)
        print(f"  seed 1 only: {z_line(b.z)}; out99 {fmt_share(sum(b.out99), len(b.out99))}; "
              f"vs best out99 {fmt_share(sum(b.dout99), len(b.dout99))}; best kept "
              f"{b.best_same}/{b.best_sep}", file=out)
        print(f"  100k seed vs 100k seed (same budget, pairs 1-2, 1-3, 2-3): {z_line(a.seed_z)}",
              file=out)
        jn = Stats(runs, keys, bases=[J2], judge=J1)
        if jn.n_pos:
            print(f"  judge noise, 1.6M s42 vs s41 ({jn.n_pos} positions): {z_line(jn.z)}",
                  file=out)
            print(f"     out99 {fmt_share(sum(jn.out99), len(jn.out99))}; vs best: "
                  f"{z_line(jn.dz)}", file=out)
        else:
            print("  judge noise, 1.6M s42 vs s41: no data yet", file=out)

    curve_section(out, runs, meta, sampled)
    tree_section(out, runs, sampled)
    exact_section(out, runs, meta, exact)
    runtime_section(out, runs)


def curve_section(out, runs, meta, keys):
    print("\n== the curve: each budget against the judge (1.6M s41), as z (ISMCTS-sampled)",
          file=out)
    for b in [(100_000, 1), (200_000, 21), (400_000, 21), (800_000, 31), J2]:
        s = Stats(runs, keys, bases=[b], judge=J1)
        if s.n_pos:
            print(f"  {b[0] // 1000:>5d}k s{b[1]:<2d} vs 1.6M s41: {z_line(s.z)}; out99 "
                  f"{fmt_share(sum(s.out99), len(s.out99))}; vs best out99 "
                  f"{fmt_share(sum(s.dout99), len(s.dout99))}", file=out)
    print("\n== the curve: v(N) - v(100k), v(100k) the mean of seeds 1-3 (ISMCTS-sampled)",
          file=out)
    for label, ks in [("ALL", keys)] + [(c, [k for k in keys if meta[k]["config"] == c])
                                        for c in CONFIGS]:
        diffs = {N: [] for N, _ in CURVE}
        absd = {N: [] for N, _ in CURVE}
        pos = 0
        trend2, trend4, total, total_ind2, trend2_ind, trend4_ind, total_ind4 = ([] for _ in range(7))
        for k in ks:
            r = runs[k]
            if not all(b in r for b in BASE) or not all(c in r for c in CURVE):
                continue
            pos += 1
            bases = [choices(r[b]) for b in BASE]
            pts = {c[0]: choices(r[c]) for c in CURVE}
            for m in bases[0]:
                v100 = mean([b[m][0] for b in bases])
                for N in pts:
                    diffs[N].append(pts[N][m][0] - v100)
                    absd[N].append(abs(pts[N][m][0] - v100))
                t = pts[1_600_000][m][0]
                trend2.append(pts[200_000][m][0] - v100)
                trend4.append(pts[400_000][m][0] - v100)
                total.append(t - v100)
                # independent baselines: the trend from seed 1, the total from seeds 2-3
                v1 = bases[0][m][0]
                v23 = mean([bases[1][m][0], bases[2][m][0]])
                trend2_ind.append(pts[200_000][m][0] - v1)
                trend4_ind.append(pts[400_000][m][0] - v1)
                total_ind2.append(t - v23)
        if not pos:
            print(f"  {label:4s}: no position with the whole curve yet", file=out)
            continue
        print(f"  {label:4s} {pos} positions, {len(total)} moves: mean v(N)-v(100k) " + "  ".join(
            f"{N // 1000}k {mean(diffs[N]):+.3f}" for N in diffs) + "  | mean |.| " + "  ".join(
            f"{N // 1000}k {mean(absd[N]):.3f}" for N in absd), file=out)
        print(f"       corr(trend, total): 200k {corr(trend2, total):+.2f}, 400k {corr(trend4, total):+.2f}"
              f"  (shared baseline);  independent baselines (trend from seed 1, total from "
              f"seeds 2-3): 200k {corr(trend2_ind, total_ind2):+.2f}, 400k {corr(trend4_ind, total_ind2):+.2f}",
              file=out)


def tree_section(out, runs, keys):
    print("\n== per tree: the spread of the 8 trees' values (samples) per budget; the final pass's "
          "worlds per tree\n   (iterations per tree / (5 x choices), within 100..4000: "
          "ismcts.py PASS_SPREAD, PASS_MIN, PASS_MAX)", file=out)
    budgets = [(100_000, 1), (100_000, 2), (100_000, 3), (200_000, 21), (400_000, 21),
               (800_000, 31), J1, J2]
    sd_by = defaultdict(list)
    ratio_by = defaultdict(list)
    for k in keys:
        r = runs[k]
        if (100_000, 1) not in r:
            continue
        ref = choices(r[(100_000, 1)])
        for b in budgets:
            if b not in r:
                continue
            C = choices(r[b])
            for m, (v, se, smp) in C.items():
                if len(smp) >= 2:
                    sd = st.stdev(smp)
                    sd_by[b].append(sd)
                    sd0 = st.stdev(ref[m][2]) if m in ref else 0.0
                    if sd0 > 0:
                        ratio_by[b].append(sd / sd0)
    worlds = defaultdict(list)          # the final pass's worlds per tree
    for k in keys:
        for b, row in runs[k].items():
            v = row["info"].get("values") or {}
            if v.get("worlds") and v.get("replicates"):
                worlds[b].append(v["worlds"] / v["replicates"])
    for b in budgets:
        if not sd_by[b]:
            continue
        N = b[0]
        w = worlds.get(b, [])
        if w:
            print(f"  {N // 1000:>5d}k s{b[1]:<2d}: final pass worlds per tree: median {med(w):.0f}, "
                  f"at the cap of 4000: {sum(x >= 4000 for x in w)}/{len(w)} positions", file=out)
        print(f"  {N // 1000:>5d}k s{b[1]:<2d}: median tree sd {med(sd_by[b]):.3f}  mean "
              f"{mean(sd_by[b]):.3f}  median sd/sd(100k s1) {med(ratio_by[b]):.2f}  "
              f"(1/sqrt(N/100k) = {math.sqrt(100_000 / N):.2f})  moves {len(sd_by[b])}",
              file=out)
    # the 100k stderr against the spread of the 100k means over seeds 1-3
    ratios, spreads, ses = [], [], []
    for k in keys:
        r = runs[k]
        if not all(b in r for b in BASE):
            continue
        cs = [choices(r[b]) for b in BASE]
        for m in cs[0]:
            vals = [c[m][0] for c in cs]
            se = math.sqrt(mean([c[m][1] ** 2 for c in cs]))
            if se > 0:
                spreads.append(st.stdev(vals))
                ses.append(se)
    if ses:
        # sum of sample variances over moves / sum of se^2: the seed spread against the +-
        rat = math.sqrt(sum(s * s for s in spreads) / sum(s * s for s in ses))
        print(f"  100k: sd of the value over seeds 1-3 / its stderr (rms over {len(ses)} moves): "
              f"{rat:.2f}  (1 if the +- is the seed-to-seed error)", file=out)


def exact_section(out, runs, meta, keys):
    print(f"\n== exact positions (endgame solved in some run), apart: {len(keys)}", file=out)
    for k in keys:
        r = runs[k]
        flags = " ".join(f"{n // 1000}k/s{s}:{'E' if row['info']['exact'] else 's'}"
                         for (n, s), row in sorted(r.items()))
        d = ""
        if (100_000, 1) in r and J1 in r:
            C, J = choices(r[(100_000, 1)]), choices(r[J1])
            d = "  max|v100k s1 - v1.6M| " + f"{max(abs(C[m][0] - J[m][0]) for m in C if m in J):.3f}"
        print(f"  {k[0]} {k[1]:22s} {flags}{d}", file=out)


def runtime_section(out, runs):
    print("\n== runtime per budget (wall seconds per search, 1 worker, nice 5, shared 2-core machine)",
          file=out)
    by = defaultdict(list)
    for r in runs.values():
        for (n, s), row in r.items():
            by[n].append(row["wall"])
    for n in sorted(by):
        xs = by[n]
        print(f"  {n // 1000:>5d}k: {len(xs):4d} searches, median {med(xs):6.2f} s, mean "
              f"{mean(xs):6.2f} s, max {max(xs):6.2f} s, total {sum(xs) / 60:6.1f} min", file=out)
    full = defaultdict(int)
    for r in runs.values():
        for (n, s), row in r.items():
            mem = row["info"].get("memory") or {}
            if mem.get("full"):
                full[n] += 1
    if full:
        print("  searches whose trees reached the 256 MB cap: " +
              ", ".join(f"{n // 1000}k: {c}" for n, c in sorted(full.items())), file=out)
    else:
        print("  no search reached the memory cap (256 MB)", file=out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "data", "curve.jsonl"))
    ap.add_argument("--out", default=os.path.join(HERE, "report_baseline.txt"))
    ap.add_argument("--no-save", action="store_true")
    a = ap.parse_args()
    buf = io.StringIO()
    report(a.data, buf)
    text = buf.getvalue()
    sys.stdout.write(text)
    if not a.no_save:
        with open(a.out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
