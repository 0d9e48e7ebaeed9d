"""The two solvers behind one interface (`Solver`): the compiled `_endgame.EndgameSolver` and
its oracle `reference.Solver`; `build`, an `Endgame`'s tree within a cap; `iterate`, DCFR on
it until exact enough or out of budget; `exploitability`, by best responses."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ...errors import TooBig
from .budget import ALPHA, BETA, GAMMA
from . import reference as endgame_ref
from . import native
from .budget import CHECK_AT, CHECK_EVERY, MAX_WORK

if TYPE_CHECKING:
    from .deals import Endgame


@runtime_checkable
class Solver(Protocol):
    """What the endgame asks of a solver: DCFR iterations, best-response and followed values,
    the average strategy at a node, the root's moves and rows, the terminal deals (None: not
    counted)."""
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
    """(solver, nodes, work per traversal) for `g`, refusing trees over `cap` work or
    `seconds` to build (0: no limit). `horizon` > 0: depth-limited, the leaves played out
    with both hands in view (perfectly, or `greedy_seat` playing the best of `policies`
    fixed policies), at most `max_steps` states (0: no limit), sharing `playouts` (a
    `_endgame.PlayoutTable`). `stop` (an Event): the compiled build raises
    KeyboardInterrupt once it is set."""
    core = native.compiled()
    n_hands = (len(g.hands[0]), len(g.hands[1]))
    limit = cap = min(cap, MAX_WORK)
    try:
        if core is not None:
            solver = core.EndgameSolver(g.rules, g.root, g.hands, g.deals, max_nodes=limit,
                                        max_pairs=limit, max_entries=limit,
                                        alpha=ALPHA, beta=BETA,
                                        gamma=GAMMA, seconds=seconds,
                                        horizon=horizon,
                                        greedy_seat=-1 if greedy_seat is None else greedy_seat,
                                        max_steps=max_steps, playouts=playouts,
                                        policies=policies, stop=_heard(stop))
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


def _heard(stop):
    """What the compiled builds look at: a search's stop as a callable (None: none)."""
    return None if stop is None else stop.is_set


@dataclass(frozen=True)
class Iterated:
    """A run of DCFR: its `iterations`, the `exploitability` and `bounds` after the last, the
    `traversals`, whether `interrupted`, and the work `spent` (the build's included)."""
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
    work, the `deadline` or `max_iterations` runs out; measured after the last iteration."""
    spent = work
    done = 0
    checks = list(CHECK_AT)
    exploit, bounds = math.inf, None
    interrupted = False
    checked, checks_done = -1, 0
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
            t1 = clock()
            exploit, bounds = exploitability(solver, total, seat)
            phases["checks"] += clock() - t1
            checked = done
            checks_done += 1
            if exploit <= tolerance and exploit / share <= hand_tolerance:
                break
    except KeyboardInterrupt:
        interrupted = True
    if done and checked != done:
        t1 = clock()
        exploit, bounds = exploitability(solver, total, seat)
        phases["checks"] += clock() - t1
        spent += 2 * work
        checks_done += 1
    return Iterated(done, exploit, bounds, 2 * done + 2 * checks_done, interrupted, spent)


def exploitability(solver, total: float, p: int):
    """(exploitability, (low, high)) from the side of player p: the values of its side when
    the other best-responds to its strategy, and when it best-responds to the other's."""
    br0 = sum(solver.best_response(0)[0]) / total
    br1 = -sum(solver.best_response(1)[0]) / total
    low, high = (br1, br0) if p == 0 else (-br0, -br1)
    return high - low, (low, high)

