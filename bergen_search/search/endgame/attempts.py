"""The exact endgame tried within a search's limits (`attempt`): predicted, declined at once when
too big, else solved and said as a search's result; where declined, bracketed if asked."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ...errors import BergenError, TooBig
from ...formats.notation import Move
from ...information.infoset import InfoSet
from ..results import EndgameReport, SearchInfo, SearchResult
from . import deals, shown, solving
from .budget import (BUILD_SHARE, HAND_TOLERANCE, PREDICT_WORK_PER_PAIR, SEARCH_SHARE,
                     TOLERANCE, allowance, budget_work)
from .deals import applicable, at_stage, round_figure
from .shown import Bracket
from .solving import Solution


@dataclass(frozen=True)
class Built:
    """The tree an attempt built (`pairs`: its terminal deals, None from the oracle)."""
    deals: int
    sizes: tuple
    work: int
    pairs: int | None


@dataclass
class Attempt:
    """What `attempt` did: `result`, else `why` not (None: not at the endgame's stage)."""
    result: SearchResult | None = None
    why: str | None = None
    interrupted: bool = False
    phases: dict = field(default_factory=dict)   # seconds spent: predict, deals, build, ...
    size: Built | None = None    # what was built, when it was
    #: Declined, with `bracketing` asked: the moves bracketed (`Bracket`), or why not.
    bracket: Bracket | None = None
    bracket_why: str | None = None


def attempt(info: InfoSet, limits, *, seed: int, objective: str, tolerance: float = TOLERANCE,
            hand_tolerance: float = HAND_TOLERANCE,
            inference: bool = False, started: float | None = None,
            budget: int | None = None, stop=None, memory_bytes: int | None = None,
            clock=time.perf_counter, refine: bool = True, bracketing: bool = False) -> Attempt:
    """Solve the endgame of `info` within `limits` (`budget`: the iterations when `limits` has
    neither). `clock`: the one `started` was read on; `bracketing`: where declined under an
    iteration budget, bracket each move with the same budget (`shown.bracket`)."""
    why = applicable(info, objective)
    if why is not None:
        return Attempt(None, why if at_stage(info) else None)
    started = clock() if started is None else started
    iterations = limits.iterations if limits.iterations is not None else (
        budget if limits.time is None else None)
    max_work = None if iterations is None else budget_work(iterations)
    seconds = build = None
    if limits.time is not None:
        seconds = max(limits.time * (1 - SEARCH_SHARE) - (clock() - started), 1e-3)
        build = limits.time * BUILD_SHARE
    _, cap = allowance(max_work, seconds, memory_bytes)
    t0 = clock()
    affords = cap / PREDICT_WORK_PER_PAIR
    size = deals.predict(info, stop_above=affords)
    phases = {"predict": clock() - t0}

    def declined(why: str, interrupted: bool = False) -> Attempt:
        out = Attempt(None, why, interrupted, phases=phases)
        if bracketing and not interrupted and limits.time is None:
            t1 = clock()
            try:
                out.bracket = shown.bracket(info, max_work=max_work, memory_bytes=memory_bytes,
                                      tolerance=tolerance, clock=clock, stop=stop)
                out.interrupted = out.bracket.interrupted
            except TooBig as e:
                out.bracket_why = e.message
                out.interrupted = e.interrupted
            except KeyboardInterrupt:
                out.interrupted = True
            phases["bracket"] = clock() - t1
        return out

    if size is not None and size.pairs > affords:
        return declined(f"its public tree is too big for the budget (hands of "
                        f"{info.hand_sizes[0]} and {info.hand_sizes[1]}: about "
                        f"{round_figure(size.pairs)} ways to play out the deals, "
                        f"predicted; the budget affords {round_figure(affords)})")
    failed = None
    try:
        t0 = clock()
        g = deals.game(info, inference, max_deals=cap, seconds=build or 0.0, stop=stop)
        phases["deals"] = clock() - t0
        if build is not None:
            build = max(started + build - clock(), 1e-4)
        sol = solving.solve(g, tolerance=tolerance, hand_tolerance=hand_tolerance,
                    max_work=max_work, seconds=seconds,
                    build_seconds=build or 0.0, clock=clock, stop=stop,
                    memory_bytes=memory_bytes, refine=refine)
    except TooBig as e:
        phases["failed"] = clock() - t0
        failed = e
    except BergenError as e:       # a public view the seat's own hand contradicts
        return Attempt(None, e.message, phases=phases)
    except KeyboardInterrupt:      # while the deals or the tree were built
        return Attempt(None, "interrupted", True, phases=phases)
    if failed is not None:
        return declined(failed.message, failed.interrupted)
    phases.update(sol.phases)
    return Attempt(_result(info, sol, seed, clock() - started), None, sol.interrupted,
                   phases=phases, size=Built(len(g.deals), g.root_sizes, sol.work, sol.pairs))


def _result(info: InfoSet, sol: Solution, seed: int, seconds: float):
    """The solution as a `search.SearchResult`: the move drawn from the mix first."""
    # here: search.api loads the engines, which load this module
    from ..api import MoveValue, mirror_twins, root_moves
    twins = mirror_twins(info)
    chosen = sol.choose(seed)
    rows = [(m, Move.from_code(m), Move.from_code(twins.get(m, m))) for m in root_moves(info)]
    rows.sort(key=lambda r: (r[2] != chosen, -sol.values[r[2]], r[2] != r[1], r[0]))
    moves = [MoveValue(name, m, sol.values[base], 0.0, 0, base if base != name else None,
                       share=0.0 if base != name else sol.mix[base],
                       bound=sol.move_bounds.get(base, sol.hand_bound))
             for m, name, base in rows]
    info_out: SearchInfo = {
        "algorithm": "endgame", "objective": "points", "seed": seed, "workers": 1,
        "worlds_consistent": sol.worlds, "exact": True,
        "settings": {"tolerance": sol.tolerance},
        "values": {"method": "equilibrium"},
        "twins": {Move.from_code(m): Move.from_code(t) for m, t in twins.items()},
        "iterations": sol.iterations, "seconds": seconds,
        "interrupted": sol.interrupted, "nodes": sol.nodes,
        "sides": {name: list(sol.sides[base]) for _, name, base in rows},
        "endgame": solved_report(sol, {name: base for _, name, base in rows}),
    }
    best = moves[0]
    return SearchResult(best.move, moves, best.value, 0.0, sol.iterations, info_out,
                        bound=sol.hand_bound)


def solved_report(sol: Solution, bases: dict) -> EndgameReport:
    """A solved endgame's `info["endgame"]` (`bases`: {move: the move it mirrors, or itself})."""
    def played(shares: dict) -> dict:
        return {m: p for m, p in sorted(shares.items(), key=lambda mp: str(mp[0])) if p > 0}
    return {"solved": True, "deals": sol.deals, "worlds": sol.worlds,
            "exploitability": sol.exploitability, "tolerance": sol.tolerance,
            "iterations": sol.iterations, "nodes": sol.nodes, "work": sol.work,
            "game_value": sol.game_value, "bounds": list(sol.bounds),
            "hand_gap": sol.hand_gap, "hand_bound": sol.hand_bound,
            "mix": played(sol.mix), "average": played(sol.average),
            "solve_seconds": sol.seconds,
            "refined": {name: sol.refined[base] for name, base in bases.items()
                        if base in sol.refined}}
