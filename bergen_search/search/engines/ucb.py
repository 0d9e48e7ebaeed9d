"""UCB1 at the root (Auer, Cesa-Bianchi & Fischer 2002): flat Monte Carlo that spends its
worlds where they decide the move. Each iteration pulls one root choice (every choice once,
then the best mean plus `exploration` x sqrt(ln(pulls) / its pulls)), plays it in a fresh
world and plays the world out by the playout policy. Pure Python."""
from __future__ import annotations

import math

from ...constants import POINTS_SCALE, objective_code
from ..registry import Setting, register
from ..rollouts import RolloutAlgorithm, RootUnit, rollout_settings


class Ucb(RolloutAlgorithm):
    name = "ucb"
    help = "UCB1 over the root choices, each pull a sampled world played out"
    order = 4
    default_budget = 4000
    match_budget = 400
    settings = rollout_settings(
        exploration=Setting(float, 1.0, "the UCB1 exploration constant (rewards scaled as "
                            "ISMCTS scales them)", maximum=100))

    def make_unit(self, sampler, objective, policy, seed, settings):
        return _Bandit(sampler, objective, policy, settings["exploration"], seed)


class _Bandit(RootUnit):
    """One replicate: each step one pull, the choice UCB1 picks played in a fresh world."""

    def __init__(self, sampler, objective, policy, exploration, seed):
        super().__init__(sampler, objective, policy, seed)
        self.exploration = exploration
        self.scale = 1.0 if objective == objective_code("match") else 1.0 / POINTS_SCALE

    def choose(self) -> int:
        """The choice UCB1 pulls next (the first of equals)."""
        best, best_score = None, -math.inf
        log_n = math.log(self.done) if self.done else 0.0
        for m in self.moves:
            n, s, _ = self.stats[m]
            if n == 0:
                return m
            score = s / n * self.scale + self.exploration * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = m, score
        assert best is not None             # every choice has a finite upper bound
        return best

    def step(self, play_rng):
        m = self.choose()
        world, play_seed = self.world()
        self.play(world, m, play_rng, play_seed)


register(Ucb())
