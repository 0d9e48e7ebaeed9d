"""Flat Monte Carlo: the plainest search that samples worlds, kept as a yardstick.

Every root move is played on the same sampled worlds (a world consistent with what the seat
to move knows: `sampler.ReferenceSampler`), then played out to the end of the round by the
playout policy (`policy.py`; for the match objective, through fresh deals until a side wins),
with the same random numbers for every move (common random numbers). A move's value is its
mean reward over the worlds; the budget (`iterations`) counts worlds, each costing one
playout per choice. It runs in pure Python on the reference rules, with or without the
compiled core, and is split into `replicates` independent units (each its own seed) whose
spread is every value's error, as ISMCTS's is.

No tree, no opponent model: a move is judged as if every seat then played by the policy. It
is what "determinized" search is without any search below the root (Long et al. 2010 call it
Perfect Information Monte Carlo with a playout policy instead of a solver), and the floor any
real engine must clear: `bergen arena ismcts:time=0.1 flat:time=0.1 --round --games 1000
--seed 2122 --workers 2` gave the default engine +0.287 ± 0.065 a round (luck-adjusted
+0.285 ± 0.056; benchmarks/STRENGTH.md).

This module is the whole engine: it registers itself, and the command line, match engine
specs (`flat:iterations=400,playout=safe`), `analyze`, `bergen engine` and the docs of
`--algorithm` pick it up from the registry.

>>> from bergen_search.information.infoset import from_position
>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.search.api import Limits, search
>>> info = from_position(position_from_flags(hand="0-3 1-2 2-5 5-6",
...     line="1-1 1-4 4-4 4-6 6-3", hand_sizes="4,5", scores="4,7"))
>>> res = search(info, Limits(iterations=64), algorithm="flat", seed=1)
>>> res.best in {m.move for m in res.moves}, res.info["replicates"]
(True, 4)
"""
from __future__ import annotations

from ...game.rng import GOLDEN, MASK64, Rng, mix64
from ...game.state import mirror_twins
from ...information.sampler import ReferenceSampler
from ..ismcts_ref import outcome, play_out, reward
from ..limits import now
from ..policy import policy_code
from ..registry import Algorithm, Setting, inference_setting, register
from ..results import UnitOutput
from ..workers import run_sliced


class Flat(Algorithm):
    name = "flat"
    help = "flat Monte Carlo, every move played out on the same worlds (a yardstick)"
    order = 3
    default_budget = 2000
    match_budget = 200
    replicated = True
    sides = True
    value_meaning = "every seat then playing by the playout policy"
    settings = {
        "playout": Setting(str, "safe", "how playouts play on: random, scoring or safe",
                           ("random", "scoring", "safe")),
        "inference": inference_setting(False),
        "replicates": Setting(int, 4, "independent units sharing the budget: a move's value "
                              "is their mean and its error their spread", minimum=1,
                              maximum=10_000),
    }

    def units(self, settings, workers):
        return settings["replicates"]

    def sampler(self, info, table):
        return ReferenceSampler(info, table)

    def worker(self, sampler, objective, budget, deadline, seed, settings, values=False,
               hooks=None, focus=(), memory=None):
        unit = _Unit(sampler, objective, policy_code(settings["playout"]), seed)
        done, interrupted = run_sliced(unit.run, budget, deadline, hooks, unit.root_stats,
                                       lambda: unit.worlds)
        return UnitOutput(unit.root_stats(), done, interrupted, sides=unit.side_stats())


class _Unit:
    """One replicate: its worlds, and every root move's reward sums over them."""

    def __init__(self, sampler: ReferenceSampler, objective: int, policy: int, seed: int):
        self.sampler, self.objective, self.policy = sampler, objective, policy
        base = sampler.base
        self.base, self.rules = base, base.rules
        self.side = self.rules.side_of(sampler.seat)
        moves = base.legal_moves()
        twins = mirror_twins(base.left, base.right, base.left_double, base.right_double, moves)
        # A mirror twin is the same choice: played once, its twin given the same figures.
        self.moves = [m for m in moves if m not in twins]
        self.twins = twins
        n_sides = self.rules.n_sides
        self.sums = {m: [0.0, 0.0] for m in self.moves}
        self.gains = {m: [0.0] * n_sides for m in self.moves}
        self.worlds = 0
        self.rng = Rng(seed & MASK64)

    def run(self, n: int, seconds: float) -> int:
        """Up to n worlds (0: no limit) within `seconds`; returns how many were done."""
        end = now() + seconds
        done = 0
        play_rng = Rng(0)
        while (n == 0 or done < n) and (done == 0 or now() < end):
            world = self.sampler.world(self.rng)
            play_seed = mix64(self.rng.state ^ GOLDEN)
            for m in self.moves:
                play_rng.state = play_seed
                s = play_out(self.rules, self.objective, self.policy, world.apply(m), play_rng)
                v = reward(self.rules, self.objective, s, self.base, self.side)
                acc = self.sums[m]
                acc[0] += v
                acc[1] += v * v
                g = self.gains[m]
                for j in range(len(g)):
                    g[j] += outcome(self.objective, s, self.base, j)
            done += 1
            self.worlds += 1
        return done

    def root_stats(self) -> list:
        """[(move, worlds, reward sum, sum of squares)] for every legal root move (a twin
        with its twin's figures)."""
        out = []
        for m in sorted(self.moves + list(self.twins)):
            sm, sq = self.sums[self.twins.get(m, m)]
            out.append((m, self.worlds, sm, sq))
        return out

    def side_stats(self) -> dict:
        """{move: (worlds, each side's raw outcome summed)}."""
        return {m: (self.worlds, list(self.gains[self.twins.get(m, m)]))
                for m in sorted(self.moves + list(self.twins))}


register(Flat())
