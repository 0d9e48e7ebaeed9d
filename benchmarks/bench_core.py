"""Speed of the core and the reference on fixed seeds.

Rounds per second for a `random_rounds` benchmark: `extra_info["rounds"]` over the mean time.
`python benchmarks/bench_core.py` prints those figures directly (best of a few runs, CPU time).
"""
import time

import pytest

from bergen_search.game import match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules

SEED = 12345
CORE_ROUNDS = 20000
REFERENCE_ROUNDS = 200
TABLES = {2: Rules(players=2), 3: Rules(players=3), 4: Rules(players=4, partnerships=True)}


@pytest.mark.parametrize("players", sorted(TABLES))
def test_random_rounds_core(benchmark, core, players):
    benchmark.extra_info["rounds"] = CORE_ROUNDS
    actions = benchmark(core.random_rounds, TABLES[players], CORE_ROUNDS, SEED)
    benchmark.extra_info["actions"] = actions
    assert actions > CORE_ROUNDS


@pytest.mark.parametrize("players", sorted(TABLES))
def test_random_rounds_reference(benchmark, core, reference, players):
    benchmark.extra_info["rounds"] = REFERENCE_ROUNDS
    actions = benchmark(reference.random_rounds, TABLES[players], REFERENCE_ROUNDS, SEED)
    benchmark.extra_info["actions"] = actions
    assert actions == core.random_rounds(TABLES[players], REFERENCE_ROUNDS, SEED)


def _matches(backend, n):
    rules = Rules(players=2)
    return [backend.play_match(rules, [match.ENGINE_GREEDY, match.ENGINE_RANDOM],
                               derive_seed(SEED, i)) for i in range(n)]


@pytest.mark.parametrize("name", ["core", "reference"])
def test_play_match(benchmark, core, reference, name):
    backend = core if name == "core" else reference
    benchmark.extra_info["matches"] = 50
    logs = benchmark(_matches, backend, 50)
    assert logs == _matches(reference, 50)


def _walks(backend, deals, rules):
    """Play every deal to its end through the state interface (legal_moves, apply)."""
    moves_seen = 0
    for seed, (hands, reserve) in deals:
        rng = Rng(seed)
        state = backend.new_state(rules, hands, reserve)
        while state.ended is None:
            moves = state.legal_moves()
            moves_seen += len(moves)
            state = state.apply(moves[rng.below(len(moves))])
    return moves_seen


@pytest.mark.parametrize("name", ["core", "reference"])
def test_state_walk(benchmark, core, reference, name):
    rules = Rules(players=2)
    rng = Rng(SEED)
    deals = [(derive_seed(SEED, i), match.deal(rules, rng)) for i in range(200)]
    backend = core if name == "core" else reference
    benchmark.extra_info["rounds"] = len(deals)
    seen = benchmark(_walks, backend, deals, rules)
    assert seen == _walks(reference, deals, rules)


def rounds_per_second(backend, rules, rounds, repeats=3) -> float:
    """Best of a few runs, in CPU time (steady on a machine shared with other jobs)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        backend.random_rounds(rules, rounds, SEED)
        best = min(best, time.process_time() - start)
    return rounds / best


if __name__ == "__main__":
    from bergen_search.game.backend import REFERENCE, load_core
    core_backend = load_core()
    for players, rules in TABLES.items():
        line = f"{players} players{' (partnerships)' if rules.partnerships else ''}: "
        if core_backend is not None:
            line += f"core {rounds_per_second(core_backend, rules, 1_000_000):,.0f} rounds/s, "
        line += f"reference {rounds_per_second(REFERENCE, rules, 5_000):,.0f} rounds/s"
        print(line)
