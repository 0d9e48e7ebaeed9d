"""The exact endgame as an engine (`endgame.py` is the game and its solver): alone with
`--algorithm endgame`, and as the first step of ISMCTS (its setting `endgame`)."""
from __future__ import annotations

from ...errors import NotApplicable
from ..limits import Limits, now
from ..registry import Algorithm, Setting, Solved, register


class Endgame(Algorithm):
    """The exact endgame alone (endgame.py): the equilibrium of the end of a two-player
    round, or an error saying why not. Its budget is counted in the default engine's
    iterations (each buys endgame.WORK_PER_ITERATION of solver work)."""
    name = "endgame"
    help = "the exact endgame alone, two players once no draw is left (or why not)"
    order = 2
    default_budget = 100_000
    match_budget = 100_000
    settings = {
        "tolerance": Setting(float, 0.01, "the exploitability (points) the solver stops at"),
        "hand_tolerance": Setting(float, 0.05, "... and the bound (points) on the hand's "
                                  "values: the exploitability over the hand's share of the deals"),
        "inference": Setting(bool, False, "weigh the deals by what both seats' plays say "
                             "about their hands (inference.py); off: uniform over the deals"),
    }

    def solve(self, info, limits, run):
        solved = self.attempt(info, limits, run, alone=True)
        if solved.result is None:
            raise NotApplicable(solved.info["endgame"]["why"], interrupted=solved.interrupted)
        return solved

    def attempt(self, info, limits, run, alone: bool = False) -> Solved:
        """Solve the endgame of `info` within `limits` (`endgame.attempt`), for this
        algorithm (`alone`) or another's `solve` (ISMCTS's setting `endgame`): the result, or
        the limits left for the search and why it did not solve (`info["endgame"]`)."""
        from .. import endgame      # here: the solver's modules load only when it is tried
        settings = run.settings
        if run.backend.name != "core" or endgame.compiled() is None:
            # The Python solver (endgame_ref.py) is the oracle of the tests; within a
            # search's budget it would reach almost nothing.
            why = "the exact endgame needs the compiled core"
            return Solved(limits=limits, info={"endgame": {"solved": False, "why": why}}
                          if alone or endgame.at_stage(info) else {})
        tried = endgame.attempt(info, limits, seed=run.seed, objective=run.objective,
                                started=run.started, budget=self.default_budget,
                                tolerance=settings.get("tolerance", endgame.TOLERANCE),
                                hand_tolerance=settings.get("hand_tolerance",
                                                            endgame.HAND_TOLERANCE),
                                inference=alone and settings["inference"], stop=run.stop,
                                memory_bytes=limits.memory_bytes,
                                clock=now, bracketing=not alone and settings.get("bracket", False))
        if tried.result is not None:
            res = tried.result
            res.info.update(algorithm=run.algorithm, settings=dict(settings),
                            backend=run.backend.name, objective=run.objective,
                            replicates=None, empty=False)
            if run.on_info is not None:
                ri = res.info
                run.on_info({"iterations": ri["iterations"], "seconds": ri["seconds"],
                             "speed": ri["iterations"] / max(ri["seconds"], 1e-9),
                             "best": res.best, "value": res.value, "stderr": res.stderr,
                             "moves": res.moves, "exact": True})
            return Solved(result=res)
        why = tried.why or (endgame.applicable(info) if alone else None)
        report: dict = {"solved": False, "why": why}
        if tried.bracket is not None:
            report["bracket"] = bracket_report(tried.bracket)
        elif tried.bracket_why is not None:
            report["bracket_why"] = tried.bracket_why
        out = Solved(limits=limits, info={"endgame": report} if why else {})
        if tried.interrupted:
            # Ctrl-C (or stop): no time is left, so the answer comes from a short search.
            out.limits = Limits(iterations=max(self.default_budget // 100, 1),
                                memory_mb=limits.memory_mb)
            out.interrupted = True
        return out


def bracket_report(b) -> dict:
    """An `endgame.Bracket` for `info["endgame"]["bracket"]`: per move its floor and
    ceiling (what the move secures for this hand whatever the other side does, even seeing
    the hand; what the other side seeing the hand holds it to), how deep the moves
    bracketed depth-limited were cut, and what it cost."""
    return {"shown": True, "floor": dict(b.floors), "ceiling": dict(b.ceilings),
            "horizon": {m: {"floor": f, "ceiling": c} for m, (f, c) in b.horizons.items()},
            "deals": b.deals, "iterations": b.iterations, "work": b.work,
            "seconds": b.seconds, "exploitability": b.exploitability,
            "missing": list(b.missing)}


register(Endgame())
