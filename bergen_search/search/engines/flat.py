"""Flat Monte Carlo: the plainest search that samples worlds, kept as a yardstick.

Every root move is played on the same sampled worlds, then played out by the playout policy
with the same random numbers for every move; a move's value is its mean reward. `iterations`
counts worlds; `replicates` independent units give the error. No tree, no opponent model:
PIMC with a playout instead of a solver (Long et al. 2010), the floor a real engine must
clear (lab/strength/STRENGTH.md). It runs in pure Python and registers itself.

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
