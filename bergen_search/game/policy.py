"""The play policies, the twin of the core's (`_core.pyx`) draw for draw: each picks one of
n > 1 legal plays in a fully known state (greedy, the playouts, the exact endgame's floors).

>>> from bergen_search.game.match import deal
>>> from bergen_search.game.rules import Rules
>>> state = State.deal(Rules(), *deal(Rules(), Rng(4)))
>>> state = state.apply(state.legal_moves()[0])
>>> playout_move(state, "safe", 1) in state.legal_moves()
True
"""
from __future__ import annotations

from ..errors import BergenError
from .rng import Rng
from .state import State, fitting, match_value
from .tiles import PIPS, TILE_HIGH, TILE_LOW, popcount, tile_index

PLAYOUT_RANDOM, PLAYOUT_SCORING, PLAYOUT_SAFE = 0, 1, 2
#: The playout policies by name, with the core's codes (`_core.PLAYOUTS`).
PLAYOUTS = {"random": PLAYOUT_RANDOM, "scoring": PLAYOUT_SCORING, "safe": PLAYOUT_SAFE}
#: The floor policies (`floor_choice`), with the core's codes (FLOOR_* of `_core.pxd`).
FLOOR_GREEDY, FLOOR_DOUBLES, FLOOR_FITTING = 0, 1, 2


def greedy_choice(state: State, moves: list) -> int:
    """The play scoring most at once, then the heaviest tile, then the first in move order."""
    side = state.rules.side_of(state.to_move)
    best, best_key = moves[0], None
    for m in moves:
        after = state.apply(m)
        key = (after.scores[side] - state.scores[side], PIPS[m >> 1])
        if best_key is None or key > best_key:
            best, best_key = m, key
    return best


def match_tile(left: int, right: int) -> int:
    """The tile that makes a match at ends (left, right): left-right (a double if equal)."""
    return tile_index(left, right)


def _ends_after(s: State, move: int) -> tuple:
    """(left, right, left double, right double) after the play `move` (not the lead)."""
    t = move >> 1
    dbl = TILE_LOW[t] == TILE_HIGH[t]
    if move & 1:
        return s.left, TILE_LOW[t] + TILE_HIGH[t] - s.right, s.left_double, dbl
    return TILE_LOW[t] + TILE_HIGH[t] - s.left, s.right, dbl, s.right_double


def match_points(s: State, move: int) -> int:
    """Points the play `move` makes as a match at once (before any cap): 0, 2 or 3."""
    return match_value(*_ends_after(s, move))


def scoring_choice(s: State, moves: list, rng: Rng) -> int:
    """`scoring`: the first play scoring most at once, else a random one."""
    points = [match_points(s, m) for m in moves]
    if max(points) == 0:
        return moves[rng.below(len(moves))]
    return moves[points.index(max(points))]


def safe_choice(s: State, moves: list, rng: Rng) -> int:
    """`safe`: the most points at once, then a play leaving the next seat without the new
    ends' match tile; ties by reservoir sampling."""
    nxt = s.to_move + 1 if s.to_move + 1 < s.rules.players else 0
    next_hand = s.hands[nxt]
    best, best_key, ties = 0, -1, 0
    for i, m in enumerate(moves):
        left, right, _, _ = _ends_after(s, m)
        key = match_points(s, m) * 4 + (0 if next_hand >> match_tile(left, right) & 1 else 2)
        if key > best_key:
            best, best_key, ties = i, key, 1
        elif key == best_key:
            ties += 1
            if rng.below(ties) == 0:
                best = i
    return moves[best]


def playout_choice(policy: int, s: State, moves: list, rng: Rng) -> int:
    """The play of the playout `policy` (a PLAYOUT_* code) among n > 1 legal plays."""
    if policy == PLAYOUT_SAFE:
        return safe_choice(s, moves, rng)
    if policy == PLAYOUT_SCORING:
        return scoring_choice(s, moves, rng)
    return moves[rng.below(len(moves))]


def policy_code(policy) -> int:
    """The code of a playout policy given by name or code; BergenError for anything else."""
    code = PLAYOUTS.get(policy, policy) if isinstance(policy, str) else policy
    if code not in PLAYOUTS.values() or isinstance(code, bool):
        raise BergenError(f"unknown playout {policy!r} (0 'random', 1 'scoring', 2 'safe')",
                          field="playout")
    return int(code)


def playout_move(state: State, policy, seed: int) -> int:
    """The play of `policy` (name or code) in a fully known state, drawing on Rng(seed)."""
    code = policy_code(policy)
    moves = state.legal_moves()
    if len(moves) < 2:
        raise BergenError("the state has fewer than two legal moves: nothing to choose")
    return playout_choice(code, state, moves, Rng(seed))


def floor_choice(s: State, moves: list, policy: int = FLOOR_GREEDY) -> int:
    """The play of floor `policy`: FLOOR_GREEDY; FLOOR_DOUBLES (the heaviest double, else
    greedy); FLOOR_FITTING (most tiles left fitting, then points, then weight)."""
    if policy == FLOOR_DOUBLES:
        doubles = [m for m in moves if TILE_LOW[m >> 1] == TILE_HIGH[m >> 1]]
        if doubles:
            return max(doubles, key=lambda m: PIPS[m >> 1])
    if policy == FLOOR_FITTING:
        seat = s.to_move

        def key(m):
            after = s.apply(m)
            fits = 64 if after.ended is not None else popcount(
                fitting(after.hands[seat], after.left, after.right))
            return fits, after.scores[seat] - s.scores[seat], PIPS[m >> 1]
        return max(moves, key=key)
    return greedy_choice(s, moves)
