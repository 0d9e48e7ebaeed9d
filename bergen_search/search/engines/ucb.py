"""UCB1 at the root: flat Monte Carlo that spends its worlds where they decide the move.

Each iteration pulls one root choice by UCB1 (Auer, Cesa-Bianchi & Fischer 2002, "Finite-time
Analysis of the Multiarmed Bandit Problem"): every choice once, then the one with the best
mean plus `exploration` x sqrt(ln(pulls) / its pulls); it plays that move in a fresh world
consistent with what the seat knows (`sampler.ReferenceSampler`) and plays the world out to the
end of the round by the playout policy (`game/policy.py`; for the match objective, through fresh
deals until a side wins). Where `flat` plays every choice in every world, this plays the
promising ones more and the hopeless ones less: the same yardstick with its budget aimed.

A move's value is its mean reward, its error the spread of its means over `replicates`
independent units (each its own seed), as `flat`'s and ISMCTS's are. Mirror twins are one
choice. It runs in pure Python on the reference rules, with or without the compiled core.

This module is the whole engine: it registers itself, and every front end takes it from the
registry (`bergen best --algorithm ucb`, the match engine spec `ucb:iterations=400`).

>>> from bergen_search.formats.game import load_game
>>> from bergen_search.search.api import Limits, search
>>> info = load_game("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14")
>>> res = search(info, Limits(iterations=64), algorithm="ucb", seed=1)
>>> res.best in {m.move for m in res.moves}, res.info["replicates"]
(True, 4)
"""
from __future__ import annotations

import math

from ...constants import objective_code
from ...constants import POINTS_SCALE
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
        """The choice UCB1 pulls next: any not yet pulled (in move order), else the best
        upper bound (the first of equals)."""
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
