"""ISMCTS, the default engine (`_ismcts.pyx`; its pure-Python twin `reference.py`; Cowling,
Powley & Whitehouse 2012): replicated trees, sequential halving at the root and a final pass,
the exact endgame first when it applies, the expected lines, and the `classic` preset."""
from __future__ import annotations

import math
from functools import partial

from ....constants import OWN_DRAW as KEY_OWN_DRAW, PASS_STREAM
from ....errors import BergenError
from ....formats.notation import Move
from ....game.rng import derive_seed
from ....game.state import DRAW as KEY_DRAW
from ....stats import mean_stderr
from ... import backend
from ...endgame import step as exact
from ...limits import MAX_REPLICATES, REPLICATES, Deadline, now
from ...registry import Algorithm, Setting, Solved, inference_setting, preset, register
from ...results import UnitOutput
from ...workers import run_sliced
from . import settle
from .reference import IsmctsTree as ReferenceTree, MemoryAccount as ReferenceAccount
from .settle import Checkpoints, cycled

#: The final pass: the share of a time limit kept for it, and its worlds (iterations /
#: (PASS_SPREAD x choices), within PASS_MIN..PASS_MAX), drawn on `constants.PASS_STREAM`.
PASS_SHARE = 0.15
PASS_SPREAD = 5
PASS_MIN, PASS_MAX = 100, 4000
#: Sequential halving also keeps every choice within this many standard errors of the last
#: one kept (0: a strict half).
HALVING_Z = 2.0
#: The expected line after each root move: the LINE_WIDTH most visited edges per node,
#: LINE_DEPTH deep, followed while an edge holds LINE_SHARE of the move's visits and LINE_MIN.
LINE_DEPTH = 6
LINE_WIDTH = 2
LINE_SHARE = 0.05
LINE_MIN = 20


class Ismcts(Algorithm):
    name = "ismcts"
    help = "ISMCTS, the default engine"
    order = 0
    default_budget = 100000
    match_budget = 2000
    by_visits = True
    replicated = True
    sides = True
    value_meaning = "the engine playing on from the move"
    replicate_noun = "trees"
    settings = {
        "exploration": Setting(float, 0.7, "the UCB1 exploration constant", maximum=100),
        "playout": Setting(str, "safe", "how playouts play on: random, scoring or safe",
                           ("random", "scoring", "safe")),
        "inference": inference_setting("on"),
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
        "settle": Setting(str, "best", "measure each move's trend over its tree's growth "
                          "and correct its value toward a search of 16 times the budget, "
                          "saying whether the answer has settled: with the constants of a "
                          "best query (best; 100,000 iterations against 1.6 million) or of a "
                          "review (review; 20,000 against 320,000), or not (off: the values "
                          "of the search as it stands)", ("best", "review", "off")),
    }

    def check(self, settings):
        """As every algorithm's, and `settle` off where the root is not halving (its cycles are
        sequential halvings): said so in the settings, refused where asked for."""
        full = super().check(settings)
        if full["root"] != "halving" and full["settle"] != "off":
            if "settle" in settings:
                raise BergenError(f"settle={full['settle']} needs root=halving (its cycles are "
                                  f"sequential halvings); with root={full['root']}: settle=off",
                                  field="settle")
            full["settle"] = "off"
        return full

    def worker(self, job, sampler, budget, seed, deadline, *, hooks=None, account=None):
        """One replicate: one tree searched, then its final pass when `value_pass`, whose values are
        the replicate's (else the tree's means); for a caller reading values, the expected lines."""
        settings, passing = job.settings, job.values or self.value_pass(job.settings)
        tree_class = backend.SEARCH.pick(f"{__name__}._ismcts.IsmctsTree", ReferenceTree)
        tree = tree_class(sampler, seed, exploration=settings["exploration"],
                          objective=job.objective, playout=settings["playout"],
                          merge_twins=settings["twins"],
                          choice_stats=settings["stats"] == "choices",
                          max_bytes=job.memory, account=account)
        left = deadline.left()
        search_deadline = deadline if left is None or not passing else Deadline(
            left * (1 - PASS_SHARE))
        t0 = now()
        checks = None
        if self.deepens(settings):
            checks = Checkpoints(derive_seed(seed, PASS_STREAM), budget, None if left is None
                                 or not passing else (t0, left * PASS_SHARE))
            done, interrupted = cycled(tree, budget, search_deadline, job.focus, hooks,
                                       between=checks.read)
        elif settings["root"] == "halving":
            done, interrupted = halving(tree, budget, search_deadline, job.focus, hooks)
        else:
            done, interrupted = run_sliced(tree.run, budget, search_deadline, hooks,
                                           tree.root_stats, lambda: tree.iterations)
        nodes, sides = tree.n_nodes, tree.root_side_stats()
        extra = {"full_at": tree.full_at}
        if job.values:
            extra["lines"] = line_beams(tree)
        n_choices = len({m for m, *_ in tree.root_stats()} - set(tree.twins))
        rows, worlds = None, 0
        if passing and not interrupted and done and n_choices > 1:
            left = deadline.left()
            pace = None if left is None else (done / max(now() - t0, 1e-6), max(left, 0))
            worlds = pass_worlds(done, n_choices, pace)
            try:
                if checks is None:
                    rows = tree.evaluate_root(worlds, derive_seed(seed, PASS_STREAM))
                else:
                    worlds, rows = checks.final(tree, worlds)
            except KeyboardInterrupt:
                interrupted, worlds = True, 0
        stats = [tuple(r) for r in tree.root_stats()]
        if rows is not None:        # the pass's values: each move's mean on its worlds
            values = {m: sm / worlds for m, sm, _, _ in rows}
            by_side = {m: [x / worlds for x in g] for m, _, _, g in rows}
            if checks is not None:  # corrected for the budget's trend (`settle`)
                values, extra["settle"] = settle.corrected(
                    checks.record, done, settle.PROFILES[settings["settle"]], tree.twins)
        else:                       # the tree's means, of the moves it visited
            values = {m: sm / n for m, n, sm, _ in stats if n}
            by_side = {m: [x / n for x in sums] for m, n, sums in sides if n}
        return UnitOutput(stats=stats, done=done, interrupted=interrupted, nodes=nodes,
                          values=values, sides=by_side, worlds=worlds, extra=extra)

    def memory_account(self):
        return backend.SEARCH.pick(f"{__name__}._ismcts.MemoryAccount", ReferenceAccount)()

    def value_pass(self, settings):
        return settings["choose"] == "value"

    def deepens(self, settings):
        return settings["settle"] != "off" and settings["root"] == "halving"

    def folds_twins(self, settings):
        return settings["twins"]

    def for_review(self, settings):
        """Without the bracket (a review charges losses from values) and with the review's
        constants of `settle`, unless asked for."""
        given = dict(settings.given)
        if "bracket" not in given:
            settings = settings.replace(bracket=False)
        if "settle" in given or settings["root"] != "halving":
            return settings
        return settings.replace(settle="review")

    def solve(self, info, limits, run):
        """The exact endgame first when the setting `endgame` is on (beside the trees of a live
        search): its answer when it solves, else why not, and its bracket where it declines."""
        if not run.settings["endgame"]:
            return Solved(limits=limits)
        step = exact.beside if run.on_info is not None and run.workers == 1 else exact.attempt
        return step(info, limits, run, bracketing=run.settings["bracket"] and run.values)

    def fold(self, into, extra):
        """The trees' memory figures, their corrections' (`settle.fold`) and their expected
        lines' beams, summed edge by edge."""
        if extra["full_at"] is not None:
            into["full"] = into.get("full", 0) + 1
            into["full_at"] = min(into.get("full_at", extra["full_at"]), extra["full_at"])
        if "settle" in extra:
            settle.fold(into.setdefault("settle", {}), extra["settle"])
        if "lines" in extra:
            lines = into.setdefault("lines", {})
            for m, beam in extra["lines"].items():
                _sum_beam(lines.setdefault(m, {}), beam)

    def summary(self, folded, limits):
        # The memory cap: how many trees reached it, and when the first stopped growing.
        out = {"memory": {"cap_mb": limits.memory_bytes >> 20, "full": folded.get("full", 0),
                          "full_at": folded.get("full_at")}}
        if "lines" in folded:
            out["lines"] = expected_lines(folded["lines"])
        return out

    def finish(self, moves, folded, settings):
        if "settle" not in folded:
            return moves, {}
        return settle.finish(moves, folded["settle"], settle.PROFILES[settings["settle"]],
                             by_raw=settings["choose"] == "value")


def pass_worlds(iterations: int, choices: int, pace=None) -> int:
    """The final pass's worlds after `iterations` over `choices` root choices; `pace` =
    (iterations a second, seconds left): no more than they afford."""
    worlds = max(PASS_MIN, min(PASS_MAX, iterations // (PASS_SPREAD * choices)))
    if pace is not None:
        worlds = max(PASS_MIN, min(worlds, int(pace[0] * pace[1] / choices)))
    return worlds


def line_beams(tree) -> dict:
    """{root move: beam} for every root choice, a beam {edge key: [visits, beam below]}: the
    LINE_WIDTH most visited edges per node, LINE_DEPTH deep, none below the observer's draw."""
    return {m: _beam(tree, (m,), LINE_DEPTH) for m, n, *_ in tree.root_stats()
            if m not in tree.twins and m != KEY_DRAW and n > 0}


def _beam(tree, path: tuple, depth: int) -> dict:
    # (not a closure: that would keep the tree alive)
    kids = tree.children(path) or []
    top = sorted(kids, key=lambda k: (-k[2], k[0]))[:LINE_WIDTH]
    return {k[0]: [k[2], _beam(tree, path + (k[0],), depth - 1)
                   if depth > 1 and k[0] < KEY_OWN_DRAW else {}]
            for k in top if k[2] > 0}


def _sum_beam(into: dict, beam: dict) -> None:
    for key, (visits, below) in beam.items():
        slot = into.setdefault(key, [0, {}])
        slot[0] += visits
        _sum_beam(slot[1], below)


def expected_lines(beams: dict) -> dict:
    """{Move: (Move, ...)}: after each root move, the line the summed `beams` expect (the most
    visited edge while it keeps LINE_SHARE and LINE_MIN, to the observer's own draw)."""
    out = {}
    for m in sorted(beams):
        summed = beams[m]
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


def halving(tree, budget, deadline: Deadline, focus=(), hooks=None):
    """The root's budget by sequential halving (Karnin, Koren & Somekh 2013): in ceil(log2 n)
    phases each choice still in gets an equal share, and the better half stays (and `focus`,
    and those `close` to the last kept). Returns (iterations done, interrupted)."""
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
            got, interrupted = run_sliced(partial(tree.run_move, m), n, slot, hooks,
                                           tree.root_stats, count)
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
    less than z standard errors of the difference."""
    if z <= 0 or a[0] < 2 or b[0] < 2:
        return False
    (ma, sa), (mb, sb) = mean_stderr(*a), mean_stderr(*b)
    return mb - ma < z * math.sqrt(sa * sa + sb * sb)


register(Ismcts())
preset("classic", "ismcts", {"playout": "random", "inference": "off", "twins": False,
                             "choose": "visits", "replicates": 1, "root": "ucb",
                             "stats": "all", "endgame": False, "bracket": False,
                             "settle": "off"},
       "ISMCTS as it was before inference and safe playouts")
