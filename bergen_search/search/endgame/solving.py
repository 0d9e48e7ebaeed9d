"""The solve: DCFR over the public tree of an `Endgame` until the exploitability of the average
strategy pair is within the tolerance (`solve`), and its `Solution` from the seat's side: each
legal move's value for its own hand, the mix it plays, the bounds."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ...constants import MIX_STREAM
from ...errors import TooBig
from ...formats.notation import Move
from ...game.rng import Rng, derive_seed
from . import solvers
from .budget import (ACCEPT, HAND_TOLERANCE, MAX_ITERATIONS, MIN_SHARE, TOLERANCE,
                     allowance)
from .deals import Endgame
from .deviations import after, value_after
from .solvers import Solver


@dataclass
class Solution:
    """A solved endgame from the seat to move's side, in points, every dict keyed by
    `notation.Move`:
    `values` (each move's best-response value for its hand, twins included), `mix` (the average
    strategy played), `value` (the best move's), `game_value`, `bounds` (the seat's side against
    a best response and best-responding; the value lies between), `exploitability` (their
    difference), `sides` (each side's expected points per move), `hand_bound` (the bound printed
    with the values) and `average` (the average strategy before the bound's cut)."""
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
        """A move drawn from the mix with the seeded RNG (shares below MIN_SHARE dropped, the
        others in the order of their notation): the same seed, the same move."""
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
    """Solve `g` to `tolerance` (exploitability, points) and `hand_tolerance`
    (`Solution.hand_bound`)
    within `max_work` (solver work) and/or `seconds`. Raises `TooBig` when the tree cannot afford
    MIN_ITERATIONS (or its build takes past `build_seconds`), or when ACCEPT was not reached.
    `stop` is heard as Ctrl-C is; `memory_bytes` caps the tree; `refine`: then value each move
    outside the mix against an answer (`refine_deviations`) with the budget left."""
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes)
    solver, nodes, work = solvers.build(g, cap, build_seconds, stop=stop)
    phases = {"build": clock() - t0, "iterations": 0.0, "checks": 0.0}
    deadline = None if seconds is None else t0 + seconds
    run = solvers.iterate(solver, work, total=g.weight, share=g.hand_weight / g.weight,
                          seat=g.seat, tolerance=tolerance, hand_tolerance=hand_tolerance,
                          allowed=allowed, deadline=deadline, max_iterations=max_iterations,
                          clock=clock, stop=stop, phases=phases)
    done, exploit, bounds = run.iterations, run.exploitability, run.bounds
    traversals, interrupted, spent = run.traversals, run.interrupted, run.spent
    if done == 0:
        raise TooBig(f"its public tree ({nodes:,} nodes) leaves no time to solve it",
                     interrupted=interrupted)
    if exploit > max(ACCEPT, tolerance):
        raise TooBig(f"the budget ran out before the solution was exact enough "
                     f"(exploitability {exploit:.3f} after {done} iterations)")
    t1 = clock()
    sol = _solution(g, solver, exploit, bounds, tolerance, done, nodes=nodes, work=work,
                    seconds=clock() - t0)
    phases["report"] = clock() - t1
    sol.phases = phases
    sol.pairs = solver.n_pairs
    sol.interrupted = interrupted
    sol.traversals = traversals + 3
    sol.spent = spent + 3 * work
    del solver, run             # its memory is free before the subgames are built
    if refine and not interrupted:
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
        # Each side's expected points gained after the move, both playing the solved pair.
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
    """The average strategy without the moves below the best's value by more than twice `bound`,
    renormalised (the best move alone if nothing is left)."""
    best = max(values.values())
    kept = {m: p for m, p in average.items() if values[m] >= best - 2 * bound}
    total = sum(kept.values())
    if total <= 0:
        top = max(values, key=lambda m: (values[m], average[m]))
        return {m: (1.0 if m == top else 0.0) for m in average}
    return {m: kept.get(m, 0.0) / total for m in average}


def refine_deviations(g: Endgame, sol: Solution, *, max_work, seconds, clock, stop, **settings) -> None:
    """Value every move of `sol` outside the mix against an answer (`value_after`), the best first,
    each a fair share of the budget left; `sol.values`, `sol.move_bounds`, `sol.refined` and
    `sol.unrefined` say what came of it, and the work counts in `sol.spent`."""
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

