"""How a search's work is cut and run: in slices (`run_sliced`: the budget and the deadline,
Ctrl-C and a stop heard between slices, `Hooks` told of each), in units spread over
processes (`Job`, `run_jobs`), and the units' outputs merged (`merge_units` -> `Merged`).
The public machinery every engine (`registry.Algorithm`) uses; `api.search` drives it.
"""
from __future__ import annotations

import math
from array import array
from collections.abc import Iterator
from typing import Protocol
from dataclasses import dataclass, field

from ..stats import c4, mean_stderr, spread
from . import registry
from .limits import SLICE_SECONDS, STOP_SLICE_SECONDS, Deadline, now
from .results import UnitOutput, rank, rows_from_stats

__all__ = ["Hooks", "Job", "JobOutput", "Merged", "STOP_GRACE", "UnitPool", "merge_units",
           "run_jobs", "run_sliced", "search_worker"]


class Units(Protocol):
    """A job's units in order, (budget, seed) each, and how many there are."""
    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[tuple]: ...


@dataclass
class Job:
    """One process's share of a search: the information set and its world table, the
    algorithm (by name), the objective's code, its units (budget, seed) in order, the seconds
    left (None: no time limit), the settings, whether to measure comparable values
    (`values`), the moves to keep searching to the end (`focus`) and the memory cap in
    bytes."""
    info: object
    table: object
    algorithm: str
    objective: int
    units: Units             # (budget, seed) of each unit: a list, or `api._Replicates`
    seconds: float | None
    settings: dict
    values: bool
    focus: tuple
    memory: int
    lines: bool = False     # the units read their expected lines (`Algorithm.lines`)


@dataclass
class JobOutput:
    """What a `Job` found: its units' outputs in order (after a Ctrl-C or a stop, those
    done) and whether it was interrupted."""
    outputs: list
    interrupted: bool


@dataclass
class Merged:
    """The units' outputs merged: `rows` (move, visits, value, stderr), the iterations
    `done`, `interrupted`, `nodes`, `sides` {move: each side's expected outcome}, the values'
    `method` (`info["values"]`) and `samples` {move: per-replicate values}."""
    rows: list
    done: int
    interrupted: bool
    nodes: int
    sides: dict
    method: dict
    samples: dict = field(default_factory=dict)


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

    `pool` (a `UnitPool`, for an engine whose units are replicates): the units are folded
    into it as they finish (`finished`), and what `on_info` hears is that pool, the
    estimator of the final answer on the replicates finished so far: each value their mean
    and its error their spread, ranked as the answer will be; the error only once
    `min_trees` have finished (the number a search of that budget pools: fewer make an
    error too unsure to print), and before the first has finished, the means of the tree
    being grown, with no error (`trees` 0). How many replicates the figures pool is `trees`;
    `running`, the iterations of the one being searched. `whole` (a search until stopped):
    a unit stopped part way is left out of the pool once one has finished, so that the
    answer is the finished units' alone, every figure of it (that of the search of as many
    units, `search(until_stopped=)`)."""

    def __init__(self, stop, on_info, moves=(), twins=None, lead=False, by_visits=False,
                 pool=None, min_trees: int = 2, whole: bool = False):
        self.stop, self.on_info = stop, on_info
        self.moves, self.twins, self.lead, self.by_visits = moves, twins, lead, by_visits
        self.pool, self.min_trees, self.whole = pool, min_trees, whole
        self.t0 = now()
        self.base = 0

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def finished(self, output):
        """A unit's output as it finishes: folded into the pool (the output kept is then
        the pool's copy, without its beams) and reported at once (unless it was stopped:
        nothing is reported after a stop)."""
        if self.pool is None or (self.whole and output.interrupted and len(self.pool)):
            return output
        self.pool.add(output)
        if self.on_info is not None and not output.interrupted:
            self.sliced(self.base)
        return self.pool.outputs[-1]

    def sliced(self, done: int, stats=None, rows=None):
        """`done` iterations (or worlds) so far; `stats()` gives the root's statistics
        (move, n, sum, sum of squares) or `rows()` its rows (move, n, value, stderr)."""
        if self.on_info is None:
            return
        seconds = now() - self.t0
        info: dict = {"iterations": done, "seconds": seconds,
                      "speed": done / seconds if seconds > 0 else 0.0}
        by_visits = self.by_visits
        pool = self.pool
        if pool is not None:
            info.update(trees=pool.pooled if len(pool) else 0, running=done - pool.done)
            if len(pool):
                found = pool.rows()
                if pool.pooled < self.min_trees:
                    found = [(m, n, v, math.inf) for m, n, v, _ in found]
            else:
                # No replicate finished: the means of the one being grown, no error yet.
                found = [(m, n, v, math.inf) for m, n, v, _ in rows_from_stats(
                    self.moves, self.twins, {r[0]: r[1:4] for r in stats()})] \
                    if stats is not None else None
        else:
            found = rows() if rows is not None else (
                rows_from_stats(self.moves, self.twins, {r[0]: r[1:4] for r in stats()})
                if stats is not None else None)
        if found:
            # (a move not measured yet goes last; a final pass measures every move)
            ranked = rank(found, self.twins, by_visits, self.lead,
                          measured=self.moves if pool is not None and pool.passed else ())
            info.update(best=ranked[0].move, value=ranked[0].value, stderr=ranked[0].stderr,
                        moves=ranked)
        self.on_info(info)


def search_worker(job: Job, hooks=None) -> JobOutput:
    """One process's share of a search: its units (ISMCTS replicates, or expectimax's
    root-parallel workers) one after the other, each given an equal part of what is left
    of the clock. The units' outputs, in order (after a Ctrl-C or a stop, those done,
    interrupted)."""
    alg = registry.algorithms()[job.algorithm]
    deadline = Deadline(job.seconds)
    if hooks is None and _CHILD_STOP is not None:
        hooks = Hooks(_CHILD_STOP, None)       # a process of `run_jobs`: its search's stop
    # The memory this share of the search holds: its units' own account, nobody else's.
    account = alg.memory_account()
    out: list = []
    for i, (budget, seed) in enumerate(job.units):
        left = deadline.left()
        if left is not None and out and left <= 0:
            break
        if hooks is not None and hooks.stopped():
            return JobOutput(out, True)
        mine = Deadline(None if left is None else max(left, 0.0) / (len(job.units) - i))
        try:
            res = alg.worker(alg.sampler(job.info, job.table), job.objective, budget, mine,
                             seed, job.settings, job.values, hooks, focus=job.focus,
                             memory=job.memory,
                             **({"account": account} if account is not None else {}),
                             **({"lines": True} if job.lines else {}))
        except KeyboardInterrupt:
            return JobOutput(out, True)
        out.append(res if hooks is None else hooks.finished(res))
        if res.interrupted:          # the rest is not searched
            return JobOutput(out, True)
    return JobOutput(out, False)


def merge_units(outputs: list, moves, twins, replicated: bool) -> Merged:
    """The units' outputs (`UnitOutput`s) merged (folded one by one into a `UnitPool`).

    ISMCTS (`replicated`): each replicate's value of a move is its final pass's mean (or,
    without a pass, its tree's mean); the value is the mean over the replicates and the
    standard error their spread, which covers every noise of the search: the worlds, the
    playouts and the shape of each tree. With one replicate no error is measured (inf).
    Expectimax's workers sample independent worlds: their sums are pooled."""
    pool = UnitPool(moves, twins, replicated)
    for o in outputs:
        pool.add(o)
    return pool.merged()


class UnitPool:
    """The units' outputs folded as they finish: `merged()` is `merge_units` of every output
    added (the same figures, bit for bit), and `ranked()` the live view of them, in O(moves)
    whatever their number: what a watched search reports while it runs (the replicates
    finished so far, pooled) and what a search without an end (`search(until_stopped=)`)
    keeps of its trees (their values, not the trees: `outputs` keeps each output without its
    expected-line beams, which are summed into the first one's)."""

    def __init__(self, moves, twins, replicated: bool):
        self.moves, self.twins, self.replicated = list(moves), twins, replicated
        self.outputs: list = []         # each added, its extra's beams summed into the first
        self.done = self.nodes = 0
        self.interrupted = False
        self.visits: dict = {}
        # Replicated: per move, each replicate's value, and each side's outcome, in the order
        # added; from the final passes (`passed`: those with one; `worlds`: theirs in all)
        # and, while none has a pass, from the trees' means.
        self.per = {m: array("d") for m in moves}
        self.side_per: dict = {m: [] for m in moves}
        self.per_search = {m: array("d") for m in moves}
        self.side_search: dict = {m: [] for m in moves}
        self.passed = self.worlds = 0
        # Live: per move (n, sum, sum of squares) of the values pooled (`ranked`).
        self.live: dict = {}
        # Not replicated: the units' sums, pooled.
        self.sums: dict = {}
        self.side_sums: dict = {}

    def __len__(self) -> int:
        return len(self.outputs)

    def _key(self, m):
        return self.twins.get(m, m)

    def add(self, o) -> None:
        """Fold one unit's output in."""
        self.done += o.done
        self.interrupted = self.interrupted or o.interrupted
        self.nodes += o.nodes
        for m, n, *_ in o.stats:
            self.visits[m] = self.visits.get(m, 0) + n
        if self.replicated:
            self._add_replicate(o)
        else:
            for m, n, sm, sq in o.stats:
                acc = self.sums.setdefault(m, [0, 0.0, 0.0])
                acc[0] += n
                acc[1] += sm
                acc[2] += sq
            for m, (n, sums) in o.sides.items():
                acc = self.side_sums.setdefault(m, [0, [0.0] * len(sums)])
                acc[0] += n
                acc[1] = [a + b for a, b in zip(acc[1], sums)]
        extra = dict(o.extra)
        beams = extra.pop("lines", None)
        if beams is not None:
            if self.outputs:
                _sum_beams(self.outputs[0].extra.setdefault("lines", {}), beams)
            else:
                extra["lines"] = {}
                _sum_beams(extra["lines"], beams)      # a copy: the unit's stays as it was
        self.outputs.append(UnitOutput([], o.done, o.interrupted, o.nodes, extra=extra))

    def _add_replicate(self, o) -> None:
        if o.final_pass is not None:
            if not self.passed:
                self.live = {}          # the passes' values, from now on
            self.passed += 1
            w = o.final_pass.worlds
            self.worlds += w
            by = {m: (sm, g) for m, sm, _, g in o.final_pass.rows}
            for m in self.moves:
                sm, g = by[m]
                self._sample(m, sm / w)
                self.per[m].append(sm / w)
                self.side_per[m].append([x / w for x in g])
            return
        by = {m: (n, sm) for m, n, sm, _ in o.stats}
        for m in self.moves:
            n, sm = by.get(self._key(m), (0, 0.0))
            if n:
                self.per_search[m].append(sm / n)
                if not self.passed:
                    self._sample(m, sm / n)
            n_s, sums = o.sides.get(self._key(m), (0, ()))
            if n_s:
                self.side_search[m].append([x / n_s for x in sums])

    def _sample(self, m, x: float) -> None:
        acc = self.live.setdefault(m, [0, 0.0, 0.0])
        acc[0] += 1
        acc[1] += x
        acc[2] += x * x

    @property
    def pooled(self) -> int:
        """The replicates whose values the figures pool: those with a final pass once one
        has one, else every one added."""
        return self.passed or len(self.outputs)

    @property
    def method(self) -> str:
        return "pass" if self.passed else "search"

    def rows(self) -> list:
        """(move, visits, value, stderr) of every root move from the figures pooled so far
        (the replicates' mean and spread, computed from running sums: `merged()` is exact)."""
        rows = []
        for m in self.moves:
            visits = self.visits.get(self._key(m), 0)
            if self.replicated:
                n, s, sq = self.live.get(m, (0, 0.0, 0.0))
                if n:
                    mean = s / n
                    se = (math.sqrt(max(sq - n * mean * mean, 0.0) / (n - 1) / n) / c4(n)
                          if n >= 2 else math.inf)
                else:
                    mean, se = 0.0, math.inf
                rows.append((m, visits, mean, se))
            else:
                n, sm, sq = self.sums.get(self._key(m), (0, 0.0, 0.0))
                rows.append((m, n) + mean_stderr(n, sm, sq))
        return rows

    def merged(self) -> Merged:
        """`merge_units` of every output added."""
        moves, key = self.moves, self._key
        if self.replicated:
            if self.passed:
                per, side_per = self.per, self.side_per
                method = {"method": "pass", "worlds": self.worlds, "replicates": self.passed}
            else:
                per, side_per = self.per_search, self.side_search
                method = {"method": "search", "replicates": len(self.outputs)}
            rows = []
            for m in moves:
                mean, se = spread(per[m]) if per[m] else (0.0, math.inf)
                rows.append((m, self.visits.get(key(m), 0), mean, se))
            sides: dict = {m: [math.fsum(v[i] for v in side_per[m]) / len(side_per[m])
                               for i in range(len(side_per[m][0]))]
                           for m in moves if side_per[m]}
            return Merged(rows, self.done, self.interrupted, self.nodes, sides, method,
                          {m: list(v) for m, v in per.items()})
        rows = []
        for m in moves:
            n, sm, sq = self.sums.get(key(m), (0, 0.0, 0.0))
            rows.append((m, n) + mean_stderr(n, sm, sq))
        sides = {m: [x / n if n else None for x in sums]
                 for m, (n, sums) in self.side_sums.items()}
        return Merged(rows, self.done, self.interrupted, self.nodes, sides,
                      {"method": "search"})


def _sum_beams(into: dict, beams: dict) -> None:
    """Add a unit's beams ({root move: beam}, `engines.ismcts.line_beams`) into `into`,
    edge by edge: what the expected lines read is their sum."""
    for m, beam in beams.items():
        _sum_beam(into.setdefault(m, {}), beam)


def _sum_beam(into: dict, beam: dict) -> None:
    for key, (visits, below) in beam.items():
        slot = into.setdefault(key, [0, {}])
        slot[0] += visits
        _sum_beam(slot[1], below)


#: In a process of `run_jobs`'s pool, which serves one search: that search's stop (a
#: multiprocessing Event), handed to the process as it starts (`_child_init`), which its
#: searches hear between slices and inside worlds. None in every other process: the parent
#: never sets it, so that two searches forking their pools at once keep their own stops.
_CHILD_STOP = None
#: Seconds a search's processes are given to send what they found once stopped (a slice and
#: the merge; more would hold up a Ctrl-C).
STOP_GRACE = 0.5


def _child_init(parent: int, stop):
    """A pool process of a search: its stop is the search's (`stop`, kept in `_CHILD_STOP`);
    Ctrl-C (and SIGHUP, which a closed terminal sends to the
    whole group) is for the parent, which stops it through that stop; SIGTERM ends it
    quietly (the signal `Pool.terminate` ends the pool with: the command's own handler,
    inherited through fork, turned it into a KeyboardInterrupt and a traceback on standard
    error at the end of every search with --workers); and it dies with the parent
    (`parallel.die_with_parent`)."""
    import signal

    from ..runs.parallel import die_with_parent
    global _CHILD_STOP
    _CHILD_STOP = stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Forked while the parent held its stop signals back (`deferred_ctrl_c`): the mask came
    # along, and a SIGTERM from `Pool.terminate` would wait forever.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    die_with_parent(parent)


def run_jobs(jobs: list, hooks=None) -> list:
    """Each `Job`'s `search_worker` (a `JobOutput` each), in one process or one process each
    (fork). Ctrl-C in the parent (or a stop) sets the stop the processes hear: each sends
    what it found within a slice, and the search is merged from that, interrupted, as with
    one process."""
    if len(jobs) == 1:
        return [search_worker(jobs[0], hooks)]
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    import os

    from ..runs.parallel import deferred_ctrl_c
    with deferred_ctrl_c():
        pool = ctx.Pool(len(jobs), initializer=_child_init, initargs=(os.getpid(), stop))
    try:
        pending = pool.map_async(search_worker, jobs)
        try:
            while not pending.ready():
                pending.wait(STOP_SLICE_SECONDS)
                if hooks is not None and hooks.stopped():
                    stop.set()
        except KeyboardInterrupt:
            stop.set()
            pending.wait(STOP_GRACE)
            if not pending.ready():
                raise
            # Each process stopped within a slice: its searches say they were interrupted.
        return pending.get()
    finally:
        pool.terminate()

