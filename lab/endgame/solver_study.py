"""The exact endgame's solver settings, measured (the constants of
bergen_search/search/endgame/budget.py and DCFR's): on the stage decisions of self-play (or of
`--records`), how far a hand's values at each tolerance are from a tight solve (`--tolerances`:
TOLERANCE), the DCFR iterations and work to the tolerance per (alpha, beta, gamma) (`--gammas`,
`--dcfr`: ALPHA, BETA, GAMMA), and the solver's memory per unit of work (`--memory`:
BYTES_PER_WORK). The solve-time distribution itself is the speed suite's
(benchmarks/bench_endgame.py).

    python lab/endgame/solver_study.py --tolerances [--rounds 120 --seed 21]
    python lab/endgame/solver_study.py --gammas 2,4,6,10 | --dcfr 1.5:0:2,1:0:2
    python lab/endgame/solver_study.py --memory --rounds 80 --seed 5

The positions: every decision with a choice at the stage (no draw can happen again) of
`--rounds` rounds of `--engines` self-play (round i seeded from `--seed` and i), or of the
complete records of `--records`.
"""
from __future__ import annotations

import argparse
import os
import statistics

from bergen_search.errors import BergenError
from bergen_search.play.bench import endgame_positions, stage_decisions
from bergen_search.search import endgame


def tolerance_study(infos, tolerances=(0.05, 0.01, 0.003), reference=1e-4):
    """How far a hand's move values at each tolerance are from those at `reference`: per
    tolerance, the mean exploitability reached, the mean and worst difference of a move's
    value, the share of positions where it exceeds the exploitability, and the mean and worst
    difference of a move's loss (best value minus its value)."""
    rows = []
    for info in infos:
        g = endgame.game(info)
        try:
            ref = endgame.solve(g, tolerance=reference, max_work=int(3e9), max_iterations=3000)
        except endgame.TooBig:
            continue
        best_ref = max(ref.values.values())
        for tol in tolerances:
            sol = endgame.solve(g, tolerance=tol, max_work=int(3e9))
            best = max(sol.values.values())
            rows.append((tol, sol.exploitability,
                         max(abs(sol.values[m] - ref.values[m]) for m in sol.values),
                         max(abs((best - sol.values[m]) - (best_ref - ref.values[m]))
                             for m in sol.values)))
    out = {}
    for tol in tolerances:
        part = [r for r in rows if r[0] == tol]
        if part:
            out[tol] = {"positions": len(part),
                        "mean_exploitability": statistics.mean(r[1] for r in part),
                        "value_error_mean": statistics.mean(r[2] for r in part),
                        "value_error_worst": max(r[2] for r in part),
                        "share_beyond_eps": sum(r[2] > r[1] for r in part) / len(part),
                        "loss_error_mean": statistics.mean(r[3] for r in part),
                        "loss_error_worst": max(r[3] for r in part)}
    return out


def dcfr_study(infos, params=((1.5, 0.0, 2.0), (1.5, 0.0, 6.0)), max_work=300_000_000):
    """Per DCFR parameters (alpha, beta, gamma): the positions solved, the mean iterations
    to the tolerance, and the work done (traversals times the tree). The parameters are
    set where the solver reads them (`endgame.solving`, from `budget`), and put back."""
    from bergen_search.search.endgame import solving as solvers
    games = []
    for info in infos:
        try:
            games.append(endgame.game(info, max_deals=200_000))
        except endgame.TooBig:
            continue
    keep = solvers.ALPHA, solvers.BETA, solvers.GAMMA
    out = {}
    try:
        for abg in params:
            solvers.ALPHA, solvers.BETA, solvers.GAMMA = abg
            its, work = [], 0
            for g in games:
                try:
                    sol = endgame.solve(g, max_work=max_work)
                except endgame.TooBig:
                    continue
                its.append(sol.iterations)
                work += sol.traversals * sol.work
            out[abg] = {"positions": len(its),
                        "mean_iterations": statistics.mean(its) if its else None, "work": work}
    finally:
        solvers.ALPHA, solvers.BETA, solvers.GAMMA = keep
    return out


def memory_study(infos, min_work=100_000):
    """The solver's resident memory per unit of its work (nodes + entries + terminal deals),
    on every position whose tree is at least `min_work`: the RSS the solver's tree and one
    DCFR iteration's scratch added, divided by the work. endgame.budget.BYTES_PER_WORK must exceed
    the largest, so that a memory cap (search.Limits.memory_mb) holds."""
    import gc

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    core = endgame.compiled()
    rows = []
    for info in infos:
        try:
            g = endgame.game(info, max_deals=endgame.budget.MAX_WORK)
        except BergenError:
            continue
        gc.collect()
        before = rss()
        try:
            solver = core.EndgameSolver(g.rules, g.root, g.hands, g.deals,
                                        max_nodes=endgame.budget.MAX_WORK, max_pairs=endgame.budget.MAX_WORK,
                                        max_entries=endgame.budget.MAX_WORK,
                                        alpha=endgame.budget.ALPHA, beta=endgame.budget.BETA,
                                        gamma=endgame.budget.GAMMA)
        except BergenError:
            continue
        solver.run(1)
        work = solver.n_nodes + solver.work
        if work >= min_work:
            rows.append({"work": work, "bytes_per_work": (rss() - before) / work})
        del solver
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--engines", default="greedy")
    ap.add_argument("--records", default=None, help="a .jsonl of complete records instead")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--gammas", default=None, metavar="G,G,...",
                      help="DCFR iterations and work to the tolerance per weight exponent of "
                           "the average strategy (e.g. 2,4,6,10)")
    what.add_argument("--dcfr", default=None, metavar="A:B:G,...",
                      help="the same per DCFR (alpha, beta, gamma), e.g. 1.5:0:2,1:0:2 "
                           "(inf and -inf allowed)")
    what.add_argument("--tolerances", action="store_true",
                      help="how far a hand's values at 0.05, 0.01 and 0.003 are from those at "
                           "1e-4 (positions within the solver's reach at 3e9 work)")
    what.add_argument("--memory", action="store_true",
                      help="the solver's memory per unit of work (for BYTES_PER_WORK)")
    args = ap.parse_args(argv)
    if args.records:
        from bergen_search.formats.record_io import load_records
        with open(args.records, encoding="utf-8") as f:
            records = load_records(f.read())
        infos = [info for rec in records for _, _, info, _, _ in stage_decisions(rec)]
    else:
        engines = args.engines.split(",") * (2 if "," not in args.engines else 1)
        infos = [info for _, info, _ in endgame_positions(args.rounds, args.seed, engines)]
    if args.gammas or args.dcfr:
        params = ([(1.5, 0.0, float(x)) for x in args.gammas.split(",")] if args.gammas else
                  [tuple(float(v) for v in t.split(":")) for t in args.dcfr.split(",")])
        study = dcfr_study(infos, params)
        for (a, b, g), r in study.items():
            print(f"alpha {a:g} beta {b:g} gamma {g:g}: {r['positions']} positions, "
                  f"{r['mean_iterations'] or 0:.2f} iterations on average, work {r['work']:,}")
        return study
    if args.memory:
        rows = memory_study(infos)
        worst = max((r["bytes_per_work"] for r in rows), default=float("nan"))
        print(f"{len(rows)} trees of 100,000 work or more: at most {worst:.1f} bytes a unit "
              f"of work (endgame.budget.BYTES_PER_WORK = {endgame.budget.BYTES_PER_WORK})")
        return rows
    if args.tolerances:
        study = tolerance_study(infos)
        for tol, r in study.items():
            print(f"tolerance {tol}: {r['positions']} positions, mean exploitability "
                  f"{r['mean_exploitability']:.4f}; a move's value off by {r['value_error_mean']:.4f} "
                  f"on average, {r['value_error_worst']:.4f} at worst, more than the "
                  f"exploitability in {100 * r['share_beyond_eps']:.0f}%; its loss off by "
                  f"{r['loss_error_mean']:.4f} on average, {r['loss_error_worst']:.4f} at worst")
        return study


if __name__ == "__main__":
    main()
