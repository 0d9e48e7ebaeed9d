"""The exact endgame as a step of a search: the `endgame` engine's whole answer, and the first
step of ISMCTS (its setting `endgame`). Both engines call `attempt` here (neither imports the
other: pyproject's "engines" contract); the `endgame` package is the game and its solver.
"""
from __future__ import annotations

from ..limits import Limits, now
from ..registry import Solved
from ..results import BracketReport, EndgameReport

#: The budget of the attempt given neither iterations nor time, in the default engine's
#: iterations (each buys endgame.budget.WORK_PER_ITERATION of solver work).
BUDGET = 100_000


def attempt(info, limits, run, alone: bool = False, bracketing: bool = False) -> Solved:
    """Solve the endgame of `info` within `limits` (`endgame.attempt`), for the `endgame`
    engine (`alone`) or another's `solve` (ISMCTS's setting `endgame`): the result, or
    the limits left for the search and why it did not solve (`info["endgame"]`).
    `bracketing`: where it declines, bracket each move (the caller's setting, ISMCTS's
    `bracket`; never when `alone`)."""
    from .. import endgame  # here: the solver's modules load only when it is tried
    settings = run.settings
    if run.backend.name != "core" or endgame.compiled() is None:
        # The Python solver (endgame_ref.py) is the oracle of the tests; within a
        # search's budget it would reach almost nothing.
        why: str | None = "the exact endgame needs the compiled core"
        return Solved(limits=limits, info={"endgame": {"solved": False, "why": why}}
                      if alone or endgame.at_stage(info) else {})
    tried = endgame.attempt(info, limits, seed=run.seed, objective=run.objective,
                            started=run.started, budget=BUDGET,
                            tolerance=settings.get("tolerance", endgame.budget.TOLERANCE),
                            hand_tolerance=settings.get("hand_tolerance",
                                                        endgame.budget.HAND_TOLERANCE),
                            inference=alone and settings["inference"] == "on", stop=run.stop,
                            memory_bytes=limits.memory_bytes,
                            clock=now, bracketing=bracketing and not alone)
    if tried.result is not None:
        res = tried.result
        res.info.update({"algorithm": run.algorithm, "settings": dict(settings),
                         "backend": run.backend.name, "objective": run.objective,
                         "replicates": None, "empty": False})
        if run.on_info is not None:
            ri = res.info
            run.on_info({"iterations": ri["iterations"], "seconds": ri["seconds"],
                         "speed": ri["iterations"] / max(ri["seconds"], 1e-9),
                         "best": res.best, "value": res.value, "stderr": res.stderr,
                         "moves": res.moves, "exact": True})
        return Solved(result=res)
    why = tried.why or (endgame.applicable(info) if alone else None)
    report: EndgameReport = {"solved": False, "why": why}
    if tried.bracket is not None:
        report["bracket"] = bracket_report(tried.bracket)
    elif tried.bracket_why is not None:
        report["bracket_why"] = tried.bracket_why
    out = Solved(limits=limits, info={"endgame": report} if why else {})
    if tried.interrupted:
        # Ctrl-C (or stop): no time is left, so the answer comes from a short search.
        out.limits = Limits(iterations=max(BUDGET // 100, 1),
                            memory_mb=limits.memory_mb)
        out.interrupted = True
    return out


def bracket_report(b) -> BracketReport:
    """An `endgame.Bracket` for `info["endgame"]["bracket"]`: per move its floor and
    ceiling (what the move secures for this hand whatever the other side does, even seeing
    the hand; what the other side seeing the hand holds it to), how deep the moves
    bracketed depth-limited were cut, and what it cost."""
    return {"shown": True, "floor": dict(b.floors), "ceiling": dict(b.ceilings),
            "horizon": {m: {"floor": f, "ceiling": c} for m, (f, c) in b.horizons.items()},
            "deals": b.deals, "iterations": b.iterations, "work": b.work,
            "seconds": b.seconds, "exploitability": b.exploitability,
            "missing": list(b.missing)}
