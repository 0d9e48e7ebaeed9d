"""The solve: DCFR over the public tree of an `Endgame` until the exploitability is within the
tolerance (`solve`), its `Solution` from the seat's side, and the deviations: a move outside
the mix valued against an opponent who answers it (`value_after`)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ...constants import MIX_STREAM
from ...errors import TooBig
from ...formats.notation import Move
from ...game.rng import Rng, derive_seed
from ...game.state import PASS, may_take
from . import public, solvers
from .budget import (ACCEPT, HAND_TOLERANCE, MAX_ITERATIONS, MIN_SHARE, TOLERANCE,
                     allowance)
from .deals import Endgame
from .solvers import Solver


@dataclass
class Solution:
    """A solved endgame from the seat to move's side, in points, every dict keyed by `Move`
    (`values`: each move's best-response value for its hand; `mix`: the strategy played)."""
    values: dict
    mix: dict
    value: float
    game_value: float
    bounds: tuple
    exploitability: float
    tolerance: float
    deals: int
    worlds: int
    iterations: int
    nodes: int
    work: int
    seconds: float
    sides: dict = field(default_factory=dict)
    hand_gap: float = 0.0
    interrupted: bool = False
    traversals: int = 0      # passes over the tree: 2 an iteration, 2 a check, 3 to report
    phases: dict = field(default_factory=dict)   # seconds: build, iterations, checks, report
    hand_bound: float = math.inf
    average: dict = field(default_factory=dict)
    pairs: int | None = None  # the terminal deals of the tree (the compiled solver's)
    #: Per move, the bound of its value: `hand_bound`, or a refined deviation's own.
    move_bounds: dict = field(default_factory=dict)
    #: Per move outside the mix: whether its value is refined (`value_after`) or the solve's.
    refined: dict = field(default_factory=dict)
    unrefined: dict = field(default_factory=dict)   # those moves' values from the solve
    spent: int = 0            # the solver work spent, the refinements' included

    def choose(self, seed: int) -> Move:
        """A move drawn from the mix with the seeded RNG (shares below MIN_SHARE dropped)."""
        shares = sorted(((m, p) for m, p in self.mix.items() if p >= MIN_SHARE),
                        key=lambda mp: str(mp[0]))
        if not shares:
            shares = [max(self.mix.items(), key=lambda kv: kv[1])]
        total = sum(p for _, p in shares)
        u = (Rng(derive_seed(seed, MIX_STREAM)).next64() >> 11) * (1.0 / 9007199254740992.0)
        acc = 0.0
        for m, p in shares:
            acc += p / total
            if u < acc:
                return m
        return shares[-1][0]


def solve(g: Endgame, *, tolerance: float = TOLERANCE,
          hand_tolerance: float = HAND_TOLERANCE, max_work: int | None = None,
          seconds: float | None = None, max_iterations: int = MAX_ITERATIONS,
          build_seconds: float = 0.0, clock=time.perf_counter, stop=None,
          memory_bytes: int | None = None, refine: bool = True) -> Solution:
    """Solve `g` to `tolerance` (exploitability, points) and `hand_tolerance` within `max_work`
    and/or `seconds`; `refine`: then the moves outside the mix with the budget left. `TooBig`
    when the tree cannot afford MIN_ITERATIONS or ACCEPT was not reached."""
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes)
    solver, nodes, work = solvers.build(g, cap, build_seconds, stop=stop)
    phases = {"build": clock() - t0, "iterations": 0.0, "checks": 0.0}
    deadline = None if seconds is None else t0 + seconds
    run = solvers.iterate(solver, work, total=g.weight, share=g.hand_weight / g.weight,
                          seat=g.seat, tolerance=tolerance, hand_tolerance=hand_tolerance,
                          allowed=allowed, deadline=deadline, max_iterations=max_iterations,
                          clock=clock, stop=stop, phases=phases)
    done, exploit = run.iterations, run.exploitability
    if done == 0:
        raise TooBig(f"its public tree ({nodes:,} nodes) leaves no time to solve it",
                     interrupted=run.interrupted)
    if exploit > max(ACCEPT, tolerance):
        raise TooBig(f"the budget ran out before the solution was exact enough "
                     f"(exploitability {exploit:.3f} after {done} iterations)")
    t1 = clock()
    sol = _solution(g, solver, exploit, run.bounds, tolerance, done, nodes=nodes, work=work,
                    seconds=clock() - t0)
    phases["report"] = clock() - t1
    sol.phases, sol.pairs, sol.interrupted = phases, solver.n_pairs, run.interrupted
    sol.traversals, sol.spent = run.traversals + 3, run.spent + 3 * work
    del solver, run             # its memory is free before the subgames are built
    if refine and not sol.interrupted:
        t1 = clock()
        left_work = None if allowed is None else allowed - sol.spent
        left_seconds = None if deadline is None else deadline - clock()
        refine_deviations(g, sol, tolerance=tolerance, hand_tolerance=hand_tolerance,
                          max_work=left_work, seconds=left_seconds,
                          max_iterations=max_iterations, clock=clock, stop=stop,
                          memory_bytes=memory_bytes)
        phases["refine"] = clock() - t1
    return sol


def _solution(g: Endgame, solver: Solver, exploit, bounds, tolerance, iterations, *, nodes,
              work, seconds):
    p, i = g.seat, g.hand_index
    sign = 1.0 if p == 0 else -1.0
    norm = g.hand_weight
    _, best_after = solver.best_response(p)
    _, follow_after = solver.values(p)
    _, gain_after = solver.values(p, gains=True)
    whole, _ = solver.values(0)
    moves = solver.root_moves
    mix_row = solver.average(0)[solver.root_rows.index(i)]
    values, mix, sides, follow = {}, {}, {}, 0.0
    for c, m in enumerate(moves):
        if not g.own_may_take(m):
            continue
        name = Move.from_code(m)
        values[name] = best_after[m][i] / norm
        mix[name] = mix_row[c]
        margin0 = sign * follow_after[m][i] / norm
        gain0 = sign * gain_after[m][i] / norm
        sides[name] = (gain0, gain0 - margin0)
        follow += mix_row[c] * sign * margin0
    value = max(values.values())
    bound = exploit * g.weight / norm
    return Solution(values, played_mix(values, mix, bound), value,
                    sign * sum(whole) / g.weight, bounds, exploit, tolerance, len(g.deals),
                    sum(1 for d in g.deals if d[p] == i), iterations, nodes, work, seconds,
                    sides=sides, hand_gap=value - follow, hand_bound=bound, average=mix,
                    move_bounds={m: bound for m in values})


def played_mix(values: dict, average: dict, bound: float) -> dict:
    """The average strategy without the moves below the best's value by over twice `bound`."""
    best = max(values.values())
    kept = {m: p for m, p in average.items() if values[m] >= best - 2 * bound}
    total = sum(kept.values())
    if total <= 0:
        top = max(values, key=lambda m: (values[m], average[m]))
        return {m: (1.0 if m == top else 0.0) for m in average}
    return {m: kept.get(m, 0.0) / total for m in average}


def refine_deviations(g: Endgame, sol: Solution, *, max_work, seconds, clock, stop,
                      **settings) -> None:
    """Value every move of `sol` outside the mix against an answer, each a fair share."""
    off = sorted((m for m, x in sol.mix.items() if x <= 0), key=lambda m: -sol.values[m])
    t0, used = clock(), 0
    for k, m in enumerate(off):
        sol.unrefined[m] = sol.values[m]
        sol.refined[m] = False
        sub = after(g, m.code)
        if sub is None:             # the move ends the round: its value is exact already
            sol.refined[m] = True
            sol.move_bounds[m] = 0.0
            continue
        left_work = None if max_work is None else max_work - used
        left_seconds = None if seconds is None else seconds - (clock() - t0)
        if (left_work is not None and left_work <= 0) or (
                left_seconds is not None and left_seconds <= 0):
            continue
        share = len(off) - k
        try:
            r = value_after(g, m.code, sub=sub, clock=clock, stop=stop,
                            max_work=None if left_work is None else left_work // share,
                            seconds=None if left_seconds is None else left_seconds / share,
                            **settings)
        except TooBig as e:
            used += e.spent
            sol.spent += e.spent
            if e.interrupted:
                break
            continue
        except KeyboardInterrupt:   # Ctrl-C inside a subgame's build: the rest unrefined
            sol.interrupted = True
            break
        used += r.work
        sol.spent += r.work
        sol.values[m] = r.value
        sol.move_bounds[m] = r.bound
        sol.refined[m] = True


def after(g: Endgame, move: int) -> Endgame | None:
    """The subgame after the seat's root move `move` under a uniform tremble: the deals where
    the seat's hand could have taken it, at their prior weight. None when it ends the round."""
    p = g.seat
    tile = 0 if move == PASS else 1 << (move >> 1)
    kept = [d for d in g.deals if may_take(g.hands[p][d[p]], move, g.root.left, g.root.right)]
    s = g.state(kept[0]).apply(move)
    if s.ended is not None:
        return None
    old = [sorted({d[q] for d in kept}) for q in range(2)]
    hands = tuple([g.hands[q][i] & ~(tile if q == p else 0) for i in old[q]] for q in range(2))
    index = [{i: k for k, i in enumerate(old[q])} for q in range(2)]
    deals = [(index[0][a], index[1][b], w) for a, b, w in kept]
    return Endgame(g.rules, public.root_of(s), hands, deals, p, index[p][g.hand_index],
                   g.inference)


@dataclass(frozen=True)
class Refined:
    """A deviation's value against an answer (the hand's best response in the subgame, points
    from the root), its `bound`, and the subgame's solve's figures."""
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
    """The value of the seat's root move `move` against an opponent who answers it: the subgame
    `after` it (`sub`, when built) solved within the budget. `TooBig` as `solve`'s."""
    sub = after(g, move) if sub is None else sub
    assert sub is not None, "a move that ends the round has its exact value from the solve"
    p = g.seat
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes)
    solver, nodes, work = solvers.build(sub, cap, stop=stop)
    deadline = None if seconds is None else t0 + seconds
    total, norm = sub.weight, sub.hand_weight
    run = solvers.iterate(solver, work, total=total, share=norm / total, seat=p,
                          tolerance=tolerance, hand_tolerance=hand_tolerance, allowed=allowed,
                          deadline=deadline, max_iterations=max_iterations, clock=clock,
                          stop=stop, phases={"iterations": 0.0, "checks": 0.0})
    done, exploit = run.iterations, run.exploitability
    if run.interrupted:
        raise TooBig("interrupted", interrupted=True)
    if done == 0 or exploit > max(ACCEPT, tolerance):
        raise TooBig(f"the budget ran out before the subgame after the move was solved "
                     f"(exploitability {exploit:.3f} after {done} iterations)", spent=run.spent)
    own, _ = solver.best_response(p)
    return Refined(g.gained(sub.root.scores) + own[sub.hand_index] / norm,
                   exploit * total / norm, exploit, done, run.spent + work, len(sub.deals))
