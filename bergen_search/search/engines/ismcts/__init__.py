"""ISMCTS, the default engine (`_ismcts.pyx`; its pure-Python twin `ismcts_ref.py`):
independent replicated trees, sequential halving at the root (`halving`) and a final pass,
the exact endgame first when it applies, and the `classic` preset (the engine as it was before
inference, safe playouts and merged twins). It uses the search's public machinery:
`limits.Deadline`, `workers.run_sliced`, `results.UnitOutput`."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

from ....constants import PASS_STREAM
from ....game.rng import derive_seed
from ... import backend
from ...endgame import step as exact
from ....formats.notation import Move
from ....constants import OWN_DRAW as KEY_OWN_DRAW
from ....game.state import DRAW as KEY_DRAW
from .reference import IsmctsTree as ReferenceTree
from .reference import MemoryAccount as ReferenceAccount
from ...limits import DEFAULT_MEMORY_MB, MAX_REPLICATES, REPLICATES, Deadline, now
from ...registry import Algorithm, Setting, Solved, inference_setting, preset, register
from ...results import FinalPass, UnitOutput
from ...workers import run_sliced

#: The final pass (comparable values, `search(values=True)`): the share of a time limit
#: kept for it, and its worlds (iterations / (PASS_SPREAD x choices), within
#: PASS_MIN..PASS_MAX), drawn on `constants.PASS_STREAM`.
PASS_SHARE = 0.15
PASS_SPREAD = 5
PASS_MIN, PASS_MAX = 100, 4000
#: Sequential halving keeps, beside the better half, every choice whose tree mean falls short
#: of the last one kept by less than this many standard errors (`close`; 0: a strict half).
HALVING_Z = 2.0
#: The expected line of play after each root move (`best`'s principal variation): each
#: tree keeps the LINE_WIDTH most visited edges at every node below the move, LINE_DEPTH
#: deep; the line follows the edge most visited over all the trees while it holds at least
#: LINE_SHARE of the move's visits and LINE_MIN visits.
LINE_DEPTH = 6
LINE_WIDTH = 2
LINE_SHARE = 0.05
LINE_MIN = 20
#: The hidden setting `cycles` (a prototype, issue 50): each tree's budget is spent in cycles
#: of sequential halving over these shares of it, one after the other on the same tree (every
#: root choice back in at each cycle's start), so that after a cycle the tree is a search of
#: the budget spent so far: a quarter, then a half. After each cycle but the last, a pass of
#: every move on the first CHECK_SHARE of the final pass's worlds reads each move's value
#: there (its checkpoints: the final pass sums those worlds apart too, `prefix`), the trend
#: a correction toward more budget reads (`UnitOutput.extra["cycles"]`, info["cycles"]).
CYCLES = (1, 1, 2)
CHECK_SHARE = 0.5


class Ismcts(Algorithm):
    name = "ismcts"
    help = "ISMCTS, the default engine"
    order = 0
    default_budget = 100000
    match_budget = 2000
    by_visits = True
    replicated = True
    sides = True
    solve_beside = True
    lines = True
    value_meaning = "the engine playing on from the move"
    replicate_noun = "trees"
    bracket_setting = "bracket"
    reports_memory = True
    settings = {
        "exploration": Setting(float, 0.7, "the UCB1 exploration constant", maximum=100),
        "playout": Setting(str, "safe", "how playouts play on: random, scoring or safe",
                           ("random", "scoring", "safe")),
        "inference": inference_setting(True),
        "twins": Setting(bool, True, "plays that mirror each other are one choice"),
        "choose": Setting(str, "value", "the move played: the best value of the final pass "
                          "(value; runs the pass) or the most visited (visits)",
                          ("value", "visits")),
        "endgame": Setting(bool, True, "solve the end of a two-player round exactly when no "
                           "draw can happen again and it fits the budget (search/endgame/)"),
        "bracket": Setting(bool, True, "where the exact endgame is beyond the budget, bracket "
                           "each move with the same round solved with this hand shown to the "
                           "other side (an iteration budget only; endgame.bracket)"),
        "replicates": Setting(int, REPLICATES, "independent trees sharing the budget: a "
                              "move's value is their mean and its error their spread (1: one "
                              "tree, no error measured)", minimum=1, maximum=MAX_REPLICATES),
        "stats": Setting(str, "choices", "what a move's mean in the tree counts: the "
                         "iterations where its mover chose it among several (choices), or "
                         "also those where it was the only legal move (all, as the classic preset "
                         "counts: a move forced in some worlds then looks as good or as bad as "
                         "it was there)", ("choices", "all")),
        "root": Setting(str, "halving", "how the root shares the budget between the choices: "
                        "halving (sequential halving: every choice a share, the better half "
                        "more, again and again) or ucb (UCB1, as below the root)",
                        ("halving", "ucb")),
        "cycles": Setting(bool, False, "grow each tree in cycles of halving (CYCLES), reading "
                          "each move's value after each cycle (a prototype)", hidden=True),
    }

    def worker(self, sampler, objective, budget, deadline, seed, settings, values=False,
               hooks=None, focus=(), memory=DEFAULT_MEMORY_MB << 20, account=None,
               lines=False):
        """One replicate: one tree searched, then (with `values`) its final pass. `memory`:
        the cap in bytes on the trees of `account` alive at once (its search's in this
        process, `memory_account`; None: this tree alone) (`IsmctsTree.max_bytes`; at the cap
        the tree stops growing, `extra["full_at"]` says after how many iterations).
        `lines`: read the tree's expected lines after each root move (`line_beams`)."""
        tree_class = backend.SEARCH.pick(f"{__name__}._ismcts.IsmctsTree", ReferenceTree)
        tree = tree_class(sampler, seed, settings["exploration"], objective,
                                   settings["playout"], merge_twins=settings["twins"],
                                   choice_stats=settings["stats"] == "choices",
                                   max_bytes=memory, account=account)
        left = deadline.left()
        search_deadline = deadline if left is None or not values else Deadline(
            left * (1 - PASS_SHARE))
        t0 = now()
        checks = None
        if settings.get("cycles") and settings["root"] == "halving":
            checks = Checkpoints(derive_seed(seed, PASS_STREAM), budget, None if left is None
                                 or not values else (t0, left * PASS_SHARE))
            done, interrupted = cycled(tree, budget, search_deadline, focus, hooks,
                                       checks.read)
        elif settings["root"] == "halving":
            done, interrupted = halving(tree, budget, search_deadline, focus, hooks)
        else:
            done, interrupted = run_sliced(tree.run, budget, search_deadline, hooks,
                                            tree.root_stats, lambda: tree.iterations)
        out = UnitOutput([], 0, False, nodes=tree.n_nodes,
                         sides={m: (n, sums) for m, n, sums in tree.root_side_stats()},
                         extra={"twins": tree.twins, "full_at": tree.full_at})
        if lines:
            out.extra["lines"] = line_beams(tree)
        n_choices = len({m for m, *_ in tree.root_stats()} - set(tree.twins))
        if values and not interrupted and done and n_choices > 1:
            # The final pass: every root move on the same worlds, played on as the search
            # would (common random numbers), so that values compare.
            worlds = max(PASS_MIN, min(PASS_MAX, done // (PASS_SPREAD * n_choices)))
            left = deadline.left()
            if left is not None:
                rate = done / max(now() - t0, 1e-6)
                worlds = max(PASS_MIN, min(worlds, int(rate * max(left, 0) / n_choices)))
            try:
                if checks is None:
                    out.final_pass = FinalPass(worlds, tree.evaluate_root(
                        worlds, derive_seed(seed, PASS_STREAM)))
                else:
                    out.final_pass = checks.final(tree, worlds)
                    out.extra["cycles"] = checks.record
            except KeyboardInterrupt:
                interrupted = True
        out.stats, out.done, out.interrupted = ([tuple(r) for r in tree.root_stats()], done,
                                                interrupted)
        return out

    def memory_account(self):
        return backend.SEARCH.pick(f"{__name__}._ismcts.MemoryAccount", ReferenceAccount)()

    def value_pass(self, settings):
        return settings["choose"] == "value"

    def folds_twins(self, settings):
        return settings["twins"]

    def solve(self, info, limits, run):
        """The exact endgame first, when the setting `endgame` is on (`exact.attempt`, as
        the `endgame` engine's): its answer when it solves, else why not in `info`."""
        if not run.settings["endgame"]:
            return Solved(limits=limits)
        return exact.attempt(info, limits, run, bracketing=run.settings["bracket"])

    def summary(self, outputs, limits):
        full = [o.extra["full_at"] for o in outputs if o.extra.get("full_at") is not None]
        # The memory cap: how many trees reached it, and after how many iterations the
        # first stopped growing (the search went on sampling within it).
        out = {"memory": {"cap_mb": limits.memory_bytes >> 20, "full": len(full),
                          "full_at": min(full) if full else None}}
        cycles = [o.extra["cycles"] for o in outputs if "cycles" in o.extra]
        if cycles:
            out["cycles"] = cycles
        beams = [o.extra["lines"] for o in outputs if "lines" in o.extra]
        if beams:
            out["lines"] = expected_lines(beams)
        return out


def line_beams(tree) -> dict:
    """{root move: beam} for every root choice (a mirror twin is its twin's), where a beam
    is {edge key: [visits, beam below]}: the LINE_WIDTH most visited edges of each node,
    LINE_DEPTH deep, read from the tree (`IsmctsTree.children`). Nothing below the observer's
    own draw (a tile it will see: the line beyond depends on it)."""
    return {m: _beam(tree, (m,), LINE_DEPTH) for m, n, *_ in tree.root_stats()
            if m not in tree.twins and m != KEY_DRAW and n > 0}


def _beam(tree, path: tuple, depth: int) -> dict:
    """`line_beams`' beam below the node at `path`. (A function of its own, not a closure:
    a recursive closure is a reference cycle that would keep the tree, and its share of the
    memory cap, alive until the garbage collector runs.)"""
    kids = tree.children(path) or []
    top = sorted(kids, key=lambda k: (-k[2], k[0]))[:LINE_WIDTH]
    return {k[0]: [k[2], _beam(tree, path + (k[0],), depth - 1)
                   if depth > 1 and k[0] < KEY_OWN_DRAW else {}]
            for k in top if k[2] > 0}


def expected_lines(beams) -> dict:
    """{Move: (Move, ...)}: after each root move, the line of play the trees expect (their
    `line_beams` summed, edge by edge): at each step the edge most visited over all the
    trees, while it keeps LINE_SHARE of the move's visits (and LINE_MIN); the observer's own
    draw is written `draw` and ends the line. Moves with no line are left out."""
    def add(into, beam):
        for key, (visits, below) in beam.items():
            slot = into.setdefault(key, [0, {}])
            slot[0] += visits
            add(slot[1], below)
    out = {}
    for m in sorted({m for b in beams for m in b}):
        summed: dict = {}
        for b in beams:
            add(summed, b.get(m, {}))
        total = sum(v for v, _ in summed.values())
        line, node = [], summed
        while node:
            key, (visits, below) = min(node.items(), key=lambda kv: (-kv[1][0], kv[0]))
            if visits < max(LINE_MIN, LINE_SHARE * total):
                break
            line.append(Move.DRAW if key >= KEY_OWN_DRAW else Move.from_code(key))
            if key >= KEY_OWN_DRAW:
                break
            node = below
        if line:
            out[Move.from_code(m)] = tuple(line)
    return out


@dataclass
class Marks:
    """Checkpoints inside sequential halving (a measuring hook; the search never sets it):
    `at` {root move: counts of its own forced iterations} where `halving` stops that move's
    runs and calls `reached(tree, move, count)`, e.g. to read the move's value there with a
    final pass of it alone (`evaluate_root(..., only=move)`). A tree is the same however
    its runs are sliced, and a pass draws nothing from its random numbers: the marks change
    no result. `own` counts each move's forced iterations so far."""
    at: dict
    reached: Callable
    own: dict = field(default_factory=dict)

    def runner(self, tree, move):
        """`tree.run_move` for `move`, stopping at its marks."""
        def run(iterations, seconds):
            done_now = self.own.get(move, 0)
            ahead = [c for c in self.at.get(move, ()) if c > done_now]
            n = iterations if not ahead else min(iterations, ahead[0] - done_now)
            got = tree.run_move(move, n, seconds)
            self.own[move] = done_now + got
            if ahead and self.own[move] == ahead[0]:
                self.reached(tree, move, ahead[0])
            return got
        return run


def cycled(tree, budget, deadline: Deadline, focus=(), hooks=None, between=None,
           shares=CYCLES):
    """The budget (or the clock) spent as one `halving` after another on the same tree, each
    over its share of it (`shares`, e.g. CYCLES: a quarter, a quarter, a half), every root
    choice back in at each one's start: after cycle c the tree is what a search of the budget
    spent so far grows (after the first, the search of its share, bit for bit). Between two
    cycles `between(tree, done)` (e.g. `Checkpoints.read`). Returns (iterations done,
    interrupted)."""
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
    """Each root move's value after each cycle but the last (`cycled`), read by a pass of
    every move on the first CHECK_SHARE of the worlds the final pass will take (those of a
    search of the whole budget; under a time limit, those the pace so far promises the
    search and the seconds kept for the pass, `clock` = (start, those seconds)), on the final
    pass's seed; and the final pass, which sums those worlds apart too (`evaluate_root`'s
    prefix): each move's trend is read on common worlds.
    `record`: {"worlds": the worlds read, "at": [{move: [its own iterations, sum]} after
    each cycle], "final": {move: [its own iterations, sum over those worlds, the final
    pass's sum and sum of squares]}, "pass": the final pass's worlds} (mirror twins left
    out)."""

    def __init__(self, pass_seed: int, budget, clock=None, shares=CYCLES):
        self.seed, self.budget, self.clock, self.shares = pass_seed, budget, clock, shares
        self.record: dict = {"worlds": 0, "at": [], "final": {}}

    @staticmethod
    def _choices(tree) -> dict:
        return {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}

    def read(self, tree, done: int) -> None:
        own = self._choices(tree)
        if len(own) < 2:
            return
        if not self.record["worlds"]:
            total = self.budget if self.budget is not None else (
                done * sum(self.shares) // self.shares[0])
            full = max(PASS_MIN, min(PASS_MAX, total // (PASS_SPREAD * len(own))))
            if self.clock is not None:        # as the worker's final pass will take them
                start, seconds = self.clock
                rate = done / max(now() - start, 1e-6)
                full = max(PASS_MIN, min(full, int(rate * seconds / len(own))))
            self.record["worlds"] = max(1, round(CHECK_SHARE * full))
        rows = tree.evaluate_root(self.record["worlds"], self.seed)
        self.record["at"].append({m: [own[m], s] for m, s, *_ in rows if m in own})

    def final(self, tree, worlds: int) -> FinalPass:
        """The final pass on `worlds` worlds (at least the checkpoints'), with each move's
        sum over the checkpoints' worlds."""
        own, first = self._choices(tree), self.record["worlds"]
        worlds = max(worlds, first)
        rows = tree.evaluate_root(worlds, self.seed, prefix=first)
        if first:
            self.record["final"] = {row[0]: [own[row[0]], row[4], row[1], row[2]]
                                    for row in rows if row[0] in own}
        self.record["pass"] = worlds
        return FinalPass(worlds, [row[:4] for row in rows])


def halving(tree, budget, deadline: Deadline, focus=(), hooks=None, marks: Marks | None = None):
    """The root's budget by sequential halving (Karnin, Koren & Somekh 2013; Pepels et al.
    2014 in MCTS; the root of Gumbel MuZero, Danihelka et al. 2022): in ceil(log2 n) phases
    of equal budget, every choice still in gets an equal share of forced iterations
    (`IsmctsTree.run_move`: the root takes that move, the search below goes on as usual);
    after each phase the better half by the tree's mean stays. Every choice so gets a
    subtree of its own, and the close ones the most, so that their values compare at equal
    effort instead of hinging on the few visits UCB would give them. `focus` moves (the
    play `analyze` judges) stay in to the end. Under a time limit the phases share the
    clock instead. `marks`: checkpoints of each move's own iterations (`Marks`). Returns
    (iterations done, interrupted)."""
    stats = tree.root_stats()
    alive = [m for m, *_ in stats if m not in tree.twins]
    keep = {tree.twins.get(m, m) for m in focus}
    count = lambda: tree.iterations
    if len(alive) < 2:
        return run_sliced(tree.run, budget, deadline, hooks, tree.root_stats, count)
    phases = math.ceil(math.log2(len(alive)))
    done = 0
    for phase in range(phases):
        left = deadline.left()
        if left is not None and left <= 0:
            break
        share = None if budget is None else (budget - done) // (phases - phase)
        phase_end = None if left is None else now() + left / (phases - phase)
        for i, m in enumerate(alive):
            n = None if share is None else share // len(alive) + (i < share % len(alive))
            if n == 0:
                continue
            slot = deadline if phase_end is None else Deadline(
                (phase_end - now()) / (len(alive) - i))
            run = partial(tree.run_move, m) if marks is None else marks.runner(tree, m)
            got, interrupted = run_sliced(run, n, slot, hooks, tree.root_stats, count)
            done += got
            if interrupted:
                return done, True
        if phase < phases - 1:
            stats = {m: (v, s, sq) for m, v, s, sq in tree.root_stats()}
            mean = {m: s / v if v else -math.inf for m, (v, s, _) in stats.items()}
            alive.sort(key=lambda m: (-mean[m], m))
            half = alive[:math.ceil(len(alive) / 2)]
            cut = half[-1]
            alive = half + [m for m in alive[len(half):]
                            if m in keep or close(stats[m], stats[cut], HALVING_Z)]
    return done, False


def close(a, b, z) -> bool:
    """Whether the root statistics a = (visits, sum, sum of squares) fall short of b's mean by
    less than z standard errors of the difference: not shown worse, so kept in."""
    if z <= 0 or a[0] < 2 or b[0] < 2:
        return False
    ma, mb = a[1] / a[0], b[1] / b[0]
    va = max(a[2] / a[0] - ma * ma, 0.0) / (a[0] - 1)
    vb = max(b[2] / b[0] - mb * mb, 0.0) / (b[0] - 1)
    return mb - ma < z * math.sqrt(va + vb)


register(Ismcts())
#: `classic` is the default engine as it was before inference, safe playouts, merged twins,
#: replicates and the exact endgame (benchmarks/STRENGTH.md measures every gain against it).
preset("classic", "ismcts", {"playout": "random", "inference": False, "twins": False,
                             "choose": "visits", "replicates": 1, "root": "ucb",
                             "stats": "all", "endgame": False, "bracket": False},
       "ISMCTS as it was before inference and safe playouts")
