"""The budget's bias, measured inside each tree: values that hold against a search of 16 times
the budget, and whether the answer has settled (the setting `settle`; docs/DESIGN.md,
"Settled answers"; the measurements: docs/MEASUREMENTS.md).

Each tree spends its budget as three sequential halvings on the same tree, over a quarter, a
quarter and a half of it (`cycled`): after the first and the second, every root move is played
on the first half of the worlds of the final pass (`Checkpoints`), and the final pass sums
those worlds apart, so that each move's value is read three times on common worlds, at
doubling counts of its own iterations. The trend per doubling over the last cycle (D1) and the
one before (D2), extrapolated over the h doublings from the tree's iterations to its profile's
reference (at most 4: below the base budget, toward 16 times the tree's own), corrects the
tree's value: c = v + (h / 4)(beta1 D1 + beta2 D2) (`corrected`; h <= 0: c = v). The
move's value is the trees' mean of c; its error
se^2 = spread(c)^2 (1 + kappa^2) + a^2 u + (lam K)^2, where K is the correction (the mean of
c - v) and u = sigma_w^2 / N0 (N0 / n)^gamma what the trend leaves unexplained (sigma_w the
per-world spread in the final pass, n the move's own iterations); a difference of two moves
adds a_d^2 (u + u') + (lam_d (K - K'))^2 to its paired spread (`finish`, `results.paired`).
Its 99% interval takes Student's t on the Welch-Satterthwaite degrees of freedom of that error
(the trees' spread on trees - 1, the model's parts taken as known).

The constants were fitted once on positions of independent bots (2 to 4 players) against
searches of 16 times the budget, frozen, then checked on positions never used in the fit: a
profile per base budget, `best` (100,000 iterations, 8 trees, against 1.6 million) and `review`
(analyze's 20,000 a decision, against 320,000).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ...limits import Deadline, now

#: Each tree's budget as halvings over these shares of it, one after the other on the same
#: tree, and the share of the final pass's worlds the checkpoints between them read.
CYCLES = (1, 1, 2)
CHECK_SHARE = 0.5
#: The horizon the constants were fitted at (16 times the base) and the unexplained part's
#: scale (own iterations).
H_FIT = 4.0
N0 = 5000.0
#: An answer is settled when the 99% interval of the best move's lead over every other one
#: excludes 0.
SETTLED_CONFIDENCE = 0.99


@dataclass(frozen=True)
class Profile:
    """A base budget's constants: `reference` the iterations of a tree of the search of 16
    times the base, the trend's `betas`, the error model's `gamma`, `kappa`, `a`, `lam` and a
    difference's `a_d`, `lam_d`."""
    reference: int
    betas: tuple
    gamma: float
    kappa: float
    a: float
    lam: float
    a_d: float
    lam_d: float


PROFILES = {
    "best": Profile(200_000, (1.315, 0.592), 2.0, 0.75, 0.75, 0.8, 0.75, 1.0),
    "review": Profile(40_000, (0.970, 0.653), 2.0, 0.0, 0.25, 0.8, 0.0, 1.0),
}


def cycled(tree, budget, deadline: Deadline, focus=(), hooks=None, *, between=None,
           shares=CYCLES):
    """The budget (or the clock) spent as one sequential halving after another on the same
    tree over its `shares`, every root choice back in at each one's start: after each the
    tree is what a search of the budget spent so far grows (after the first, bit for bit the
    search of its share). `between(tree, done)` after each but the last. Returns (iterations
    done, interrupted)."""
    from . import halving
    done = 0
    for c, share in enumerate(shares):
        rest = sum(shares[c:])
        part = None if budget is None else (budget - done) * share // rest
        left = deadline.left()
        slot = deadline if left is None else Deadline(left * share / rest)
        got, interrupted = halving(tree, part, slot, focus, hooks)
        done += got
        if interrupted:
            return done, True
        if between is not None and c < len(shares) - 1:
            between(tree, done)
    return done, False


class Checkpoints:
    """Each root move's value after each cycle but the last, on the first CHECK_SHARE of the
    worlds the final pass will take (a search of the whole budget's; under a time limit, what
    the pace so far affords in the seconds kept for the pass, `clock` = (start, seconds)), on
    the final pass's seed; `final` runs the final pass, which sums those worlds apart.
    `record`: {"worlds": the checkpoints' worlds, "at": [{move: [its own iterations, sum]}
    after each cycle], "final": {move: [own iterations, sum over the checkpoints' worlds,
    the pass's sum, its sum of squares]}, "pass": the pass's worlds} (mirror twins left out)."""

    def __init__(self, pass_seed: int, budget, clock=None, shares=CYCLES):
        self.seed, self.budget, self.clock, self.shares = pass_seed, budget, clock, shares
        self.record: dict = {"worlds": 0, "at": [], "final": {}, "pass": 0}

    @staticmethod
    def _choices(tree) -> dict:
        return {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}

    def read(self, tree, done: int) -> None:
        from . import PASS_MAX, PASS_MIN, PASS_SPREAD
        own = self._choices(tree)
        if len(own) < 2:
            return
        if not self.record["worlds"]:
            total = self.budget if self.budget is not None else (
                done * sum(self.shares) // self.shares[0])
            full = max(PASS_MIN, min(PASS_MAX, total // (PASS_SPREAD * len(own))))
            if self.clock is not None:
                start, seconds = self.clock
                rate = done / max(now() - start, 1e-6)
                full = max(PASS_MIN, min(full, int(rate * seconds / len(own))))
            self.record["worlds"] = max(1, round(CHECK_SHARE * full))
        rows = tree.evaluate_root(self.record["worlds"], self.seed)
        self.record["at"].append({m: [own[m], s] for m, s, *_ in rows if m in own})

    def final(self, tree, worlds: int) -> tuple:
        """(worlds, rows): the final pass on `worlds` worlds (at least the checkpoints'),
        its rows as `evaluate_root`'s."""
        own, first = self._choices(tree), self.record["worlds"]
        worlds = max(worlds, first)
        rows = tree.evaluate_root(worlds, self.seed, prefix=first)
        if first:
            self.record["final"] = {r[0]: [own[r[0]], r[4], r[1], r[2]]
                                    for r in rows if r[0] in own}
        self.record["pass"] = worlds
        return worlds, [r[:4] for r in rows]


def corrected(record: dict, done: int, profile: Profile, twins: dict) -> tuple:
    """One tree's corrected values and what `finish` reads of it: ({move: c} for every move
    of the final pass, mirror twins their twin's; {"h": doublings to the reference, "moves":
    {move: (v, own iterations, per-world variance)}}). `done`: the tree's iterations. Below
    the profile's base budget the horizon stays H_FIT (toward 16 times the tree's own
    budget: the fit's horizon, never extrapolated further)."""
    final, at, p = record["final"], record["at"], record["worlds"]
    w = record["pass"]
    h = min(math.log2(profile.reference / max(done, 1)), H_FIT)
    values, moves = {}, {}
    for m, (n0, s0, s, sq) in final.items():
        v = s / w
        moves[m] = (v, n0, max(sq / w - v * v, 0.0))
        c = v
        if h > 0 and len(at) >= 2 and p:
            points = [(n0, s0)] + [(cp[m][0], cp[m][1]) for cp in reversed(at[-2:])]
            for j, beta in enumerate(profile.betas):
                (n_a, s_a), (n_b, s_b) = points[j], points[j + 1]
                r = math.log2(n_a / max(n_b, 1)) if n_a > 0 else 0.0
                if r > 0:
                    c += (h / H_FIT) * beta * (s_a - s_b) / p / r
        values[m] = c
    for m, t in twins.items():
        if t in values:
            values[m] = values[t]
    return values, {"h": h, "moves": moves}


def fold(into: dict, trend: dict) -> None:
    """A tree's `corrected` figures added into a search's: per move (trees, sum of v, of the
    per-world variance, of own iterations), and the trees' horizons."""
    into["trees"] = into.get("trees", 0) + 1
    into["h"] = into.get("h", 0.0) + trend["h"]
    sums = into.setdefault("moves", {})
    for m, (v, n, var) in trend["moves"].items():
        acc = sums.setdefault(m, [0, 0.0, 0.0, 0.0])
        acc[0] += 1
        acc[1] += v
        acc[2] += var
        acc[3] += n


def finish(moves: list, folded: dict, profile: Profile, *, by_raw: bool = True) -> tuple:
    """The ranked `MoveValue`s of a search whose trees were corrected (their samples the
    trees' c): each with its error from the model, its degrees of freedom, its raw value
    (the trees' mean of v, by which the move is chosen: the moves ranked by it, each mirror
    twin after its move; `by_raw` False: as ranked, by visits) and its drift (what a
    difference's error adds); and the info the result gains: `settled` and `settle` (the
    profile's horizon)."""
    from ...results import paired
    from ....stats import interval_quantile
    sums, trees = folded.get("moves", {}), folded.get("trees", 0)
    h = folded.get("h", 0.0) / trees if trees else 0.0
    out = []
    for m in moves:
        acc = sums.get(m.twin.code if m.twin is not None else m.code)
        n = len(m.samples)
        if acc is None or n < 2 or not m.measured:
            out.append(m)
            continue
        raw = acc[1] / acc[0]
        if h <= 0:
            out.append(replace(m, raw=raw, dof=n - 1))
            continue
        k = m.value - raw
        u = (acc[2] / acc[0]) / N0 * (N0 / max(acc[3] / acc[0], 1.0)) ** profile.gamma
        base = m.stderr ** 2 * (1 + profile.kappa ** 2)
        se2 = base + profile.a ** 2 * u + (profile.lam * k) ** 2
        dof = min((n - 1) * (se2 / base) ** 2, 1e6) if base > 0 else 1e6
        out.append(replace(m, stderr=math.sqrt(se2), raw=raw, dof=dof,
                           drift=profile.lam_d * k, drift_var=profile.a_d ** 2 * u))
    codes = {m.move: m.code for m in out}
    if by_raw:
        out.sort(key=lambda m: (not m.measured, -(m.raw if m.raw is not None else m.value),
                                codes[m.twin] if m.twin is not None else m.code,
                                m.twin is not None))
    best, settled = out[0], True
    for m in out[1:]:
        if m.twin is not None or not m.measured:
            continue
        se, dof = paired(best, m)
        if not math.isfinite(se):
            settled = False
            break
        if best.value - m.value - interval_quantile(SETTLED_CONFIDENCE, dof) * se <= 0:
            settled = False
            break
    return out, {"settled": settled, "settle": {"horizon": round(h, 3)}}
