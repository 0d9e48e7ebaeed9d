"""Flat Monte Carlo: the plainest search that samples worlds, kept as a yardstick.

Every root move is played on the same sampled worlds (a world consistent with what the seat
to move knows: `sampler.ReferenceSampler`), then played out to the end of the round by the
playout policy (`game/policy.py`; for the match objective, through fresh deals until a side wins),
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
+0.285 ± 0.056; lab/strength/STRENGTH.md).

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

from ..playouts import outcome
from ..registry import register
from ..rollouts import RolloutAlgorithm, RootUnit, rollout_settings


class Flat(RolloutAlgorithm):
    name = "flat"
    help = "flat Monte Carlo, every move played out on the same worlds (a yardstick)"
    order = 3
    default_budget = 2000
    match_budget = 200
    sides = True
    settings = rollout_settings()

    def make_unit(self, sampler, objective, policy, seed, settings):
        return _Unit(sampler, objective, policy, seed)


class _Unit(RootUnit):
    """One replicate: each step a world, every root move played in it, and each side's raw
    outcome summed per move beside the rewards."""

    def __init__(self, sampler, objective, policy, seed):
        super().__init__(sampler, objective, policy, seed)
        self.gains = {m: [0.0] * self.rules.n_sides for m in self.moves}

    def step(self, play_rng):
        world, play_seed = self.world()
        for m in self.moves:
            s, _ = self.play(world, m, play_rng, play_seed)
            g = self.gains[m]
            for j in range(len(g)):
                g[j] += outcome(self.objective, s, self.base, j)

    def sides(self):
        """Each side's mean raw outcome per move over the worlds played."""
        return {m: [x / self.done for x in self.gains[self.twins.get(m, m)]]
                for m in sorted(self.moves + list(self.twins))} if self.done else {}


register(Flat())
