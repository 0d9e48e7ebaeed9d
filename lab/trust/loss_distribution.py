"""The loss distributions behind `analyze`'s thresholds (docs/MEASUREMENTS.md, "Analysis").

    python lab/trust/loss_distribution.py [--matches 8] [--seed 11] [--iterations 2000]

For three kinds of play, `--matches` 2-player matches (seeded from `--seed`) are analysed
with the default engine (`--iterations` per decision, no recheck, the values of its final
pass), and the losses of every decision with a choice are summarised by percentiles:

- the default engine in self-play (`ismcts:iterations=3000`): what a strong player loses;
- greedy (the play scoring most at once, then the heaviest tile);
- random.

An inaccuracy should be rare for the strong engine, and a mistake and a blunder should sit in
greedy's upper tail.
"""
from __future__ import annotations

import argparse
import sys

from bergen_search.analysis.review import analyze
from bergen_search.formats.record_io import write_record
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines
from bergen_search.search.api import Limits

KINDS = {"default engine (3,000 iterations)": "ismcts:iterations=3000", "greedy": "greedy",
         "random": "random"}
PERCENTILES = (50, 75, 90, 95, 99)


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def losses(engine: str, matches: int, seed: int, iterations: int) -> list:
    out = []
    rules = Rules()
    for g in range(matches):
        log = play_engines(rules, parse_engine_list(engine, 2), derive_seed(seed, g))
        res = analyze(write_record(log), limits=Limits(iterations=iterations), seed=g,
                      recheck=1)
        out += [max(d.loss, 0.0) for d in res.decisions]
    return sorted(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=8)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--iterations", type=int, default=2000)
    args = ap.parse_args(argv)
    print(f"{'play':<34} {'decisions':>9} " + " ".join(f"{'p' + str(p):>6}" for p in PERCENTILES)
          + "  >=0.25  >=0.6  >=1.2")
    for name, engine in KINDS.items():
        xs = losses(engine, args.matches, args.seed, args.iterations)
        share = [sum(x >= t for x in xs) / len(xs) for t in (0.25, 0.6, 1.2)]
        print(f"{name:<34} {len(xs):>9} "
              + " ".join(f"{percentile(xs, p):>6.2f}" for p in PERCENTILES)
              + "  " + "  ".join(f"{100 * s:>5.1f}%" for s in share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
