"""How long the exact endgame takes: the solve-time distribution over the positions of that
stage in self-play, and a fixed solve for pytest-benchmark.

    python benchmarks/bench_endgame.py [--rounds 300] [--seed 21] [--engines greedy]
        [--records RUN.jsonl] [--json OUT.json]

Every decision with a choice at the stage (no draw can happen again) of the rounds (self-play
of `--engines`, or the rounds of `--records`, e.g. an arena's `--out`) is solved from its
information set as the engine solves it, with no budget but the solver's own ceiling
(endgame.budget.MAX_WORK) and its tolerance: the time from the information set to the solution
(the deals, the tree, the DCFR iterations and the exploitability checks), one core. It prints
the median, the 90th percentile, the worst, the shares solved within 100 ms and 1 s, the
largest deal count solved, and how many were beyond the ceiling; and the solver's throughput
(work per second, the constant endgame.budget.WORK_PER_SECOND sizes trees with). The
solver's settings (its tolerance, DCFR's parameters, its memory per unit of work) are measured
by the lab's lab/endgame/solver_study.py.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import pytest

from bergen_search.play.bench import endgame_positions, solve_time_summary, stage_decisions
from bergen_search.search import endgame


def solve_times(infos, *, tolerance=endgame.budget.TOLERANCE, progress=None):
    """Per information set: a dict of the solve (seconds, deals, nodes, work, iterations,
    exploitability), or with "too_big" why not."""
    rows = []
    for k, info in enumerate(infos):
        t0 = time.perf_counter()
        row = {"hands": list(info.hand_sizes)}
        try:
            g = endgame.game(info)
            row["deals"] = len(g.deals)
            sol = endgame.solve(g, tolerance=tolerance)
            row.update(seconds=time.perf_counter() - t0, nodes=sol.nodes, work=sol.work,
                       iterations=sol.iterations, exploitability=sol.exploitability,
                       solve_seconds=sol.seconds, traversals=sol.traversals)
        except endgame.TooBig as e:
            row.update(seconds=time.perf_counter() - t0, too_big=e.message)
        rows.append(row)
        if progress:
            progress(k, row)
    return rows


def summary(rows) -> dict:
    """The distribution (`play.bench.solve_time_summary`: unsolved positions count as slower
    than any solved one), the largest solved, the solver's iterations and throughput."""
    solved = [r for r in rows if "too_big" not in r]
    traversals = sum(r["traversals"] for r in solved)
    work = sum(r["work"] * r["traversals"] for r in solved)
    busy = sum(r["solve_seconds"] for r in solved)
    return {
        **solve_time_summary([float("inf") if "too_big" in r else r["seconds"] for r in rows]),
        "too_big": len(rows) - len(solved),
        "largest_deals_solved": max((r["deals"] for r in solved), default=None),
        "largest_nodes_solved": max((r["nodes"] for r in solved), default=None),
        "mean_iterations": statistics.mean(r["iterations"] for r in solved) if solved else None,
        "mean_exploitability": (statistics.mean(r["exploitability"] for r in solved)
                                if solved else None),
        "work_per_second": work / busy if busy else None,
        "traversals": traversals,
    }


def _fmt(x, unit=""):
    """A time; None: a position not solved (or none at all)."""
    return "not solved" if x is None else f"{x:.3f}{unit}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--engines", default="greedy")
    ap.add_argument("--records", default=None, help="a .jsonl of complete records instead")
    ap.add_argument("--json", dest="json_out", default=None)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.records:
        from bergen_search.formats.record_io import load_records
        with open(args.records, encoding="utf-8") as f:
            records = load_records(f.read())
        infos = [info for rec in records for _, _, info, _, _ in stage_decisions(rec)]
        source = args.records
    else:
        engines = args.engines.split(",") * (2 if "," not in args.engines else 1)
        infos = [info for _, info, _ in endgame_positions(args.rounds, args.seed, engines)]
        source = f"{args.rounds} rounds of {args.engines} self-play, seed {args.seed}"

    def progress(k, row):
        if not args.quiet:
            print(f"{k + 1}/{len(infos)} hands {row['hands']} deals {row.get('deals')} "
                  f"{row['seconds']:.3f} s {row.get('too_big', '')}", file=sys.stderr)

    rows = solve_times(infos, progress=progress)
    out = summary(rows)
    out["source"] = source
    print(f"{out['positions']} stage decisions ({source}): median {_fmt(out['median_s'], ' s')}, "
          f"90th percentile {_fmt(out['p90_s'], ' s')}, worst solved "
          f"{_fmt(out['worst_solved_s'], ' s')}; within 100 ms {100 * out['within_0.1s']:.1f}%, "
          f"within 1 s {100 * out['within_1s']:.1f}%; {out['too_big']} beyond the ceiling; "
          f"largest solved {out['largest_deals_solved']:,} deals, "
          f"{out['largest_nodes_solved']:,} nodes; work per second "
          f"{out['work_per_second']:,.0f}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"summary": out, "rows": rows}, f, indent=1)
    return out


# ---- pytest-benchmark ---------------------------------------------------------------------------
def test_summary_is_the_packages_with_the_solvers_figures():
    """The distribution is `play.bench.solve_time_summary`'s (one rule for `bergen bench` and
    here), with the positions beyond the ceiling and the solver's throughput beside it."""
    rows = [{"seconds": s, "deals": 10 * k, "nodes": 5 * k, "work": 100, "iterations": 3,
             "exploitability": 0.001, "solve_seconds": 0.01, "traversals": 2}
            for k, s in enumerate((0.2, 0.05, 0.5), 1)] + [{"seconds": 9.0, "too_big": "big"}]
    out = summary(rows)
    assert {k: out[k] for k in solve_time_summary([])} == solve_time_summary(
        [0.2, 0.05, 0.5, float("inf")])
    assert out["median_s"] == 0.5 and out["p90_s"] is None and out["too_big"] == 1
    assert out["largest_deals_solved"] == 30
    assert out["work_per_second"] == pytest.approx(600 / 0.03)


def test_bench_endgame_solve(benchmark):
    from bergen_search.play.bench import endgame_position
    info = endgame_position()
    sol = benchmark(lambda: endgame.solve(endgame.game(info)))
    assert sol.exploitability <= sol.tolerance


if __name__ == "__main__":
    main()
