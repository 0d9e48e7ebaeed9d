"""Exact expectimax over every consistent world: the oracle of the core's determinized search.

A determinized search (PIMC: Long, Sturtevant, Buro & Furtak 2010) values each move as the
mean, over the worlds consistent with what the seat saw (`WorldTable(info).enumerate()`,
weighted by their histories), of its value in that world searched with every hand in view.
In a world the round is searched to its end: the mover picks its side's best (the first in
move order), a draw is a chance node uniform over the reserve's tiles, a mirror twin is
searched once. Values by `objective`: "points", the side's gain minus the mean of the
others'; "match", its chance to win the match, an unfinished match valued by `match_equity`
(seeded random playouts from the scores, as the core memoises it). Arithmetic is exact
(`fractions.Fraction`); the core agrees within 1e-9.

>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.information.infoset import from_position
>>> pos = position_from_flags(hand="2-4", hand_sizes="1,1", line="2-2 2-6 6-0 0-1 1-4 4-4 "
...     "4-5 5-3 3-4 4-0 0-2 2-1 1-3 3-0 0-5 5-1 1-6 6-6 6-3 3-3 3-2 2-5 5-6 6-4")
>>> {move_str(m): v for m, v in exact_values(from_position(pos)).items()}
{'2-4:L': Fraction(4, 1), '2-4:R': Fraction(5, 1)}
"""
from __future__ import annotations

from fractions import Fraction

from ....constants import EQUITY_STREAM, SCORE_BITS, objective_code  # noqa: F401
from ....errors import BergenError
from ....game.match import deal
from ....game.rng import MASK64, Rng, derive_seed
from ....game.state import DRAW, State, mirror_twins, move_str  # noqa: F401  (move_str: doctest)
from ....information.infoset import InfoSet
from ....information.sampler import WorldTable, check_world
from ....information.sampler import world_state as sampler_world_state


def world_state(info: InfoSet, hands, reserve) -> State:
    """The full-information reference State of one world of `info` (`hands` a mask per seat,
    `reserve` in draw order), checked by `check_world`."""
    return sampler_world_state(info, *check_world(info, hands, reserve))


# ---- the match equity ---------------------------------------------------------------------
def equity_seed(seed: int, scores) -> int:
    """The seed of the match-equity playouts from `scores` (the core uses the same)."""
    key = 0
    for i, sc in enumerate(scores):
        key |= sc << (SCORE_BITS * i)
    return derive_seed((seed & MASK64) ^ EQUITY_STREAM, key)


def match_equity(rules, scores, seed: int, playouts: int) -> tuple:
    """Per side, the share of `playouts` random matches from `scores` (fresh deals dealt with
    `match.deal`, uniformly random legal moves) that the side wins, as Fractions."""
    rng = Rng(equity_seed(seed, scores))
    wins = [0] * rules.n_sides
    for _ in range(playouts):
        sc = tuple(scores)
        while True:
            hands, reserve = deal(rules, rng)
            state = State.deal(rules, hands, reserve, sc)
            while state.ended is None:
                moves = state.legal_moves()
                state = state.apply(moves[0] if len(moves) == 1 else moves[rng.below(len(moves))])
            if state.winner is not None:
                wins[state.winner] += 1
                break
            sc = state.scores
    return tuple(Fraction(w, playouts) for w in wins)


# ---- the search in one world ----------------------------------------------------------------
class _Search:
    def __init__(self, info: InfoSet, objective: int, seed: int, playouts: int):
        self.rules = info.rules
        self.root_scores = tuple(info.scores)
        self.objective = objective
        self.seed = seed
        self.playouts = playouts
        self.equity: dict = {}
        self.memo: dict = {}

    def utility(self, vec, side: int):
        """The value to `side` of a vector of per-side values."""
        if self.objective == 1:
            return vec[side]
        others = [v for s, v in enumerate(vec) if s != side]
        return vec[side] - sum(others) / len(others)

    def terminal(self, state: State) -> tuple:
        if self.objective == 0:
            return tuple(Fraction(a - b) for a, b in zip(state.scores, self.root_scores))
        if state.winner is not None:
            return tuple(Fraction(int(s == state.winner)) for s in range(self.rules.n_sides))
        if state.scores not in self.equity:
            if self.playouts < 1:
                raise BergenError("the match objective needs playouts >= 1", field="playouts")
            self.equity[state.scores] = match_equity(self.rules, state.scores, self.seed,
                                                     self.playouts)
        return self.equity[state.scores]

    def value(self, state: State) -> tuple:
        """Per-side values of `state`, searched to the end of the round (memoised: the future
        depends on the ends, not on the whole line, and on the reserve's contents only)."""
        if state.ended is not None:
            return self.terminal(state)
        assert state.reserve is not None        # a world: the reserve's tiles are dealt
        key = (state.hands, frozenset(state.reserve), state.left, state.right,
               state.left_double, state.right_double, state.scores, state.to_move,
               state.passes, state.draws_this_turn, state.last_drawn)
        if key not in self.memo:
            self.memo[key] = self._value(state)
        return self.memo[key]

    def _value(self, state: State) -> tuple:
        moves = state.legal_moves()
        if moves == [DRAW]:
            return self.chance(state)
        twins = mirror_twins(state.left, state.right, state.left_double, state.right_double,
                             moves)
        moves = [m for m in moves if m not in twins]
        best, best_u = None, None
        side = self.rules.side_of(state.to_move)
        for m in moves:
            vec = self.value(state.apply(m))
            u = self.utility(vec, side)
            if best is None or u > best_u:
                best, best_u = vec, u
        assert best is not None                 # a seat with no draw to make has a move
        return best

    def chance(self, state: State) -> tuple:
        """A draw: each tile of the reserve comes next with probability 1 / reserve size."""
        reserve = state.reserve
        assert reserve                          # a draw: the reserve holds a tile
        total: tuple = ()
        for i, t in enumerate(reserve):
            s = state._copy()
            s.reserve = (t,) + reserve[:i] + reserve[i + 1:]
            vec = self.value(s.apply(DRAW))
            total = tuple(a + b for a, b in zip(total, vec)) if total else vec
        return tuple(v / len(reserve) for v in total)

    def root(self, state: State) -> dict:
        side = self.rules.side_of(state.to_move)
        moves = state.legal_moves()
        twins = mirror_twins(state.left, state.right, state.left_double, state.right_double,
                             moves)
        out: dict = {}
        for m in moves:
            if m in twins:
                out[m] = out[twins[m]]
                continue
            vec = self.chance(state) if m == DRAW else self.value(state.apply(m))
            out[m] = self.utility(vec, side)
        return out


def world_values(info: InfoSet, hands, reserve_tiles, objective="points", seed: int = 0,
                 playouts: int = 2) -> dict:
    """move -> exact value (Fraction, the mover's side's) in one world; `seed` and `playouts` matter
    for the match objective only."""
    search = _Search(info, objective_code(objective), seed, playouts)
    return search.root(world_state(info, hands, sorted(reserve_tiles)))


def exact_values(info: InfoSet, objective="points", seed: int = 0, playouts: int = 2) -> dict:
    """move -> value (Fraction): the mean over every world consistent with `info`, weighted by
    its number of histories, of the move's exact value in that world (`world_values`)."""
    search = _Search(info, objective_code(objective), seed, playouts)
    table = WorldTable(info)
    sums: dict = {}
    total = 0
    for (hands, reserve), weight in table.enumerate().items():
        values = search.root(world_state(info, hands, reserve))
        for m, v in values.items():
            sums[m] = sums.get(m, 0) + weight * v
        total += weight
    return {m: Fraction(v) / total for m, v in sums.items()}
