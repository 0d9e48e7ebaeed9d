"""Search in python-chess's engine manner: `search(info, Limits(...), seed=...)`.

The algorithms over the same exact world sampler (sampler.py) are each an `Algorithm` (its
settings, the unit of its budget, its workers, its final move) in a module of its own in
`engines/`, registered with `registry.py`; `search()` runs whichever is named through the
protocol there and holds no per-algorithm branch. The machinery they share is public, each
part in its module: `limits` (the budget, the clock, deadlines), `results` (the typed
results), `workers` (slices and stops, processes, units and their merge). The ones
registered today:

- `ismcts`, the default engine: single-observer Information Set MCTS (Cowling, Powley &
  Whitehouse 2012, "Information Set Monte Carlo Tree Search"): one tree over what the seat
  observes, a fresh world per iteration, UCB with availability counts; worlds weighted by
  inference (`inference.py`), playouts that take a match and hand the next seat none
  (`game/policy.py`, "safe"), and mirror twins as one choice. The preset `classic` is ISMCTS as
  it was before those three (uniform worlds, random playouts): every gain is measured
  against it (benchmarks/STRENGTH.md).
- `expectimax`: determinized expectimax (perfect-information Monte Carlo, Long et al. 2010,
  "Understanding the Success of Perfect Information Monte Carlo Sampling in Game Tree
  Search"): in each sampled world the hands are fixed and the reserve's contents known but not
  its order, so draws are chance nodes; averaged over worlds, with the standard error across
  worlds. When the consistent worlds are few they are all enumerated (`exact`).
- `endgame`: the exact endgame alone (the `endgame` package), which ISMCTS also tries first.

Before the lead (an empty line) nobody decides: `search()` answers there, whatever the
engine, with the hand's value (`before_lead.py`: each possible lead's exact chance times the
playouts of its deals), its forced lead as `best` when the seat leads for sure.

Values are from the side of the seat to move: with objective `points`, its expected points
until the end of the round minus the mean of the other sides'; with `match`, its
probability of winning the match.

The searches run on the compiled modules, or without them on their pure-Python twins
(`backend.SEARCH`: the same answers for the same seed and budget, slowly; the default budget
is then smaller and `info["backend"]` says "reference"); expectimax needs the core.

*ISMCTS's values*: the budget is shared by `replicates` independent trees (each its own
seed); in each, the root shares its budget between the choices by sequential halving
(`engines.ismcts.halving`; `focus` moves stay in to the end), and a final pass plays
every root move on the same worlds, each decision after it by the tree's best mean (no
exploration) and then the playout policy, with the same random numbers for every move
(`IsmctsTree.evaluate_root`): what the move is worth when the engine plays on from it. A
move's value is the mean of its replicates' pass values (`MoveValue.samples`), its
standard error their spread: it covers every noise of the search, the worlds, the
playouts and the shape of each tree, so it matches the spread over independent seeds
(`benchmarks/calibration.py`). Under a time limit the pass takes PASS_SHARE of each
replicate's share. The move chosen is the best value (setting `choose`, default "value"),
or with `choose=visits` the most visited move. `values=False` (a match's engine, which
needs the move only) skips the pass when the choice does not need it (`choose=visits`),
and the exact endgame's bracket (setting `bracket`: it is said, never played).

*Watched and stopped*: `stop` (a `threading.Event`, set by another thread) ends the search
at the next slice (STOP_SLICE_SECONDS; a final pass already running is finished first) and
keeps what was found, as Ctrl-C does (`info["interrupted"]`; no final pass once stopped).
`on_info`, a callable, is given after every slice (and as each replicate finishes) a dict:
`iterations` (or worlds) so far, `seconds`, `speed` (per second), and once the root has
statistics `best`, `value`, `stderr` and `moves` (`MoveValue`s ranked as the result will
be). With replicates (ISMCTS), those are the result's estimator on the replicates finished
so far (`trees` of them: each value their mean, its error their spread, given once as many
have finished as the budget's search pools, `replicates`), so that the error printed holds
at every moment; before the first has finished, the means of the tree being grown, with no
error (`trees` 0); `running`: the iterations of the replicate being searched. Both run the
search in slices of STOP_SLICE_SECONDS, which leaves the result of an iteration budget
unchanged, and need `workers=1`.

*Without an end*: `until_stopped` (a replicated engine, with `stop`, no time limit) grows
replicates of one size, `limits.iterations` (default: the default budget) shared as
`replicates` would share it, one after the other until `stop`, up to MAX_REPLICATES of them
(then it ends by itself), and pools them all: stopped after k finished (one stopped part way
left out), its result is the search of k replicates of that size (`--set replicates=k`, the
iterations k times the size), the same seed.

>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.information.infoset import from_position
>>> info = from_position(position_from_flags(hand="0-3 1-2 2-5 5-6",
...     line="1-1 1-4 4-4 4-6 6-3", hand_sizes="4,5", scores="4,7"))
>>> result = search(info, Limits(iterations=2000), seed=1)
>>> result.best in [m.move for m in result.moves]
True
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
from .results import MoveValue, SearchInfo, SearchResult, choices, paired_stderr, pool, rank
from .workers import Hooks, Job, UnitPool, run_jobs

#: What the rest of the package reads here: the search, its limits and results, and the
#: registry's lookups (their own modules hold them; these are the same objects).
__all__ = ["Algorithm", "DEFAULT_MEMORY_MB", "Limits", "MAX_ITERATIONS", "MAX_MEMORY_MB",
           "MAX_REPLICATES", "MAX_SECONDS", "MoveValue", "REPLICATES", "SearchInfo",
           "SearchResult", "Setting", "choices", "mirror_twins", "paired_stderr", "pool",
           "Settings", "resolve", "root_moves", "search", "setting_text"]


def root_moves(info: InfoSet) -> list:
    """The seat's legal actions, in the core's order (what gen_moves gives at the root)."""
    if not info.line:
        raise BergenError("the lead is forced: nothing to search")
    return actions(info.rules, info.hand, info.left, info.right, info.reserve_size,
                   info.draws_this_turn)


def mirror_twins(info: InfoSet) -> dict:
    """{move: the move it mirrors} for the seat's root plays (`state.mirror_twins`): the two
    lead to the same position up to the mirror, so they are one choice."""
    return state_mirror_twins(info.left, info.right, info.left_double, info.right_double,
                              root_moves(info))


def search(info: InfoSet, limits: Limits | None = None, *, settings: Settings | None = None,
           seed: int = 0, algorithm: str | None = None, objective: str = "points",
           workers: int = 1, values: bool = True, focus=(), stop=None, on_info=None,
           until_stopped: bool = False, **given) -> SearchResult:
    """Rank every legal move of the seat to move in `info`.

    `settings`: a `registry.Settings` (`Settings.of("expectimax", {"depth": 2})`: the engine
    or preset and its settings, checked once), which the layers above pass whole; or, for a
    caller at hand, `algorithm` (None: the default engine, ISMCTS; "expectimax"; a preset
    such as "classic") and the engine's settings as keywords
    (`registry.algorithms()[name].settings`; an unknown one is an error). Same seed and same
    iteration budget: the same result, byte for byte, with any number of `workers` for
    ISMCTS (its replicates are the units the processes share) and with the same number for
    expectimax (root-parallel). With a time limit the result depends on the machine's speed.
    Mirror twins (`mirror_twins`) get equal values, the twin at the right end listed after
    the one at the left, `MoveValue.twin` naming it. `values`: the caller reads the values,
    not only the move (False: a match's engine, which the engine may spare what only a
    reader of values needs).

    ISMCTS's values (its replicates, the final pass, the move chosen), a search watched or
    stopped (`stop`, `on_info`) and one without an end (`until_stopped`): the module's doc.
    """
    t0, limits = now(), limits or Limits()
    if settings is None:
        settings = Settings.of(algorithm, given)
    elif algorithm is not None or given:
        raise TypeError("search() takes `settings`, or `algorithm` and its settings: not both")
    alg, be, full = settings.engine, backend.SEARCH, dict(settings)
    _check(settings, be, objective=objective, workers=workers, until_stopped=until_stopped,
           stop=stop, limits=limits)
    # An algorithm may solve the whole search at once (the exact endgame; ISMCTS tries it
    # first when its setting `endgame` is on), leave notes and new limits, or an answer still
    # to come (a solve beside the units, heard through their stop and reports).
    run = SearchRun(algorithm=settings.algorithm, seed=seed, objective=objective,
                    settings=dict(full), workers=workers, stop=stop, on_info=on_info,
                    started=t0, backend=be, values=values)
    if not info.line:                   # before the lead: the hand's value (before_lead.py)
        return search_before_lead(info, limits, run, until_stopped)
    solved = alg.solve(info, limits, run)
    if solved.result is not None:
        return solved.result
    later = solved.later
    if later is not None:
        stop, on_info = later.stop, later.on_info
    limits = solved.limits if solved.limits is not None else limits
    budget, lead = _budget(limits, alg, be), not info.line
    twins = mirror_twins(info) if alg.folds_twins(full) else {}
    table = alg.table(info, full)
    units = UnitPool(alg, root_moves(info), twins, lead, whole=until_stopped)
    hooks = _hooks(units, full, stop, on_info, workers)
    result_info: SearchInfo = {
        "algorithm": settings.algorithm, "objective": objective, "seed": seed,
        "backend": be.name, "workers": workers, "worlds_consistent": table.histories,
        "exact": False, "settings": dict(full), "values": {"method": "search"},
        "twins": {Move.from_code(m, lead): Move.from_code(t, lead) for m, t in twins.items()}}
    # What is left of the time limit once the table is built.
    seconds = None if limits.time is None else max(limits.time - (now() - t0), 0.001)
    samples: dict = {}
    interrupted = None              # (a Ctrl-C inside the search: None)
    try:
        # Every world solved instead of sampling, when the algorithm does that (expectimax,
        # when the worlds are few); else units of work.
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
            # (a Ctrl-C outside a unit's own search too: between them, or while one was set up)
            result_info.update(found)
            result_info["interrupted"] = units.interrupted or interrupted
            result_info.update(alg.summary(units.extra, limits))
    finally:
        if later is not None:
            # The answer still to come, waited for (a stop or Ctrl-C stops it too): when it
            # solved, it is the result, as it would have been had it run first.
            solved = later.finish(stopped=interrupted is not False)
    if solved.result is not None:
        return solved.result
    # The final policy: the most visited move (the robust child) or the best value (read
    # from a value pass, when one measured it); a twin right after the move it mirrors.
    mv = rank(rows, twins, alg.by_visits and not (alg.value_pass(full) and units.measured.units),
              lead, samples=samples)
    best = mv[0]
    # Nothing finished (a world longer than the time limit, or a stop at once): the values
    # are no answer, and `empty` says so (the callers say it to the user).
    result_info["iterations"], result_info["empty"] = done, done == 0
    result_info["seconds"] = now() - t0
    result_info.update(solved.info)
    result_info["interrupted"] = result_info.get("interrupted", False) or solved.interrupted
    visits = sum(x.visits for x in mv if x.twin is None) if alg.by_visits else done
    return SearchResult(best.move, mv, best.value, best.stderr, visits, result_info)


def _budget(limits: Limits, alg: Algorithm, be) -> int | None:
    """The iterations a search may spend: its limit's, or with neither iterations nor time
    given, the algorithm's default budget on this backend."""
    if limits.iterations is None and limits.time is None:
        return be.budget(alg.default_budget)
    return limits.iterations


def _hooks(units: UnitPool, full: dict, stop, on_info, workers: int) -> Hooks | None:
    """The hooks of a search that can be stopped or watched (None: neither), ranked as the
    result will be (the best value, unless `choose=visits`), reporting from the search's
    pool of `units`."""
    if stop is None and on_info is None:
        return None
    if workers != 1:
        raise BergenError("a search that can be stopped or watched (stop, on_info) runs "
                          "with one worker", field="workers")
    alg = units.engine
    return Hooks(stop, on_info, units, by_visits=alg.by_visits and not alg.value_pass(full),
                 min_trees=max(2, alg.units(full, 1)))


def _check(settings: Settings, be, *, objective, workers: int, until_stopped: bool, stop,
           limits: Limits) -> None:
    """The search's arguments checked against its engine and backend (BergenError naming the
    argument)."""
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
    """The search's units of work (ISMCTS's replicates, each its own tree and seed;
    expectimax's root-parallel workers), each its share of the budget, spread over the
    processes round robin: a `Job` per process."""
    units = alg.units(job.settings, workers)
    if budget is not None:
        units = min(units, budget)
    if until_stopped:
        # Replicates of one size, one after the other, each its own seed as a search of
        # that many replicates would give it.
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
    """The units of a search until stopped: `count` replicates of `size` iterations, the
    u-th seeded `derive_seed(seed, u)`, made as they are asked for."""

    def __init__(self, size: int, seed: int, count: int):
        self.size, self.seed, self.count = size, seed, count

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        return ((self.size, derive_seed(self.seed, u)) for u in range(self.count))
