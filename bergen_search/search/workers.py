"""How a search's work is cut and run: in slices (`run_sliced`: the budget and the deadline,
Ctrl-C and a stop heard between slices, `Hooks` told of each), in units spread over
processes (`Job`, `run_jobs`, on `runs.parallel`'s pool), and the units' outputs folded as
they finish (`UnitPool`). The public machinery every engine (`registry.Algorithm`) uses;
`api.search` drives it. It runs an engine object through one job and one output
(`Algorithm.worker(job, ...)` returns a `results.UnitOutput`), and reads nothing of an
engine's beyond them: what is the engine's alone (its `extra`) the engine folds itself.
"""
from __future__ import annotations

import math
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from ..runs.parallel import own_stop, run_ordered
from ..stats import mean_stderr, replicates_stderr, sample_variance, spread
from . import registry
from .limits import SLICE_SECONDS, STOP_SLICE_SECONDS, Deadline, now
from ..formats.notation import Move
from .results import SearchInfo, UnitOutput, rank, rows_from_stats

__all__ = ["Hooks", "Job", "JobOutput", "STOP_GRACE", "UnitPool", "run_jobs", "run_sliced",
           "search_worker"]


class Units(Protocol):
    """A job's units in order, (budget, seed) each, and how many there are."""
    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[tuple]: ...


@dataclass(frozen=True)
class Job:
    """One process's share of a search, which every engine's `worker` reads (made with
    keywords): the information set `info` and its world `table`, the `engine` (its name in
    the registry, which the process looks up), the `objective`'s code, the engine's full
    `settings`, whether the caller reads the `values` (a match's engine needs only the
    move), the moves to keep searching to the end (`focus`), the `memory` cap in bytes, and
    this process's `units`, (budget, seed) each in order, with the `seconds` left for them
    (None: no time limit)."""
    info: object
    table: object
    engine: str
    objective: int
    settings: dict
    values: bool
    focus: tuple
    memory: int
    units: Units = ()        # a list, or `api._Replicates`
    seconds: float | None = None


@dataclass
class JobOutput:
    """What a `Job` found: its units' outputs in order (after a Ctrl-C or a stop, those
    done; none when they went into a pool as they finished) and whether it was
    interrupted."""
    outputs: list
    interrupted: bool


def run_sliced(run, budget, deadline: Deadline, hooks=None, stats=None, count=None):
    """Call `run(n, seconds)` in slices until the budget (None: none) or the deadline; Ctrl-C
    stops early and keeps what was found. The core's searches give the same result however
    the iterations are split into calls. `hooks` (a `Hooks`, from `search(stop=, on_info=)`):
    its stop is checked before every slice (set: stop as Ctrl-C does) and it hears of each
    slice, with `stats()` the root's statistics then. `count()`: the units the searched
    object has done in all (a Ctrl-C inside a call keeps the units that call finished).
    Returns (done, interrupted)."""
    done = 0
    start = None if count is None else count()
    step = SLICE_SECONDS if hooks is None else STOP_SLICE_SECONDS
    try:
        while budget is None or done < budget:
            if hooks is not None and hooks.stopped():
                return done, True
            left = deadline.left()
            if left is not None and left <= 0:
                break
            n = 0 if budget is None else budget - done
            done += run(n, step if left is None else min(step, left))
            if hooks is not None:
                hooks.sliced(hooks.base + done, stats=stats)
    except KeyboardInterrupt:
        if count is not None:
            done = count() - start
        return done, True
    finally:
        if hooks is not None:
            hooks.base += done
    return done, False


class Hooks:
    """What `search(stop=, on_info=)` asks of a running search: to stop when `stop` (a
    `threading.Event`) is set, and to tell `on_info` how it stands after every slice.
    `base`: the iterations (or worlds) of the slices' earlier calls (replicates, phases).

    With `pool` (the search's `UnitPool`) of replicates, what `on_info` hears is that pool,
    the estimator of the final answer on the replicates finished so far (reported again as
    each finishes: `finished`): each value their mean and its error their spread, ranked as
    the answer will be (`by_visits`); the error only once `min_trees` have finished
    (the number a search of that budget pools: fewer make an error too unsure to print), and
    before the first has finished, the means of the tree being grown, with no error (`trees`
    0). How many replicates the figures pool is `trees`; `running`, the iterations of the
    one being searched. With the search's `settings`, an engine that deepens
    (`Algorithm.deepens`) has its last word on them too (`Algorithm.finish`: ISMCTS's
    corrected errors, ranked by the raw values, `settled`)."""

    def __init__(self, stop, on_info, pool: UnitPool | None = None, *, by_visits: bool = False,
                 min_trees: int = 2, settings: dict | None = None):
        self.stop, self.on_info, self.pool = stop, on_info, pool
        self.by_visits, self.min_trees, self.settings = by_visits, min_trees, settings
        self.t0 = now()
        self.base = 0

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def finished(self) -> None:
        """A replicate was folded into the pool: reported at once."""
        if self.on_info is not None and self.pool is not None and self.pool.replicated:
            self.sliced(self.base)

    def sliced(self, done: int, stats=None, rows=None):
        """`done` iterations (or worlds) so far; `stats()` gives the root's statistics
        (move, n, sum, sum of squares) or `rows()` its rows (move, n, value, stderr)."""
        if self.on_info is None:
            return
        seconds = now() - self.t0
        info: dict = {"iterations": done, "seconds": seconds,
                      "speed": done / seconds if seconds > 0 else 0.0}
        pool = self.pool
        assert pool is not None             # a watched search has its pool
        found: list | None
        if pool.replicated:
            info.update(trees=pool.pooled if len(pool) else 0, running=done - pool.done)
            if len(pool):
                found = pool.rows()
                if pool.pooled < self.min_trees:
                    found = [(m, n, v, math.inf) for m, n, v, _ in found]
            else:
                # No replicate finished: the means of the one being grown, no error yet.
                found = [(m, n, v, math.inf) for m, n, v, _ in rows_from_stats(
                    pool.moves, pool.twins, {r[0]: r[1:4] for r in stats()})] \
                    if stats is not None else None
        else:
            found = rows() if rows is not None else (
                rows_from_stats(pool.moves, pool.twins, {r[0]: r[1:4] for r in stats()})
                if stats is not None else None)
        if found:
            # (a move not measured yet goes last; a value pass measures every move)
            # An engine whose values the replicates' own samples finish (ISMCTS's settle):
            # the pool's samples and the engine's last word, as the answer will have them.
            finishing = (self.settings is not None and pool.replicated
                         and pool.engine.deepens(self.settings)
                         and pool.pooled >= self.min_trees)
            ranked = rank(found, pool.twins, self.by_visits, pool.lead,
                          measured=pool.moves if pool.measured.units else (),
                          samples=pool.figures.values if finishing else None)
            if finishing:
                ranked, more = pool.engine.finish(ranked, pool.extra, self.settings)
                info.update(more)
            info.update(best=ranked[0].move, value=ranked[0].value, stderr=ranked[0].stderr,
                        moves=ranked)
        self.on_info(info)


def search_worker(job: Job, hooks: Hooks | None = None,
                  pool: UnitPool | None = None) -> JobOutput:
    """One process's share of a search: its units (ISMCTS's replicates, or expectimax's
    root-parallel workers) one after the other, each given an equal part of what is left of
    the clock, each folded into `pool` as it finishes (one process: the search's own, which
    `hooks` report from) or, without one, returned in order. After a Ctrl-C or a stop,
    those done, interrupted."""
    alg = registry.algorithms()[job.engine]
    deadline = Deadline(job.seconds)
    stop = own_stop()
    if hooks is None and stop is not None:
        hooks = Hooks(stop, None)       # a process of `run_jobs`: its search's stop
    # The memory this share of the search holds: its units' own account, nobody else's.
    account = alg.memory_account()
    out: list = []
    for i, (budget, seed) in enumerate(job.units):
        left = deadline.left()
        if left is not None and i and left <= 0:
            break
        if hooks is not None and hooks.stopped():
            return JobOutput(out, True)
        mine = Deadline(None if left is None else max(left, 0.0) / (len(job.units) - i))
        try:
            res = alg.worker(job, alg.sampler(job.info, job.table), budget, seed, mine,
                             hooks=hooks, account=account)
        except KeyboardInterrupt:
            return JobOutput(out, True)
        if pool is None:
            out.append(res)
        elif pool.add(res) and hooks is not None and not res.interrupted:
            hooks.finished()        # (nothing is reported after a stop)
        if res.interrupted:          # the rest is not searched
            return JobOutput(out, True)
    return JobOutput(out, False)


class UnitPool:
    """A search's units folded in as they finish, in unit order: `merged()` is what they
    found together, and `rows()` the live view of it, in O(moves) whatever their number:
    what a watched search reports while it runs (the replicates finished so far, pooled) and
    what a search without an end (`search(until_stopped=)`) keeps of its units (their
    figures, never the units themselves). `lead`: the root's moves are the lead's
    (`notation.Move.from_code`).

    An engine whose units are replicates (`Algorithm.replicated`): a move's value is the
    mean of the units' `UnitOutput.values` and its error their spread (`stats.spread`),
    which covers every noise of the search (for ISMCTS the worlds, the playouts and the
    shape of each tree; with one replicate no error is measured: inf), and each side's
    outcome the mean of their `sides`; once a unit has values measured by a value pass
    (`UnitOutput.worlds`), those units' figures alone are pooled (`measured`). Otherwise the
    units' root statistics are summed (expectimax's root-parallel workers sample independent
    worlds). The units' `extra`s go to the engine (`Algorithm.fold` into `extra`). `whole`
    (a search until stopped): a unit stopped part way is left out once one has finished, so
    that the answer is the finished units' alone, every figure of it (that of the search of
    as many units)."""

    def __init__(self, engine, moves, twins: dict, lead: bool = False, *, whole: bool = False):
        self.engine, self.moves, self.twins, self.whole = engine, list(moves), twins, whole
        self.lead = lead
        self.replicated = engine.replicated
        self.units = self.done = self.nodes = 0
        self.interrupted = False
        self.visits: dict = {}
        self.extra: dict = {}           # the engine's, folded
        # Replicated: the figures of the units whose values a value pass measured, and of
        # the others (the search's own means).
        self.measured, self.searched = _Figures(self.moves), _Figures(self.moves)
        self.sums: dict = {}            # not replicated: the root statistics summed

    def __len__(self) -> int:
        return self.units

    def _key(self, m):
        return self.twins.get(m, m)

    def add(self, o: UnitOutput) -> bool:
        """Fold one unit's output in (False: left out, `whole`)."""
        if self.whole and o.interrupted and self.units:
            return False
        self.units += 1
        self.done += o.done
        self.interrupted = self.interrupted or o.interrupted
        self.nodes += o.nodes
        for m, n, sm, sq in o.stats:
            self.visits[m] = self.visits.get(m, 0) + n
            if not self.replicated:
                acc = self.sums.setdefault(m, [0, 0.0, 0.0])
                acc[0] += n
                acc[1] += sm
                acc[2] += sq
        if self.replicated:
            (self.measured if o.worlds else self.searched).add(o)
        self.engine.fold(self.extra, o.extra)
        return True

    @property
    def figures(self) -> _Figures:
        """The replicates' figures pooled: the value pass's once a unit has one."""
        return self.measured if self.measured.units else self.searched

    @property
    def pooled(self) -> int:
        """The replicates whose figures are pooled: those with values measured by a value
        pass once one has them, else every one added."""
        return self.measured.units or self.units

    def rows(self) -> list:
        """(move, visits, value, stderr) of every root move from the figures so far (for
        replicates, from running sums: `merged()` is exact)."""
        if not self.replicated:
            return self._summed()
        rows = []
        for m in self.moves:
            n, s, sq = self.figures.sums[m]
            mean = s / n if n else 0.0
            se = replicates_stderr(sample_variance(n, s, sq), n) if n >= 2 else math.inf
            rows.append((m, self.visits.get(self._key(m), 0), mean, se))
        return rows

    def _summed(self) -> list:
        return [(m, n) + mean_stderr(n, sm, sq) for m in self.moves
                for n, sm, sq in [self.sums.get(self._key(m), (0, 0.0, 0.0))]]

    def merged(self) -> tuple:
        """What every unit added found: (rows (move, visits, value, stderr), samples {move:
        each replicate's value}, what the result's info gains: how the values were measured
        (`values`), the `nodes`, `interrupted`, the `replicates` pooled (None: the units are
        not replicates) and `sides`, each side's expected outcome after each move, when the
        units gave them)."""
        info: SearchInfo = {"values": {"method": "search"}, "nodes": self.nodes,
                            "interrupted": self.interrupted, "replicates": None}
        if not self.replicated:
            return self._summed(), {}, info
        f = self.figures
        rows = [(m, self.visits.get(self._key(m), 0),
                 *(spread(f.values[m]) if f.values[m] else (0.0, math.inf)))
                for m in self.moves]
        info["values"] = ({"method": "pass", "worlds": f.worlds, "replicates": f.units}
                          if f is self.measured else {"method": "search", "replicates": self.units})
        info["replicates"] = info["values"]["replicates"]
        sides = {Move.from_code(m, self.lead): [math.fsum(v[i] for v in f.sides[m])
                                                / len(f.sides[m])
                                                for i in range(len(f.sides[m][0]))]
                 for m in self.moves if f.sides[m]}
        if sides:
            info["sides"] = sides
        return rows, {m: list(v) for m, v in f.values.items()}, info


class _Figures:
    """What the replicates of one kind gave each move, in the order added: each one's value
    (with their running sums, for the live view) and each side's outcome; how many
    replicates, and the worlds of their value passes."""

    def __init__(self, moves):
        self.values = {m: array("d") for m in moves}
        self.sums = {m: [0, 0.0, 0.0] for m in moves}
        self.sides: dict = {m: [] for m in moves}
        self.units = self.worlds = 0

    def add(self, o: UnitOutput) -> None:
        self.units += 1
        self.worlds += o.worlds
        for m, x in o.values.items():
            self.values[m].append(x)
            acc = self.sums[m]
            acc[0] += 1
            acc[1] += x
            acc[2] += x * x
        for m, v in o.sides.items():
            self.sides[m].append(v)


#: Seconds a search's processes are given to send what they found once stopped (a slice and
#: the merge; more would hold up a Ctrl-C).
STOP_GRACE = 0.5


def run_jobs(jobs: list, pool: UnitPool, hooks: Hooks | None = None) -> bool:
    """Each `Job`'s units run (`search_worker`) and folded into `pool` in unit order: in
    this process for one job (as they finish, which `hooks` hear: a search that can be
    stopped or watched runs in one), else each job in a process of `runs.parallel`'s pool,
    which hears its own stop: Ctrl-C in the parent sets it, each process sends what it found
    within a slice, and the search is merged from that, interrupted, as with one process.
    Whether a job was interrupted (between its units too)."""
    if len(jobs) == 1:
        return search_worker(jobs[0], hooks, pool).interrupted
    finished = run_ordered(search_worker, jobs, workers=len(jobs), grace=STOP_GRACE)
    # Back in unit order: the units are dealt to the processes round robin (process w ran
    # units w, w + len(jobs), ...; an interrupted one, the first of them).
    done = sorted((w + k * len(jobs), o) for w, j in enumerate(finished)
                  for k, o in enumerate(j.outputs))
    for _, o in done:
        pool.add(o)
    return any(j.interrupted for j in finished)
