"""The arena: engine A against engine B over many duplicate sets of matches.

A set plays the same deals (seeded `derive_seed(seed, i)`) in every seating (`seatings`);
with `single_round` a match is its first round, a tie for the most points with k - 1 others
worth 1/k of a win. docs/GUIDE.md explains the figures.

>>> from bergen_search.game.rules import Rules
>>> r = run_arena(Rules(), "greedy", "random", games=4, seed=1)
>>> r.sets, r.matches, sum(r.wins) == r.matches, r.ci95[0] <= r.win_rate <= r.ci95[1]
(4, 8, True, True)
"""
from __future__ import annotations

import math
import time
from collections import namedtuple
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

from ..errors import BergenError, Interrupted
from ..game.rng import derive_seed
from ..game.rules import Rules
from ..stats import (Z95, json_number, normal_interval, ratio_stderr, sample_sd,  # noqa: F401
                     wilson_interval)
from .engines import EngineSpec, parse_engine_spec
from .external import ExternalEngineError, play_batches
from .luck import default_estimate, luck_estimate_name, match_luck, side_margin
from .seats import play_engines

#: Below this many sets the interval is Wilson's (each set one trial), not the normal one.
MIN_SETS_NORMAL = 20


def duplicate_interval_method(set_scores) -> str:
    """Which interval `duplicate_interval` uses for these set scores: "normal" or "wilson"."""
    n = len(set_scores)
    if n < MIN_SETS_NORMAL:
        return "wilson"
    first = set_scores[0]
    return "wilson" if all(s == first for s in set_scores) else "normal"


def duplicate_interval(set_scores, z: float = Z95) -> tuple:
    """The interval (lo, hi) of a win rate from the sets' scores: m ± z·s/√n clipped to [0, 1],
    or Wilson's, each set one trial (`duplicate_interval_method`).

    >>> lo, hi = duplicate_interval([1.0, 0.5] * 10 + [0.0] * 5)
    >>> round(lo, 4), round(hi, 4)
    (0.4503, 0.7497)
    """
    scores = [float(s) for s in set_scores]
    n = len(scores)
    if n == 0:
        return (0.0, 1.0)
    if duplicate_interval_method(scores) == "wilson":
        return wilson_interval(sum(scores), n, z)
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1))
    half = z * sd / math.sqrt(n)
    return (max(0.0, mean - half), min(1.0, mean + half))


def seatings(rules: Rules) -> list:
    """A's seats in each seating of a set: one seating per side, A holding that side's seats.

    >>> seatings(Rules()), seatings(Rules(players=4, partnerships=True)), seatings(Rules(players=3))
    ([(0,), (1,)], [(0, 2), (1, 3)], [(0,), (1,), (2,)])
    """
    return [tuple(s for s in range(rules.players) if rules.side_of(s) == side)
            for side in range(rules.n_sides)]


def seat_specs(rules: Rules, spec_a: EngineSpec, spec_b: EngineSpec, seating: int) -> list:
    """The engine of every seat in seating `seating`: A on side `seating`, B elsewhere."""
    return [spec_a if rules.side_of(s) == seating else spec_b for s in range(rules.players)]


#: One match as played: set index, seating (A's side), match seed, A's seats, its log.
ArenaMatch = namedtuple("ArenaMatch", "set_index seating seed a_seats log")


@dataclass
class SetResult:
    """One duplicate set (what a worker sends back), as `ArenaResult`'s fields; `a_share`: A's
    wins with ties as shares, `win_luck`: A's luck in its chance to win."""
    index: int
    a_wins: int
    matches: int
    a_points: int
    b_points: float
    rounds: int
    a_wins_by_seating: tuple
    logs: list | None = None   # ArenaMatch per seating, with keep_logs
    search_time: tuple = ((0, 0.0), (0, 0.0))    # (searches, seconds) of A, of B
    ties: int = 0
    a_share: float | None = None
    luck: float | None = None
    win_luck: float | None = None

    @property
    def score(self) -> float:
        return (self.a_wins if self.a_share is None else self.a_share) / self.matches


@dataclass
class ArenaResult:
    """What `run_arena` measured (FORMATS.md); of each pair, index 0 is A, 1 B. The luck
    fields are None without luck_adjust, the `adjusted_win` ones without whole matches of two
    sides."""
    rules: Rules
    engines: tuple
    seed: int
    sets: int
    seatings: int
    matches: int
    rounds: int
    wins: tuple
    a_wins_by_seating: tuple
    win_rate: float            # A's wins (ties as shares) / matches
    ci95: tuple
    ci_method: str             # "normal" or "wilson"
    even_rate: float
    points: tuple
    points_per_round: tuple
    margin_per_round: float
    margin_stderr: float | None
    set_scores: tuple
    seconds: float
    workers: int
    start_scores: tuple | None = None
    searches: tuple = (0, 0)
    seconds_per_search: tuple = (None, None)
    played: list = field(default_factory=list)
    single_round: bool = False
    ties: int = 0
    luck_per_round: float | None = None
    luck_stderr: float | None = None
    adjusted_margin_per_round: float | None = None
    adjusted_margin_stderr: float | None = None
    variance_ratio: float | None = None        # raw / adjusted
    luck_estimate: str | None = None           # `luck.luck_estimate_name()`
    adjusted_win_rate: float | None = None
    adjusted_ci95: tuple | None = None
    win_variance_ratio: float | None = None

    @property
    def luck_adjusted(self) -> bool:
        return self.adjusted_margin_per_round is not None

    @property
    def logs(self) -> list:
        """The MatchLogs, in (set, seating) order (keep_logs=True)."""
        return [g.log for g in self.played]

    @property
    def pairs(self) -> int | None:
        return self.sets if self.seatings == 2 else None

    def _seats(self) -> list:
        held = seatings(self.rules)
        return [held, [tuple(s for s in range(self.rules.players) if s not in a) for a in held]]

    def seats_text(self, engine: int) -> str:
        """The seats engine 0 (A) or 1 (B) holds in each seating, e.g. '1+2 / 0+2 / 0+1'."""
        return " / ".join("+".join(map(str, held)) for held in self._seats()[engine])

    def to_json(self) -> dict:
        """The `bergen arena` JSON (FORMATS.md), floats rounded to 6 places."""
        def num(x):
            return [num(v) for v in x] if isinstance(x, (tuple, list)) else json_number(x)
        own = {"games": self.sets, "engines": [str(e) for e in self.engines],
               "commands": [None if e.engine is None else e.engine.command_text
                            for e in self.engines],
               "seats": [[list(held) for held in engine] for engine in self._seats()],
               "ci_method": self.ci_method, "seconds": round(self.seconds, 3),
               "rules": self.rules.to_dict(), "mode": "round" if self.single_round else "match",
               "luck_adjusted": self.luck_adjusted, "luck_estimate": self.luck_estimate}
        return {k: own[k] if k in own else num(getattr(self, k)) for k in _JSON_KEYS}


#: The keys of `ArenaResult.to_json`, in order.
_JSON_KEYS = (
    "games", "wins", "win_rate", "ci95", "points_per_round", "engines", "commands", "sets",
    "pairs", "seatings", "seats", "matches", "rounds", "a_wins_by_seating", "ci_method",
    "even_rate", "points", "margin_per_round", "margin_stderr", "seed", "workers", "seconds",
    "searches", "seconds_per_search", "rules", "start_scores", "mode", "ties", "luck_adjusted",
    "luck_estimate", "luck_per_round", "luck_stderr", "adjusted_margin_per_round",
    "adjusted_margin_stderr", "variance_ratio", "adjusted_win_rate", "adjusted_ci95",
    "win_variance_ratio")


def play_set(rules: Rules, spec_a: EngineSpec, spec_b: EngineSpec, seed: int, index: int,
             start_scores=None, *, keep_logs: bool = False, single_round: bool = False,
             luck_adjust: bool = True) -> SetResult:
    """Set `index` of a run seeded `seed`: a match per seating, each on derive_seed(seed, index)."""
    match_seed = derive_seed(seed, index)
    n_sides = rules.n_sides
    a_wins = a_points = b_points = rounds = ties = 0
    a_share = 0.0
    luck: list | None = [] if luck_adjust else None
    win_luck: list | None = [] if luck_adjust and not single_round else None
    by_seating: list = []
    logs: list | None = [] if keep_logs else None
    spent = [[0, 0.0], [0, 0.0]]
    for k, a_seats in enumerate(seatings(rules)):
        timing: dict = {}
        try:
            log = play_engines(rules, seat_specs(rules, spec_a, spec_b, k), match_seed,
                               start_scores, timing=timing,
                               max_rounds=1 if single_round else None)
        except ExternalEngineError as e:
            raise e.at(f"in set {index}") from None
        for seat, (n, secs) in timing.items():
            acc = spent[0 if seat in a_seats else 1]
            acc[0] += n
            acc[1] += secs
        gained = [e - s for e, s in zip(log.scores, log.start_scores)]
        if single_round:
            top = max(gained)
            n_top = gained.count(top)
            won = int(gained[k] == top and n_top == 1)
            tied = gained[k] == top and n_top > 1
            ties += tied
            a_share += won + (1.0 / n_top if tied else 0.0)
        else:
            won = int(log.winner == k)
            a_share += won
        a_wins += won
        by_seating.append(won)
        a_points += gained[k]
        b_points += sum(gained) - gained[k]
        rounds += len(log.rounds)
        if luck is not None:
            drawn = match_luck(rules, log, default_estimate())
            luck.append(side_margin(drawn[:n_sides], k))
            if win_luck is not None and len(drawn) > n_sides:
                win_luck.append(drawn[n_sides + k])
        if logs is not None:
            logs.append(ArenaMatch(index, k, match_seed, a_seats, log))
    return SetResult(index, a_wins, n_sides, a_points, b_points / (n_sides - 1), rounds,
                     tuple(by_seating), logs, (tuple(spent[0]), tuple(spent[1])), ties, a_share,
                     None if luck is None else math.fsum(luck),
                     math.fsum(win_luck) if win_luck else None)


def _play_sets(rules, spec_a, spec_b, seed, indices, *, start_scores, keep_logs, single_round,
               luck_adjust):
    return [play_set(rules, spec_a, spec_b, seed, i, start_scores, keep_logs=keep_logs,
                     single_round=single_round, luck_adjust=luck_adjust) for i in indices]


def _as_spec(spec) -> EngineSpec:
    return spec if isinstance(spec, EngineSpec) else parse_engine_spec(str(spec))


def run_arena(rules: Rules, spec_a, spec_b, games: int, seed: int, workers: int = 1,
              *, progress: Callable[[int, int], None] | None = None, keep_logs: bool = False,
              start_scores=None, single_round: bool = False, cluster=None,
              luck_adjust: bool = True, done: dict | None = None,
              on_result=None) -> ArenaResult:
    """Play `games` duplicate sets of A against B (each an `EngineSpec` or its text). `done`
    {set index: SetResult}: sets already played; `on_result(i, set_result)` hears of each.
    Ctrl-C raises `errors.Interrupted` with the sets finished.

    >>> r = run_arena(Rules(players=3), "greedy", "random", games=2, seed=0)
    >>> r.matches, r.seatings, r.wins[0] == sum(r.a_wins_by_seating)
    (6, 3, True)
    """
    spec_a, spec_b = _as_spec(spec_a), _as_spec(spec_b)
    if not isinstance(games, int) or games < 1:
        raise BergenError(f"games must be at least 1, got {games!r}", field="games")
    if not isinstance(workers, int) or workers < 1:
        raise BergenError(f"workers must be at least 1, got {workers!r}", field="workers")
    if start_scores is not None:
        start_scores = tuple(start_scores)
        if len(start_scores) != rules.n_sides or min(start_scores) < 0:
            raise BergenError(f"start scores must be {rules.n_sides} non-negative integers",
                              field="start_scores")
        if max(start_scores) >= rules.target:
            raise BergenError(f"start scores: a side already has the target {rules.target}",
                              field="start_scores")
    t0 = time.perf_counter()
    simple = spec_a.simple_code is not None and spec_b.simple_code is not None
    # Serially one set per task (progress set by set); in parallel simple engines' in batches.
    fast = simple and (cluster is not None or (workers > 1 and games > 1))
    finished = dict(done or {})
    task = partial(_play_sets, rules, spec_a, spec_b, seed, start_scores=start_scores,
                   keep_logs=keep_logs, single_round=single_round, luck_adjust=luck_adjust)
    summary = partial(_summarise, rules, spec_a, spec_b, seed, workers=workers,
                      start_scores=start_scores, single_round=single_round)
    try:
        play_batches(task, [spec_a, spec_b], games, finished, workers=workers, cluster=cluster,
                     fast=fast, cap=1000, progress=progress, on_result=on_result)
    except KeyboardInterrupt:
        results = [finished[i] for i in sorted(finished)]
        partial_result = summary(results, time.perf_counter() - t0) if results else None
        raise Interrupted(partial_result, len(results), games, "sets") from None
    return summary([finished[i] for i in range(games)], time.perf_counter() - t0)


def _summarise(rules, spec_a, spec_b, seed, results, seconds, *, workers, start_scores,
               single_round):
    """Merge the sets in index order (so the float sums do not depend on who finished first)."""
    n_seat = rules.n_sides
    matches, a_wins, ties, rounds, a_points, b_points = (
        sum(getattr(r, k) for r in results)
        for k in ("matches", "a_wins", "ties", "rounds", "a_points", "b_points"))
    scores = tuple(r.score for r in results)
    by_seating = tuple(sum(r.a_wins_by_seating[k] for r in results) for k in range(n_seat))
    margins = [r.a_points - r.b_points for r in results]
    set_rounds = [r.rounds for r in results]
    played = [m for r in results if r.logs for m in r.logs]
    luck = luck_se = adjusted = adjusted_se = ratio = None
    if results and all(r.luck is not None for r in results):
        luck = math.fsum(r.luck for r in results)
        luck_se = ratio_stderr([r.luck for r in results], set_rounds)
        adjusted_sets = [m - r.luck for m, r in zip(margins, results)]
        adjusted = (a_points - b_points - luck) / rounds
        adjusted_se = ratio_stderr(adjusted_sets, set_rounds)
        raw_se = ratio_stderr(margins, set_rounds)
        if adjusted_se and raw_se is not None:
            ratio = (raw_se / adjusted_se) ** 2
    adjusted_win = adjusted_ci = win_ratio = None
    if results and all(r.win_luck is not None for r in results):
        adjusted_scores = [s - r.win_luck / r.matches for s, r in zip(scores, results)]
        adjusted_win = math.fsum(adjusted_scores) / len(results)
        adjusted_ci = normal_interval(adjusted_scores)
        sd_raw, sd_adj = sample_sd(scores), sample_sd(adjusted_scores)
        if sd_raw is not None and sd_adj:
            win_ratio = (sd_raw / sd_adj) ** 2
    searches = tuple(sum(r.search_time[k][0] for r in results) for k in (0, 1))
    search_seconds = tuple(sum(r.search_time[k][1] for r in results) for k in (0, 1))
    return ArenaResult(
        rules=rules, engines=(spec_a, spec_b), seed=seed, sets=len(results), seatings=n_seat,
        matches=matches, rounds=rounds, wins=(a_wins, matches - a_wins - ties),
        a_wins_by_seating=by_seating,
        win_rate=sum(r.a_wins if r.a_share is None else r.a_share for r in results) / matches,
        ci95=duplicate_interval(scores), ci_method=duplicate_interval_method(scores),
        even_rate=1.0 / n_seat, points=(a_points, b_points),
        points_per_round=(a_points / rounds, b_points / rounds),
        margin_per_round=(a_points - b_points) / rounds,
        margin_stderr=ratio_stderr(margins, set_rounds), set_scores=scores,
        seconds=seconds, workers=workers, start_scores=start_scores, played=played,
        searches=searches,
        seconds_per_search=tuple(t / n if n else None for n, t in zip(searches, search_seconds)),
        single_round=single_round, ties=ties,
        luck_per_round=None if luck is None else luck / rounds, luck_stderr=luck_se,
        adjusted_margin_per_round=adjusted, adjusted_margin_stderr=adjusted_se,
        variance_ratio=ratio, luck_estimate=None if luck is None else luck_estimate_name(),
        adjusted_win_rate=adjusted_win, adjusted_ci95=adjusted_ci, win_variance_ratio=win_ratio)
