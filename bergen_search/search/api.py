"""Search in python-chess's engine manner: `search(info, Limits(...), seed=...)`.

The algorithms over the same exact world sampler (sampler.py) are each an `Algorithm` (its
settings, the unit of its budget, its workers, its final move) in a module of its own in
`algorithms/`, registered with `registry.py`; `search()` runs whichever is named through the
protocol there and holds no per-algorithm branch. This module has the machinery they share
(limits, slices and stops, processes, replicates and their merge, sequential halving, the
exhaustive expectimax). The ones registered today:

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
- `endgame`: the exact endgame alone (`endgame.py`), which ISMCTS also tries first.

Values are from the side of the seat to move: with objective `points`, its expected points
until the end of the round minus the mean of the other sides'; with `match`, its
probability of winning the match.

The searches run on the compiled modules, or without them on their pure-Python twins
(`backend.SEARCH`: the same answers for the same seed and budget, slowly; the default budget
is then smaller and `info["backend"]` says "reference"); expectimax needs the core.

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

import math
import time
from dataclasses import dataclass, field, replace
from functools import partial

from ..constants import MAX_SECONDS, REPLICATE_STREAM
from ..errors import BergenError
from ..formats.notation import Move
from ..game.rng import derive_seed
from ..game.state import DRAW, PASS
from ..game.state import mirror_twins as state_mirror_twins
from ..game.tiles import TILES_WITH, iter_mask
from ..information.infoset import InfoSet
from . import backend, registry
from .registry import Algorithm, SearchRun, Setting, resolve, setting_text  # noqa: F401

#: The clock of every time limit here (seconds; monotonic). The tests replace it with a virtual
#: one (`_core.clock_reading` under `_core.set_test_clock`), so that a time limit is tested
#: by readings counted, not by the machine's speed.
clock = time.perf_counter

OBJECTIVES = ("points", "match")
#: Expectimax may enumerate the worlds instead of sampling them when the histories behind
#: them number at most this many (and the distinct worlds fit the budget).
EXACT_WORLDS = 2000
#: A search runs in slices this long so that Ctrl-C and the clock are heard promptly.
SLICE_SECONDS = 0.05
#: The slices of a search that can be stopped (`search(stop=...)`): a stop is heard within one.
STOP_SLICE_SECONDS = 0.01
#: ISMCTS's final pass (comparable values, `search(values=True)`): the share of a time limit
#: kept for it, and its worlds (iterations / (PASS_SPREAD x choices), within
#: PASS_MIN..PASS_MAX), drawn on `constants.PASS_STREAM`.
PASS_SHARE = 0.15
PASS_SPREAD = 5
PASS_MIN, PASS_MAX = 100, 4000
#: ISMCTS's independent replicates (setting `replicates`): the budget is shared by this many
#: trees, each with its own seed; a move's value is their mean, its error their spread.
REPLICATES = 8
#: The most replicates a search takes (each costs a table walk and a tree of its own), and
#: the deepest expectimax and the most playouts at its horizon.
MAX_REPLICATES = 100_000
MAX_DEPTH = 200
MAX_PLAYOUTS = 1000
#: Sequential halving keeps, beside the better half, every choice whose tree mean falls short
#: of the last one kept by less than this many standard errors (`_close`; 0: a strict half).
HALVING_Z = 2.0
#: With every world enumerated but horizons reached, the worlds are solved again until the
#: playouts' variance has at least this many degrees of freedom (worlds x (solves - 1)).
MIN_REPLICATE_DOF = 8


#: The largest budgets a search takes: iterations (or expectimax worlds), seconds (a day:
#: `constants.MAX_SECONDS`),
#: and the memory cap of ISMCTS's trees in MB (1 TiB); DEFAULT_MEMORY_MB when not given,
#: safe on a small machine (per process: `--workers` processes take it each).
MAX_ITERATIONS = 1_000_000_000
MAX_MEMORY_MB = 1 << 20
DEFAULT_MEMORY_MB = 256


def _check_count(name: str, value, low: int, high: int):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BergenError(f"{name} must be an integer {low}..{high:,}, got {value!r}",
                          field=name)
    return value


@dataclass(frozen=True)
class Limits:
    """The budget of a search: `iterations` (ISMCTS iterations, or expectimax worlds,
    1..MAX_ITERATIONS) and/or `time` in seconds (above 0, at most MAX_SECONDS); the search
    stops at the first reached. Neither: the default budget. `memory_mb` caps the memory of
    ISMCTS's trees (all those alive at once in a process; default DEFAULT_MEMORY_MB): at the
    cap a tree stops growing and the search goes on sampling within it (`info["memory"]`).
    Infinite, NaN, negative or oversized values are refused (BergenError)."""
    iterations: int | None = None
    time: float | None = None
    memory_mb: int | None = None

    def __post_init__(self):
        _check_count("iterations", self.iterations, 1, MAX_ITERATIONS)
        _check_count("memory_mb", self.memory_mb, 1, MAX_MEMORY_MB)
        if self.time is not None:
            if (isinstance(self.time, bool) or not isinstance(self.time, (int, float))
                    or not 0 < self.time <= MAX_SECONDS):
                raise BergenError(f"time must be a number of seconds above 0 and at most "
                                  f"{MAX_SECONDS:,.0f}, got {self.time!r}", field="time")

    @property
    def memory_bytes(self) -> int:
        return (DEFAULT_MEMORY_MB if self.memory_mb is None else self.memory_mb) << 20


@dataclass(frozen=True)
class MoveValue:
    """One root move of a search and what the search found of it. The views write it
    (`views.move_text`, `views.move_rows`)."""
    move: Move           # the action (`notation.Move`: a play, the draw or the pass)
    code: int            # move.code: tile * 2 + end, DRAW or PASS
    value: float
    stderr: float
    visits: int          # ISMCTS visits, or expectimax worlds
    twin: Move | None = None   # the move this one mirrors (the same choice), if any
    #: ISMCTS: the value each independent replicate gave it, in replicate order (`value` is
    #: their mean, `stderr` their standard error); the difference of two moves' samples,
    #: replicate by replicate, gives the honest error of a difference (`paired_stderr`).
    samples: tuple = ()
    share: float | None = None   # the exact endgame's equilibrium mix: this move's share
    #: A row of `choices()`: this move stands for itself and its mirror twin at the other end
    #: (one choice; written `a-b:L/R`).
    both_ends: bool = False


def paired_stderr(a: MoveValue, b: MoveValue) -> float:
    """The standard error of `a.value - b.value`: from their replicates' differences, replicate
    by replicate, when both have them (moves of one search share each replicate's worlds, so
    the difference is far less noisy than either value); else as if they were independent."""
    if a.move == b.move or a.code == b.code:
        return 0.0
    if len(a.samples) == len(b.samples) >= 2:
        d = [x - y for x, y in zip(a.samples, b.samples)]
        return _spread(d)[1]
    return math.sqrt(a.stderr ** 2 + b.stderr ** 2)


def _spread(xs) -> tuple:
    """(mean, standard error of the mean) of independent replicates xs (inf with one). The
    sample standard deviation s underestimates the true one on average, by the factor c4(n)
    (about 0.965 for 8 replicates, for normal replicates); s / c4(n) does not, so that the
    error printed matches, on average, the spread of the value over independent seeds."""
    n = len(xs)
    mean = math.fsum(xs) / n
    if n < 2:
        return mean, math.inf
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n) / _c4(n)


def _c4(n: int) -> float:
    """E[s] / sigma for the sample standard deviation s of n normal draws."""
    return math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2)) * math.sqrt(2 / (n - 1))


def choices(moves) -> list:
    """The moves with each mirror twin folded into the move it mirrors (`both_ends` set on
    it: one choice, which the views write `a-b:L/R`), in their order: what `best` and
    `play`'s hints list."""
    twinned = {m.twin for m in moves if m.twin is not None}
    return [replace(m, both_ends=True) if m.move in twinned else m
            for m in moves if m.twin is None]


@dataclass(frozen=True)
class SearchResult:
    """What `search` found: `best` (a `notation.Move`), `moves` (`MoveValue`s, best first),
    the best move's `value` and `stderr`, `visits` (the root's visits, or the iterations),
    and `info`, a dict of what else the search reports, as python-chess's
    `PlayResult.info` is (not an `InfoSet`, which the search's input is): `algorithm`,
    `objective`, `seed`, `backend`, `workers`, `settings`, `iterations`, `seconds`,
    `worlds_consistent`, `exact`, `interrupted`, `empty`, `values` (how the values were
    measured), `replicates`, `nodes`, `memory`; `twins` {Move: the Move it mirrors};
    `sides` {Move: each side's expected outcome after it} when the algorithm reports it;
    `endgame` (the exact endgame's report, or why it did not solve).

    >>> r = SearchResult(Move.parse("0-3:R"), [], 0.4, 0.1, 100)
    >>> eval(repr(r.best)) == r.best
    True
    """
    best: Move
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
        self.end = None if seconds is None else clock() + seconds

    def left(self):
        return None if self.end is None else self.end - clock()


def _run_sliced(run, budget, deadline: _Deadline, hooks=None, stats=None, count=None):
    """Call `run(n, seconds)` in slices until the budget (None: none) or the deadline; Ctrl-C
    stops early and keeps what was found. The core's searches give the same result however
    the iterations are split into calls. `hooks` (a `_Hooks`, from `search(stop=, on_info=)`):
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


class _Hooks:
    """What `search(stop=, on_info=)` asks of a running search: to stop when `stop` (a
    `threading.Event`) is set, and to tell `on_info` how it stands after every slice.
    `base`: the iterations (or worlds) of the slices' earlier calls (replicates, phases)."""

    def __init__(self, stop, on_info, moves=(), twins=None, lead=False, by_visits=False):
        self.stop, self.on_info = stop, on_info
        self.moves, self.twins, self.lead, self.by_visits = moves, twins, lead, by_visits
        self.t0 = clock()
        self.base = 0

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def sliced(self, done: int, stats=None, rows=None):
        """`done` iterations (or worlds) so far; `stats()` gives the root's statistics
        (move, n, sum, sum of squares) or `rows()` its rows (move, n, value, stderr)."""
        if self.on_info is None:
            return
        seconds = clock() - self.t0
        info = {"iterations": done, "seconds": seconds,
                "speed": done / seconds if seconds > 0 else 0.0}
        found = rows() if rows is not None else (
            _rows(self.moves, self.twins, {r[0]: r[1:4] for r in stats()})
            if stats is not None else None)
        if found:
            ranked = _ranked(found, self.twins, self.by_visits, self.lead)
            info.update(best=ranked[0].move, value=ranked[0].value, stderr=ranked[0].stderr,
                        moves=ranked)
        self.on_info(info)


def _rows(moves, twins, merged: dict) -> list:
    """(move, visits, value, stderr) of every root move from the search's statistics `merged`
    {move: (n, sum, sum of squares)} (a mirror twin's are the move's it mirrors)."""
    rows = []
    for m in moves:
        n, s, sq = merged.get(twins.get(m, m), (0, 0.0, 0.0))[:3]
        rows.append((m, n) + _mean_stderr(n, s, sq))
    return rows


def _ranked(rows, twins, by_visits: bool, lead: bool, samples=None) -> list:
    """The rows (move, visits, value, stderr) as `MoveValue`s, best first: the most visited
    (the robust child) or the best value; a twin right after the move it mirrors. `samples`:
    {move: per-replicate values}."""
    if by_visits:
        rows = sorted(rows, key=lambda r: (-r[1], -r[2], twins.get(r[0], r[0]), r[0]))
    else:
        rows = sorted(rows, key=lambda r: (-r[2], twins.get(r[0], r[0]), r[0]))
    samples = samples or {}
    return [MoveValue(Move.from_code(m, lead), m, v, se, n,
                      Move.from_code(twins[m], lead) if m in twins else None,
                      samples=tuple(samples.get(m, ()))) for m, n, v, se in rows]


# ---- the algorithms: registry.py, and one module each in algorithms/ ----


def __getattr__(name):
    """The registry's views under their old names: ALGORITHMS ({name: Algorithm}), PRESETS
    ({name: (base, settings)}), ALGORITHM_NAMES and DEFAULT_ITERATIONS ({name: budget}),
    read when asked (the engine modules import this one)."""
    views = {"ALGORITHMS": registry.algorithms, "PRESETS": registry.presets,
             "ALGORITHM_NAMES": registry.names, "DEFAULT_ITERATIONS": registry.default_iterations}
    if name in views:
        return views[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _halving(tree, budget, deadline: _Deadline, focus=(), hooks=None):
    """The root's budget by sequential halving (Karnin, Koren & Somekh 2013; Pepels et al.
    2014 in MCTS; the root of Gumbel MuZero, Danihelka et al. 2022): in ceil(log2 n) phases
    of equal budget, every choice still in gets an equal share of forced iterations
    (`IsmctsTree.run_move`: the root takes that move, the search below goes on as usual);
    after each phase the better half by the tree's mean stays. Every choice so gets a
    subtree of its own, and the close ones the most, so that their values compare at equal
    effort instead of hinging on the few visits UCB would give them. `focus` moves (the
    play `analyze` judges) stay in to the end. Under a time limit the phases share the
    clock instead. Returns (iterations done, interrupted)."""
    stats = tree.root_stats()
    alive = [m for m, *_ in stats if m not in tree.twins]
    keep = {tree.twins.get(m, m) for m in focus}
    count = lambda: tree.iterations
    if len(alive) < 2:
        return _run_sliced(tree.run, budget, deadline, hooks, tree.root_stats, count)
    phases = math.ceil(math.log2(len(alive)))
    done = 0
    for phase in range(phases):
        left = deadline.left()
        if left is not None and left <= 0:
            break
        share = None if budget is None else (budget - done) // (phases - phase)
        phase_end = None if left is None else clock() + left / (phases - phase)
        for i, m in enumerate(alive):
            n = None if share is None else share // len(alive) + (i < share % len(alive))
            if n == 0:
                continue
            slot = deadline if phase_end is None else _Deadline(
                (phase_end - clock()) / (len(alive) - i))
            got, interrupted = _run_sliced(partial(tree.run_move, m), n, slot, hooks,
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
                            if m in keep or _close(stats[m], stats[cut], HALVING_Z)]
    return done, False


def _close(a, b, z) -> bool:
    """Whether the root statistics a = (visits, sum, sum of squares) fall short of b's mean by
    less than z standard errors of the difference: not shown worse, so kept in."""
    if z <= 0 or a[0] < 2 or b[0] < 2:
        return False
    ma, mb = a[1] / a[0], b[1] / b[0]
    va = max(a[2] / a[0] - ma * ma, 0.0) / (a[0] - 1)
    vb = max(b[2] / b[0] - mb * mb, 0.0) / (b[0] - 1)
    return mb - ma < z * math.sqrt(va + vb)


def _search_worker(args, hooks=None):
    """One process's share of a search: its units (ISMCTS replicates, or expectimax's
    root-parallel workers) one after the other, each given an equal part of what is left
    of the clock. (The units' outputs, in order; after a Ctrl-C or a stop, those done,
    interrupted: True.)"""
    info, table, alg_name, objective, units, seconds, settings, values, focus, memory = args
    alg = registry.algorithms()[alg_name]
    deadline = _Deadline(seconds)
    if hooks is None and _CHILD_STOP is not None:
        hooks = _Hooks(_CHILD_STOP, None)       # a process of `_run_jobs`: its parent's stop
    out = []
    for i, (budget, seed) in enumerate(units):
        left = deadline.left()
        if left is not None and out and left <= 0:
            break
        if hooks is not None and hooks.stopped():
            return out, True
        mine = _Deadline(None if left is None else max(left, 0.0) / (len(units) - i))
        try:
            res = alg.worker(alg.sampler(info, table), objective, budget, mine,
                             seed, settings, values, hooks, focus=focus, memory=memory)
        except KeyboardInterrupt:
            return out, True
        out.append(res)
        if res[2]:          # interrupted: the rest is not searched
            return out, True
    return out, False


def _exact_expectimax(engine, info, table, worlds, seed, deadline: _Deadline, hooks=None):
    """Every consistent world (`WorldTable.enumerate()`), weighted by its number of histories
    (times its inference weight: its probability), solved by the `ExpectimaxSearch` engine.

    The worlds are solved in a seeded random order, each with its own playout seed, and a
    complete run sums them in their sorted order: the same values however the order falls.
    When the clock (heard inside a world too: a world it cuts is dropped) or Ctrl-C stops it
    first, the value is the weighted mean over the worlds solved, a sample without
    replacement, with its standard error; it is then not exact.

    A world searched to its end in every line is exact; one cut at the horizon carries the
    noise of its random playouts. When any was cut, every world is solved again with other
    playout seeds, at least twice in all and more when the worlds are few (until the
    playouts' variance rests on MIN_REPLICATE_DOF degrees of freedom): the value is the mean
    of the solves, and its standard error the playouts' part, from their spread world by
    world (the worlds are all there, so that is the only noise); it is not exact. Without
    time for a second round, the standard error is unknown (inf).
    `hooks` (`search(stop=, on_info=)`): a stop is heard between worlds, as Ctrl-C is.
    Returns (rows (move, worlds, value, stderr), worlds solved, exact, interrupted)."""
    from ..game.rng import Rng
    worlds = sorted(worlds.items())
    order = list(range(len(worlds)))
    Rng(derive_seed(seed, len(worlds))).shuffle(order)
    moves = root_moves(info)

    def partial_rows(values):
        """The rows of the worlds solved so far (for `hooks`)."""
        solved = sorted(values)
        return [(m, len(solved), *_weighted_sample_mean(
            [(worlds[i][1], values[i][j]) for i in solved], len(worlds)))
            for j, m in enumerate(moves)]

    def solve(replicate):
        values, interrupted = {}, False
        heard = clock()
        try:
            for i in order:
                if hooks is not None and values and \
                        clock() - heard >= STOP_SLICE_SECONDS:
                    heard = clock()
                    hooks.sliced(len(values) + replicate * len(worlds),
                                 rows=lambda: partial_rows(values))
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
    solved = sorted(values)
    rows = []
    if n < size or engine.horizons == 0:
        for j, m in enumerate(moves):
            mean, se = _weighted_sample_mean([(worlds[i][1], values[i][j]) for i in solved],
                                             size)
            rows.append((m, n, mean, se))
        return rows, n, n == size and engine.horizons == 0, interrupted
    # Horizons were reached: every world is solved again with other playout seeds, as many
    # times as it takes for the playouts' variance to rest on MIN_REPLICATE_DOF degrees of
    # freedom (twice when the worlds are many, more when few), so that an error of 0 cannot
    # come of two playouts agreeing by chance.
    rounds = max(2, 1 + math.ceil(MIN_REPLICATE_DOF / size))
    solves = [values]
    while len(solves) < rounds and not interrupted:
        again, interrupted = solve(len(solves))
        if len(again) < size:
            break
        solves.append(again)
    total = sum(w for _, w in worlds)
    k = len(solves)
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


def mirror_twins(info: InfoSet) -> dict:
    """{move: the move it mirrors} for the seat's root plays (`state.mirror_twins`): the two
    lead to the same position up to the mirror, so they are one choice."""
    return state_mirror_twins(info.left, info.right, info.left_double, info.right_double,
                              root_moves(info))


def search(info: InfoSet, limits: Limits | None = None, *, seed: int = 0,
           algorithm: str = "ismcts", objective: str = "points", workers: int = 1,
           values: bool = True, focus=(), stop=None, on_info=None,
           **settings) -> SearchResult:
    """Rank every legal move of the seat to move in `info`.

    `algorithm`: "ismcts" (the default engine), "expectimax", or a preset ("classic": ISMCTS
    as it was before inference, safe playouts and merged twins). `settings` are the
    algorithm's (`ALGORITHMS[name].settings`): `exploration`, `playout`, `inference`, `twins`,
    `choose`, `replicates`, `stats`, `root` (ismcts); `depth`, `playouts`, `inference`
    (expectimax); an unknown one is an error. Same seed and same iteration budget: the same
    result, byte for byte, with any number of `workers` for ISMCTS (its replicates are the
    units the processes share) and with the same number for expectimax (root-parallel). With
    a time limit the result depends on the machine's speed. Mirror twins (`mirror_twins`) get
    equal values, and the twin at the right end is listed after the one at the left with
    `MoveValue.twin` naming it.

    ISMCTS's values (issue 22): the budget is shared by `replicates` independent trees (each
    its own seed); in each, the root shares its budget between the choices by sequential
    halving (`_halving`; `focus` moves stay in to the end), and a final pass plays every root
    move on the same worlds, each decision after it by the tree's best mean (no exploration)
    and then the playout policy, with the same random numbers for every move
    (`IsmctsTree.evaluate_root`): what the move is worth when the engine plays on from it. A
    move's value is the mean of its replicates' pass values (`MoveValue.samples`), its
    standard error their spread: it covers every noise of the search, the worlds, the
    playouts and the shape of each tree, so it matches the spread over independent seeds
    (`benchmarks/calibration.py`). Under a time limit the pass takes PASS_SHARE of each
    replicate's share. The move chosen is the best value (setting `choose`, default "value"),
    or with `choose=visits` the most visited move. `values=False` (a match's engine, which
    needs the move only) skips the pass when the choice does not need it (`choose=visits`).

    `stop` (a `threading.Event`, set by another thread) ends the search at the next slice
    (STOP_SLICE_SECONDS; a final pass already running is finished first) and keeps what was
    found, as Ctrl-C does (`info["interrupted"]`; no final pass once stopped). `on_info`, a
    callable, is given after every slice a dict: `iterations` (or worlds) so far, `seconds`,
    `speed` (per second), and once the root has statistics `best`, `value`, `stderr` and
    `moves` (`MoveValue`s of the replicate being searched, ranked by its own means). Both run
    the search in slices of STOP_SLICE_SECONDS, which leaves the result of an iteration
    budget unchanged, and need `workers=1`.
    """
    t0 = clock()
    limits = limits or Limits()
    alg, settings = resolve(algorithm, settings)
    be = backend.SEARCH
    if alg.needs_core and be.name != "core":
        raise BergenError(f"{algorithm} needs the compiled core, and the searches run in pure "
                          f"Python ({be.why}); use ismcts or classic, or build the core "
                          f"(pip install .)", field="algorithm")
    values = values or settings.get("choose") == "value"
    obj = _objective_code(objective)
    if workers < 1:
        raise BergenError(f"workers must be at least 1, got {workers}", field="workers")
    # An algorithm may solve the whole search at once (the exact endgame; ISMCTS tries it
    # first when its setting `endgame` is on), or leave notes and new limits.
    run = SearchRun(algorithm, seed, objective, dict(settings), workers, stop, on_info, t0, be)
    solved = alg.solve(info, limits, run)
    if solved.result is not None:
        return solved.result
    limits = solved.limits
    budget = limits.iterations
    if budget is None and limits.time is None:
        budget = be.budget(alg.default_budget)
    moves = root_moves(info)
    twins = mirror_twins(info) if settings.get("twins", True) else {}
    table = alg.table(info, settings)
    lead = not info.line
    hooks = None
    if stop is not None or on_info is not None:
        if workers != 1:
            raise BergenError("a search that can be stopped or watched (stop, on_info) runs "
                              "with one worker", field="workers")
        hooks = _Hooks(stop, on_info, moves, twins, lead, alg.by_visits)
    result_info = {"algorithm": algorithm, "objective": objective, "seed": seed,
                   "backend": be.name, "workers": workers, "worlds_consistent": table.histories,
                   "exact": False,
                   "settings": dict(settings), "values": {"method": "search"},
                   "twins": {Move.from_code(m, lead): Move.from_code(t, lead)
                             for m, t in twins.items()}}
    # What is left of the time limit once the table is built.
    seconds = None if limits.time is None else max(limits.time - (clock() - t0), 0.001)
    samples = {}
    # Every world solved instead of sampling, when the algorithm does that (expectimax, when
    # the worlds are few).
    whole = alg.exhaustive(info, table, budget, seconds, run, hooks)
    if whole is not None:
        rows, done, extra = whole
        result_info.update(extra)
    else:
        # The units of work (ISMCTS's replicates, each its own tree and seed; expectimax's
        # root-parallel workers), spread over the processes round robin.
        units = alg.units(settings, workers)
        if budget is not None:
            units = min(units, budget)
        shares = [None if budget is None else budget // units + (u < budget % units)
                  for u in range(units)]
        seeds = [seed] if units == 1 else [derive_seed(seed, u) for u in range(units)]
        procs = min(workers, units)
        jobs = [(info, table, alg.name, obj, [(shares[u], seeds[u])
                                              for u in range(w, units, procs)],
                 seconds, settings, values, tuple(focus), limits.memory_bytes)
                for w in range(procs)]
        finished = _run_jobs(jobs, hooks)
        # Back in unit order (process w ran units w, w + procs, ...; an interrupted one, the
        # first of them).
        flat = [None] * units
        for w, (done_units, _) in enumerate(finished):
            for u, res in zip(range(w, units, procs), done_units):
                flat[u] = res
        outputs = [r for r in flat if r is not None]
        rows, done, interrupted, nodes, sides, method, samples = _merge_units(
            outputs, moves, twins, replicated=alg.replicated)
        # A Ctrl-C outside a unit's own search (between them, or while one was set up).
        interrupted = interrupted or any(cut for _, cut in finished)
        result_info.update(nodes=nodes, interrupted=interrupted, replicates=len(outputs)
                           if alg.replicated else None)
        result_info.update(alg.summary(outputs, limits))
        result_info["values"] = method
        if sides:
            # Each side's expected outcome after each root move, under the search's play
            # (from the final pass when there was one).
            result_info["sides"] = {Move.from_code(m, lead): v for m, v in sides.items()}
    # The final policy: the most visited move (the robust child) or the best value; a twin
    # goes right after the move it mirrors.
    mv = _ranked(rows, twins, alg.by_visits and not (
        settings.get("choose") == "value" and result_info["values"]["method"] == "pass"),
        lead, samples)
    best = mv[0]
    # Nothing finished (a world longer than the time limit, or a stop at once): the values
    # are no answer, and `empty` says so (the callers say it to the user).
    result_info.update(iterations=done, seconds=clock() - t0, empty=done == 0)
    result_info.update(solved.info)
    result_info["interrupted"] = result_info.get("interrupted", False) or solved.interrupted
    visits = sum(x.visits for x in mv if x.twin is None) if alg.by_visits else done
    return SearchResult(best.move, mv, best.value, best.stderr, visits, result_info)


def pool(results) -> SearchResult:
    """ISMCTS searches of one position with one budget per replicate, pooled into one: their
    replicates taken together (independent trees estimating the same thing), so the value
    is the mean of all of them and the error shrinks with their number. How `analyze`
    searches a close decision again without changing what is measured."""
    first = results[0]
    if any(not m.samples for res in results for m in res.moves):
        raise BergenError("only searches with replicates can be pooled")
    by = {}
    for res in results:
        for m in res.moves:
            by.setdefault(m.code, []).append(m)
    codes = {m.move: m.code for m in first.moves}
    rows = []
    for code, ms in by.items():
        samples = tuple(x for m in ms for x in m.samples)
        mean, se = _spread(samples)
        rows.append(MoveValue(ms[0].move, code, mean, se, sum(m.visits for m in ms),
                              ms[0].twin, samples=samples))
    by_visits = first.info.get("settings", {}).get("choose") == "visits"
    twin_of = lambda m: codes[m.twin] if m.twin is not None else m.code
    rows.sort(key=(lambda m: (-m.visits, -m.value, twin_of(m), m.code)) if by_visits else
              (lambda m: (-m.value, twin_of(m), m.code)))
    info = dict(first.info)
    n = [len(res.moves[0].samples) for res in results]
    for key in ("iterations", "seconds", "nodes"):
        info[key] = sum(res.info.get(key) or 0 for res in results)
    info["replicates"] = sum(n)
    info["interrupted"] = any(res.info.get("interrupted") for res in results)
    info["pooled"] = len(results)
    if all("sides" in res.info for res in results):
        info["sides"] = {m: [math.fsum(k * res.info["sides"][m][i] for k, res in zip(n, results))
                             / sum(n) for i in range(len(first.info["sides"][m]))]
                         for m in first.info["sides"]}
    return SearchResult(rows[0].move, rows, rows[0].value, rows[0].stderr,
                        sum(m.visits for m in rows if m.twin is None), info)


def _merge_units(outputs, moves, twins, replicated: bool):
    """The units' outputs merged into (rows (move, visits, value, stderr), iterations done,
    interrupted, nodes, {move: each side's expected outcome}, the values' method, {move:
    per-replicate values}).

    ISMCTS (`replicated`): each replicate's value of a move is its final pass's mean (or,
    without a pass, its tree's mean); the value is the mean over the replicates and the
    standard error their spread, which covers every noise of the search: the worlds, the
    playouts and the shape of each tree. With one replicate no error is measured (inf).
    Expectimax's workers sample independent worlds: their sums are pooled."""
    done = sum(o[1] for o in outputs)
    interrupted = any(o[2] for o in outputs)
    nodes = sum(o[3].get("nodes", 0) for o in outputs)
    visits = {}
    for stats, *_ in outputs:
        for m, n, *_ in stats:
            visits[m] = visits.get(m, 0) + n
    key = lambda m: twins.get(m, m)
    if replicated:
        passed = [o for o in outputs if "pass" in o[3]]
        per, side_per = {m: [] for m in moves}, {m: [] for m in moves}
        if passed:
            worlds = 0
            for o in passed:
                w, prow = o[3]["pass"]
                worlds += w
                by = {m: (sm, g) for m, sm, _, g in prow}
                for m in moves:
                    sm, g = by[m]
                    per[m].append(sm / w)
                    side_per[m].append([x / w for x in g])
            method = {"method": "pass", "worlds": worlds, "replicates": len(passed)}
        else:
            for stats, _, _, extra in outputs:
                by = {m: (n, sm) for m, n, sm, _ in stats}
                for m in moves:
                    n, sm = by.get(key(m), (0, 0.0))
                    if n:
                        per[m].append(sm / n)
                    n_s, sums = extra.get("sides", {}).get(key(m), (0, ()))
                    if n_s:
                        side_per[m].append([x / n_s for x in sums])
            method = {"method": "search", "replicates": len(outputs)}
        rows = []
        for m in moves:
            mean, se = _spread(per[m]) if per[m] else (0.0, math.inf)
            rows.append((m, visits.get(key(m), 0), mean, se))
        sides = {m: [math.fsum(v[i] for v in side_per[m]) / len(side_per[m])
                     for i in range(len(side_per[m][0]))] for m in moves if side_per[m]}
        return rows, done, interrupted, nodes, sides, method, per
    merged, side_sums = {}, {}
    for stats, _, _, extra in outputs:
        for m, n, sm, sq in stats:
            acc = merged.setdefault(m, [0, 0.0, 0.0])
            acc[0] += n
            acc[1] += sm
            acc[2] += sq
        for m, (n, sums) in extra.get("sides", {}).items():
            acc = side_sums.setdefault(m, [0, [0.0] * len(sums)])
            acc[0] += n
            acc[1] = [a + b for a, b in zip(acc[1], sums)]
    rows = []
    for m in moves:
        n, sm, sq = merged.get(key(m), (0, 0.0, 0.0))
        rows.append((m, n) + _mean_stderr(n, sm, sq))
    sides = {m: [x / n if n else None for x in sums] for m, (n, sums) in side_sums.items()}
    return rows, done, interrupted, nodes, sides, {"method": "search"}, {}


#: In a process of `_run_jobs`'s pool: the parent's stop (a multiprocessing Event inherited
#: through fork), which the process's searches hear between slices and inside worlds.
_CHILD_STOP = None
#: Seconds a search's processes are given to send what they found once stopped (a slice and
#: the merge; more would hold up a Ctrl-C).
STOP_GRACE = 0.5


def _child_init(parent: int):
    """A pool process of a search: Ctrl-C is for the parent, which stops it through
    `_CHILD_STOP`; and it dies with the parent (`parallel.die_with_parent`)."""
    import signal

    from ..runs.parallel import die_with_parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def _run_jobs(jobs, hooks=None):
    """Each job's `_search_worker`, in one process or one process each (fork). Ctrl-C in the
    parent (or a stop) sets the stop the processes hear: each sends what it found within a
    slice, and the search is merged from that, interrupted, as with one process."""
    global _CHILD_STOP
    if len(jobs) == 1:
        return [_search_worker(jobs[0], hooks)]
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    _CHILD_STOP = stop
    import os

    from ..runs.parallel import deferred_ctrl_c
    with deferred_ctrl_c():
        pool = ctx.Pool(len(jobs), initializer=_child_init, initargs=(os.getpid(),))
    _CHILD_STOP = None
    try:
        pending = pool.map_async(_search_worker, jobs)
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
