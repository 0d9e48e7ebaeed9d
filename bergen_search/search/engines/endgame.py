"""The exact endgame alone as an engine (`search.endgame` is the game and its solver)."""
from __future__ import annotations

from ...errors import NotApplicable
from ..endgame import step as exact
from ..registry import SWITCH, Algorithm, Setting, register


class Endgame(Algorithm):
    """The equilibrium of the end of a two-player round, or an error saying why not; its budget
    in the default engine's iterations (each buys WORK_PER_ITERATION of solver work)."""
    name = "endgame"
    help = "the exact endgame alone, two players once no draw is left (or why not)"
    order = 2
    default_budget = exact.BUDGET
    match_budget = exact.BUDGET
    settings = {
        "tolerance": Setting(float, 0.01, "the exploitability (points) the solver stops at"),
        "hand_tolerance": Setting(float, 0.05, "... and the bound (points) on the hand's "
                                  "values: the exploitability over the hand's share of the deals"),
        "inference": Setting(str, "off", "weigh the deals by what both seats' plays say "
                             "about their hands (inference.py); off: uniform over the deals",
                             SWITCH),
    }

    def solve(self, info, limits, run):
        s = run.settings
        solved = exact.attempt(info, limits, run, alone=True, tolerance=s["tolerance"],
                               hand_tolerance=s["hand_tolerance"], inference=s["inference"])
        if solved.result is None:
            raise NotApplicable(solved.info["endgame"]["why"], interrupted=solved.interrupted)
        return solved


register(Endgame())
