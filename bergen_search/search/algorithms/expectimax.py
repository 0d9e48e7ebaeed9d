"""Determinized expectimax (`_expectimax.pyx`): each sampled world searched with every hand
in view to a depth, random playouts at the horizon; every world solved when they are few
(`search._exact_expectimax`). Root-parallel: one unit per worker."""
from __future__ import annotations

from ...constants import objective_code
from .. import backend
from ..api import (
    EXACT_WORLDS,
    MAX_DEPTH,
    MAX_PLAYOUTS,
    _Deadline,
    _exact_expectimax,
    _run_sliced,
)
from ..registry import Algorithm, Setting, register


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
        "inference": Setting(bool, False, "weigh the worlds by what the other seats' plays "
                             "say about their hands (inference.py)"),
    }

    def engine(self, sampler, objective, seed, settings):
        return backend.SEARCH.expectimax(sampler, settings["depth"], seed, objective,
                                         settings["playouts"])

    def worker(self, sampler, objective, budget, deadline, seed, settings, values=False,
               hooks=None, focus=(), memory=None):
        engine = self.engine(sampler, objective, seed, settings)
        if hooks is not None and hooks.stop is not None:
            engine.stop = hooks.stopped         # heard inside a world, too
        done, interrupted = _run_sliced(engine.run_worlds, budget, deadline, hooks,
                                        engine.root_stats, lambda: engine.worlds)
        return ([tuple(r) for r in engine.root_stats()], done, interrupted,
                {"nodes": engine.nodes})

    def exhaustive(self, info, table, budget, seconds, run, hooks):
        """Every world solved instead of sampling when they are few: at most EXACT_WORLDS
        histories, and the distinct worlds within the budget (under a time limit, as many
        as the clock allows)."""
        if table.total > EXACT_WORLDS:
            return None
        worlds = table.enumerate()
        if budget is not None and len(worlds) > budget:
            return None
        engine = self.engine(self.sampler(info, table), objective_code(run.objective),
                             run.seed, run.settings)
        if hooks is not None and hooks.stop is not None:
            engine.stop = hooks.stopped         # heard inside a world, too
        rows, done, exact, interrupted = _exact_expectimax(
            engine, info, table, worlds, run.seed, _Deadline(seconds), hooks)
        return rows, done, {"exact": exact, "worlds": done, "interrupted": interrupted,
                            "all_worlds": done == len(worlds)}


register(Expectimax())
