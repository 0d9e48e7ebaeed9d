"""Flat Monte Carlo, a yardstick: every root move played on the same sampled worlds, then
played out by the playout policy with the same random numbers; a move's value is its mean
reward (PIMC with a playout instead of a solver: lab/strength/STRENGTH.md). Pure Python."""
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
    """One replicate: each step a world, every root move played in it."""

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
        return {m: [x / self.done for x in self.gains[self.twins.get(m, m)]]
                for m in sorted(self.moves + list(self.twins))} if self.done else {}


register(Flat())
