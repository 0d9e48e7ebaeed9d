"""How long `bergen analyze` takes for a match: every decision of both seats searched with the
default budget (`analysis.DECISION_ITERATIONS`, 20,000 ISMCTS iterations), suspected errors
searched again by pooling 3 and then 12 times as many trees (issue 22), and the luck of the
deal and the draws.

The pytest-benchmark times the analysis of the bundled `examples/match.json` (a 2-player
match to 15 points). `python benchmarks/bench_analysis.py [N]` plays N matches (default 10,
seed 1) of greedy against ISMCTS (2,000 iterations) and prints the wall time of analysing
each, with the decisions searched, the median and the range: what "a typical match" costs.
"""
import json
import pathlib
import statistics
import sys
import time

from bergen_search.analysis.review import DECISION_ITERATIONS, analyze
from bergen_search.formats.record_io import load_record, write_record
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines
from bergen_search.search.api import Limits

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "match.json"
LIMITS = Limits(iterations=DECISION_ITERATIONS)


#: With `--benchmark-disable` (the test suite's smoke run) the match's first round (6 of its
#: 20 decisions) is analysed once, at a fiftieth of the budget: the run checks that the benchmark
#: works, not how long it takes.
SMOKE_LIMITS = Limits(iterations=DECISION_ITERATIONS // 50)


def _first_round(text):
    doc = json.loads(text)
    doc["rounds"] = doc["rounds"][:1]
    return json.dumps(doc)


def _analyze(record, limits=LIMITS):
    return analyze(record, limits=limits, seed=0)


def test_analyze_example_match(benchmark, core):
    text = EXAMPLE.read_text()
    record = load_record(_first_round(text) if benchmark.disabled else text)
    limits = SMOKE_LIMITS if benchmark.disabled else LIMITS
    result = benchmark.pedantic(_analyze, args=(record, limits), rounds=3, iterations=1)
    benchmark.extra_info["decisions"] = len(result.decisions)
    assert result.decisions and result.summary
    again = _analyze(record, limits)   # same seed, same budget: the same analysis
    assert [d.to_json() for d in again.decisions] == [d.to_json() for d in result.decisions]


def typical_matches(n, seed=1):
    rules = Rules()
    specs = parse_engine_list("greedy,ismcts:iterations=2000", 2)
    return [write_record(play_engines(rules, specs, derive_seed(seed, i))) for i in range(n)]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    times = []
    for i, rec in enumerate(typical_matches(n)):
        record = load_record(json.dumps(rec))
        start = time.perf_counter()
        result = _analyze(record)
        times.append(time.perf_counter() - start)
        rounds = len(record.rounds)
        print(f"match {i}: {rounds} rounds, {len(result.decisions)} decisions searched, "
              f"{times[-1]:.2f} s")
    print(f"median {statistics.median(times):.2f} s, range {min(times):.2f}..{max(times):.2f} s "
          f"over {n} matches ({DECISION_ITERATIONS:,} iterations per decision, recheck 4)")
