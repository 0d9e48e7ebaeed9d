"""Luck of the draws: the arena's chance-event corrections (AIVAT's chance terms). At every
draw, with a fixed value estimate `v` (per side, the points it will still gain in the round):

    luck = v(after the tile drawn) − mean over the tiles t in the reserve of v(had t been drawn)

Each term has expectation zero whatever `v` is, so the margin less the summed luck is
unbiased; the better `v` predicts, the more noise it removes (in a duplicate set the deal's
terms sum to zero). The estimate is `RolloutModel` (greedy playouts, in C, `_luck.pyx`),
fitted by lab/luck/fit_luck.py and shipped in `bergen_search/data/luck_model.json`.

>>> from bergen_search.game.rules import Rules
>>> from bergen_search.play.engines import parse_engine_spec
>>> from bergen_search.play.seats import play_engines
>>> rules = Rules()
>>> log = play_engines(rules, [parse_engine_spec("greedy")] * 2, seed=3, max_rounds=1)
>>> luck = match_luck(rules, log)     # points per side, then chance to win
>>> len(luck), side_margin(luck[:2], 0) == -side_margin(luck[:2], 1)   # margins mirror
(4, True)
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources

from ..errors import BergenError
from ..game import backend as game_backend
from ..game.match import ENGINE_GREEDY, play_round
from ..game.rng import GOLDEN, MASK64, Rng, mix64
from ..game.rules import Rules
from ..game.state import DRAW, State
from ..game.tiles import mask_of

#: The model file shipped with the package.
MODEL_FILE = "luck_model.json"


def table_key(rules: Rules) -> str:
    """The key of a table shape in the model file: '2', '3', '4' or '4p'."""
    return f"{rules.players}{'p' if rules.partnerships else ''}"


def position_seed(state) -> int:
    """A seed fixed by a fully known position (the reserve's contents, never its order)."""
    seed = 0
    for x in (mask_of(state.reserve), *state.hands, *state.scores, state.left, state.right,
              state.to_move, state.draws_this_turn):
        seed = mix64(((seed ^ (x & MASK64)) + GOLDEN) & MASK64)
    return seed


class RolloutModel:
    """Per side, `scale` times the mean points to come over `playouts` greedy playouts after
    the draw, the same shuffles of the reserve (`position_seed`) for every candidate tile."""

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
        """tile -> per side the scaled mean points to come, then (with an equity table) per side
        the scaled chance to win."""
        rules = state.rules
        rollouts = _rollouts()
        reserve = list(state.reserve)
        rows = rollouts(rules, list(state.hands), reserve, **position_fields(state),
                        playouts=self.playouts, seed=position_seed(state), engine=self.engine,
                        equity=self.equity_for(rules))
        f, g = self._factor(self.scale, rules), self._factor(self.win_scale, rules)
        n = rules.n_sides
        return {t: [f * x for x in row[:n]] + [g * x for x in row[n:]]
                for t, row in zip(reserve, rows)}


def position_fields(state) -> dict:
    """What the rollouts read of `state` beside its hands and reserve, as keywords."""
    return dict(left=state.left, right=state.right, left_double=state.left_double,
                right_double=state.right_double, scores=list(state.scores),
                to_move=state.to_move, draws=state.draws_this_turn, passes=state.passes)


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
    s = State.of(rules, hands, ((left, right),), scores, reserve=reserve,
                 reserve_size=len(reserve), to_move=to_move, passes=passes,
                 draws_this_turn=draws, last_drawn=drawn)
    s.left_double, s.right_double = bool(left_double), bool(right_double)
    return s


def reference_rollouts(rules, hands, reserve, *, left, right, left_double, right_double, scores,
                       to_move, draws, passes, playouts, seed, engine=ENGINE_GREEDY,
                       equity=None) -> list:
    """The pure-Python twin of `_luck.draw_rollouts`: rows[i][j], side j's mean points to come
    after drawing `reserve[i]` (with `equity`, then each side's chance to win)."""
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


#: Playouts per candidate tile of the shipped estimate (what fit_luck.py fits with).
ROLLOUTS = 64


@lru_cache(maxsize=1)
def default_estimate() -> RolloutModel:
    """The fitted rollout estimate, the one the arena's luck adjustment uses."""
    d = model_data()["rollout"]
    return RolloutModel(d["playouts"], d["scale"], equity=d.get("equity"),
                        win_scale=d.get("win_scale", 1.0))


def luck_estimate_name() -> str:
    """The estimate as the arena reports it, e.g. 'rollout:64'."""
    return f"rollout:{default_estimate().playouts}"


def draw_luck(model, state) -> tuple:
    """(luck per side, {tile: values per side}) of the next draw in the fully known `state`."""
    actual = state.reserve[0]
    outcomes = model.draw_values(state)
    n = len(outcomes)
    expected = [math.fsum(v[j] for v in outcomes.values()) / n
                for j in range(len(outcomes[actual]))]
    return tuple(a - e for a, e in zip(outcomes[actual], expected)), outcomes


def round_luck(rules: Rules, rnd, start_scores, model=None, backend=None) -> list:
    """The summed luck per side of a `match.RoundLog` replayed from `start_scores`."""
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
