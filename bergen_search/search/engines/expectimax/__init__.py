"""Determinized expectimax (`_expectimax.pyx`; Long et al. 2010): each sampled world searched
with every hand in view to a depth, random playouts at the horizon; every world solved when
they are few (`exact_expectimax`). One unit per worker."""
from __future__ import annotations

import math

from ....constants import REPLICATE_STREAM, objective_code
from ....game.rng import Rng, derive_seed
from ....stats import weighted_sample_mean
from ... import backend
from ...api import root_moves
from ...limits import STOP_SLICE_SECONDS, Deadline, now
from ...registry import Algorithm, Setting, inference_setting, register
from ...results import Exhaustive, UnitOutput
from ...workers import run_sliced

#: The worlds are enumerated when their histories number at most this many (and fit the budget).
EXACT_WORLDS = 2000
MAX_DEPTH = 200
MAX_PLAYOUTS = 1000
#: One world's work budget (`_expectimax.DEFAULT_MAX_WORK`: about 0.02 s), and its most.
DEFAULT_WORK = 1_000_000
MAX_WORK = 10 ** 15
#: Enumerated worlds that reached a horizon are solved again until the playouts' variance
#: has this many degrees of freedom (worlds x (solves - 1)).
MIN_REPLICATE_DOF = 8


class Expectimax(Algorithm):
    name = "expectimax"
    help = "determinized expectimax, every hand in view in each world"
    order = 1
    unit = "worlds"
    default_budget = 200
    match_budget = 64
    value_meaning = "each world solved with every hand in view"
    needs_core = True
    settings = {
        "depth": Setting(int, 6, "actions searched before the horizon", minimum=1,
                         maximum=MAX_DEPTH),
        "playouts": Setting(int, 2, "random playouts per horizon leaf", minimum=1,
                            maximum=MAX_PLAYOUTS),
        "work": Setting(int, DEFAULT_WORK, "one world's work budget (nodes and horizon "
                        "playout actions): a world whose search at `depth` passes it is valued "
                        "at the deepest depth that fits as much again (0: none, every world to "
                        "`depth`)", minimum=0, maximum=MAX_WORK),
        "inference": inference_setting("off"),
    }

    def empty_advice(self, settings):
        return (f" (expectimax at depth {settings['depth']}: one world takes longer here); "
                f"give more --time or a smaller --depth")

    def engine(self, sampler, objective, seed, settings, hooks):
        search_class = backend.SEARCH.pick(f"{__name__}._expectimax.ExpectimaxSearch")
        engine = search_class(sampler, settings["depth"], seed, objective, settings["playouts"],
                              max_work=settings["work"])
        if hooks is not None and hooks.stop is not None:
            engine.stop = hooks.stopped         # heard inside a world, too
        return engine

    def worker(self, job, sampler, budget, seed, deadline, *, hooks=None, account=None):
        engine = self.engine(sampler, job.objective, seed, job.settings, hooks)

        def run(n, seconds):
            # A world outlasting the slice is finished (a stop, Ctrl-C and the search's own
            # deadline are heard inside it): dropped at the slice's end, it would be started
            # afresh by every slice and never finish.
            left = deadline.left()
            return engine.run_worlds(n, seconds,
                                     world_seconds=0 if left is None else max(left, 1e-6))

        done, interrupted = run_sliced(run, budget, deadline, hooks, engine.root_stats,
                                       lambda: engine.worlds)
        return UnitOutput(stats=[tuple(r) for r in engine.root_stats()], done=done,
                          interrupted=interrupted, nodes=engine.nodes,
                          extra={"shallower": engine.cut})

    def fold(self, into, extra):
        """The worlds valued shallower than `depth` (one world's work budget), summed."""
        into["shallower"] = into.get("shallower", 0) + extra.get("shallower", 0)

    def summary(self, folded, limits):
        return {"shallower": folded["shallower"]} if folded.get("shallower") else {}

    def exhaustive(self, info, table, budget, seconds, run, hooks):
        """Every world solved when they are few (EXACT_WORLDS) and within the budget."""
        if table.total > EXACT_WORLDS:
            return None
        worlds = table.enumerate()
        if budget is not None and len(worlds) > budget:
            return None
        engine = self.engine(self.sampler(info, table), objective_code(run.objective),
                             run.seed, run.settings, hooks)
        rows, done, exact, interrupted = exact_expectimax(
            engine, info, table, worlds, run.seed, Deadline(seconds), hooks=hooks)
        return Exhaustive(rows, done, {"exact": exact, "worlds": done,
                                       "interrupted": interrupted,
                                       "all_worlds": done == len(worlds),
                                       **({"shallower": engine.cut} if engine.cut else {})})


def exact_expectimax(engine, info, table, worlds, seed, deadline: Deadline, *, hooks=None):
    """Every consistent world, weighted by its probability, solved by `engine` in a seeded order
    (cut short: the mean over those solved), again while a horizon was reached (until
    MIN_REPLICATE_DOF). Returns (rows (move, worlds, value, stderr), solved, exact, interrupted)."""
    worlds = sorted(worlds.items())
    order = list(range(len(worlds)))
    Rng(derive_seed(seed, len(worlds))).shuffle(order)
    moves = root_moves(info)

    def sampled_rows(values):
        solved = sorted(values)
        return [(m, len(solved), *weighted_sample_mean(
            [(worlds[i][1], values[i][j]) for i in solved], len(worlds)))
            for j, m in enumerate(moves)]

    def solve(replicate):
        values, interrupted = {}, False
        heard = now()
        try:
            for i in order:
                if hooks is not None and values and \
                        now() - heard >= STOP_SLICE_SECONDS:
                    heard = now()
                    hooks.sliced(len(values) + replicate * len(worlds),
                                 rows=lambda: sampled_rows(values))
                if hooks is not None and hooks.stopped():
                    interrupted = True
                    break
                left = deadline.left()
                if left is not None and left <= 0:
                    break
                (hands, reserve), _ = worlds[i]
                v = engine.run_world(hands, list(reserve),
                                     seed=derive_seed(seed, i + replicate * REPLICATE_STREAM),
                                     seconds=0 if left is None else left)
                if v is None:           # the clock, or a stop, inside the world
                    interrupted = hooks is not None and hooks.stopped()
                    break
                values[i] = v
        except KeyboardInterrupt:
            interrupted = True
        return values, interrupted

    values, interrupted = solve(0)
    n, size = len(values), len(worlds)
    if n == 0:
        return [(m, 0, 0.0, math.inf) for m in moves], 0, False, interrupted
    if n < size or engine.horizons == 0:
        return sampled_rows(values), n, n == size and engine.horizons == 0, interrupted
    # Horizons were reached: solved again (so that an error of 0 cannot come of two playouts
    # agreeing by chance).
    rounds = max(2, 1 + math.ceil(MIN_REPLICATE_DOF / size))
    solves = [values]
    while len(solves) < rounds and not interrupted:
        again, interrupted = solve(len(solves))
        if len(again) < size:
            break
        solves.append(again)
    total, k = sum(w for _, w in worlds), len(solves)
    solved, rows = sorted(values), []
    for j, m in enumerate(moves):
        per = {i: [v[i][j] for v in solves] for i in solved}
        mean = sum(worlds[i][1] * sum(per[i]) / k for i in solved) / total
        if k < 2:
            rows.append((m, n, mean, math.inf))
            continue
        var = 0.0
        for i in solved:
            mu = sum(per[i]) / k
            var += worlds[i][1] ** 2 * sum((x - mu) ** 2 for x in per[i]) / (k - 1) / k
        rows.append((m, n, mean, math.sqrt(var) / total))
    return rows, n, False, interrupted


register(Expectimax())
