"""The deviations: a move outside the played mix valued again against an opponent who answers
it (`value_after`: the subgame after it, `after`, solved as a game of its own; the solve's
`refine` values each such move so, with a fair share of what is left of the budget)."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ...errors import TooBig
from ...game.state import PASS, may_take
from . import public
from . import solvers
from .budget import ACCEPT, HAND_TOLERANCE, MAX_ITERATIONS, TOLERANCE, allowance
from .deals import Endgame


def after(g: Endgame, move: int) -> Endgame | None:
    """The subgame after the seat's root move `move` (a root action its hand may take), as
    the other side believes it under a uniform tremble: the deals where the seat's hand could
    have taken it, each with its prior weight (the prior conditioned on the public facts after
    the move, whatever the seat's strategy gave the move), the tile gone from the seat's
    hands; its `seat` the seat that moved, its `hand_index` the same hand. None when the move
    ends the round (its value is then exact: no one answers it)."""
    p = g.seat
    tile = 0 if move == PASS else 1 << (move >> 1)

    def legal(h):
        return may_take(h, move, g.root.left, g.root.right)

    kept = [d for d in g.deals if legal(g.hands[p][d[p]])]
    rep = kept[0]
    s = public.state_of(g.rules, g.root, [g.hands[q][rep[q]] for q in range(2)]).apply(move)
    if s.ended is not None:
        return None
    old = [sorted({d[q] for d in kept}) for q in range(2)]
    # Every hand of the seat left holds the tile: without it they keep their order.
    hands = tuple([g.hands[q][i] & ~(tile if q == p else 0) for i in old[q]] for q in range(2))
    index = [{i: k for k, i in enumerate(old[q])} for q in range(2)]
    deals = [(index[0][a], index[1][b], w) for a, b, w in kept]
    root = public.root_of(s)
    return Endgame(g.rules, root, hands, deals, p, index[p][g.hand_index], g.inference)


@dataclass(frozen=True)
class Refined:
    """A deviation's value against an answer (`value_after`): `value`, the seat's hand's
    best response in the subgame after the move against the other side's solved strategy
    there, in points from the root; `bound`, the subgame's exploitability over the hand's
    share of its deals' weight; `exploitability`, `iterations` and `work`, the subgame's
    solve's (`deals` its deals)."""
    value: float
    bound: float
    exploitability: float
    iterations: int
    work: int
    deals: int


def value_after(g: Endgame, move: int, *, tolerance: float = TOLERANCE,
                hand_tolerance: float = HAND_TOLERANCE, max_work: int | None = None,
                seconds: float | None = None, max_iterations: int = MAX_ITERATIONS,
                clock=time.perf_counter, stop=None, memory_bytes: int | None = None,
                sub: Endgame | None = None) -> Refined:
    """The value of the seat's root move `move` against an opponent who answers it well:
    the subgame after it (`after`: the other side believes every hand that could have taken
    it as likely as the prior makes it) solved by DCFR to `tolerance` and `hand_tolerance`
    within the budget, and the seat's hand's best response there against the other side's
    solved strategy. `sub`: `after(g, move)` when already built (not None: a move that ends
    the round has its exact value from the solve). `TooBig` as `solve`'s."""
    sub = after(g, move) if sub is None else sub
    assert sub is not None, "a move that ends the round has its exact value from the solve"
    p = g.seat
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes)
    solver, nodes, work = solvers.build(sub, cap, stop=stop)
    phases = {"iterations": 0.0, "checks": 0.0}
    deadline = None if seconds is None else t0 + seconds
    total, norm = sub.weight, sub.hand_weight
    run = solvers.iterate(solver, work, total=total, share=norm / total, seat=p,
                          tolerance=tolerance, hand_tolerance=hand_tolerance, allowed=allowed,
                          deadline=deadline, max_iterations=max_iterations, clock=clock,
                          stop=stop, phases=phases)
    done, exploit = run.iterations, run.exploitability
    interrupted, spent = run.interrupted, run.spent
    if interrupted:
        raise TooBig("interrupted", interrupted=True)
    if done == 0 or exploit > max(ACCEPT, tolerance):
        # What it cost all the same counts against the search's budget (`spent`).
        raise TooBig(f"the budget ran out before the subgame after the move was solved "
                     f"(exploitability {exploit:.3f} after {done} iterations)", spent=spent)
    own, _ = solver.best_response(p)
    return Refined(g.gained(sub.root.scores) + own[sub.hand_index] / norm,
                   exploit * total / norm, exploit, done, spent + work, len(sub.deals))
