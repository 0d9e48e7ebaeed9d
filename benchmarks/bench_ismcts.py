"""Speed of SO-ISMCTS (`bergen_search.search.engines.ismcts._ismcts`) at the first decision of a 2-player round.

The position: a seeded `play_match` record cut right after the lead, seen by the seat to
move (`from_state_and_events`). `run(2000, 0)` on a fresh tree is the benchmark (iterations
per second: `extra_info["iterations"]` over the mean time); a second one grows one tree by
2000 iterations per round, so it measures a tree that gets deeper as the benchmark goes on.

`python benchmarks/bench_ismcts.py [iterations] [reference iterations]` prints iterations per
second of one `run(iterations, 0)` (default 200,000) for each objective and playout, with the
tree's size, then the same for the pure-Python tree (`ismcts_ref`, default 2,000 iterations:
the same trees, node for node) and the ratio.
"""
import sys
import time

import pytest

from bergen_search.game.match import ENGINE_RANDOM
from bergen_search.game.rules import Rules
from bergen_search.information.infoset import from_state_and_events

SEED = 12345
ITERATIONS = 2000


def first_decision(seed=SEED):
    """The information set of the seat to move right after the lead of round 0 of a seeded
    2-player match (random engines, compiled core)."""
    from bergen_search.game.backend import load_core
    rules = Rules()
    log = load_core().play_match(rules, [ENGINE_RANDOM, ENGINE_RANDOM], seed)
    rnd = log.rounds[0]
    lead = rnd.events[:1]
    seat = 1 - lead[0][0]
    return from_state_and_events(rules, seat, rnd.hands[seat], log.start_scores, lead)


@pytest.fixture(scope="module")
def sampler(core):
    from bergen_search.information._sampler import CoreSampler
    return CoreSampler(first_decision())


@pytest.mark.parametrize("objective", ["points", "match"])
def test_ismcts_fresh_tree(benchmark, sampler, objective):
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree

    def search():
        tree = IsmctsTree(sampler, SEED, objective=objective)
        return tree.run(ITERATIONS, 0)

    benchmark.extra_info["iterations"] = ITERATIONS
    assert benchmark(search) == ITERATIONS


@pytest.mark.parametrize("playout", ["random", "safe"])
def test_ismcts_playouts(benchmark, sampler, playout):
    """The default engine's tree (safe playouts, mirror twins merged) against the classic one
    (random playouts): the cost of the safe playout per iteration."""
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree

    def search():
        tree = IsmctsTree(sampler, SEED, playout=playout, merge_twins=playout == "safe")
        return tree.run(ITERATIONS, 0)

    benchmark.extra_info["iterations"] = ITERATIONS
    assert benchmark(search) == ITERATIONS


def test_default_search_per_decision(benchmark, core):
    """One whole decision of the default engine, `search.search` with 2,000 iterations: the
    world table weighed by inference, the sampler, the tree and the result."""
    from bergen_search.play.bench import inference_position
    from bergen_search.search.api import Limits, search
    info = inference_position()
    res = benchmark(search, info, Limits(iterations=ITERATIONS), seed=SEED)
    assert res.visits == ITERATIONS


@pytest.mark.parametrize("playout", ["random", "safe"])
def test_reference_tree(benchmark, playout):
    """The pure-Python tree (`ismcts_ref`, the fallback without a compiler) on the same
    position: 100 iterations a round."""
    from bergen_search.information.sampler import ReferenceSampler
    from bergen_search.search.engines.ismcts.reference import IsmctsTree
    sampler = ReferenceSampler(first_decision())

    def search():
        tree = IsmctsTree(sampler, SEED, playout=playout, merge_twins=playout == "safe")
        return tree.run(100, 0)

    benchmark.extra_info["iterations"] = 100
    assert benchmark(search) == 100


def test_ismcts_growing_tree(benchmark, sampler):
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree
    tree = IsmctsTree(sampler, SEED)
    benchmark.extra_info["iterations"] = ITERATIONS
    assert benchmark(tree.run, ITERATIONS, 0) == ITERATIONS


def main(iterations, reference_iterations):
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree
    from bergen_search.information._sampler import CoreSampler

    from bergen_search.information.sampler import ReferenceSampler
    from bergen_search.search.engines.ismcts import reference as ismcts_ref
    info = first_decision()
    rates = {}
    for name, cls, sampler, n in (("core", IsmctsTree, CoreSampler(info), iterations),
                                  ("reference", ismcts_ref.IsmctsTree, ReferenceSampler(info),
                                   reference_iterations)):
        for objective in ("points", "match"):
            for playout in ("random", "safe"):
                tree = cls(sampler, SEED, objective=objective, playout=playout,
                           merge_twins=playout == "safe")
                t0 = time.perf_counter()
                done = tree.run(n, 0)
                dt = time.perf_counter() - t0
                rates[name, objective, playout] = done / dt
                ratio = (f", {rates['core', objective, playout] / (done / dt):,.0f} times "
                         f"slower than the core" if name == "reference" else "")
                print(f"{name:9} {objective:6} {playout:6}: {done / dt:10,.0f} iterations/s "
                      f"({done:,} in {dt:.2f} s), {tree.n_nodes:,} nodes, "
                      f"{tree.memory_bytes / 2**20:.0f} MiB{ratio}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000,
         int(sys.argv[2]) if len(sys.argv) > 2 else 2_000)
