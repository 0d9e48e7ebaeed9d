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
  (`_policy.pyx`, "safe"), and mirror twins as one choice. The preset `classic` is ISMCTS as
  it was before those three (uniform worlds, random playouts): every gain is measured
  against it (benchmarks/STRENGTH.md).
- `expectimax`: determinized expectimax (perfect-information Monte Carlo, Long et al. 2010,
  "Understanding the Success of Perfect Information Monte Carlo Sampling in Game Tree
  Search"): in each sampled world the hands are fixed and the reserve's contents known but not
  its order, so draws are chance nodes; averaged over worlds, with the standard error across
  worlds. When the consistent worlds are few they are all enumerated (`exact`).
- `endgame`: the exact endgame alone (the `endgame` package), which ISMCTS also tries first.

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
import threading

from ..constants import MAX_SECONDS, OBJECTIVES, objective_code
from ..errors import BergenError
from ..formats.notation import Move
from ..game.rng import derive_seed
from ..game.state import actions
from ..game.state import mirror_twins as state_mirror_twins
from ..information.infoset import InfoSet
from ..runs.threads import QuietThread
from . import backend
from .limits import (
    DEFAULT_MEMORY_MB,
    MAX_ITERATIONS,
    MAX_MEMORY_MB,
    MAX_REPLICATES,
    REPLICATES,
    STOP_SLICE_SECONDS,
    Limits,
    now,
)
from .registry import (Algorithm, SearchRun, Setting, Settings, Solved, listed, resolve,
                       setting_text)
from .results import MoveValue, SearchInfo, SearchResult, choices, paired_stderr, pool, rank
from .workers import Job, Hooks, UnitPool, merge_units, run_jobs

#: What the rest of the package reads here: the search, its limits and results, and the
#: registry's lookups (their own modules hold them; these are the same objects).
__all__ = ["Algorithm", "DEFAULT_MEMORY_MB", "Limits", "MAX_ITERATIONS", "MAX_MEMORY_MB",
           "MAX_REPLICATES", "MAX_SECONDS", "MoveValue", "REPLICATES", "SearchInfo",
           "SearchResult", "Setting", "choices", "listed", "mirror_twins", "paired_stderr", "pool",
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
    caller at hand, `algorithm` ("ismcts", the default engine; "expectimax"; a preset such
    as "classic") and the engine's settings as keywords
    (`registry.algorithms()[name].settings`; an unknown one is an error). Same seed and same
    iteration budget: the same result, byte for byte, with any number of `workers` for
    ISMCTS (its replicates are the units the processes share) and with the same number for
    expectimax (root-parallel). With a time limit the result depends on the machine's speed.
    Mirror twins (`mirror_twins`) get equal values, the twin at the right end listed after
    the one at the left, `MoveValue.twin` naming it.

    ISMCTS's values (its replicates, the final pass, the move chosen) and a search watched
    or stopped (`stop`, `on_info`): the module's doc.

    `until_stopped` (a replicated engine, with `stop`, no time limit): a search without an
    end, which grows replicates of one size, `limits.iterations` (default: the default
    budget) shared as `replicates` would share it, one after the other until `stop`, up to
    MAX_REPLICATES of them (then it ends by itself), and pools them all: stopped after k
    finished (one stopped part way left out), its result is the search of k replicates of
    that size (`--set replicates=k`, the iterations k times the size), the same seed.
    """
    t0 = now()
    limits = limits or Limits()
    if settings is None:
        settings = Settings.of(algorithm or "ismcts", given)
    elif algorithm is not None or given:
        raise TypeError("search() takes `settings`, or `algorithm` and its settings: not both")
    alg, be = settings.engine, backend.SEARCH
    full = _checked(settings, alg, be, values, objective, workers, until_stopped, stop, limits)
    # The expected lines: for a caller that reads values, never a match's move (its clock).
    lines = values and alg.lines
    values = values or alg.value_pass(full)
    # An algorithm may solve the whole search at once (the exact endgame; ISMCTS tries it
    # first when its setting `endgame` is on), or leave notes and new limits.
    run = SearchRun(settings.algorithm, seed, objective, dict(full), workers, stop, on_info,
                    t0, be)
    beside = None
    if on_info is not None and alg.solve_beside and workers == 1:
        # A live search (watched through on_info): the attempt runs on a thread of its own
        # while the search streams its first ranked moves at once; its answer, when it
        # solves, ends the search and is the result. (Such an algorithm searches in units,
        # never `exhaustive`: the units' run below waits for the attempt.)
        beside = Beside(alg, info, limits, run)
        stop, on_info = beside.stop, beside.on_info
        solved = Solved(limits=limits)
    else:
        solved = alg.solve(info, limits, run)
        if solved.result is not None:
            return solved.result
    limits = solved.limits if solved.limits is not None else limits
    budget = _budget(limits, alg, be)
    moves = root_moves(info)
    twins = mirror_twins(info) if alg.folds_twins(full) else {}
    table = alg.table(info, full)
    lead = not info.line
    hooks = _hooks(alg, full, stop, on_info, workers, moves, twins, lead, until_stopped)
    result_info: SearchInfo = {
        "algorithm": settings.algorithm, "objective": objective, "seed": seed,
        "backend": be.name, "workers": workers, "worlds_consistent": table.histories,
        "exact": False, "settings": dict(full), "values": {"method": "search"},
        "twins": {Move.from_code(m, lead): Move.from_code(t, lead) for m, t in twins.items()}}
    if table.resampled is not None:
        result_info["resampled"] = dict(table.resampled)
    # What is left of the time limit once the table is built.
    seconds = None if limits.time is None else max(limits.time - (now() - t0), 0.001)
    samples = {}
    # Every world solved instead of sampling, when the algorithm does that (expectimax, when
    # the worlds are few).
    whole = alg.exhaustive(info, table, budget, seconds, run, hooks)
    if whole is not None:
        rows, done = whole.rows, whole.done
        result_info.update(whole.info)
    else:
        plan = _Plan(info, table, alg, objective_code(objective), full, values, tuple(focus),
                     limits, lines, seed, workers)
        got = _in_units(plan, budget, seconds, until_stopped, hooks, beside, moves, twins,
                        lead, result_info)
        if got.result is not None:
            return got.result
        rows, done, samples, solved = got.rows, got.done, got.samples, got.solved or solved
    # The final policy: the most visited move (the robust child) or the best value; a twin
    # goes right after the move it mirrors.
    mv = rank(rows, twins, alg.by_visits and not (
        alg.value_pass(full) and result_info["values"]["method"] == "pass"),
        lead, samples)
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


def _hooks(alg: Algorithm, full: dict, stop, on_info, workers: int, moves, twins, lead: bool,
           until_stopped: bool = False):
    """The hooks of a search that can be stopped or watched (None: neither), ranked as the
    result will be (the best value, unless `choose=visits`), from the replicates finished so
    far when there are replicates; `until_stopped`: the answer is the finished ones' alone."""
    if stop is None and on_info is None:
        return None
    if workers != 1:
        raise BergenError("a search that can be stopped or watched (stop, on_info) runs "
                          "with one worker", field="workers")
    return Hooks(stop, on_info, moves, twins, lead, alg.by_visits and not alg.value_pass(full),
                 pool=UnitPool(moves, twins, True) if alg.replicated else None,
                 min_trees=max(2, alg.units(full, 1)), whole=until_stopped)


def _checked(settings: Settings, alg: Algorithm, be, values: bool, objective, workers: int,
             until_stopped: bool, stop, limits: Limits) -> dict:
    """The search's arguments checked against its engine and backend (BergenError naming the
    argument); the engine's full settings as the search runs them (a match's engine, which
    needs the move only, runs without the bracket: it is said, never played)."""
    if alg.needs_core and be.name != "core":
        raise BergenError(f"{settings.algorithm} needs the compiled core, and the searches run "
                          f"in pure Python ({be.why}); use ismcts or classic, or build the core "
                          f"(pip install .)", field="algorithm")
    full = dict(settings)
    if not values and alg.bracket_setting and full[alg.bracket_setting]:
        full[alg.bracket_setting] = False
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
    return full


@dataclasses.dataclass(frozen=True)
class _Plan:
    """What every unit of a search is given (`_in_units`)."""
    info: InfoSet
    table: object
    alg: Algorithm
    obj: int
    settings: dict
    values: bool
    focus: tuple
    limits: Limits
    lines: bool
    seed: int
    workers: int


@dataclasses.dataclass(frozen=True)
class _Units:
    """What the units of a search found (`_in_units`): the merged `rows`, the iterations
    `done` and the replicates' `samples`; or the `result` of the attempt run beside them
    when it solved (`solved`: its answer either way)."""
    rows: list = dataclasses.field(default_factory=list)
    done: int = 0
    samples: dict = dataclasses.field(default_factory=dict)
    solved: Solved | None = None
    result: SearchResult | None = None


def _in_units(plan: _Plan, budget, seconds, until_stopped: bool, hooks, beside, moves, twins,
              lead: bool, result_info: SearchInfo) -> _Units:
    """The units of work (ISMCTS's replicates, each its own tree and seed; expectimax's
    root-parallel workers), spread over the processes round robin, run and merged;
    `result_info` gains what they report."""
    alg, seed = plan.alg, plan.seed
    units = alg.units(plan.settings, plan.workers)
    if budget is not None:
        units = min(units, budget)
    if until_stopped:
        # Replicates of one size, one after the other, each its own seed as a search of
        # that many replicates would give it.
        size = max(budget // units, 1)
        units, procs = MAX_REPLICATES, 1
        jobs = [Job(plan.info, plan.table, alg.name, plan.obj, _Replicates(size, seed, units),
                    None, plan.settings, plan.values, plan.focus, plan.limits.memory_bytes,
                    plan.lines)]
    else:
        shares = [None if budget is None else budget // units + (u < budget % units)
                  for u in range(units)]
        seeds = [seed] if units == 1 else [derive_seed(seed, u) for u in range(units)]
        procs = min(plan.workers, units)
        jobs = [Job(plan.info, plan.table, alg.name, plan.obj,
                    [(shares[u], seeds[u]) for u in range(w, units, procs)],
                    seconds, plan.settings, plan.values, plan.focus, plan.limits.memory_bytes,
                    plan.lines)
                for w in range(procs)]
    finished = None
    solved = None
    try:
        finished = run_jobs(jobs, hooks)
    finally:
        if beside is not None:
            # The attempt's answer, waited for (a stop or Ctrl-C stops it too): when it
            # solved, it is the result, as it would have been had it run first.
            solved = beside.finish(stopped=finished is None
                                   or any(j.interrupted for j in finished))
    if solved is not None and solved.result is not None:
        return _Units(solved=solved, result=solved.result)
    if hooks is not None and hooks.pool is not None:
        # One process, its units folded into the pool as they finished (in unit order).
        outputs = hooks.pool.outputs
        merged = hooks.pool.merged()
    else:
        # Back in unit order (process w ran units w, w + procs, ...; an interrupted one,
        # the first of them).
        flat = [None] * units
        for w, job_output in enumerate(finished):
            for u, res in zip(range(w, units, procs), job_output.outputs):
                flat[u] = res
        outputs = [r for r in flat if r is not None]
        merged = merge_units(outputs, moves, twins, replicated=alg.replicated)
    # A Ctrl-C outside a unit's own search (between them, or while one was set up).
    interrupted = merged.interrupted or any(j.interrupted for j in finished)
    result_info["nodes"], result_info["interrupted"] = merged.nodes, interrupted
    # the replicates whose values are pooled (a stopped one's are not)
    result_info["replicates"] = (merged.method.get("replicates", len(outputs))
                                 if alg.replicated else None)
    result_info.update(alg.summary(outputs, plan.limits))
    result_info["values"] = merged.method
    if merged.sides:
        # Each side's expected outcome after each root move, under the search's play
        # (from the final pass when there was one).
        result_info["sides"] = {Move.from_code(m, lead): v for m, v in merged.sides.items()}
    return _Units(merged.rows, merged.done, merged.samples, solved)


class _Replicates:
    """The units of a search until stopped: `count` replicates of `size` iterations, the
    u-th seeded `derive_seed(seed, u)`, made as they are asked for."""

    def __init__(self, size: int, seed: int, count: int):
        self.size, self.seed, self.count = size, seed, count

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        return ((self.size, derive_seed(self.seed, u)) for u in range(self.count))


class Beside:
    """An algorithm's `solve` (ISMCTS's exact endgame attempt, `Algorithm.solve_beside`) run on
    a thread beside a live search, so that the search's first ranked moves do not wait for
    an attempt that may take seconds and then decline.

    The search hears `stop` (the caller's stop, or the attempt solved) and reports through
    `on_info` until the attempt's own report (`"exact": True`), after which nothing of the
    search is reported. `finish()` stops the attempt when the search was stopped, waits for
    it and returns its `registry.Solved`: with an iteration budget the attempt is the same
    work as when it runs first, so the result is the same whether or not the search was
    watched."""

    def __init__(self, alg: Algorithm, info: InfoSet, limits: Limits, run: SearchRun):
        assert run.on_info is not None      # a live search: watched
        self.caller_stop, self.caller_info = run.stop, run.on_info
        self.found = threading.Event()      # the attempt solved: the search is over
        self.quit = threading.Event()       # the search was stopped: so is the attempt
        self.lock = threading.Lock()
        self.solved: Solved | None = None
        self.error: BaseException | None = None
        self.stop = _Either(self.caller_stop, self.found)
        inner = dataclasses.replace(run, stop=self.quit, on_info=self._exact_info)
        self.thread = QuietThread(target=self._attempt, args=(alg, info, limits, inner),
                                  name="bergen-exact")
        self.thread.start()

    def _attempt(self, alg, info, limits, inner):
        try:
            self.solved = alg.solve(info, limits, inner)
            if self.solved.result is not None:
                self.found.set()
        except BaseException as e:       # raised again in the search's thread
            self.error = e

    def _exact_info(self, progress: dict):
        with self.lock:
            self.found.set()
            self.caller_info({**progress, "exact": True})

    def on_info(self, progress: dict):
        with self.lock:
            if not self.found.is_set():
                self.caller_info(progress)

    def finish(self, stopped: bool) -> Solved:
        """The attempt's `Solved`, once it has ended (stopped at once when the search was:
        `stopped`)."""
        if stopped:
            self.quit.set()
        try:
            while self.thread.is_alive():
                if self.caller_stop is not None and self.caller_stop.is_set():
                    self.quit.set()
                self.thread.join(STOP_SLICE_SECONDS)
        except KeyboardInterrupt:
            self.quit.set()
            self.thread.join()
            raise
        if self.error is not None:
            raise self.error
        assert self.solved is not None      # the attempt ended without an error: it solved
        return self.solved


class _Either:
    """Set when either event is (`Hooks.stopped` reads `is_set()`)."""

    def __init__(self, *events):
        self.events = [e for e in events if e is not None]

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)
