"""Search in python-chess's engine manner: `search(info, Limits(...), seed=...)`.

Two algorithms over the same exact world sampler (sampler.py):

- `ismcts`: single-observer Information Set MCTS (Cowling, Powley & Whitehouse 2012,
  "Information Set Monte Carlo Tree Search"): one tree over what the seat observes, a fresh
  world per iteration, UCB with availability counts.
- `expectimax`: determinized expectimax (perfect-information Monte Carlo, Long et al. 2010,
  "Understanding the Success of Perfect Information Monte Carlo Sampling in Game Tree
  Search"): in each sampled world the hands are fixed and the reserve's contents known but not
  its order, so draws are chance nodes; averaged over worlds, with the standard error across
  worlds. When the consistent worlds are few they are all enumerated (`exact`).

Values are from the side of the seat to move: with objective `points`, its expected points
until the end of the round minus the mean of the other sides'; with `match`, its
probability of winning the match.

>>> from bergen_search.position import position_from_flags
>>> from bergen_search.infoset import from_position
>>> info = from_position(position_from_flags(hand="0-3 1-2 2-5 5-6",
...     line="1-1 1-4 4-4 4-6 6-3", hand_sizes="4,5", scores="4,7"))
>>> result = search(info, Limits(iterations=2000), seed=1)
>>> result.best in [m.move for m in result.moves]
True
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from .errors import BergenError
from .infoset import InfoSet
from .rng import derive_seed
from .sampler import WorldTable
from .state import DRAW, PASS, move_str
from .tiles import TILES_WITH, iter_mask

ALGORITHMS = ("ismcts", "expectimax", "pimc")
OBJECTIVES = ("points", "match")
#: Expectimax may enumerate the worlds instead of sampling them when the histories behind
#: them number at most this many (and the distinct worlds fit the budget).
EXACT_WORLDS = 2000
DEFAULT_ITERATIONS = {"ismcts": 20000, "expectimax": 200, "pimc": 200}
#: A search runs in slices this long so that Ctrl-C and the clock are heard promptly.
SLICE_SECONDS = 0.05


@dataclass(frozen=True)
class Limits:
    """The budget of a search: `iterations` (ISMCTS iterations, or expectimax worlds) and/or
    `time` in seconds; the search stops at the first reached. Neither: the default budget."""
    iterations: int | None = None
    time: float | None = None

    def __post_init__(self):
        if self.iterations is not None and self.iterations < 1:
            raise BergenError(f"iterations must be at least 1, got {self.iterations}",
                              field="iterations")
        if self.time is not None and not self.time > 0:
            raise BergenError(f"time must be positive, got {self.time}", field="time")


@dataclass(frozen=True)
class MoveValue:
    move: str            # FORMATS.md notation
    code: int            # tile * 2 + end, DRAW or PASS
    value: float
    stderr: float
    visits: int          # ISMCTS visits, or expectimax worlds


@dataclass(frozen=True)
class SearchResult:
    best: str
    moves: list          # MoveValue, best first
    value: float
    stderr: float
    visits: int
    info: dict = field(default_factory=dict)


def root_moves(info: InfoSet) -> list:
    """The seat's legal actions, in the core's order (what gen_moves gives at the root)."""
    if not info.line:
        raise BergenError("the lead is forced: nothing to search")
    fit_l, fit_r = info.hand & TILES_WITH[info.left], info.hand & TILES_WITH[info.right]
    moves = []
    for t in iter_mask(fit_l | fit_r):
        if fit_l >> t & 1:
            moves.append(t * 2)
        if fit_r >> t & 1:
            moves.append(t * 2 + 1)
    if moves:
        return moves
    may_draw = (info.reserve_size > info.rules.reserve_kept
                and not (info.rules.draw == "one" and info.draws_this_turn))
    return [DRAW if may_draw else PASS]


def _mean_stderr(n, s, sq):
    if n <= 0:
        return 0.0, float("inf")
    mean = s / n
    if n < 2:
        return mean, float("inf")
    var = max(sq / n - mean * mean, 0.0) * n / (n - 1)
    return mean, math.sqrt(var / n)


def _objective_code(objective: str) -> int:
    if objective not in OBJECTIVES:
        raise BergenError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}",
                          field="objective")
    return OBJECTIVES.index(objective)


class _Deadline:
    def __init__(self, seconds):
        self.end = None if seconds is None else time.perf_counter() + seconds

    def left(self):
        return None if self.end is None else self.end - time.perf_counter()


def _run_sliced(run, budget, deadline: _Deadline):
    """Call `run(n, seconds)` in slices until the budget (None: none) or the deadline; Ctrl-C
    stops early and keeps what was found. The core's searches give the same result however
    the iterations are split into calls. Returns (done, interrupted)."""
    done = 0
    try:
        while budget is None or done < budget:
            left = deadline.left()
            if left is not None and left <= 0:
                break
            n = 0 if budget is None else budget - done
            done += run(n, SLICE_SECONDS if left is None else min(SLICE_SECONDS, left))
    except KeyboardInterrupt:
        return done, True
    return done, False


def _search_worker(args):
    """One root-parallel worker (or the only one): returns per-move (move, n, sum, sumsq, sides)."""
    info, table, algorithm, objective, budget, seconds, seed, settings = args
    from ._sampler import CoreSampler
    sampler = CoreSampler(info, table)
    deadline = _Deadline(seconds)
    if algorithm == "ismcts":
        from ._ismcts import IsmctsTree
        engine = IsmctsTree(sampler, seed, settings.get("exploration", 0.7), objective,
                            settings.get("playout", 0),
                            model_opponents=bool(settings.get("opponents", 0)),
                            merge_twins=bool(settings.get("twins", 0)))
        done, interrupted = _run_sliced(engine.run, budget, deadline)
        stats = engine.root_stats()
        extra = {"nodes": engine.n_nodes,
                 "sides": {m: (n, sums) for m, n, sums in engine.root_side_stats()}}
    elif algorithm == "pimc":
        from ._pimc import PimcSearch
        engine = PimcSearch(sampler, seed, objective)
        done, interrupted = _run_sliced(engine.run_worlds, budget, deadline)
        vals, w = engine.root_values()
        stats = [(m, len(vals), float(vals[:, j].sum()), float((vals[:, j] ** 2).sum()))
                 for j, m in enumerate(engine.moves)]
        extra = {"nodes": engine.nodes}
    else:
        from ._expectimax import ExpectimaxSearch
        engine = ExpectimaxSearch(sampler, settings.get("depth", 6), seed, objective,
                                  settings.get("playouts", 2),
                                  safe_playouts=settings.get("playout") == "safe")
        done, interrupted = _run_sliced(engine.run_worlds, budget, deadline)
        stats = engine.root_stats()
        extra = {"nodes": engine.nodes}
    return [tuple(s) for s in stats], done, interrupted, extra


def _exact_expectimax(info, table, worlds, objective, seed, settings, deadline: _Deadline):
    """Every consistent world (`WorldTable.enumerate()`), weighted by its number of histories
    (its probability).

    The worlds are solved in a seeded random order, each with its own playout seed, and a
    complete run sums them in their sorted order: the same values however the order falls.
    When the clock (heard inside a world too: a world it cuts is dropped) or Ctrl-C stops it
    first, the value is the weighted mean over the worlds solved, a sample without
    replacement, with its standard error; it is then not exact.
    Returns (rows (move, worlds, value, stderr), worlds solved, complete, interrupted)."""
    from ._expectimax import ExpectimaxSearch
    from ._sampler import CoreSampler
    from .rng import Rng
    engine = ExpectimaxSearch(CoreSampler(info, table), settings.get("depth", 6), seed,
                              objective, settings.get("playouts", 2),
                              safe_playouts=settings.get("playout") == "safe")
    worlds = sorted(worlds.items())
    order = list(range(len(worlds)))
    Rng(derive_seed(seed, len(worlds))).shuffle(order)
    moves = root_moves(info)
    values = {}
    interrupted = False
    try:
        for i in order:
            left = deadline.left()
            if left is not None and left <= 0:
                break
            (hands, reserve), _ = worlds[i]
            v = engine.run_world(hands, list(reserve), seed=derive_seed(seed, i),
                                 seconds=0 if left is None else left)
            if v is None:
                break
            values[i] = v
    except KeyboardInterrupt:
        interrupted = True
    n, size = len(values), len(worlds)
    if n == 0:
        return [(m, 0, 0.0, math.inf) for m in moves], 0, False, interrupted
    solved = sorted(values)
    rows = []
    for j, m in enumerate(moves):
        mean, se = _weighted_sample_mean([(worlds[i][1], values[i][j]) for i in solved], size)
        rows.append((m, n, mean, se))
    return rows, n, n == size, interrupted


def _weighted_sample_mean(sample, size):
    """(mean, standard error) of the weighted mean sum(w v) / sum(w) of a population of `size`
    items (w, v), from the items of `sample` drawn uniformly without replacement: the ratio
    estimator, with the finite-population correction (0 when the sample is the population;
    inf with fewer than two items)."""
    n = len(sample)
    total = sum(w for w, _ in sample)
    mean = sum(w * v for w, v in sample) / total
    if n == size:
        return mean, 0.0
    if n < 2:
        return mean, math.inf
    dev = sum((w * (v - mean)) ** 2 for w, v in sample)
    return mean, math.sqrt((1 - n / size) * n / (n - 1) * dev) / total


def search(info: InfoSet, limits: Limits | None = None, *, seed: int = 0,
           algorithm: str = "ismcts", objective: str = "points", workers: int = 1,
           **settings) -> SearchResult:
    """Rank every legal move of the seat to move in `info`.

    Same seed, same iteration budget and same number of workers: the same result, byte for
    byte. With a time limit the result depends on the machine's speed. `settings`:
    `exploration`, `playout` (ismcts); `depth`, `playouts` (expectimax).
    """
    t0 = time.perf_counter()
    limits = limits or Limits()
    if algorithm not in ALGORITHMS:
        raise BergenError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}",
                          field="algorithm")
    obj = _objective_code(objective)
    if workers < 1:
        raise BergenError(f"workers must be at least 1, got {workers}", field="workers")
    budget = limits.iterations
    if budget is None and limits.time is None:
        budget = DEFAULT_ITERATIONS[algorithm]
    moves = root_moves(info)
    infer = settings.pop("infer", None)
    if infer is not None and infer != 0:
        from .inference import TileModel, tile_factors
        model = TileModel(power=infer) if infer > 0 else TileModel(
            missed_match=-infer, opened=1, opened_fitting=1, fitting_double=1, fitting=1)
        table = WorldTable(info, tile_factors(info, model))
    else:
        table = WorldTable(info)
    lead = not info.line
    result_info = {"algorithm": algorithm, "objective": objective, "seed": seed,
                   "workers": workers, "worlds_consistent": table.total, "exact": False}
    # Expectimax solves every world instead of sampling when they are few: at most the
    # budget of worlds, or under a time limit as many as the clock allows.
    worlds = (table.enumerate() if algorithm == "expectimax" and table.total <= EXACT_WORLDS
              else None)
    # What is left of the time limit once the table is built.
    seconds = None if limits.time is None else max(limits.time - (time.perf_counter() - t0), 0.001)
    if worlds is not None and (budget is None or len(worlds) <= budget):
        rows, done, complete, interrupted = _exact_expectimax(
            info, table, worlds, obj, seed, settings, _Deadline(seconds))
        result_info.update(exact=complete, worlds=done, interrupted=interrupted)
    else:
        if workers == 1:
            jobs = [(info, table, algorithm, obj, budget, seconds, seed, settings)]
        else:
            shares = [None] * workers if budget is None else [
                budget // workers + (1 if w < budget % workers else 0) for w in range(workers)]
            jobs = [(info, table, algorithm, obj, shares[w], seconds, derive_seed(seed, w), settings)
                    for w in range(workers) if shares[w] is None or shares[w] > 0]
        outputs = _run_jobs(jobs)
        merged, sides = {}, {}
        done, interrupted, nodes = 0, False, 0
        for stats, n_done, intr, extra in outputs:
            done += n_done
            interrupted |= intr
            nodes += extra.get("nodes", 0)
            for m, (n, sums) in extra.get("sides", {}).items():
                acc = sides.setdefault(m, [0, [0.0] * len(sums)])
                acc[0] += n
                acc[1] = [a + b for a, b in zip(acc[1], sums)]
            for row in stats:
                m, n, s, sq = row[:4]
                acc = merged.setdefault(m, [0, 0.0, 0.0])
                acc[0] += n
                acc[1] += s
                acc[2] += sq
        rows = []
        for m in moves:
            n, s, sq = merged.get(m, (0, 0.0, 0.0))
            mean, se = _mean_stderr(n, s, sq)
            rows.append((m, n, mean, se))
        result_info.update(nodes=nodes, interrupted=interrupted)
        if sides:
            # Each side's expected outcome after each root move, under the search's play.
            result_info["sides"] = {move_str(m, lead): [x / n if n else None for x in sums]
                                    for m, (n, sums) in sides.items()}
    if algorithm == "ismcts":
        # The final policy: the most visited move (the robust child), then the best mean.
        rows.sort(key=lambda r: (-r[1], -r[2], r[0]))
    else:
        rows.sort(key=lambda r: (-r[2], r[0]))
    mv = [MoveValue(move_str(m, lead), m, v, se, n) for m, n, v, se in rows]
    best = mv[0]
    result_info.update(iterations=done, seconds=time.perf_counter() - t0)
    return SearchResult(best.move, mv, best.value, best.stderr,
                        sum(x.visits for x in mv) if algorithm == "ismcts" else done, result_info)


def _run_jobs(jobs):
    if len(jobs) == 1:
        return [_search_worker(jobs[0])]
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    with ctx.Pool(len(jobs)) as pool:
        return pool.map(_search_worker, jobs)
