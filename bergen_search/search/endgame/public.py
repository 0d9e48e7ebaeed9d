"""The endgame's public state: the root every seat sees (`Root`), a `State` of it with hands
given (`state_of`), and the public actions at a state (`public_moves`)."""
from __future__ import annotations

from dataclasses import dataclass

from ...game.state import PASS, State, fitting
from ...game.tiles import TILE_HIGH, TILE_LOW, iter_mask


@dataclass
class Root:
    """The public state at the root: what every seat sees."""
    left: int
    right: int
    left_double: bool
    right_double: bool
    scores: tuple
    to_move: int
    passes: int
    reserve_size: int
    line: tuple


def root_of(s, to_move: int | None = None) -> Root:
    """The public state of `s` (a State, or an InfoSet and its seat `to_move`) as a root."""
    return Root(s.left, s.right, bool(s.left_double), bool(s.right_double), tuple(s.scores),
                s.to_move if to_move is None else to_move, s.passes, s.reserve_size,
                tuple(s.line))


def state_of(rules, root: Root, hands) -> State:
    """A reference State of the root's public state with the hands given."""
    s = State.of(rules, hands, root.line, root.scores, reserve=None,
                 reserve_size=root.reserve_size, to_move=root.to_move, passes=root.passes)
    s.left, s.right = root.left, root.right     # the root's, as the core keeps them
    s.left_double, s.right_double = bool(root.left_double), bool(root.right_double)
    return s


def public_moves(s: State, holdings) -> list:
    """The public actions at `s` for a player with possible hands `holdings` (a mirror twin
    dropped; PASS last if some hand has no play)."""
    tiles, can_pass = 0, False
    for h in holdings:
        f = fitting(h, s.left, s.right)
        tiles |= f
        if not f:
            can_pass = True
    mirror = s.left == s.right and bool(s.left_double) == bool(s.right_double)
    moves = []
    for t in iter_mask(tiles):
        lo, hi = TILE_LOW[t], TILE_HIGH[t]
        fl = lo == s.left or hi == s.left
        fr = lo == s.right or hi == s.right
        if fl:
            moves.append(t * 2)
        if fr and not (fl and mirror):
            moves.append(t * 2 + 1)
    if can_pass:
        moves.append(PASS)
    return moves
