"""The value of a deal before the lead: what the seat's hand is worth before anyone plays.

Σ_L P(L) · v(L) over the leads L its hand leaves possible, each with its exact chance
(`information.lead.leads`); each v(L) is flat Monte Carlo over deals drawn uniformly among
those that lead L, played out by the playout policy. The playouts are shared by the leads in
proportion to their chances (at least 2 each); the ± is the stratified mean's standard error.
It reads the seat's hand, the scores and the rules, never another hand.

>>> from bergen_search.game.rules import Rules
>>> from bergen_search.game.tiles import mask_of, parse_tile
>>> hand = mask_of(parse_tile(x) for x in "0-0 1-2 3-4 5-6 0-5 4-6".split())
>>> v = deal_value(Rules(), 0, hand, (0, 0), playouts=40, seed=1)
>>> [(seat, tile, chance, n) for seat, tile, chance, _, _, n in v.leads], v.stderr > 0
([(0, 0, 1.0, 40)], True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..constants import objective_code
from ..formats.notation import Move
from ..game.match import deal
from ..game.policy import policy_code
from ..game.rng import Rng, derive_seed
from ..game.state import State, lead_rank
from ..game.tiles import N_TILES
from ..information.lead import leads as lead_chances
from ..stats import mean_stderr
from . import backend
from .limits import STOP_SLICE_SECONDS, Limits, now
from .playouts import outcome, play_out, reward
from .registry import SearchRun
from .results import MoveValue, SearchResult

#: The playouts when no budget is given: the default engine's iterations (about 0.07 s in C;
#: the pure-Python backend plays 1/FALLBACK_DIVISOR of them, as it searches).
DEFAULT_PLAYOUTS = 100_000
MEANING = "every seat playing by the playout policy from the deal"
#: The playouts in C (`_before_lead.pyx`, draw for draw those below), on the compiled backend.
CORE = "bergen_search.search._before_lead"
#: How often `deal_value(progress=)` hears the estimate so far.
REPORT_SECONDS = 0.1


@dataclass(frozen=True)
class DealValue:
    """A hand's value before the lead: `sides`, each side's value; `leads`, (seat, tile, chance,
    value, stderr, playouts) of every possible lead; `done` playouts."""
    value: float
    stderr: float
    sides: tuple
    leads: tuple
    done: int
    interrupted: bool = False


def deal_value(rules, seat: int, hand: int, scores, *, objective: str = "points",
               playout: str = "safe", playouts: int | None = DEFAULT_PLAYOUTS,
               seconds: float | None = None, seed: int = 0, stop=None,
               progress=None) -> DealValue:
    """The value of `hand` (a mask) for `seat` before the lead at `scores`: `playouts` in all
    (None: until `seconds` or `stop`), cut short by `seconds`, `stop` or Ctrl-C."""
    code, policy = objective_code(objective), policy_code(playout)
    side = rules.side_of(seat)
    possible = lead_chances(rules, seat, hand)
    base = State.deal(rules, [hand if j == seat else None for j in range(rules.players)],
                      None, tuple(scores))
    # Per lead: its playouts, the reward's sum and sum of squares, each side's outcome summed.
    count = [0] * len(possible)
    sums = [[0.0, 0.0] for _ in possible]
    per_side = [[0.0] * rules.n_sides for _ in possible]
    rngs = [Rng(derive_seed(seed, i)) for i in range(len(possible))]

    def estimate(interrupted: bool = False) -> DealValue:
        rows, value, variance, sides = [], 0.0, 0.0, [0.0] * rules.n_sides
        for (leader, tile, p), n, (s, sq), gains in zip(possible, count, sums, per_side):
            mean, se = mean_stderr(n, s, sq)
            rows.append((leader, tile, p, mean, se, n))
            value += p * mean
            variance += (p * se) ** 2
            for j in range(rules.n_sides):
                sides[j] += p * gains[j] / n if n else math.nan
        return DealValue(value, math.sqrt(variance), tuple(sides), tuple(rows), sum(count),
                         interrupted)

    t0 = now()
    end = None if seconds is None else t0 + seconds
    told = t0
    done = 0
    compiled = backend.SEARCH.module(CORE)
    core = None if compiled is None else compiled.LeadPlayouts(
        rules, seat, hand, possible, scores, objective=code, policy=policy,
        ranks=[lead_rank(rules, t) for t in range(N_TILES)], seeds=[r.state for r in rngs])

    def step(n: int) -> int:
        """Play n playouts (the core's, without the GIL) or one (here); return how many."""
        if core is not None:
            core.run(n)
            count[:], sums[:], per_side[:] = core.stats()
            return n
        # The lead furthest behind its share (each at least 2 playouts first).
        i = max(range(len(possible)), key=lambda k: (count[k] < 2, possible[k][2] *
                                                     (done + 1) - count[k], -k))
        state = _deal(rules, seat, hand, possible[i][:2], scores, rngs[i])
        final = play_out(rules, code, policy, state, rngs[i])
        v = reward(rules, code, final, base, side)
        count[i] += 1
        sums[i][0] += v
        sums[i][1] += v * v
        for j in range(rules.n_sides):
            per_side[i][j] += outcome(code, final, base, j)
        return 1

    batch = 1           # the core's playouts a step, doubled while a step is short
    try:
        while playouts is None or done < playouts:
            if stop is not None and stop.is_set():
                return estimate(interrupted=playouts is not None)
            if end is not None and done and now() >= end:
                break
            if progress is not None and now() - told >= REPORT_SECONDS:
                told = now()
                progress(estimate())
            started = now()
            done += step(batch if playouts is None else min(batch, playouts - done))
            if core is not None and now() - started < STOP_SLICE_SECONDS:
                batch *= 2
    except KeyboardInterrupt:
        return estimate(interrupted=True)
    return estimate()


def start_values(rules, scores, *, objective: str = "points", playout: str = "safe",
                 playouts: int = DEFAULT_PLAYOUTS, seed: int = 0) -> tuple:
    """Each side's value before the deal of a round at `scores`: by symmetry when the scores
    are equal, else the mean reward of `playouts` deals played out by the playout policy."""
    n = rules.n_sides
    if len(set(scores)) == 1:
        return (0.0 if objective == "points" else 1.0 / n,) * n
    code, policy, rng = objective_code(objective), policy_code(playout), Rng(seed)
    compiled = backend.SEARCH.module(CORE)
    if compiled is not None:
        total = compiled.start_playouts(rules, scores, code, policy, playouts, seed)
        return tuple(x / playouts for x in total)
    total = [0.0] * n
    for _ in range(playouts):
        hands, reserve = deal(rules, rng)
        state = State.deal(rules, hands, reserve, tuple(scores))
        final = play_out(rules, code, policy, state, rng)
        for side in range(n):
            total[side] += reward(rules, code, final, state, side)
    return tuple(x / playouts for x in total)


def _deal(rules, seat, hand, lead, scores, rng: Rng) -> State:
    """A deal drawn uniformly among those where `lead` = (leader, tile) is the lead and `seat`
    holds `hand`: every unseen tile before the lead's in the lead order in the reserve."""
    leader, tile = lead
    unseen = [t for t in range(N_TILES) if not hand >> t & 1]
    rank = lead_rank(rules, tile)
    before = [t for t in unseen if lead_rank(rules, t) < rank]
    rest = [t for t in unseen if t != tile and lead_rank(rules, t) >= rank]
    rng.shuffle(rest)
    n = rules.hand_size
    hands, k = [], 0
    for j in range(rules.players):
        if j == seat:
            hands.append(hand)
            continue
        take = n - (j == leader)
        mask = 1 << tile if j == leader else 0
        for t in rest[k:k + take]:
            mask |= 1 << t
        hands.append(mask)
        k += take
    reserve = before + rest[k:]
    rng.shuffle(reserve)
    return State.deal(rules, hands, reserve, tuple(scores))


def search_before_lead(info, limits: Limits, run: SearchRun,
                       until_stopped: bool = False) -> SearchResult:
    """`search()` of a position before the lead: the hand's value (`deal_value`); `best` the
    forced lead when the seat leads for sure, else None and no move."""
    t0, settings, seed, objective = now(), run.settings, run.seed, run.objective
    playouts = None if until_stopped else limits.iterations
    if playouts is None and limits.time is None and not until_stopped:
        playouts = backend.SEARCH.budget(DEFAULT_PLAYOUTS)
    playout = settings.get("playout", "safe")
    sure = [t for s, t, p in lead_chances(info.rules, info.seat, info.hand) if p == 1.0]
    best = Move(sure[0], None) if sure else None

    def moves(v: DealValue) -> list:
        return [MoveValue(best, best.code, v.value, v.stderr, v.done)] if best else []

    def report(v: DealValue) -> None:
        seconds = now() - t0
        run.on_info({"iterations": v.done, "seconds": seconds,  # type: ignore[misc]
                     "speed": v.done / max(seconds, 1e-9), "best": best, "value": v.value,
                     "stderr": v.stderr, "moves": moves(v)})

    v = deal_value(info.rules, info.seat, info.hand, info.scores, objective=objective,
                   playout=playout, playouts=playouts, seconds=limits.time, seed=seed,
                   stop=run.stop, progress=None if run.on_info is None else report)
    result_info = {"algorithm": run.algorithm, "objective": objective, "seed": seed,
                   "backend": backend.SEARCH.name, "workers": 1, "settings": dict(settings),
                   "iterations": v.done, "seconds": now() - t0, "exact": False,
                   "interrupted": v.interrupted, "empty": v.done == 0, "replicates": None,
                   "worlds_consistent": 0, "values": {"method": "before-lead"},
                   "playout": playout, "leads": v.leads, "sides": {best: list(v.sides)}}
    return SearchResult(best, moves(v), v.value, v.stderr, v.done,
                        result_info)  # type: ignore[arg-type]
