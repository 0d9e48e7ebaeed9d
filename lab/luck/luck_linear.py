"""The linear luck estimate the shipped rollouts were compared with (LUCK.md): per side, a
linear function of its seat's features (`SEAT_FEATURES`), its coefficients fitted by
fit_luck.py and kept in the shipped model file under "linear". Any fixed estimate gives
unbiased luck (`luck.draw_luck`); this one is cheap in pure Python.
"""
from __future__ import annotations

from typing import NamedTuple

from bergen_search.errors import BergenError
from bergen_search.game.rules import Rules
from bergen_search.game.state import fitting, match_value
from bergen_search.game.tiles import (
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
from bergen_search.play.luck import model_data, table_key

#: The per-seat features, in the order of a model's coefficients (see `seat_features`).
SEAT_FEATURES = (
    "one", "size", "size_is_1", "size_is_2", "fit", "fit_is_0", "doubles", "pips_10",
    "to_move", "next", "score_now", "fit_to_move", "size_x_drawable", "fit_x_drawable",
    "need_le_3", "reserve_fit", "stuck_to_move", "more_draws", "fit_is_1",
    "fit_doubles", "size_x_fit0",
)
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


def default_model() -> ValueModel:
    """The fitted linear estimate (the model file's "linear")."""
    return ValueModel.from_dict(model_data()["linear"])


