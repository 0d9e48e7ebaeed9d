"""Search in python-chess's engine manner: `search(info, Limits(...), seed=...)`.

Two algorithms over the same exact world sampler (sampler.py), each an `Algorithm` (its
settings, the unit of its budget, its workers, its final move) in `ALGORITHMS`:

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
from dataclasses import dataclass, field, replace

from .errors import BergenError
from .infoset import InfoSet
from .rng import derive_seed
from .sampler import WorldTable
from .state import DRAW, PASS, move_str
from .state import mirror_twins as state_mirror_twins
from .tiles import TILES_WITH, iter_mask

OBJECTIVES = ("points", "match")
#: Expectimax may enumerate the worlds instead of sampling them when the histories behind
#: them number at most this many (and the distinct worlds fit the budget).
EXACT_WORLDS = 2000
#: A search runs in slices this long so that Ctrl-C and the clock are heard promptly.
SLICE_SECONDS = 0.05
#: ISMCTS's final pass (comparable values, `search(values=True)`): the share of a time limit
#: kept for it, its worlds (iterations / (PASS_SPREAD x choices), within PASS_MIN..PASS_MAX),
#: and the stream its worlds are drawn on.
PASS_SHARE = 0.15
PASS_SPREAD = 5
PASS_MIN, PASS_MAX = 100, 4000
PASS_STREAM = 0xFA55
#: Added to a world's index for the playout seeds of its second solve (`_exact_expectimax`).
REPLICATE_STREAM = 1 << 40


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
    twin: str | None = None   # the move this one mirrors (the same choice), if any
    share: float | None = None   # the exact endgame's equilibrium mix: this move's share


def choices(moves) -> list:
    """The moves with each mirror twin folded into the move it mirrors, written `a-b:L/R`
    (one choice), in their order: what `best` and `play`'s hints list."""
    twinned = {m.twin for m in moves if m.twin}
    return [replace(m, move=m.move + "/R") if m.move in twinned else m
            for m in moves if m.twin is None]


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


# ---- the algorithms ------------------------------------------------------------------------
@dataclass(frozen=True)
class Setting:
    """A setting of an algorithm: its type, default and what it does. `choices` limits a
    string; booleans also read on/off, yes/no, true/false, 1/0."""
    type: type
    default: object
    help: str
    choices: tuple = ()
    minimum: float = 0       # the least value a number may take

    def parse(self, name: str, value):
        """The value checked (and converted from text, as engine specs give it)."""
        if self.type is bool:
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("on", "yes", "true", "1"):
                    return True
                if low in ("off", "no", "false", "0"):
                    return False
                raise BergenError(f"{name} must be on or off, got {value!r}", field=name)
            if isinstance(value, bool) or value in (0, 1):
                return bool(value)
            raise BergenError(f"{name} must be on or off, got {value!r}", field=name)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise BergenError(f"{name} needs a {self.type.__name__}, got {value!r}", field=name)
        try:
            out = self.type(value)
        except ValueError:
            raise BergenError(f"{name} needs a {self.type.__name__}, got {value!r}",
                              field=name) from None
        if self.choices and out not in self.choices:
            raise BergenError(f"{name} must be one of {', '.join(self.choices)}, got {value!r}",
                              field=name)
        if self.type in (int, float) and not (out >= 0 and math.isfinite(out)):
            raise BergenError(f"{name} must be a finite number >= 0, got {value!r}", field=name)
        if self.type in (int, float) and out < self.minimum:
            raise BergenError(f"{name} must be at least {self.minimum}, got {value!r}",
                              field=name)
        return out


def setting_text(value) -> str:
    """A setting's value as a person (and an engine spec) writes it: booleans as on/off."""
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


class Algorithm:
    """One search algorithm behind `search()`: its settings, the unit of its budget, how its
    workers search and how its final move is chosen. Subclasses fill in `worker`."""
    name = ""
    unit = "iterations"          # what Limits.iterations counts
    default_budget = 0
    settings: dict = {}          # name -> Setting
    by_visits = False            # the final move: most visited (else the best value)

    def check(self, settings: dict) -> dict:
        """Every setting, with its default where not given; unknown ones are an error."""
        for key in settings:
            if key not in self.settings:
                known = ", ".join(self.settings) or "none"
                raise BergenError(f"{self.name} has no setting {key!r} (settings: {known})",
                                  field=key)
        return {k: s.parse(k, settings[k]) if k in settings else s.default
                for k, s in self.settings.items()}

    def worker(self, sampler, objective: int, budget, deadline, seed: int, settings: dict,
               values: bool = False):
        """Search with one core object: (rows (move, n, sum, sum of squares), done,
        interrupted, extra). `values`: also measure comparable values of the root moves
        (`extra["pass"]`: (worlds, rows (move, sum, sum of squares, each side's outcome
        summed))) where the algorithm's own statistics are not (ISMCTS: lowered by its
        exploration)."""
        raise NotImplementedError

    def table(self, info: InfoSet, settings: dict) -> WorldTable:
        """The world table searched: weighted by inference when `inference` is on."""
        if settings.get("inference"):
            from .inference import TileModel, tile_factors
            return WorldTable(info, tile_factors(info, TileModel()))
        return WorldTable(info)


class Ismcts(Algorithm):
    name = "ismcts"
    default_budget = 20000
    by_visits = True
    settings = {
        "exploration": Setting(float, 0.7, "the UCB1 exploration constant"),
        "playout": Setting(str, "safe", "how playouts play on: random, scoring or safe",
                           ("random", "scoring", "safe")),
        "inference": Setting(bool, True, "weigh the worlds by what the other seats' plays "
                             "say about their hands (inference.py)"),
        "twins": Setting(bool, True, "plays that mirror each other are one choice"),
        "choose": Setting(str, "value", "the move played: the best value of the final pass "
                          "(value; runs the pass) or the most visited (visits)",
                          ("value", "visits")),
        "endgame": Setting(bool, True, "solve the end of a two-player round exactly when no "
                           "draw can happen again and it fits the budget (endgame.py)"),
    }

    def worker(self, sampler, objective, budget, deadline, seed, settings, values=False):
        from ._ismcts import IsmctsTree
        tree = IsmctsTree(sampler, seed, settings["exploration"], objective,
                          settings["playout"], merge_twins=settings["twins"])
        left = deadline.left()
        search_deadline = deadline if left is None or not values else _Deadline(
            left * (1 - PASS_SHARE))
        t0 = time.perf_counter()
        done, interrupted = _run_sliced(tree.run, budget, search_deadline)
        extra = {"nodes": tree.n_nodes, "twins": tree.twins,
                 "sides": {m: (n, sums) for m, n, sums in tree.root_side_stats()}}
        n_choices = len({m for m, *_ in tree.root_stats()} - set(tree.twins))
        if values and not interrupted and done and n_choices > 1:
            # The final pass: every root move on the same worlds, played on as the search
            # would (common random numbers), so that values compare (issue 10).
            worlds = max(PASS_MIN, min(PASS_MAX, done // (PASS_SPREAD * n_choices)))
            left = deadline.left()
            if left is not None:
                rate = done / max(time.perf_counter() - t0, 1e-6)
                worlds = max(PASS_MIN, min(worlds, int(rate * max(left, 0) / n_choices)))
            try:
                extra["pass"] = (worlds, tree.evaluate_root(worlds,
                                                            derive_seed(seed, PASS_STREAM)))
            except KeyboardInterrupt:
                interrupted = True
        return [tuple(r) for r in tree.root_stats()], done, interrupted, extra


class Expectimax(Algorithm):
    name = "expectimax"
    unit = "worlds"
    default_budget = 200
    settings = {
        "depth": Setting(int, 6, "actions searched before the horizon", minimum=1),
        "playouts": Setting(int, 2, "random playouts per horizon leaf", minimum=1),
        "inference": Setting(bool, False, "weigh the worlds by what the other seats' plays "
                             "say about their hands (inference.py)"),
    }

    def engine(self, sampler, objective, seed, settings):
        from ._expectimax import ExpectimaxSearch
        return ExpectimaxSearch(sampler, settings["depth"], seed, objective, settings["playouts"])

    def worker(self, sampler, objective, budget, deadline, seed, settings, values=False):
        engine = self.engine(sampler, objective, seed, settings)
        done, interrupted = _run_sliced(engine.run_worlds, budget, deadline)
        return ([tuple(r) for r in engine.root_stats()], done, interrupted,
                {"nodes": engine.nodes})


class Endgame(Algorithm):
    """The exact endgame alone (endgame.py): the equilibrium of the end of a two-player
    round, or an error saying why not. Its budget is counted in the default engine's
    iterations (each buys endgame.WORK_PER_ITERATION of solver work)."""
    name = "endgame"
    default_budget = 20000
    settings = {
        "tolerance": Setting(float, 0.01, "the exploitability (points) the solver stops at"),
        "inference": Setting(bool, False, "weigh the deals by what both seats' plays say "
                             "about their hands (inference.py); off: uniform over the deals"),
    }

    def worker(self, sampler, objective, budget, deadline, seed, settings, values=False):
        raise BergenError("the exact endgame is solved by search(), not by workers")


#: The algorithms by name.
ALGORITHMS = {a.name: a for a in (Ismcts(), Expectimax(), Endgame())}
#: Named settings of an algorithm. `classic` is the default engine as it was before inference,
#: safe playouts, merged twins and the exact endgame (benchmarks/STRENGTH.md measures every
#: gain against it).
PRESETS = {"classic": ("ismcts", {"playout": "random", "inference": False, "twins": False,
                                   "choose": "visits", "endgame": False})}
#: Every name `search(algorithm=...)` takes.
ALGORITHM_NAMES = tuple(ALGORITHMS) + tuple(PRESETS)
DEFAULT_ITERATIONS = {name: ALGORITHMS[PRESETS.get(name, (name,))[0]].default_budget
                      for name in ALGORITHM_NAMES}


def resolve(algorithm: str, settings: dict) -> tuple:
    """(Algorithm, its full settings) for an algorithm or preset name and explicit settings
    (which override a preset's)."""
    if algorithm in PRESETS:
        base, preset = PRESETS[algorithm]
        settings = {**preset, **settings}
        algorithm = base
    if algorithm not in ALGORITHMS:
        raise BergenError(f"algorithm must be one of {', '.join(ALGORITHM_NAMES)}, got "
                          f"{algorithm!r}", field="algorithm")
    alg = ALGORITHMS[algorithm]
    return alg, alg.check(settings)


def _search_worker(args):
    """One root-parallel worker (or the only one)."""
    info, table, alg_name, objective, budget, seconds, seed, settings, values = args
    from ._sampler import CoreSampler
    return ALGORITHMS[alg_name].worker(CoreSampler(info, table), objective, budget,
                                       _Deadline(seconds), seed, settings, values)


def _exact_expectimax(engine, info, table, worlds, seed, deadline: _Deadline):
    """Every consistent world (`WorldTable.enumerate()`), weighted by its number of histories
    (times its inference weight: its probability), solved by the `ExpectimaxSearch` engine.

    The worlds are solved in a seeded random order, each with its own playout seed, and a
    complete run sums them in their sorted order: the same values however the order falls.
    When the clock (heard inside a world too: a world it cuts is dropped) or Ctrl-C stops it
    first, the value is the weighted mean over the worlds solved, a sample without
    replacement, with its standard error; it is then not exact.

    A world searched to its end in every line is exact; one cut at the horizon carries the
    noise of its random playouts. When any was cut, every world is solved a second time with
    other playout seeds: the value is the mean of the two, and its standard error the
    playouts' part, from the differences of the two (the worlds are all there, so that is
    the only noise); it is not exact. Without time for the second round, the standard error
    is unknown (inf).
    Returns (rows (move, worlds, value, stderr), worlds solved, exact, interrupted)."""
    from .rng import Rng
    worlds = sorted(worlds.items())
    order = list(range(len(worlds)))
    Rng(derive_seed(seed, len(worlds))).shuffle(order)
    moves = root_moves(info)

    def solve(replicate):
        values, interrupted = {}, False
        try:
            for i in order:
                left = deadline.left()
                if left is not None and left <= 0:
                    break
                (hands, reserve), _ = worlds[i]
                v = engine.run_world(hands, list(reserve),
                                     seed=derive_seed(seed, i + replicate * REPLICATE_STREAM),
                                     seconds=0 if left is None else left)
                if v is None:
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
    again, interrupted = ({}, interrupted) if interrupted else solve(1)
    total = sum(w for _, w in worlds)
    for j, m in enumerate(moves):
        if len(again) < size:
            mean = sum(worlds[i][1] * values[i][j] for i in solved) / total
            rows.append((m, n, mean, math.inf))
            continue
        mean = sum(worlds[i][1] * (values[i][j] + again[i][j]) / 2 for i in solved) / total
        var = sum((worlds[i][1] * (values[i][j] - again[i][j])) ** 2 / 4 for i in solved)
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
           values: bool = True, **settings) -> SearchResult:
    """Rank every legal move of the seat to move in `info`.

    `algorithm`: "ismcts" (the default engine), "expectimax", or a preset ("classic": ISMCTS
    as it was before inference, safe playouts and merged twins). `settings` are the
    algorithm's (`ALGORITHMS[name].settings`): `exploration`, `playout`, `inference`, `twins`,
    `choose` (ismcts); `depth`, `playouts`, `inference` (expectimax); an unknown one is an error.
    Same seed, same iteration budget and same number of workers: the same result, byte for
    byte. With a time limit the result depends on the machine's speed. Mirror twins
    (`mirror_twins`) get equal values, and the twin at the right end is listed after the one
    at the left with `MoveValue.twin` naming it.

    `values`: every move's value is what it is worth when the engine plays on from it as it
    would. ISMCTS's own means are lowered by its exploration below a move, the less visited
    the more; so a final pass plays every root move on the same worlds, each decision after
    it by the tree's best mean (no exploration) and then the playout policy, with the same
    random numbers for every move (`IsmctsTree.evaluate_root`), and reports those means and
    their standard errors (`info["values"]` says "pass" and how many worlds). Under a time
    limit the pass takes PASS_SHARE of it. The move chosen is the pass's best value (setting
    `choose`, default "value", so that the move recommended is the best valued one), or with
    `choose=visits` the search's most visited move. `values=False` (a match's engine, which
    needs the move only) skips the pass when the choice does not need it (`choose=visits`).
    """
    t0 = time.perf_counter()
    limits = limits or Limits()
    alg, settings = resolve(algorithm, settings)
    values = values or settings.get("choose") == "value"
    obj = _objective_code(objective)
    if workers < 1:
        raise BergenError(f"workers must be at least 1, got {workers}", field="workers")
    # ---- the exact endgame (issue 21): solved when it applies and fits the budget ----
    endgame_note, endgame_interrupted = None, False
    if isinstance(alg, Endgame) or settings.get("endgame"):
        from . import endgame
        tried = endgame.attempt(info, limits, seed=seed, objective=objective, started=t0,
                                budget=alg.default_budget,
                                tolerance=settings.get("tolerance", endgame.TOLERANCE),
                                inference=isinstance(alg, Endgame) and settings["inference"])
        if tried.result is not None:
            tried.result.info.update(algorithm=algorithm, settings=dict(settings))
            return tried.result
        if isinstance(alg, Endgame):
            raise BergenError(f"no exact endgame here: {tried.why or endgame.applicable(info)}")
        endgame_note = tried.why
        if tried.interrupted:
            # Ctrl-C: no time is left, so the answer comes from a short search.
            limits = Limits(iterations=max(alg.default_budget // 100, 1))
            endgame_interrupted = True
    # ---- end of the exact endgame's hook ----
    budget = limits.iterations
    if budget is None and limits.time is None:
        budget = alg.default_budget
    moves = root_moves(info)
    twins = mirror_twins(info) if settings.get("twins", True) else {}
    table = alg.table(info, settings)
    lead = not info.line
    result_info = {"algorithm": algorithm, "objective": objective, "seed": seed,
                   "workers": workers, "worlds_consistent": table.total, "exact": False,
                   "settings": dict(settings), "values": {"method": "search"},
                   "twins": {move_str(m, lead): move_str(t, lead) for m, t in twins.items()}}
    # Expectimax solves every world instead of sampling when they are few: at most the
    # budget of worlds, or under a time limit as many as the clock allows.
    worlds = (table.enumerate() if isinstance(alg, Expectimax) and table.total <= EXACT_WORLDS
              else None)
    # What is left of the time limit once the table is built.
    seconds = None if limits.time is None else max(limits.time - (time.perf_counter() - t0), 0.001)
    if worlds is not None and (budget is None or len(worlds) <= budget):
        from ._sampler import CoreSampler
        engine = alg.engine(CoreSampler(info, table), obj, seed, settings)
        rows, done, exact, interrupted = _exact_expectimax(
            engine, info, table, worlds, seed, _Deadline(seconds))
        result_info.update(exact=exact, worlds=done, interrupted=interrupted,
                           all_worlds=done == len(worlds))
    else:
        if workers == 1:
            jobs = [(info, table, alg.name, obj, budget, seconds, seed, settings, values)]
        else:
            shares = [None] * workers if budget is None else [
                budget // workers + (1 if w < budget % workers else 0) for w in range(workers)]
            jobs = [(info, table, alg.name, obj, shares[w], seconds, derive_seed(seed, w),
                     settings, values)
                    for w in range(workers) if shares[w] is None or shares[w] > 0]
        outputs = _run_jobs(jobs)
        merged, sides, passed = {}, {}, {}
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
            if "pass" in extra:
                worlds, rows_ = extra["pass"]
                for m, s, sq, gains in rows_:
                    acc = passed.setdefault(m, [0, 0.0, 0.0, [0.0] * len(gains)])
                    acc[0] += worlds
                    acc[1] += s
                    acc[2] += sq
                    acc[3] = [a + b for a, b in zip(acc[3], gains)]
        rows = []
        for m in moves:
            n, s, sq = merged.get(twins.get(m, m), (0, 0.0, 0.0))
            mean, se = _mean_stderr(*passed[m][:3]) if passed else _mean_stderr(n, s, sq)
            rows.append((m, n, mean, se))
        result_info.update(nodes=nodes, interrupted=interrupted)
        if passed:
            result_info["values"] = {"method": "pass", "worlds": passed[moves[0]][0]}
            sides = {m: (acc[0], acc[3]) for m, acc in passed.items()}
        if sides:
            # Each side's expected outcome after each root move, under the search's play
            # (from the final pass when there was one).
            result_info["sides"] = {move_str(m, lead): [x / n if n else None for x in sums]
                                    for m, (n, sums) in sides.items()}
    # The final policy: the most visited move (the robust child) or the best value; a twin
    # goes right after the move it mirrors.
    if alg.by_visits and not (settings.get("choose") == "value" and
                              result_info["values"]["method"] == "pass"):
        rows.sort(key=lambda r: (-r[1], -r[2], twins.get(r[0], r[0]), r[0]))
    else:
        rows.sort(key=lambda r: (-r[2], twins.get(r[0], r[0]), r[0]))
    mv = [MoveValue(move_str(m, lead), m, v, se, n,
                    move_str(twins[m], lead) if m in twins else None) for m, n, v, se in rows]
    best = mv[0]
    result_info.update(iterations=done, seconds=time.perf_counter() - t0)
    if endgame_note:
        result_info["endgame"] = {"solved": False, "why": endgame_note}
    result_info["interrupted"] = result_info.get("interrupted", False) or endgame_interrupted
    visits = sum(x.visits for x in mv if x.twin is None) if alg.by_visits else done
    return SearchResult(best.move, mv, best.value, best.stderr, visits, result_info)


def _run_jobs(jobs):
    if len(jobs) == 1:
        return [_search_worker(jobs[0])]
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    with ctx.Pool(len(jobs)) as pool:
        return pool.map(_search_worker, jobs)
