"""The value of a deal before the lead: what the seat's hand is worth before anyone plays.

Before the lead nobody decides (the lead is forced) and the seat knows only its hand. Its
value is the round's expected margin for that hand (objective `points`: its side's points
from now to the end of the round, the lead's included, minus the other sides' mean; `match`:
its chance to win the match) with every seat playing by the playout policy:
Σ_L P(L) · v(L) over the leads L its hand leaves possible, each with its exact chance
(`information.lead.leads`), v(L) the value after L. Each v(L) is flat Monte Carlo: deals drawn
uniformly among those that lead L (the leader holds the tile, and every unseen tile before it
in the lead order lies in the reserve: what the seat knows once L is on the line, where no
play is there yet for inference to weigh), the round played out from the deal by the playout
policy (`playouts.play_out`). The budget counts playouts, shared by the leads in proportion
to their chances (at least 2 each); the ± is the stratified mean's standard error, each
lead's spread weighted by its exact chance: sampling error only, of a fixed quantity that
more playouts only narrow. The answer reads the seat's hand, the scores and the rules, never
another hand.

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
from .limits import Limits, now
from .playouts import outcome, play_out, reward
from .registry import SearchRun
from .results import MoveValue, SearchResult

#: The playouts of a value before the lead when no budget is given (about the time of the
#: default engine's default search).
DEFAULT_PLAYOUTS = 4000
#: What its value means, for the views.
MEANING = "every seat playing by the playout policy from the deal"
#: How often a value before the lead reports its estimate so far (`deal_value(progress=)`).
REPORT_SECONDS = 0.1


@dataclass(frozen=True)
class DealValue:
    """A hand's value before the lead (`deal_value`): `value` and its `stderr`; `sides`, each
    side's expected points to come (objective points) or chance to win the match; `leads`,
    (seat, tile, chance, value, stderr, playouts) of every possible lead, in the lead rule's
    order; `done` playouts, and whether a stop or Ctrl-C cut them short."""
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
    """The value of `hand` (a mask, as dealt) for `seat` before the lead, at `scores` (see the
    module's doc): `playouts` in all (None: until `seconds` or `stop`), stopped early by
    `seconds`, by `stop` (a threading.Event) or by Ctrl-C (then `interrupted`).
    `progress(DealValue)`, if given, hears the estimate so far every REPORT_SECONDS."""
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
    try:
        while playouts is None or done < playouts:
            if stop is not None and stop.is_set():
                return estimate(interrupted=playouts is not None)
            if end is not None and done and now() >= end:
                break
            if progress is not None and now() - told >= REPORT_SECONDS:
                told = now()
                progress(estimate())
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
            done += 1
    except KeyboardInterrupt:
        return estimate(interrupted=True)
    return estimate()


def start_values(rules, scores, *, objective: str = "points", playout: str = "safe",
                 playouts: int = DEFAULT_PLAYOUTS, seed: int = 0) -> tuple:
    """Each side's value before the deal of a round at `scores`: with every side's score the
    same, 0 (points) or 1 / sides (match) by symmetry (no seat's deal, lead or turn is
    another's); else the mean reward of `playouts` whole deals played out by the playout
    policy (the same deals for every side)."""
    n = rules.n_sides
    if len(set(scores)) == 1:
        return (0.0 if objective == "points" else 1.0 / n,) * n
    code, policy, rng = objective_code(objective), policy_code(playout), Rng(seed)
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
    holds `hand`: every unseen tile before the lead's in the lead order in the reserve, the
    rest shuffled."""
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
    """`search()` of a position before the lead (`info.line` empty), the call `run` (its
    settings' `playout` read, when they have one): the hand's value
    (`deal_value`: `limits.iterations` playouts, default DEFAULT_PLAYOUTS, or for
    `limits.time`; `until_stopped`, until `stop`); `best` and the one move the seat's forced
    lead when it leads for sure, else None and no move; `info["leads"]`, every possible
    lead's row (`DealValue.leads`). `on_info` hears the estimate so far, as `search()`'s
    does (`iterations`, `seconds`, `speed`, `best`, `value`, `stderr`, `moves`)."""
    t0, settings, seed, objective = now(), run.settings, run.seed, run.objective
    playouts = None if until_stopped else limits.iterations
    if playouts is None and limits.time is None and not until_stopped:
        playouts = DEFAULT_PLAYOUTS
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
