"""How a search's work is cut and run: in slices (`run_sliced`, `Hooks`), in units spread over
processes (`Job`, `run_jobs`), their `results.UnitOutput`s folded as they finish (`UnitPool`)."""
from __future__ import annotations

import math
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from ..runs.parallel import own_stop, run_ordered
from ..stats import replicates_stderr, sample_variance, spread
from ..formats.notation import Move
from . import registry
from .limits import SLICE_SECONDS, STOP_SLICE_SECONDS, Deadline, now
from .results import SearchInfo, UnitOutput, rank, rows_from_stats


class Units(Protocol):
    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[tuple]: ...


@dataclass(frozen=True)
class Job:
    """One process's share of a search (made with keywords)."""
    info: object
    table: object
    engine: str              # the engine's name
    objective: int           # the objective's code
    settings: dict           # the full settings
    values: bool             # the caller reads the values
    focus: tuple             # moves kept to the end
    memory: int              # the memory cap, in bytes
    units: Units = ()        # (budget, seed) each: a list, or `api._Replicates`
    seconds: float | None = None   # the time left (None: no limit)


@dataclass
class JobOutput:
    """What a `Job` found: its units' outputs in order (none when pooled as they finished)."""
    outputs: list
    interrupted: bool


def run_sliced(run, budget, deadline: Deadline, hooks=None, stats=None, count=None):
    """Call `run(n, seconds)` in slices until the budget (None: none) or the deadline; Ctrl-C or
    `hooks`' stop ends it early; `hooks` hear each slice (`stats()`). `count()`: the units done
    in all. Returns (done, interrupted)."""
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
    """What `search(stop=, on_info=)` asks of a running search: stop when `stop` is set, tell
    `on_info` how it stands after every slice (the estimator of `pool`, its error once
    `min_trees` have finished; `base`: the iterations of earlier calls)."""

    def __init__(self, stop, on_info, pool: UnitPool | None = None, *, by_visits: bool = False,
                 min_trees: int = 2, settings: dict | None = None):
        self.stop, self.on_info, self.pool = stop, on_info, pool
        self.by_visits, self.min_trees, self.settings = by_visits, min_trees, settings
        self.t0 = now()
        self.base = 0

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def finished(self) -> None:
        if self.on_info is not None and self.pool is not None and self.pool.replicated:
            self.sliced(self.base)

    def sliced(self, done: int, stats=None, rows=None):
        """`done` iterations so far; `stats()` gives the root's (move, n, sum, sum of squares),
        or `rows()` (move, n, value, stderr)."""
        if self.on_info is None:
            return
        seconds = now() - self.t0
        info: dict = {"iterations": done, "seconds": seconds,
                      "speed": done / seconds if seconds > 0 else 0.0}
        pool = self.pool
        assert pool is not None             # a watched search has its pool

        def growing() -> list | None:
            return None if stats is None else rows_from_stats(
                pool.moves, pool.twins, {r[0]: r[1:4] for r in stats()})
        if pool.replicated:
            info.update(trees=pool.pooled if len(pool) else 0, running=done - pool.done)
            # Before a replicate finished, the means of the one being grown: no error yet.
            found = pool.rows() if len(pool) else growing()
            if found and (not len(pool) or pool.pooled < self.min_trees):
                found = [(m, n, v, math.inf) for m, n, v, _ in found]
        else:
            found = rows() if rows is not None else growing()
        if found:
            # An engine that deepens: the pool's samples and its last word, as the answer has.
            finishing = (self.settings is not None and pool.replicated
                         and pool.engine.deepens(self.settings)
                         and pool.pooled >= self.min_trees)
            ranked = rank(found, pool.twins, self.by_visits,
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
    """One process's share of a search: its units one after the other, each an equal part of the
    clock left, folded into `pool` as they finish or returned in order."""
    alg = registry.algorithms()[job.engine]
    deadline = Deadline(job.seconds)
    stop = own_stop()
    if hooks is None and stop is not None:
        hooks = Hooks(stop, None)       # a process of `run_jobs`: its search's stop
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
    """A search's units folded in as they finish, in unit order: with replicates a move's value
    is the mean of the units' values (the value passes' once there is one), its error their
    spread; else the statistics are summed. `whole`: a unit stopped part way is left out once
    one has finished."""

    def __init__(self, engine, moves, twins: dict, *, whole: bool = False):
        self.engine, self.moves, self.twins, self.whole = engine, list(moves), twins, whole
        self.replicated = engine.replicated
        self.units = self.done = self.nodes = 0
        self.interrupted = False
        self.visits: dict = {}
        self.extra: dict = {}           # the engine's, folded
        self.measured, self.searched = _Figures(self.moves), _Figures(self.moves)
        self.sums: dict = {}            # not replicated: the root statistics summed

    def __len__(self) -> int:
        return self.units

    def _key(self, m):
        return self.twins.get(m, m)

    def add(self, o: UnitOutput) -> bool:
        """Fold one unit's output in (False: left out)."""
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
        return self.measured if self.measured.units else self.searched

    @property
    def pooled(self) -> int:
        return self.measured.units or self.units

    def rows(self) -> list:
        """(move, visits, value, stderr) of every root move, from running sums."""
        if not self.replicated:
            return rows_from_stats(self.moves, self.twins, self.sums)
        rows = []
        for m in self.moves:
            n, s, sq = self.figures.sums[m]
            mean = s / n if n else 0.0
            se = replicates_stderr(sample_variance(n, s, sq), n) if n >= 2 else math.inf
            rows.append((m, self.visits.get(self._key(m), 0), mean, se))
        return rows

    def merged(self) -> tuple:
        """(rows (move, visits, value, stderr), samples {move: each replicate's value}, info)."""
        info: SearchInfo = {"values": {"method": "search"}, "nodes": self.nodes,
                            "interrupted": self.interrupted, "replicates": None}
        if not self.replicated:
            return rows_from_stats(self.moves, self.twins, self.sums), {}, info
        f = self.figures
        rows = [(m, self.visits.get(self._key(m), 0),
                 *(spread(f.values[m]) if f.values[m] else (0.0, math.inf)))
                for m in self.moves]
        info["values"] = ({"method": "pass", "worlds": f.worlds, "replicates": f.units}
                          if f is self.measured else {"method": "search", "replicates": self.units})
        info["replicates"] = info["values"]["replicates"]
        sides = {Move.from_code(m): [math.fsum(v[i] for v in f.sides[m]) / len(f.sides[m])
                                     for i in range(len(f.sides[m][0]))]
                 for m in self.moves if f.sides[m]}
        if sides:
            info["sides"] = sides
        return rows, {m: list(v) for m, v in f.values.items()}, info


class _Figures:
    """What the replicates of one kind gave each move, in order (values with running sums)."""

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


#: Seconds a search's processes are given to send what they found once stopped.
STOP_GRACE = 0.5


def run_jobs(jobs: list, pool: UnitPool, hooks: Hooks | None = None) -> bool:
    """Each `Job`'s units run (in this process for one job, else one process each) and folded into
    `pool` in unit order. Whether a job was interrupted."""
    if len(jobs) == 1:
        return search_worker(jobs[0], hooks, pool).interrupted
    finished = run_ordered(search_worker, jobs, workers=len(jobs), grace=STOP_GRACE)
    # The units were dealt to the processes round robin.
    done = sorted((w + k * len(jobs), o) for w, j in enumerate(finished)
                  for k, o in enumerate(j.outputs))
    for _, o in done:
        pool.add(o)
    return any(j.interrupted for j in finished)
