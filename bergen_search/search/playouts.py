"""The playouts in pure Python (the core's in `src_cython/.../search/_playouts.pxd`, draw for
draw): a world played out by a playout policy (`game/policy.py`), and what its end is worth to
a side."""
from __future__ import annotations

from ..constants import objective_code
from ..game.match import deal
from ..game.policy import playout_choice
from ..game.rng import Rng
from ..game.state import State

OBJECTIVE_POINTS, OBJECTIVE_MATCH = objective_code("points"), objective_code("match")


def outcome(objective: int, s: State, base: State, side: int) -> float:
    """A side's raw outcome of a finished playout from `base`: 1 if it won the match
    (objective match, else 0), or the points it gained."""
    if objective == OBJECTIVE_MATCH:
        return 1.0 if s.winner == side else 0.0
    return float(s.scores[side] - base.scores[side])


def play_out(rules, objective: int, policy: int, s: State, rng: Rng) -> State:
    """The final state of `s` played out by the playout `policy` (for the match objective,
    through fresh deals until a side reaches the target), every random choice from `rng`."""
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
