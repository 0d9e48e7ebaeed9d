"""The solve: the compiled solver and its oracle behind one interface (`Solver`: `build`,
`iterate`, `exploitability`); DCFR over the public tree of an `Endgame` until the exploitability
is within the tolerance (`solve`), its `Solution` from the seat's side, and the deviations: a
move outside the mix valued against an opponent who answers it (`value_after`)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ...constants import MIX_STREAM
from ...errors import TooBig
from ...formats.notation import Move
from ...game.rng import Rng, derive_seed
from ...game.state import PASS, may_take
from . import deals, public
from . import reference as endgame_ref
from .budget import (ACCEPT, ALPHA, BETA, CHECK_AT, CHECK_EVERY, GAMMA, HAND_TOLERANCE,
                     MAX_ITERATIONS, MAX_WORK, MIN_SHARE, TOLERANCE, allowance)
from .deals import Endgame


@runtime_checkable
class Solver(Protocol):
    """What the endgame asks of a solver (`n_pairs`: the terminal deals, None: not counted)."""
    n_pairs: int | None

    def run(self, iterations: int) -> None: ...

    def best_response(self, b: int) -> tuple: ...

    def values(self, b: int, gains: bool = False) -> tuple: ...

    def average(self, nid: int) -> list: ...

    @property
    def root_moves(self) -> list: ...

    @property
    def root_rows(self) -> list: ...


def build(g: Endgame, cap: int, seconds: float = 0.0, horizon: int = 0,
          greedy_seat: int | None = None, max_steps: int = 0, *, playouts=None,
          policies: int = 1, stop=None):
    """(solver, nodes, work per traversal) for `g`, refusing trees over `cap` work or `seconds`
    to build (0: no limit). `horizon` > 0: depth-limited, the leaves played out with both
    hands in view (`greedy_seat` playing the best of `policies` fixed policies)."""
    core = deals.compiled()
    n_hands = (len(g.hands[0]), len(g.hands[1]))
    limit = cap = min(cap, MAX_WORK)
    try:
        if core is not None:
            solver = core.EndgameSolver(g.rules, g.root, g.hands, g.deals, max_nodes=limit,
                                        max_pairs=limit, max_entries=limit, alpha=ALPHA,
                                        beta=BETA, gamma=GAMMA, seconds=seconds,
                                        horizon=horizon,
                                        greedy_seat=-1 if greedy_seat is None else greedy_seat,
                                        max_steps=max_steps, playouts=playouts,
                                        policies=policies,
                                        stop=None if stop is None else stop.is_set)
            nodes = solver.n_nodes
            work = nodes + solver.work
        else:
            tree = endgame_ref.build(g.rules, g.root, g.hands, g.deals, max_nodes=limit,
                                     horizon=horizon, greedy_seat=greedy_seat,
                                     policies=policies)
            solver = endgame_ref.Solver(tree, n_hands)
            nodes = len(tree)
            work = nodes + sum(sum(map(sum, n.legal)) + len(n.pairs) for n in tree)
    except (endgame_ref.TreeTooBig, TooBig):
        work = math.inf
    if work > cap:
        raise TooBig(f"its public tree is too big for the budget ({len(g.deals):,} deals, "
                     f"hands of {g.root_sizes[0]} and {g.root_sizes[1]})")
    return solver, nodes, work


@dataclass(frozen=True)
class Iterated:
    """A run of DCFR, measured after the last iteration (`spent`: the build's work included)."""
    iterations: int
    exploitability: float
    bounds: tuple | None
    traversals: int
    interrupted: bool
    spent: int


def iterate(solver, work, *, total, share, seat, tolerance, hand_tolerance, allowed,
            deadline, max_iterations, clock, stop, phases) -> Iterated:
    """DCFR on `solver` (`work` per traversal) until a check finds the exploitability within
    `tolerance` and, over `share` of the weight `total`, within `hand_tolerance`, or `allowed`
    work, the `deadline` or `max_iterations` runs out."""
    spent, done, checks = work, 0, list(CHECK_AT)
    exploit, bounds = math.inf, None
    interrupted = False
    checked, checks_done = -1, 0

    def measure() -> tuple:
        t1 = clock()
        found = exploitability(solver, total, seat)
        phases["checks"] += clock() - t1
        return found
    try:
        while done < max_iterations:
            target = min(checks.pop(0) if checks else done + CHECK_EVERY, max_iterations)
            if allowed is not None and spent + 2 * work * (target - done + 1) > allowed:
                break
            # One at a time: the clock and Ctrl-C are heard between them.
            while done < target and (deadline is None or clock() < deadline):
                if stop is not None and stop.is_set():
                    raise KeyboardInterrupt
                t1 = clock()
                solver.run(1)
                phases["iterations"] += clock() - t1
                done += 1
                spent += 2 * work
            if done < target:
                break
            spent += 2 * work
            exploit, bounds = measure()
            checked = done
            checks_done += 1
            if exploit <= tolerance and exploit / share <= hand_tolerance:
                break
    except KeyboardInterrupt:
        interrupted = True
    if done and checked != done:
        exploit, bounds = measure()
        spent += 2 * work
        checks_done += 1
    return Iterated(done, exploit, bounds, 2 * done + 2 * checks_done, interrupted, spent)


def exploitability(solver, total: float, p: int):
    """(exploitability, (low, high)) from the side of player p, by best responses."""
    br0 = sum(solver.best_response(0)[0]) / total
    br1 = -sum(solver.best_response(1)[0]) / total
    low, high = (br1, br0) if p == 0 else (-br0, -br1)
    return high - low, (low, high)


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
    solver, nodes, work = build(g, cap, build_seconds, stop=stop)
    phases = {"build": clock() - t0, "iterations": 0.0, "checks": 0.0}
    deadline = None if seconds is None else t0 + seconds
    run = iterate(solver, work, total=g.weight, share=g.hand_weight / g.weight, seat=g.seat,
                  tolerance=tolerance, hand_tolerance=hand_tolerance, allowed=allowed,
                  deadline=deadline, max_iterations=max_iterations, clock=clock, stop=stop,
                  phases=phases)
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
    solver, nodes, work = build(sub, cap, stop=stop)
    deadline = None if seconds is None else t0 + seconds
    total, norm = sub.weight, sub.hand_weight
    run = iterate(solver, work, total=total, share=norm / total, seat=p, tolerance=tolerance,
                  hand_tolerance=hand_tolerance, allowed=allowed, deadline=deadline,
                  max_iterations=max_iterations, clock=clock, stop=stop,
                  phases={"iterations": 0.0, "checks": 0.0})
    done, exploit = run.iterations, run.exploitability
    if run.interrupted:
        raise TooBig("interrupted", interrupted=True)
    if done == 0 or exploit > max(ACCEPT, tolerance):
        raise TooBig(f"the budget ran out before the subgame after the move was solved "
                     f"(exploitability {exploit:.3f} after {done} iterations)", spent=run.spent)
    own, _ = solver.best_response(p)
    return Refined(g.gained(sub.root.scores) + own[sub.hand_index] / norm,
                   exploit * total / norm, exploit, done, run.spent + work, len(sub.deals))
