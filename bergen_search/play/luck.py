"""Luck of the draws: the arena's chance-event corrections (AIVAT's chance terms). At every
draw, with a fixed value estimate `v` (per side, the points it will still gain in the round):

    luck = v(after the tile drawn) − mean over the tiles t in the reserve of v(had t been drawn)

Each term has expectation zero whatever `v` is, so the margin less the summed luck is
unbiased; the better `v` predicts, the more noise it removes. The deal needs no correction:
in a duplicate set its terms sum to zero (`side_margin`). The arena's estimate is
`RolloutModel` (greedy playouts, in C, `_luck.pyx`), with two sides also each side's chance
to win; `ValueModel` is a linear one. Both are fitted by lab/luck/fit_luck.py and shipped in
`bergen_search/data/luck_model.json`, one set per table shape.

>>> from bergen_search.game.rules import Rules
>>> from bergen_search.play.engines import parse_engine_spec
>>> from bergen_search.play.seats import play_engines
>>> rules = Rules()
>>> log = play_engines(rules, [parse_engine_spec("greedy")] * 2, seed=3, max_rounds=1)
>>> points = match_luck(rules, log, default_model())     # the linear estimate: points only
>>> len(points), side_margin(points, 0) == -side_margin(points, 1)   # margins mirror
(2, True)
>>> len(match_luck(rules, log))       # the rollouts: points per side, then chance to win
4
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

from ..errors import BergenError
from ..game import backend as game_backend
from ..game.match import ENGINE_GREEDY, play_round
from ..game.rng import GOLDEN, MASK64, Rng, mix64
from ..game.rules import Rules
from ..game.state import DRAW, State, fitting, match_value
from ..game.tiles import (
    DOUBLES,
    PIPS,
    TILE_HIGH,
    TILE_LOW,
    TILES_WITH,
    is_double,
    iter_mask,
    mask_of,
    popcount,
)

#: The per-seat features, in the order of a model's coefficients (see `seat_features`).
SEAT_FEATURES = (
    "one", "size", "size_is_1", "size_is_2", "fit", "fit_is_0", "doubles", "pips_10",
    "to_move", "next", "score_now", "fit_to_move", "size_x_drawable", "fit_x_drawable",
    "need_le_3", "reserve_fit", "stuck_to_move", "more_draws", "fit_is_1",
    "fit_doubles", "size_x_fit0",
)
#: The model file shipped with the package.
MODEL_FILE = "luck_model.json"


def table_key(rules: Rules) -> str:
    """The key of a table shape in the model file: '2', '3', '4' or '4p'."""
    return f"{rules.players}{'p' if rules.partnerships else ''}"


def _score_now(hand, left, right, ld, rd, out_bonus) -> int:
    """The most points the seat to move could score with its next play (out bonus included)."""
    best = 0
    last = popcount(hand) == 1
    for t in iter_mask(fitting(hand, left, right)):
        lo, hi, dbl = TILE_LOW[t], TILE_HIGH[t], is_double(t)
        for end in (0, 1):
            if end == 0 and left in (lo, hi):
                v = match_value(hi if lo == left else lo, right, dbl, rd)
            elif end == 1 and right in (lo, hi):
                v = match_value(left, hi if lo == right else lo, ld, dbl)
            else:
                continue
            best = max(best, v + (out_bonus if last else 0))
    return best


def seat_features(pos: "KnownPosition", seat: int) -> list:
    """The features of one seat in a fully known position (names: `SEAT_FEATURES`)."""
    rules = pos.rules
    hand = pos.hands[seat]
    fits_mask = TILES_WITH[pos.left] | TILES_WITH[pos.right]
    size = popcount(hand)
    fit = popcount(hand & fits_mask)
    dist = (seat - pos.to_move) % rules.players
    to_move = dist == 0
    drawable = max(0, pos.reserve_size - rules.reserve_kept) / 8.0
    score = pos.scores[rules.side_of(seat)]
    score_now = (_score_now(hand, pos.left, pos.right, pos.left_double, pos.right_double,
                            rules.out_bonus) if to_move else 0)
    reserve_fit = popcount(pos.reserve & fits_mask)
    stuck = to_move and fit == 0
    # Stuck under until-playable: the draws still to come this turn, (R + 1) / (F + 1) for F
    # fitting tiles among R, at most those drawable.
    more = 0.0
    if stuck and rules.draw == "until-playable":
        more = min((pos.reserve_size + 1) / (reserve_fit + 1),
                   max(0, pos.reserve_size - rules.reserve_kept))
    return [1.0, size, size == 1, size == 2, fit, fit == 0, popcount(hand & DOUBLES),
            sum(PIPS[t] for t in iter_mask(hand)) / 10.0, to_move, dist == 1, score_now,
            fit * to_move, size * drawable, fit * drawable, rules.target - score <= 3,
            reserve_fit / 8.0, stuck, more, fit == 1,
            popcount(hand & fits_mask & DOUBLES), size * (fit == 0)]


def side_features(pos: "KnownPosition") -> list:
    """Per side, its features: its seat's, or with partnerships the partner nearer the turn's
    followed by the other's."""
    rules = pos.rules
    if not rules.partnerships:
        return [[float(x) for x in seat_features(pos, s)] for s in range(rules.players)]
    out = []
    for side in range(rules.n_sides):
        seats = sorted((s for s in range(rules.players) if rules.side_of(s) == side),
                       key=lambda s: (s - pos.to_move) % rules.players)
        out.append([float(x) for s in seats for x in seat_features(pos, s)])
    return out


class KnownPosition(NamedTuple):
    """A fully known position as the estimate sees it (the reserve's contents, not its order)."""
    rules: Rules
    hands: tuple
    reserve: int
    left: int
    right: int
    left_double: bool
    right_double: bool
    scores: tuple
    to_move: int

    @property
    def reserve_size(self) -> int:
        return popcount(self.reserve)

    @classmethod
    def of(cls, state) -> "KnownPosition":
        """The position of a fully known state (reference `State` or the core's)."""
        return cls(state.rules, tuple(state.hands), mask_of(state.reserve), state.left,
                   state.right, bool(state.left_double), bool(state.right_double),
                   tuple(state.scores), state.to_move)

    def drawn(self, tile: int) -> "KnownPosition":
        """The position after the seat to move draws `tile` from the reserve."""
        hands = list(self.hands)
        hands[self.to_move] |= 1 << tile
        return self._replace(hands=tuple(hands), reserve=self.reserve & ~(1 << tile))


class ValueModel:
    """The linear estimate: per side, its features dotted with the table shape's coefficients."""

    def __init__(self, weights: dict):
        self.weights = {k: [float(x) for x in v] for k, v in weights.items()}

    @classmethod
    def from_dict(cls, d: dict) -> "ValueModel":
        if not isinstance(d, dict) or d.get("features") != list(SEAT_FEATURES):
            raise BergenError("luck model: its features are not this version's "
                              f"({', '.join(SEAT_FEATURES)})", field="features")
        return cls(d["weights"])

    def coefficients(self, rules: Rules) -> list:
        key = table_key(rules)
        if key not in self.weights:
            raise BergenError(f"luck model: no coefficients for {key} players", field="weights")
        return self.weights[key]

    def values(self, pos: KnownPosition) -> list:
        """Per side, the estimated points it will still gain in the round."""
        w = self.coefficients(pos.rules)
        return [sum(a * b for a, b in zip(w, f)) for f in side_features(pos)]

    def draw_values(self, state) -> dict:
        """tile -> per side `values` after the seat to move draws it, for each reserve tile."""
        pos = KnownPosition.of(state)
        return {t: self.values(pos.drawn(t)) for t in iter_mask(pos.reserve)}


def position_seed(state) -> int:
    """A seed fixed by a fully known position (the reserve's contents, never its order)."""
    seed = 0
    for x in (mask_of(state.reserve), *state.hands, *state.scores, state.left, state.right,
              state.to_move, state.draws_this_turn):
        seed = mix64(((seed ^ (x & MASK64)) + GOLDEN) & MASK64)
    return seed


class RolloutModel:
    """The rollout estimate: per side, `scale` times the mean points to come over `playouts`
    greedy playouts after the draw, the rest of the reserve shuffled as `position_seed` seeds
    it, the same shuffles for every candidate tile."""

    def __init__(self, playouts: int = 64, scale=1.0, engine: int = ENGINE_GREEDY,
                 equity: dict | None = None, win_scale=1.0):
        self.playouts, self.engine = playouts, engine
        self.scale, self.win_scale = scale, win_scale
        self.equity = equity or {}

    @staticmethod
    def _factor(scale, rules) -> float:
        return float(scale.get(table_key(rules), 1.0) if isinstance(scale, dict) else scale)

    def equity_for(self, rules: Rules) -> list | None:
        """The match equity table of the table's shape, if it has a whole one."""
        equity = self.equity.get(table_key(rules))
        return equity if equity is not None and len(equity) == rules.target ** 2 else None

    def draw_values(self, state) -> dict:
        """tile -> per side the scaled mean points to come, then (with an equity table for the
        shape) per side the scaled chance to win the match."""
        rules = state.rules
        rollouts = _rollouts()
        reserve = list(state.reserve)
        rows = rollouts(rules, list(state.hands), reserve, state.left, state.right,
                        state.left_double, state.right_double, list(state.scores),
                        state.to_move, state.draws_this_turn, state.passes,
                        self.playouts, position_seed(state), self.engine,
                        self.equity_for(rules))
        f, g = self._factor(self.scale, rules), self._factor(self.win_scale, rules)
        n = rules.n_sides
        return {t: [f * x for x in row[:n]] + [g * x for x in row[n:]]
                for t, row in zip(reserve, rows)}


@lru_cache(maxsize=1)
def _rollouts():
    """The compiled rollouts when built (the same numbers), else `reference_rollouts`."""
    try:
        from ._luck import draw_rollouts  # here: the compiled module is optional
    except ImportError:
        return reference_rollouts
    return draw_rollouts


def _playout_state(rules, hands, reserve, *, left, right, left_double, right_double, scores,
                   to_move, draws, passes, drawn) -> State:
    """A reference `State` just after `to_move` drew `drawn`; the line one tile with its ends."""
    s = State.__new__(State)
    s.rules, s.hands = rules, tuple(hands)
    s.hidden = (0,) * rules.players
    s.reserve, s.reserve_size = tuple(reserve), len(reserve)
    s.left, s.right = left, right
    s.left_double, s.right_double = bool(left_double), bool(right_double)
    s.line = ((left, right),)
    s.scores, s.to_move, s.passes = tuple(scores), to_move, passes
    s.draws_this_turn, s.last_drawn = draws, drawn
    s.ended = s.winner = None
    s.last_points = (0,) * rules.n_sides
    return s


def reference_rollouts(rules, hands, reserve, left, right, left_double, right_double, scores,
                       to_move, draws, passes, playouts, seed, engine=ENGINE_GREEDY,
                       equity=None) -> list:
    """The pure-Python twin of `_luck.draw_rollouts`: rows[i][j], side j's mean points to come
    after the seat to move draws `reserve[i]` (with `equity`, then each side's chance to win)."""
    r = len(reserve)
    if not 1 <= r <= 28 or playouts < 1:
        raise ValueError("a draw needs a reserve tile and at least one playout")
    target = rules.target
    if equity is not None and (rules.n_sides != 2 or len(equity) != target * target):
        raise ValueError("equity needs two sides and target * target entries")
    total = [[0] * rules.n_sides for _ in range(r)]
    wins = [0.0] * r
    for k in range(playouts):
        rng = Rng(mix64((seed + (k + 1) * GOLDEN) & MASK64))
        perm = sorted(reserve)
        rng.shuffle(perm)
        for i, t in enumerate(reserve):
            held = list(hands)
            held[to_move] |= 1 << t
            state = _playout_state(rules, held, [u for u in perm if u != t], left=left,
                                   right=right, left_double=left_double,
                                   right_double=right_double, scores=scores, to_move=to_move,
                                   draws=draws + 1, passes=passes, drawn=t)
            end = play_round(state, [engine] * rules.players, Rng(rng.state), [])
            for j in range(rules.n_sides):
                total[i][j] += end.scores[j] - scores[j]
            if equity is not None:
                wins[i] += (float(end.winner == 0) if end.winner is not None
                            else equity[end.scores[0] * target + end.scores[1]])
    if equity is not None:
        return [[x / playouts for x in row] + [w / playouts, 1.0 - w / playouts]
                for row, w in zip(total, wins)]
    return [[x / playouts for x in row] for row in total]


@lru_cache(maxsize=1)
def model_data() -> dict:
    """The fitted estimates shipped with the package."""
    text = resources.files("bergen_search").joinpath("data", MODEL_FILE).read_text()
    return json.loads(text)


def default_model() -> ValueModel:
    """The fitted linear estimate."""
    return ValueModel.from_dict(model_data()["linear"])


def rollout_model() -> RolloutModel:
    """The fitted rollout estimate."""
    d = model_data()["rollout"]
    return RolloutModel(d["playouts"], d["scale"], equity=d.get("equity"),
                        win_scale=d.get("win_scale", 1.0))


#: The value estimates, by name, and the one the arena uses.
ESTIMATES = {"linear": default_model, "rollout": rollout_model}
DEFAULT_ESTIMATE = "rollout"
#: Playouts per candidate tile of the `rollout` estimate (what fit_luck.py fits with).
ROLLOUTS = 64


def estimate(name: str):
    """The value estimate called `name` (a key of `ESTIMATES`)."""
    if name not in ESTIMATES:
        raise BergenError(f"unknown luck estimate {name!r} (known: {', '.join(ESTIMATES)})")
    return ESTIMATES[name]()


@lru_cache(maxsize=1)
def default_estimate():
    """The estimate the arena's luck adjustment uses (`DEFAULT_ESTIMATE`)."""
    return estimate(DEFAULT_ESTIMATE)


def luck_estimate_name() -> str:
    """The default estimate as the arena reports it, e.g. 'rollout:64'."""
    est = default_estimate()
    return f"rollout:{est.playouts}" if isinstance(est, RolloutModel) else DEFAULT_ESTIMATE


def draw_luck(model, state) -> tuple:
    """(luck per side, {tile: values per side}) of the draw the seat to move makes in the fully
    known `state`."""
    actual = state.reserve[0]
    outcomes = model.draw_values(state)
    n = len(outcomes)
    expected = [math.fsum(v[j] for v in outcomes.values()) / n
                for j in range(len(outcomes[actual]))]
    return tuple(a - e for a, e in zip(outcomes[actual], expected)), outcomes


def round_luck(rules: Rules, rnd, start_scores, model=None, backend=None) -> list:
    """The summed luck per side of a `match.RoundLog` replayed from `start_scores` on
    `backend` (default: the active one) with `model` (default: `default_estimate()`)."""
    model = model or default_estimate()
    state = (backend or game_backend.ACTIVE).new_state(rules, rnd.hands, rnd.reserve,
                                                       start_scores)
    total = None
    for seat, action, tile in rnd.events:
        if state.to_move != seat:
            raise BergenError(f"the log has seat {seat} act out of turn", field="events")
        if action == DRAW:
            if state.reserve[0] != tile:
                raise BergenError("the log's draw is not the reserve's next tile", field="events")
            luck, _ = draw_luck(model, state)
            total = list(luck) if total is None else [a + b for a, b in zip(total, luck)]
        state = state.apply(action)
    return total or [0.0] * width(model, rules)


def match_luck(rules: Rules, log, model=None, backend=None) -> list:
    """The summed luck per side over every round of a `match.MatchLog`."""
    model = model or default_estimate()
    total = [0.0] * width(model, rules)
    scores = log.start_scores
    for rnd in log.rounds:
        total = [a + b for a, b in zip(total, round_luck(rules, rnd, scores, model, backend))]
        scores = rnd.scores
    return total


def width(model, rules: Rules) -> int:
    """How many numbers a draw's luck holds under `model` (points, then chances, per side)."""
    wins = isinstance(model, RolloutModel) and model.equity_for(rules) is not None
    return rules.n_sides * (2 if wins else 1)


def side_margin(per_side, side: int) -> float:
    """A per-side quantity in the arena's unit for `side`: its own minus the mean of the others'.

    >>> side_margin([3.0, 1.0, 2.0], 0), side_margin([3.0, 1.0], 1)
    (1.5, -2.0)
    """
    others = [x for j, x in enumerate(per_side) if j != side]
    return per_side[side] - math.fsum(others) / len(others)
