"""The playout policies in pure Python: the twin of `_policy.pyx`, draw for draw.

How a search plays on in a fully known world (every hand in view) once it leaves its tree or
reaches its horizon, on the reference `State`. In Bergen a match is made with one tile only:
at ends (a, b), a != b, the tile a-b, and at ends (a, a) the double a-a (`match_tile`), so:

- `random`: a uniformly random legal play (`Rng.below(n)`);
- `scoring`: the play that scores most at once (the first such in move order), else random;
- `safe`: the most points at once, then a play after which the next seat does not hold the
  match tile of the new ends; ties at random by reservoir sampling (one `below(k)` for the
  k-th tie, k >= 2), exactly as the core breaks them.

Each picks one of n > 1 legal plays and draws from the caller's `Rng` only, the same numbers
in the same order as the core, so a seed gives the same play on both
(tests/test_ismcts_ref.py checks it on every decision of seeded rounds).

>>> from bergen_search.game.match import deal
>>> from bergen_search.game.rng import Rng
>>> from bergen_search.game.rules import Rules
>>> from bergen_search.game.state import State
>>> state = State.deal(Rules(), *deal(Rules(), Rng(4)))
>>> state = state.apply(state.legal_moves()[0])
>>> playout_move(state, "safe", 1) in state.legal_moves()
True
"""
from __future__ import annotations

from ..constants import objective_code
from ..errors import BergenError
from ..game.match import deal
from ..game.rng import Rng
from ..game.state import State
from ..game.tiles import TILE_HIGH, TILE_LOW

PLAYOUT_RANDOM, PLAYOUT_SCORING, PLAYOUT_SAFE = 0, 1, 2
OBJECTIVE_POINTS, OBJECTIVE_MATCH = objective_code("points"), objective_code("match")
#: The policies by name, with the core's codes (`_policy.PLAYOUTS`).
PLAYOUTS = {"random": PLAYOUT_RANDOM, "scoring": PLAYOUT_SCORING, "safe": PLAYOUT_SAFE}


def match_tile(left: int, right: int) -> int:
    """The tile that makes a match at ends (left, right): left-right, or the double when the
    ends are equal."""
    lo, hi = (left, right) if left < right else (right, left)
    return lo * 7 - lo * (lo - 1) // 2 + (hi - lo)


def _ends_after(s: State, move: int) -> tuple:
    """(left, right, left double, right double) after the play `move` (not the lead)."""
    t = move >> 1
    dbl = TILE_LOW[t] == TILE_HIGH[t]
    if move & 1:
        return s.left, TILE_LOW[t] + TILE_HIGH[t] - s.right, s.left_double, dbl
    return TILE_LOW[t] + TILE_HIGH[t] - s.left, s.right, dbl, s.right_double


def match_points(s: State, move: int) -> int:
    """Points the play `move` makes as a match at once (before any cap): 0, 2 or 3."""
    left, right, left_double, right_double = _ends_after(s, move)
    if left != right:
        return 0
    return 3 if (left_double or right_double) else 2


def scoring_choice(s: State, moves: list, rng: Rng) -> int:
    """`scoring`: the play scoring most at once (the first such), else a random one."""
    best, best_value = -1, 0
    for i, m in enumerate(moves):
        v = match_points(s, m)
        if v > best_value:
            best, best_value = i, v
    if best < 0:
        return moves[rng.below(len(moves))]
    return moves[best]


def safe_choice(s: State, moves: list, rng: Rng) -> int:
    """`safe`: the most points at once, then a play after which the next seat does not hold
    the match tile of the new ends; ties at random (reservoir sampling)."""
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
    """The play of `policy` (a PLAYOUT_* code) among n > 1 legal plays."""
    if policy == PLAYOUT_SAFE:
        return safe_choice(s, moves, rng)
    if policy == PLAYOUT_SCORING:
        return scoring_choice(s, moves, rng)
    return moves[rng.below(len(moves))]


def policy_code(policy) -> int:
    """The code of a policy given by name or code; BergenError for anything else."""
    code = PLAYOUTS.get(policy, policy) if isinstance(policy, str) else policy
    if code not in PLAYOUTS.values() or isinstance(code, bool):
        raise BergenError(f"unknown playout {policy!r} (0 'random', 1 'scoring', 2 'safe')",
                          field="playout")
    return int(code)


def playout_move(state: State, policy, seed: int) -> int:
    """The play `policy` (name or code) makes in a fully known state with several legal plays,
    drawing on Rng(seed) (`_policy.playout_move`): for tests and inspection."""
    code = policy_code(policy)
    moves = state.legal_moves()
    if len(moves) < 2:
        raise BergenError("the state has fewer than two legal moves: nothing to choose")
    return playout_choice(code, state, moves, Rng(seed))


def outcome(objective: int, s: State, base: State, side: int) -> float:
    """A side's raw outcome of a finished playout from `base`: 1 if it won the match
    (objective match, else 0), or the points it gained."""
    if objective == OBJECTIVE_MATCH:
        return 1.0 if s.winner == side else 0.0
    return float(s.scores[side] - base.scores[side])


def play_out(rules, objective: int, policy: int, s: State, rng: Rng) -> State:
    """Play out: the round to its end by the playout `policy`, and for the match objective
    further rounds from fresh deals until a side reaches the target; every random choice
    from `rng`. Returns the final state. (The core's playout, draw for draw.)"""
    while True:
        while s.ended is None:
            moves = s.legal_moves()
            s = s.apply(moves[0] if len(moves) == 1 else
                        playout_choice(policy, s, moves, rng))
        if objective == OBJECTIVE_POINTS or s.winner is not None:
            return s
        hands, reserve = deal(rules, rng)
        s = State.deal(rules, hands, reserve, s.scores)


def reward(rules, objective: int, s: State, base: State, side: int) -> float:
    """Side `side`'s reward of the finished playout `s` from `base`, as the searches score
    it: its match win (0/1), or its points gained minus the other sides' mean."""
    mine = outcome(objective, s, base, side)
    if objective == OBJECTIVE_MATCH:
        return mine
    others = 0.0
    for i in range(rules.n_sides):
        if i != side:
            others += outcome(objective, s, base, i)
    return mine - others / (rules.n_sides - 1)
