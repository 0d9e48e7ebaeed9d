"""UCB1 at the root: flat Monte Carlo that spends its worlds where they decide the move.

Each iteration pulls one root choice by UCB1 (Auer, Cesa-Bianchi & Fischer 2002, "Finite-time
Analysis of the Multiarmed Bandit Problem"): every choice once, then the one with the best
mean plus `exploration` x sqrt(ln(pulls) / its pulls); it plays that move in a fresh world
consistent with what the seat knows (`sampler.ReferenceSampler`) and plays the world out to the
end of the round by the playout policy (`policy.py`; for the match objective, through fresh
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
from ...game.rng import GOLDEN, MASK64, Rng, mix64
from ...game.state import mirror_twins
from ...information.sampler import ReferenceSampler
from ..ismcts_ref import POINTS_SCALE, play_out, reward
from ..limits import now
from ..policy import policy_code
from ..registry import Algorithm, Setting, inference_setting, register
from ..results import UnitOutput
from ..workers import run_sliced


class Ucb(Algorithm):
    name = "ucb"
    help = "UCB1 over the root choices, each pull a sampled world played out"
    order = 4
    default_budget = 4000
    match_budget = 400
    replicated = True
    value_meaning = "every seat then playing by the playout policy"
    settings = {
        "exploration": Setting(float, 1.0, "the UCB1 exploration constant (rewards scaled as "
                               "ISMCTS scales them)", maximum=100),
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
        unit = _Bandit(sampler, objective, policy_code(settings["playout"]),
                       settings["exploration"], seed)
        done, interrupted = run_sliced(unit.run, budget, deadline, hooks, unit.root_stats,
                                       lambda: unit.pulls)
        return UnitOutput(unit.root_stats(), done, interrupted)


class _Bandit:
    """One replicate: each root choice's pulls and reward sums."""

    def __init__(self, sampler: ReferenceSampler, objective: int, policy: int,
                 exploration: float, seed: int):
        self.sampler, self.objective, self.policy = sampler, objective, policy
        self.exploration = exploration
        base = sampler.base
        self.base, self.rules = base, base.rules
        self.side = self.rules.side_of(sampler.seat)
        moves = base.legal_moves()
        self.twins = mirror_twins(base.left, base.right, base.left_double, base.right_double,
                                  moves)
        self.moves = [m for m in moves if m not in self.twins]
        self.stats = {m: [0, 0.0, 0.0] for m in self.moves}    # pulls, sum, sum of squares
        self.scale = 1.0 if objective == objective_code("match") else 1.0 / POINTS_SCALE
        self.pulls = 0
        self.rng = Rng(seed & MASK64)

    def choose(self) -> int:
        """The choice UCB1 pulls next: any not yet pulled (in move order), else the best
        upper bound (the first of equals)."""
        best, best_score = None, -math.inf
        log_n = math.log(self.pulls) if self.pulls else 0.0
        for m in self.moves:
            n, s, _ = self.stats[m]
            if n == 0:
                return m
            score = s / n * self.scale + self.exploration * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = m, score
        return best

    def run(self, n: int, seconds: float) -> int:
        """Up to n pulls (0: no limit) within `seconds`; returns how many were done."""
        end = now() + seconds
        done = 0
        play_rng = Rng(0)
        while (n == 0 or done < n) and (done == 0 or now() < end):
            m = self.choose()
            world = self.sampler.world(self.rng)
            play_rng.state = mix64(self.rng.state ^ GOLDEN)
            s = play_out(self.rules, self.objective, self.policy, world.apply(m), play_rng)
            v = reward(self.rules, self.objective, s, self.base, self.side)
            acc = self.stats[m]
            acc[0] += 1
            acc[1] += v
            acc[2] += v * v
            done += 1
            self.pulls += 1
        return done

    def root_stats(self) -> list:
        """[(move, pulls, reward sum, sum of squares)] for every legal root move (a twin
        with its twin's figures)."""
        return [(m, *self.stats[self.twins.get(m, m)])
                for m in sorted(self.moves + list(self.twins))]


register(Ucb())
