"""What honest values cost (issue 22): `best`'s search on `examples/decision.json` at the
default budget, today's default engine (8 replicate trees, sequential halving, 100,000
iterations) against the default before issue 22 (one tree, UCB1 at the root, forced moves in
the means: `root=ucb, replicates=1, stats=all`) at its default of 20,000 iterations, and
both at the same 100,000 (the cost of the replicates themselves: 8 trees, 8 final passes).

`python benchmarks/bench_values.py` prints the median time of each (7 searches).
"""
import pathlib
import statistics
import time

import pytest

from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, search

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "decision.json"
BEFORE = {"root": "ucb", "replicates": 1, "stats": "all"}
CASES = {
    "default": (100_000, {}),
    "before issue 22": (20_000, BEFORE),
    "before issue 22, 100,000": (100_000, BEFORE),
}
#: With `--benchmark-disable` (the test suite's smoke run) each case searches once at a tenth
#: of its budget: the run checks that the benchmark works, not how long it takes.
SMOKE_SHARE = 10


@pytest.fixture(scope="module")
def info(core):
    return load_game(EXAMPLE.read_text())


@pytest.mark.parametrize("case", list(CASES))
def test_best_at_its_default_budget(benchmark, info, case):
    iterations, settings = CASES[case]
    if benchmark.disabled:
        iterations //= SMOKE_SHARE
    result = benchmark.pedantic(search, args=(info, Limits(iterations=iterations)),
                                kwargs=dict(seed=0, **settings), rounds=3, iterations=1)
    benchmark.extra_info["iterations"] = result.info["iterations"]
    assert result.best == result.moves[0].move


if __name__ == "__main__":
    information = load_game(EXAMPLE.read_text())
    for case, (iterations, settings) in CASES.items():
        times = []
        for seed in range(7):
            t0 = time.perf_counter()
            search(information, Limits(iterations=iterations), seed=seed, **settings)
            times.append(time.perf_counter() - t0)
        print(f"{case:28} {iterations:>8,} iterations: median {1000 * statistics.median(times):.1f} ms")
