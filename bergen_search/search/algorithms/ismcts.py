"""ISMCTS, the default engine (`_ismcts.pyx`; its pure-Python twin `ismcts_ref.py`):
independent replicated trees, sequential halving at the root and a final pass (search.py
has the shared machinery: `_halving`, `_run_sliced`), the exact endgame first when it
applies, and the `classic` preset (the engine as it was before issue 9)."""
from __future__ import annotations

from ...constants import PASS_STREAM
from ...game.rng import derive_seed
from .. import api as search
from .. import backend
from ..api import (
    DEFAULT_MEMORY_MB,
    MAX_REPLICATES,
    PASS_MAX,
    PASS_MIN,
    PASS_SHARE,
    PASS_SPREAD,
    REPLICATES,
    _Deadline,
    _halving,
    _run_sliced,
)
from ..registry import Algorithm, Setting, Solved, algorithms, preset, register


class Ismcts(Algorithm):
    name = "ismcts"
    help = "ISMCTS, the default engine"
    order = 0
    default_budget = 100000
    match_budget = 2000
    by_visits = True
    replicated = True
    sides = True
    value_meaning = "the engine playing on from the move"
    replicate_noun = "trees"
    settings = {
        "exploration": Setting(float, 0.7, "the UCB1 exploration constant", maximum=100),
        "playout": Setting(str, "safe", "how playouts play on: random, scoring or safe",
                           ("random", "scoring", "safe")),
        "inference": Setting(bool, True, "weigh the worlds by what the other seats' plays "
                             "say about their hands (inference.py)"),
        "twins": Setting(bool, True, "plays that mirror each other are one choice"),
        "choose": Setting(str, "value", "the move played: the best value of the final pass "
                          "(value; runs the pass) or the most visited (visits)",
                          ("value", "visits")),
        "endgame": Setting(bool, True, "solve the end of a two-player round exactly when no "
                           "draw can happen again and it fits the budget (endgame.py)"),
        "replicates": Setting(int, REPLICATES, "independent trees sharing the budget: a "
                              "move's value is their mean and its error their spread (1: one "
                              "tree, no error measured)", minimum=1, maximum=MAX_REPLICATES),
        "stats": Setting(str, "choices", "what a move's mean in the tree counts: the "
                         "iterations where its mover chose it among several (choices), or "
                         "also those where it was the only legal move (all, as before issue "
                         "22: a move forced in some worlds then looks as good or as bad as it "
                         "was there)", ("choices", "all")),
        "root": Setting(str, "halving", "how the root shares the budget between the choices: "
                        "halving (sequential halving: every choice a share, the better half "
                        "more, again and again) or ucb (UCB1, as below the root)",
                        ("halving", "ucb")),
    }

    def worker(self, sampler, objective, budget, deadline, seed, settings, values=False,
               hooks=None, focus=(), memory=DEFAULT_MEMORY_MB << 20):
        """One replicate: one tree searched, then (with `values`) its final pass. `memory`:
        the cap in bytes on the trees alive at once in this process (`IsmctsTree.max_bytes`;
        at the cap the tree stops growing, `extra["full_at"]` says after how many iterations)."""
        tree = backend.SEARCH.tree(sampler, seed, settings["exploration"], objective,
                                   settings["playout"], merge_twins=settings["twins"],
                                   choice_stats=settings["stats"] == "choices",
                                   max_bytes=memory)
        left = deadline.left()
        search_deadline = deadline if left is None or not values else _Deadline(
            left * (1 - PASS_SHARE))
        t0 = search.clock()
        if settings["root"] == "halving":
            done, interrupted = _halving(tree, budget, search_deadline, focus, hooks)
        else:
            done, interrupted = _run_sliced(tree.run, budget, search_deadline, hooks,
                                            tree.root_stats, lambda: tree.iterations)
        extra = {"nodes": tree.n_nodes, "twins": tree.twins, "full_at": tree.full_at,
                 "sides": {m: (n, sums) for m, n, sums in tree.root_side_stats()}}
        n_choices = len({m for m, *_ in tree.root_stats()} - set(tree.twins))
        if values and not interrupted and done and n_choices > 1:
            # The final pass: every root move on the same worlds, played on as the search
            # would (common random numbers), so that values compare (issue 10).
            worlds = max(PASS_MIN, min(PASS_MAX, done // (PASS_SPREAD * n_choices)))
            left = deadline.left()
            if left is not None:
                rate = done / max(search.clock() - t0, 1e-6)
                worlds = max(PASS_MIN, min(worlds, int(rate * max(left, 0) / n_choices)))
            try:
                extra["pass"] = (worlds, tree.evaluate_root(worlds,
                                                            derive_seed(seed, PASS_STREAM)))
            except KeyboardInterrupt:
                interrupted = True
        return [tuple(r) for r in tree.root_stats()], done, interrupted, extra

    def units(self, settings, workers):
        return settings["replicates"]

    def solve(self, info, limits, run):
        """The exact endgame first, when the setting `endgame` is on (the `endgame`
        algorithm's `attempt`): its answer when it solves, else why not in `info`."""
        if not run.settings["endgame"]:
            return Solved(limits=limits)
        return algorithms()["endgame"].attempt(info, limits, run)

    def summary(self, outputs, limits):
        full = [o[3]["full_at"] for o in outputs if o[3].get("full_at") is not None]
        # The memory cap: how many trees reached it, and after how many iterations the
        # first stopped growing (the search went on sampling within it).
        return {"memory": {"cap_mb": limits.memory_bytes >> 20, "full": len(full),
                           "full_at": min(full) if full else None}}


register(Ismcts())
#: `classic` is the default engine as it was before inference, safe playouts, merged twins,
#: replicates and the exact endgame (benchmarks/STRENGTH.md measures every gain against it).
preset("classic", "ismcts", {"playout": "random", "inference": False, "twins": False,
                             "choose": "visits", "replicates": 1, "root": "ucb",
                             "stats": "all", "endgame": False},
       "ISMCTS as it was before inference and safe playouts")
