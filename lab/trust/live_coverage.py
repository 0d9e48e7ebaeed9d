"""Does the live ± keep its promise? The figures a search until stopped reports while it runs
(the board's live table, the protocol's partial answers) against where they settle and
against independent seeds (issue 41).

For each position and seed, a search until stopped that pools trees (`search(until_stopped=True,
settle="off")`: trees of `--size` iterations, pooled as they finish; the default deepens) is
watched; at every report with an error (8
trees or more) each choice's (value, ±) is kept, and the search is stopped at `--trees`
trees. It prints, over every choice (mirror twins folded) and report:

- "vs its end": the share of reported values within 2 and 3 of their ± of the value the
  same search settles at (what the board's browser test asserts: the reports pool fewer
  trees than the end, so the share is at least the normal 95% / 99.7%);
- "vs other seeds": z = (value - another seed's final value) / sqrt(±^2 + that value's ±^2),
  for every other seed: independent estimates of the same quantity, so an honest ± gives z
  of standard deviation about 1: the spread over seeds that `bergen best`'s ± promises, held
  at every moment of the live search. (From 8 trees a ± is itself unsure: Student's t with 7
  degrees of freedom puts 91% within 2, not 95%.)

One report is kept per number of trees pooled (the figures change only when a tree ends).

    python lab/trust/live_coverage.py                       # three example positions
    python lab/trust/live_coverage.py --seeds 4 --trees 32  # a quicker look

Everything is seeded: the same command prints the same figures.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import threading

from bergen_search.formats.game import load
from bergen_search.search.api import Limits, choices, search

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POSITIONS = {
    "decision.json": os.path.join(ROOT, "examples", "decision.json"),
    "partial.json": os.path.join(ROOT, "examples", "partial.json"),
    "position.json": os.path.join(ROOT, "examples", "position.json"),
    "small": "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14",
}


def watched(info, size: int, trees: int, seed: int):
    """The reports with an error, [(trees, {choice: (value, ±)})], and the final
    {choice: (value, ±)} of a search until stopped at `trees` trees of `size` iterations."""
    stop = threading.Event()
    seen = []

    def on_info(p):
        # one report per number of trees pooled (the figures change only when a tree ends)
        if p.get("trees", 0) >= 8 and "moves" in p and math.isfinite(p["stderr"]) \
                and (not seen or seen[-1][0] != p["trees"]):
            seen.append((p["trees"], {str(m.move): (m.value, m.stderr)
                                      for m in choices(p["moves"])}))
        if p.get("trees", 0) >= trees:
            stop.set()
    res = search(info, Limits(iterations=size * 8), seed=seed, stop=stop, on_info=on_info,
                 until_stopped=True, bracket=False, endgame=False, settle="off")
    final = {str(m.move): (m.value, m.stderr) for m in choices(res.moves)}
    return seen, final


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--trees", type=int, default=64)
    ap.add_argument("--size", type=int, default=12_500, help="iterations per tree")
    ap.add_argument("--positions", nargs="*", choices=list(POSITIONS),
                    default=["decision.json", "partial.json", "position.json"])
    ap.add_argument("--out", help="write the figures as JSON here")
    args = ap.parse_args(argv)
    out = {}
    print(f"trees of {args.size:,} iterations, stopped at {args.trees}, {args.seeds} seeds")
    print(f"{'position':<15} {'reports':>7}  vs its end: within 2 ±  3 ±   "
          f"vs other seeds: sd(z)  within 2 ±  3 ±")
    for name in args.positions:
        text = POSITIONS[name]
        if os.path.exists(text):
            with open(text, encoding="utf-8") as f:
                text = f.read()
        info = load(text).info
        runs = [watched(info, args.size, args.trees, seed) for seed in range(args.seeds)]
        to_end, to_other = [], []
        for s, (seen, final) in enumerate(runs):
            others = [r[1] for k, r in enumerate(runs) if k != s]
            for _, rows in seen:
                for move, (v, se) in rows.items():
                    to_end.append(abs(v - final[move][0]) / se)
                    for other in others:
                        o, ose = other[move]
                        to_other.append((v - o) / math.sqrt(se * se + ose * ose))
        sd = statistics.pstdev(to_other) if to_other else float("nan")
        row = {"reports": len(to_end),
               "end_2": sum(z <= 2 for z in to_end) / len(to_end),
               "end_3": sum(z <= 3 for z in to_end) / len(to_end),
               "sd_z": sd,
               "other_2": sum(abs(z) <= 2 for z in to_other) / len(to_other),
               "other_3": sum(abs(z) <= 3 for z in to_other) / len(to_other)}
        out[name] = row
        print(f"{name:<15} {row['reports']:>7}  {100 * row['end_2']:>21.1f}% "
              f"{100 * row['end_3']:>5.1f}%   {row['sd_z']:>21.2f} "
              f"{100 * row['other_2']:>10.1f}% {100 * row['other_3']:>5.1f}%", flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
