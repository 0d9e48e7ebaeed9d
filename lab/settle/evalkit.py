"""The z-score tables of an estimator against a judge (the lab's measures, zscores.py).

An estimator maps a probe record (cyc_probe.py; a search with its per-tree checkpoints) to
{move: Est(samples, extra, extra_d)}: `samples` the per-tree values (their mean is the
value, their spread the error, as the engine's), `extra` a variance added to the value's
(model uncertainty), `extra_d(other)` the variance added to a difference with another move.

Judges: today's engine (settle=off) at 1.6M (judges.py, seeds 41 and 42: value, stderr,
samples as printed).

Measures (as zscores.py): for every move, z = (v - v_J) / sqrt(se^2 + se_J^2); out99 =
|v - v_J| > 2.576 se; vs best: d = v_m - v_best (best: the base's by value), paired error
from the trees' differences (plus extra_d), z and out99 the same way; best kept = the base's
best is the judge's best where the judge separates its first two (> 2.576 paired se).
"""
import math
import statistics as st
from collections import defaultdict
from dataclasses import dataclass, field

from common import Z99, c4, spread

CONFIGS = ["p2", "p3", "p4", "p4p"]
STAGES = ["early", "middle", "late"]


@dataclass
class Est:
    samples: list
    extra: float = 0.0
    extra_d: dict = field(default_factory=dict)     # other move -> extra variance of (m - other)

    @property
    def value(self):
        return math.fsum(self.samples) / len(self.samples)

    @property
    def se(self):
        return math.sqrt(spread(self.samples)[1] ** 2 + self.extra)


def raw_from_curve(ch):
    """The curve's row {move: (value, se, samples)} as Ests (no extra)."""
    return {m: Est(list(s)) for m, (v, se, s) in ch.items()}


def pair(est, m, b):
    """(d, se of d) for m - b."""
    d = [x - y for x, y in zip(est[m].samples, est[b].samples)]
    mu, se = spread(d)
    return mu, math.sqrt(se * se + est[m].extra_d.get(b, 0.0))


def zof(x, s):
    if s > 0:
        return x / s
    return 0.0 if abs(x) < 1e-12 else math.copysign(math.inf, x)


def best_of(est):
    return max(est, key=lambda m: (est[m].value, -m))


class Tally:
    def __init__(self):
        self.z, self.out, self.dz, self.dout = [], [], [], []
        self.sep = self.kept = 0
        self.ratio = []

    def add(self, base, judge):
        for m in base:
            a, j = base[m], judge[m]
            self.z.append(zof(a.value - j.value, math.sqrt(a.se ** 2 + j.se ** 2)))
            self.out.append(abs(a.value - j.value) > Z99 * a.se)
        b = best_of(base)
        for m in base:
            if m == b:
                continue
            d, s = pair(base, m, b)
            dj, sj = pair(judge, m, b)
            self.dz.append(zof(d - dj, math.sqrt(s * s + sj * sj)))
            self.dout.append(abs(d - dj) > Z99 * s)
        jb = best_of(judge)
        others = [m for m in judge if m != jb]
        second = max(others, key=lambda m: judge[m].value)
        d, s = pair(judge, jb, second)
        if d > Z99 * s:
            self.sep += 1
            self.kept += b == jb

    def row(self, label):
        def share(xs):
            return 100.0 * sum(xs) / len(xs) if xs else float("nan")
        az = [abs(z) for z in self.z]
        adz = [abs(z) for z in self.dz]
        return (f"{label:<14} n {len(self.z):4d}  out99 {share(self.out):5.1f}%  |z|>2.58 "
                f"{share([x > Z99 for x in az]):5.1f}%  med|z| {st.median(az) if az else 0:4.2f}  "
                f"mean z {st.fmean(self.z) if self.z else 0:+.2f} | vsb n {len(self.dz):4d} out99 "
                f"{share(self.dout):5.1f}%  |z|>2.58 {share([x > Z99 for x in adz]):5.1f}%  "
                f"med|z| {st.median(adz) if adz else 0:4.2f} | best {self.kept}/{self.sep}")


def table(pairs, meta, title, out=print, by=True):
    """pairs: [(key, base Ests, judge Ests)]. Prints the overall row, by players and stage."""
    groups = defaultdict(Tally)
    for key, base, judge in pairs:
        groups["all"].add(base, judge)
        if by:
            groups[meta[key]["config"]].add(base, judge)
            groups[meta[key]["stage"]].add(base, judge)
    out(f"== {title}")
    for g in ["all"] + (CONFIGS + STAGES if by else []):
        if g in groups:
            out("  " + groups[g].row(g))
    return groups["all"]
