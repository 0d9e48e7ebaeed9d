"""`search(info, Limits(...), seed=...)`: every legal move of the seat to move ranked by the
engine named (an `Algorithm` of the registry; no per-algorithm branch here). Values are from
the side of the seat to move: its expected margin to the end of the round (objective
`points`) or its probability of winning the match (`match`). Before the lead the answer is
the hand's value (`before_lead.py`). docs/GUIDE.md and docs/API.md say more.

>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.information.infoset import from_position
>>> info = from_position(position_from_flags(hand="0-3 1-2 2-5 5-6",
...     line="1-1 1-4 4-4 4-6 6-3", hand_sizes="4,5", scores="4,7"))
>>> result = search(info, Limits(iterations=2000), seed=1)
>>> result.best, result.moves[0].code == result.best.code
(Move.parse('0-3:R'), True)
"""
from __future__ import annotations

import dataclasses

from ..constants import MAX_SECONDS, OBJECTIVES, objective_code
from ..errors import BergenError
from ..formats.notation import Move
from ..game.rng import derive_seed
from ..game.state import actions
from ..game.state import mirror_twins as state_mirror_twins
from ..information.infoset import InfoSet
from . import backend
from .before_lead import search_before_lead
from .limits import (
    DEFAULT_MEMORY_MB,
    MAX_ITERATIONS,
    MAX_MEMORY_MB,
    MAX_REPLICATES,
    REPLICATES,
    Limits,
    now,
)
from .registry import (Algorithm, SearchRun, Setting, Settings, Solved, default_engine, presets,
                       resolve, setting_text)
from .results import (MoveValue, SearchInfo, SearchResult, choices, paired, paired_stderr, pool,
                      rank)
from .workers import Hooks, Job, UnitPool, run_jobs

#: What the rest of the package reads here.
__all__ = ["Algorithm", "DEFAULT_MEMORY_MB", "Limits", "MAX_ITERATIONS", "MAX_MEMORY_MB",
           "MAX_REPLICATES", "MAX_SECONDS", "MoveValue", "REPLICATES", "SearchInfo",
           "SearchResult", "Setting", "choices", "mirror_twins", "paired", "paired_stderr", "pool",
           "Settings", "resolve", "root_moves", "search", "setting_text"]


def root_moves(info: InfoSet) -> list:
    """The seat's legal actions, in the core's order."""
    if not info.line:
        raise BergenError("the lead is forced: nothing to search")
    return actions(info.rules, info.hand, info.left, info.right, info.reserve_size,
                   info.draws_this_turn)


def mirror_twins(info: InfoSet) -> dict:
    """{move: the move it mirrors} for the seat's root plays (`state.mirror_twins`)."""
    return state_mirror_twins(info.left, info.right, info.left_double, info.right_double,
                              root_moves(info))


def search(info: InfoSet, limits: Limits | None = None, *, settings: Settings | None = None,
           seed: int = 0, algorithm: str | None = None, objective: str = "points",
           workers: int = 1, values: bool = True, focus=(), stop=None, on_info=None,
           until_stopped: bool = False, **given) -> SearchResult:
    """Rank every legal move of the seat to move in `info`, with `settings` (or `algorithm` and
    its settings as keywords); same seed and budget, the same result with any number of
    `workers` for ISMCTS. `stop` (an Event) ends it at the next slice, keeping what was found;
    `on_info` hears progress after every slice; `until_stopped`: deepens (an engine that
    deepens) or grows replicates until `stop`."""
    t0, limits = now(), limits or Limits()
    if settings is None:
        settings = Settings.of(algorithm, given)
    elif algorithm is not None or given:
        raise TypeError("search() takes `settings`, or `algorithm` and its settings: not both")
    alg, be, full = settings.engine, backend.SEARCH, dict(settings)
    _check(settings, be, objective=objective, workers=workers, until_stopped=until_stopped,
           stop=stop, limits=limits)
    if until_stopped and alg.deepens(full):
        return _deepening(info, Limits(iterations=_budget(limits, alg, be),
                                       memory_mb=limits.memory_mb),
                          settings, seed=seed, objective=objective, values=values,
                          focus=focus, stop=stop, on_info=on_info)
    run = SearchRun(algorithm=settings.algorithm, seed=seed, objective=objective,
                    settings=dict(full), workers=workers, stop=stop, on_info=on_info,
                    started=t0, backend=be, values=values)
    if not info.line:
        return search_before_lead(info, limits, run, until_stopped)
    solved = alg.solve(info, limits, run)
    if solved.result is not None:
        return solved.result
    later = solved.later
    if later is not None:
        stop, on_info = later.stop, later.on_info
    limits = solved.limits if solved.limits is not None else limits
    budget = _budget(limits, alg, be)
    twins = mirror_twins(info) if alg.folds_twins(full) else {}
    table = alg.table(info, full)
    units = UnitPool(alg, root_moves(info), twins, whole=until_stopped)
    hooks = _hooks(units, full, stop, on_info, workers)
    result_info: SearchInfo = {
        "algorithm": settings.algorithm, "objective": objective, "seed": seed,
        "backend": be.name, "workers": workers, "worlds_consistent": table.histories,
        "exact": False, "settings": dict(full), "values": {"method": "search"},
        "twins": {Move.from_code(m): Move.from_code(t) for m, t in twins.items()}}
    seconds = None if limits.time is None else max(limits.time - (now() - t0), 0.001)
    samples: dict = {}
    interrupted = None              # (a Ctrl-C inside the search: None)
    try:
        whole = alg.exhaustive(info, table, budget, seconds, run, hooks)
        if whole is not None:
            rows, done = whole.rows, whole.done
            result_info.update(whole.info)
            interrupted = bool(whole.info.get("interrupted"))
        else:
            job = Job(info=info, table=table, engine=alg.name, objective=objective_code(objective),
                      settings=full, values=values, focus=tuple(focus),
                      memory=limits.memory_bytes)
            interrupted = run_jobs(_jobs(job, alg, budget=budget, seconds=seconds, seed=seed,
                                         workers=workers, until_stopped=until_stopped),
                                   units, hooks)
            rows, samples, found = units.merged()
            done = units.done
            result_info.update(found)
            result_info["interrupted"] = units.interrupted or interrupted
            result_info.update(alg.summary(units.extra, limits))
    finally:
        if later is not None:
            solved = later.finish(stopped=interrupted is not False)
    if solved.result is not None:
        return solved.result
    mv = rank(rows, twins, alg.by_visits and not (alg.value_pass(full) and units.measured.units),
              samples=samples)
    if whole is None:
        mv, more = alg.finish(mv, units.extra, full)
        result_info.update(more)
    best = mv[0]
    result_info["iterations"], result_info["empty"] = done, done == 0
    result_info["seconds"] = now() - t0
    result_info.update(solved.info)
    result_info["interrupted"] = result_info.get("interrupted", False) or solved.interrupted
    visits = sum(x.visits for x in mv if x.twin is None) if alg.by_visits else done
    return SearchResult(best.move, mv, best.value, best.stderr, visits, result_info)


def _deepening(info, limits: Limits, settings: Settings, *, seed, objective, values, focus,
               stop, on_info) -> SearchResult:
    """Searches of `limits.iterations` times 1, 2, 4, ... of the same seed, until one is exact or
    the next would pass MAX_ITERATIONS; stopped, the last that finished (or the first so far).
    Reports: the first search's own, then the last finished answer's (`running`: the iterations
    of the one under way; `deepening`: its budget)."""
    t0, last = now(), None
    size = limits.iterations or 1

    def answer(res: SearchResult, **more) -> dict:
        return {"iterations": res.info["iterations"], "seconds": now() - t0,
                "trees": res.info.get("replicates") or 0, "best": res.best, "value": res.value,
                "stderr": res.stderr, "moves": res.moves, "settled": res.info.get("settled"),
                **more}
    while True:
        def report(progress, size=size):
            on_info(progress if last is None else
                    answer(last, running=progress["iterations"], deepening=size))
        res = search(info, dataclasses.replace(limits, iterations=size), settings=settings,
                     seed=seed, objective=objective, values=values, focus=focus, stop=stop,
                     on_info=report if on_info is not None else None)
        if res.info.get("interrupted") or stop.is_set():
            if last is None or not res.info.get("interrupted"):
                last = res
            break
        last = res
        if on_info is not None:
            on_info(answer(res, running=0, **({"exact": True} if res.info["exact"] else {})))
        if res.info["exact"] or 2 * size > MAX_ITERATIONS:
            break
        size *= 2
    return last


def _budget(limits: Limits, alg: Algorithm, be) -> int | None:
    """The iterations a search may spend (None: the clock's)."""
    if limits.iterations is None and limits.time is None:
        return be.budget(alg.default_budget)
    return limits.iterations


def _hooks(units: UnitPool, full: dict, stop, on_info, workers: int) -> Hooks | None:
    if stop is None and on_info is None:
        return None
    if workers != 1:
        raise BergenError("a search that can be stopped or watched (stop, on_info) runs "
                          "with one worker", field="workers")
    alg = units.engine
    return Hooks(stop, on_info, units, by_visits=alg.by_visits and not alg.value_pass(full),
                 min_trees=max(2, alg.units(full, 1)), settings=full)


def _check(settings: Settings, be, *, objective, workers: int, until_stopped: bool, stop,
           limits: Limits) -> None:
    alg = settings.engine
    if alg.needs_core and be.name != "core":
        default = default_engine()
        names = " or ".join([default] + [p for p, (base, _) in presets().items()
                                         if base == default])
        raise BergenError(f"{settings.algorithm} needs the compiled core, and the searches run "
                          f"in pure Python ({be.why}); use {names}, or build the core "
                          f"(pip install .)", field="algorithm")
    if not isinstance(objective, str):
        raise BergenError(f"objective must be one of {', '.join(OBJECTIVES)}, got "
                          f"{objective!r}", field="objective")
    objective_code(objective)
    if workers < 1:
        raise BergenError(f"workers must be at least 1, got {workers}", field="workers")
    if until_stopped and (not alg.replicated or stop is None or limits.time is not None
                          or workers != 1):
        raise BergenError("a search until stopped needs an engine with replicates, a stop, "
                          "one worker and no time limit", field="until_stopped")


def _jobs(job: Job, alg: Algorithm, *, budget, seconds, seed: int, workers: int,
          until_stopped: bool) -> list:
    """A `Job` per process: the units of work, each its share of the budget, dealt round robin."""
    units = alg.units(job.settings, workers)
    if budget is not None:
        units = min(units, budget)
    if until_stopped:
        size = max(budget // units, 1)
        return [dataclasses.replace(job, units=_Replicates(size, seed, MAX_REPLICATES))]
    shares = [None if budget is None else budget // units + (u < budget % units)
              for u in range(units)]
    seeds = [seed] if units == 1 else [derive_seed(seed, u) for u in range(units)]
    procs = min(workers, units)
    return [dataclasses.replace(job, units=[(shares[u], seeds[u]) for u in range(w, units, procs)],
                                seconds=seconds)
            for w in range(procs)]


class _Replicates:
    """`count` replicates of `size` iterations, the u-th seeded `derive_seed(seed, u)`."""

    def __init__(self, size: int, seed: int, count: int):
        self.size, self.seed, self.count = size, seed, count

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        return ((self.size, derive_seed(self.seed, u)) for u in range(self.count))
