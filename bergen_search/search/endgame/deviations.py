"""The deviations: a move outside the played mix valued against an opponent who answers it
(`value_after`: the subgame after it, `after`, solved as a game of its own)."""
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
    """The subgame after the seat's root move `move`, as the other side believes it under a
    uniform tremble: the deals where the seat's hand could have taken it, at their prior
    weight, the tile gone from the seat's hands. None when the move ends the round."""
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
    hands = tuple([g.hands[q][i] & ~(tile if q == p else 0) for i in old[q]] for q in range(2))
    index = [{i: k for k, i in enumerate(old[q])} for q in range(2)]
    deals = [(index[0][a], index[1][b], w) for a, b, w in kept]
    root = public.root_of(s)
    return Endgame(g.rules, root, hands, deals, p, index[p][g.hand_index], g.inference)


@dataclass(frozen=True)
class Refined:
    """A deviation's value against an answer: `value`, the hand's best response in the
    subgame (points from the root); `bound`, the subgame's exploitability over the hand's
    share; the rest, the subgame's solve's figures."""
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
    """The value of the seat's root move `move` against an opponent who answers it: the
    subgame `after` it solved by DCFR to `tolerance` and `hand_tolerance` within the budget,
    and the hand's best response there. `sub`: `after(g, move)` when built. `TooBig` as
    `solve`'s."""
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
        raise TooBig(f"the budget ran out before the subgame after the move was solved "
                     f"(exploitability {exploit:.3f} after {done} iterations)", spent=spent)
    own, _ = solver.best_response(p)
    return Refined(g.gained(sub.root.scores) + own[sub.hand_index] / norm,
                   exploit * total / norm, exploit, done, spent + work, len(sub.deals))
