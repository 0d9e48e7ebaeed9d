"""What the engines that play sampled worlds out from the root share (`flat`, `ucb`): a
replicate's root, its loop of steps, the play-out of one move in one world, its statistics.
Each engine says only what one step is."""
from __future__ import annotations

from ..game.policy import policy_code
from ..game.rng import GOLDEN, MASK64, Rng, mix64
from ..game.state import mirror_twins
from ..information.sampler import ReferenceSampler
from .limits import now
from .playouts import play_out, reward
from .registry import Algorithm, Setting, inference_setting
from .results import UnitOutput
from .workers import run_sliced


def rollout_settings(**extra: Setting) -> dict:
    """The settings of an engine of this kind: its own (`extra`), then the shared ones."""
    return {
        **extra,
        "playout": Setting(str, "safe", "how playouts play on: random, scoring or safe",
                           ("random", "scoring", "safe")),
        "inference": inference_setting("off"),
        "replicates": Setting(int, 4, "independent units sharing the budget: a move's value "
                              "is their mean and its error their spread", minimum=1,
                              maximum=10_000),
    }


class RootUnit:
    """One replicate: the root's moves (a mirror twin played once), each move's [plays, reward
    sum, sum of squares], and the steps `done`. A subclass defines `step(play_rng)`."""

    def __init__(self, sampler: ReferenceSampler, objective: int, policy: int, seed: int):
        self.sampler, self.objective, self.policy = sampler, objective, policy
        base = sampler.base
        self.base, self.rules = base, base.rules
        self.side = self.rules.side_of(sampler.seat)
        moves = base.legal_moves()
        self.twins = mirror_twins(base.left, base.right, base.left_double, base.right_double,
                                  moves)
        self.moves = [m for m in moves if m not in self.twins]
        self.stats = {m: [0, 0.0, 0.0] for m in self.moves}
        self.done = 0
        self.rng = Rng(seed & MASK64)

    def world(self):
        """The next sampled world, and the seed of its play-outs (common random numbers)."""
        world = self.sampler.world(self.rng)
        return world, mix64(self.rng.state ^ GOLDEN)

    def play(self, world, m: int, play_rng: Rng, play_seed: int):
        """Move `m` played in `world` and played out: (the final state, its reward)."""
        play_rng.state = play_seed
        s = play_out(self.rules, self.objective, self.policy, world.apply(m), play_rng)
        v = reward(self.rules, self.objective, s, self.base, self.side)
        acc = self.stats[m]
        acc[0] += 1
        acc[1] += v
        acc[2] += v * v
        return s, v

    def step(self, play_rng: Rng) -> None:
        raise NotImplementedError

    def run(self, n: int, seconds: float) -> int:
        """Up to n steps (0: no limit) within `seconds`: how many were done."""
        end = now() + seconds
        done = 0
        play_rng = Rng(0)
        while (n == 0 or done < n) and (done == 0 or now() < end):
            self.step(play_rng)
            done += 1
            self.done += 1
        return done

    def root_stats(self) -> list:
        """[(move, plays, reward sum, sum of squares)] for every legal root move."""
        return [(m, *self.stats[self.twins.get(m, m)])
                for m in sorted(self.moves + list(self.twins))]

    def sides(self) -> dict:
        """{move: each side's expected outcome after it} (none by default)."""
        return {}


class RolloutAlgorithm(Algorithm):
    """An engine of replicated `RootUnit`s (`make_unit`) on the reference sampler."""
    replicated = True
    value_meaning = "every seat then playing by the playout policy"

    def make_unit(self, sampler, objective: int, policy: int, seed: int,
                  settings: dict) -> RootUnit:
        raise NotImplementedError

    def sampler(self, info, table):
        return ReferenceSampler(info, table)

    def worker(self, job, sampler, budget, seed, deadline, *, hooks=None, account=None):
        unit = self.make_unit(sampler, job.objective, policy_code(job.settings["playout"]), seed,
                              job.settings)
        done, interrupted = run_sliced(unit.run, budget, deadline, hooks, unit.root_stats,
                                       lambda: unit.done)
        stats = unit.root_stats()
        return UnitOutput(stats=stats, done=done, interrupted=interrupted,
                          values={m: sm / n for m, n, sm, _ in stats if n}, sides=unit.sides())
