"""The yardstick of play quality: every engine's regret against the equilibrium, at every
decision of the exact endgame's stage.

    python lab/endgame/endgame_regret.py [--records RUN.jsonl ...] [--rounds 300 --seed 31
        --selfplay greedy] [--time 0.1 | --iterations N] [--engines default,classic,...]
        [--json OUT.json]

The decisions with a choice at the stage (no draw can happen again) of the records (self-play
or arena records: `bergen arena ... --out`; or, without --records, `--rounds` rounds of
`--selfplay` self-play) are solved exactly from the information set of the seat to move (the
solver's ceiling, no time limit; those beyond it are counted and skipped). Each engine then
decides there from the same information set, and is charged its regret: the best move's
equilibrium value minus that of its move (the value of a move: the seat's best response after
it against the other side's solved strategy). Engines (`--engines`):

- `default`: today's default engine without the solver (`ismcts`, endgame=off);
- `solver`: the default engine with it (`ismcts`: it solves when the tree fits its budget);
- `classic`, `expectimax`: as in `bergen best`;
- `greedy`: the play scoring most at once, then the heaviest tile.

Reported per engine: regret per decision (mean ± standard error over decisions) and per
round (the total over a round's stage decisions, averaged over every round, with the standard
error over rounds), the share of decisions it got exactly right (regret below the solution's
exploitability), and for the search engines how far the value it printed for its move was
from the solved value (mean absolute, mean signed: + optimistic, worst), by size of position
(its number of deals) too.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time

from bergen_search.formats.notation import Move
from bergen_search.game.policy import greedy_choice
from bergen_search.game.rng import derive_seed
from bergen_search.game.state import move_str
from bergen_search.play.bench import stage_decisions
from bergen_search.search import endgame
from bergen_search.search.api import Limits, mirror_twins, search

ENGINES = {
    "default": ("ismcts", {"endgame": False}),
    "solver": ("ismcts", {}),
    "classic": ("classic", {}),
    "expectimax": ("expectimax", {}),
    "greedy": None,
}
SIZES = ((100, "up to 100 deals"), (1000, "101-1,000"), (10000, "1,001-10,000"),
         (math.inf, "over 10,000"))


def _mean_se(xs):
    if not xs:
        return None, None
    if len(xs) < 2:
        return statistics.mean(xs), None
    return statistics.mean(xs), statistics.stdev(xs) / math.sqrt(len(xs))


def judge(records, engines, limits, seed=0, tolerance=1e-3, progress=None):
    """(decision rows, rounds seen): per stage decision its size, the solution's values and
    per engine its move, regret and printed value."""
    rows, rounds, k = [], 0, 0
    for r_index, rec in enumerate(records):
        for rnd, event, info, state, played in stage_decisions(rec):
            row = {"record": r_index, "round": rnd, "event": event, "seat": info.seat,
                   "hands": list(info.hand_sizes)}
            t0 = time.perf_counter()
            try:
                g = endgame.game(info)
                row["deals"] = len(g.deals)
                sol = endgame.solve(g, tolerance=tolerance)
            except endgame.TooBig as e:
                row["too_big"] = e.message
                rows.append(row)
                continue
            row.update(solve_seconds=time.perf_counter() - t0, eps=sol.exploitability,
                       values={str(m): v for m, v in sol.values.items()},
                       played=move_str(played))
            twins = {Move.from_code(m): Move.from_code(t) for m, t in mirror_twins(info).items()}
            best = max(sol.values.values())
            row["engines"] = {}
            for name in engines:
                if ENGINES[name] is None:
                    move, value = Move.from_code(greedy_choice(state, state.legal_moves())), None
                else:
                    alg, settings = ENGINES[name]
                    res = search(info, limits, seed=derive_seed(seed, k), algorithm=alg,
                                 values=True, **settings)
                    move, value = res.best, res.value
                base = twins.get(move, move)
                row["engines"][name] = {"move": str(move), "regret": best - sol.values[base],
                                        "value": value, "solved_value": sol.values[base]}
            rows.append(row)
            k += 1
            if progress:
                progress(k, row)
        rounds += len(rec.rounds)
    return rows, rounds


def report(rows, rounds, engines) -> dict:
    solved = [r for r in rows if "values" in r]
    out = {"decisions": len(rows), "solved": len(solved), "beyond_ceiling": len(rows) - len(solved),
           "rounds": rounds, "largest_deals": max((r["deals"] for r in solved), default=None),
           "engines": {}}
    for name in engines:
        regrets = [r["engines"][name]["regret"] for r in solved]
        per_round = {}
        for r in solved:
            key = (r["record"], r["round"])
            per_round[key] = per_round.get(key, 0.0) + r["engines"][name]["regret"]
        totals = list(per_round.values()) + [0.0] * (rounds - len(per_round))
        mean, se = _mean_se(regrets)
        rmean, rse = _mean_se(totals)
        e = {"regret_per_decision": mean, "se": se, "regret_per_round": rmean,
             "round_se": rse,
             "exact": (sum(x <= r["eps"] + 1e-9 for x, r in zip(regrets, solved)) / len(solved)
                       if solved else None),
             "by_size": {}}
        errors = [r["engines"][name]["value"] - r["engines"][name]["solved_value"]
                  for r in solved if r["engines"][name]["value"] is not None]
        if errors:
            e["value_error"] = {"mean_abs": statistics.mean(abs(x) for x in errors),
                                "mean_signed": statistics.mean(errors),
                                "worst": max(errors, key=abs)}
        lo = 0
        for hi, label in SIZES:
            part = [r["engines"][name]["regret"] for r in solved if lo < r["deals"] <= hi]
            m, s = _mean_se(part)
            e["by_size"][label] = {"decisions": len(part), "regret": m, "se": s}
            lo = hi
        out["engines"][name] = e
    return out


def _f(x, fmt="+.3f"):
    return "-" if x is None else format(x, fmt)


def print_report(out, source):
    print(f"{out['decisions']} stage decisions in {out['rounds']} rounds ({source}); "
          f"{out['solved']} solved exactly (largest {out['largest_deals']:,} deals), "
          f"{out['beyond_ceiling']} beyond the solver's ceiling")
    print(f"  {'engine':<11} {'regret/decision':>18} {'regret/round':>16} {'exact':>6}  "
          f"{'printed value - solved: mean |.|, mean, worst':>46}")
    for name, e in out["engines"].items():
        ve = e.get("value_error")
        vtext = (f"{ve['mean_abs']:.3f}, {ve['mean_signed']:+.3f}, {ve['worst']:+.2f}"
                 if ve else "-")
        print(f"  {name:<11} {_f(e['regret_per_decision'], '.3f'):>9} ± {_f(e['se'], '.3f'):<6} "
              f"{_f(e['regret_per_round'], '.3f'):>7} ± {_f(e['round_se'], '.3f'):<6} "
              f"{100 * e['exact']:>5.1f}%  {vtext:>46}")
    print("  by size (regret per decision):")
    for name, e in out["engines"].items():
        print(f"    {name:<11} " + "; ".join(
            f"{label}: {_f(b['regret'], '.3f')} (n={b['decisions']})"
            for label, b in e["by_size"].items()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", nargs="*", default=None)
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--selfplay", default="greedy", help="engine spec of the self-play")
    ap.add_argument("--time", type=float, default=0.1)
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--engines", default="default,solver,classic,expectimax,greedy")
    ap.add_argument("--limit", type=int, default=None, help="at most this many records")
    ap.add_argument("--json", dest="json_out", default=None)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    engines = args.engines.split(",")
    for e in engines:
        if e not in ENGINES:
            ap.error(f"unknown engine {e!r} (known: {', '.join(ENGINES)})")
    if args.records:
        from bergen_search.formats.record_io import load_records
        records = []
        for path in args.records:
            with open(path, encoding="utf-8") as f:
                records += load_records(f.read())
        source = ", ".join(args.records)
    else:
        from bergen_search.formats.record import parse_record
        from bergen_search.formats.record_io import write_record
        from bergen_search.game.rules import Rules
        from bergen_search.play.engines import parse_engine_list
        from bergen_search.play.seats import play_engines
        specs = parse_engine_list(args.selfplay, 2)
        records = [parse_record(write_record(play_engines(Rules(), specs, derive_seed(args.seed, i),
                                                        max_rounds=1)))
                   for i in range(args.rounds)]
        source = f"{args.rounds} rounds of {args.selfplay} self-play, seed {args.seed}"
    if args.limit:
        records = records[:args.limit]
    limits = Limits(iterations=args.iterations) if args.iterations else Limits(time=args.time)

    def progress(k, row):
        if not args.quiet:
            print(f"{k}: deals {row['deals']} " + " ".join(
                f"{n} {e['regret']:.3f}" for n, e in row["engines"].items()), file=sys.stderr)

    rows, rounds = judge(records, engines, limits, seed=args.seed, progress=progress)
    out = report(rows, rounds, engines)
    out["source"] = source
    out["limits"] = {"time": limits.time, "iterations": limits.iterations}
    print_report(out, source)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"summary": out, "rows": rows}, f, indent=1)
    return out


if __name__ == "__main__":
    main()
