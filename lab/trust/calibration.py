"""Are the printed errors honest? The calibration of `best` and the label agreement of
`analyze` over independent seeds (issue 22).

A value's standard error is honest when the spread of that value over independent seeds
matches it. This script cuts decisions from self-play (2, 3 and 4 players and partnerships),
searches each with several seeds at the same budget and, for every choice listed (mirror
twins folded, as `best` lists them), computes

    r = (standard deviation of the value over the seeds) / (mean printed stderr)

With k seeds an exactly honest error gives a mean r² of about 1 and a 90th percentile of r
near 1.28 (for k = 10: the sample spread varies too). It prints the mean of r², the 50th /
90th percentiles and the maximum of r, for the best move and for the others, and per kind
of game; with `--analyze M` it also analyses M matches with each seed and reports how often
the labels agree, and whether every disagreement was marked borderline in both runs.

    python lab/trust/calibration.py --decisions 100 --seeds 10            # the issue's check
    python lab/trust/calibration.py --decisions 20 --seeds 6 --iterations 2000   # minutes
    python lab/trust/calibration.py --analyze 20 --analyze-seeds 3 --decisions 0
    python lab/trust/calibration.py --position examples/decision.json --seeds 10

Decisions are cut from matches the default engine plays against itself at a small budget
(`--engine`), one match seed per decision stream; everything is seeded (`--seed`), so the
same command prints the same figures (with an iteration budget).
`--out FILE.jsonl` keeps each searched decision as it finishes (and `--resume` reads it
back), so a long run that is stopped keeps what it did.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

from bergen_search.analysis.review import analyze
from bergen_search.formats.record import parse_record
from bergen_search.formats.record_io import write_record
from bergen_search.formats.replay import seen_steps
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW
from bergen_search.play.engines import parse_engine_spec
from bergen_search.play.seats import play_engines
from bergen_search.search.api import Limits, Settings, choices, root_moves, search
from bergen_search.views.search import move_text

#: The kinds of game decisions are cut from: (name, rules).
KINDS = (("2p", Rules(players=2)), ("3p", Rules(players=3)), ("4p", Rules(players=4)),
         ("4p-partners", Rules(players=4, partnerships=True)))


def decisions_from_selfplay(rules: Rules, count: int, seed: int, engine: str = "ismcts:iterations=300",
                            per_match: int = 3) -> list:
    """`count` information sets (a seat to move with at least two choices), cut from matches
    the `engine` plays against itself: at most `per_match` from each match, chosen with
    Rng(seed), in match order."""
    spec = parse_engine_spec(engine)
    rng = Rng(seed)
    out = []
    m = 0
    while len(out) < count:
        log = play_engines(rules, [spec] * rules.players, derive_seed(seed, m))
        record = parse_record(write_record(log))
        m += 1
        found = []
        for step, observers in seen_steps(record):
            if step.before.led and step.action < DRAW:
                info = observers[step.seat].infoset(step.seat)
                if len(root_moves(info)) > 1:
                    found.append(info)
        rng.shuffle(found)
        out.extend(found[:min(per_match, count - len(out))])
    return out


def seed_values(info, seeds, limits: Limits, algorithm: str, settings: dict) -> list:
    """Per seed: {choice: (value, stderr)} and the best choice, as `best` lists them."""
    runs = []
    for s in seeds:
        res = search(info, limits, seed=s, algorithm=algorithm, **settings)
        runs.append(({move_text(m): (m.value, m.stderr) for m in choices(res.moves)},
                     move_text(choices(res.moves)[0]), res.info.get("exact", False)))
    return runs


def ratios(runs) -> list:
    """[(move, is_best, r, sd, mean stderr)] per choice from `seed_values`'s runs: `is_best`
    when it was the best in the most runs. Choices with a zero printed error in every run
    (exact values) are left out when their spread is zero too."""
    best_counts = {}
    for _, best, _ in runs:
        best_counts[best] = best_counts.get(best, 0) + 1
    top = max(best_counts, key=lambda m: (best_counts[m], m))
    out = []
    for move in runs[0][0]:
        vals = [r[0][move][0] for r in runs]
        errs = [r[0][move][1] for r in runs]
        sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
        mean_err = statistics.fmean(errs)
        if mean_err == 0:
            if sd < 1e-9:
                continue
            r = math.inf
        elif math.isinf(mean_err):
            r = 0.0
        else:
            r = sd / mean_err
        out.append((move, move == top, r, sd, mean_err))
    return out


def summarise(rows) -> dict:
    """mean r², median / 90th percentile / max of r over rows (r values)."""
    rs = sorted(rows)
    if not rs:
        return {"n": 0}
    q = lambda p: rs[min(len(rs) - 1, max(0, math.ceil(p * len(rs)) - 1))]
    return {"n": len(rs), "mean_r2": statistics.fmean(r * r for r in rs), "median": q(0.5),
            "p90": q(0.9), "max": rs[-1]}


def fmt(s: dict) -> str:
    if not s.get("n"):
        return "none"
    return (f"n {s['n']:4d}  mean r² {s['mean_r2']:.2f}  median r {s['median']:.2f}  "
            f"90th {s['p90']:.2f}  max {s['max']:.2f}")


def label_agreement(matches: int, seeds, limits: Limits, algorithm: str, settings: dict,
                    seed: int, engine: str, progress=None) -> dict:
    """Analyse `matches` matches (2 players, and every fourth 3 or 4 players) with each seed:
    the share of decisions whose label (none / inaccuracy / mistake / blunder) is the same
    in every run, and the disagreements not marked borderline in every run."""
    same = total = unmarked = 0
    examples = []
    for i in range(matches):
        rules = (Rules(players=3) if i % 4 == 3 and i % 8 == 3 else
                 Rules(players=4) if i % 4 == 3 else Rules())
        spec = parse_engine_spec(engine)
        log = play_engines(rules, [spec] * rules.players, derive_seed(seed, 100_000 + i))
        record = write_record(log)
        runs = [analyze(record, limits=limits, seed=s,
                        settings=Settings.of(algorithm, settings)) for s in seeds]
        for ds in zip(*(a.decisions for a in runs)):
            total += 1
            labels = {d.label for d in ds}
            if len(labels) == 1:
                same += 1
            elif not all(getattr(d, "borderline", False) for d in ds):
                unmarked += 1
                examples.append((i, ds[0].round, ds[0].event,
                                 [(d.label, round(d.loss, 3), round(d.loss_stderr, 3),
                                   getattr(d, "borderline", False)) for d in ds]))
        if progress:
            progress(i + 1, matches)
    return {"decisions": total, "same": same, "agreement": same / total if total else None,
            "unmarked_differences": unmarked, "examples": examples[:10]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--decisions", type=int, default=100, help="decisions in all (split over the kinds)")
    p.add_argument("--seeds", type=int, default=10, help="independent seeds per decision")
    p.add_argument("--iterations", type=int, default=None, help="budget (default: the algorithm's)")
    p.add_argument("--time", type=float, default=None)
    p.add_argument("--algorithm", default="ismcts")
    p.add_argument("--set", action="append", default=[], help="KEY=VALUE setting")
    p.add_argument("--engine", default="ismcts:iterations=300", help="the self-play engine")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--kinds", default="2p,3p,4p,4p-partners")
    p.add_argument("--position", help="calibrate one game file instead of self-play decisions")
    p.add_argument("--analyze", type=int, default=0, help="matches for the label agreement")
    p.add_argument("--analyze-seeds", type=int, default=3)
    p.add_argument("--analyze-iterations", type=int, default=None)
    p.add_argument("--out", help="JSON lines: each decision's runs as it finishes")
    p.add_argument("--resume", action="store_true", help="read --out back and go on")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = p.parse_args(argv)
    settings = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        settings[k] = v
    limits = Limits(iterations=a.iterations, time=a.time)
    seeds = list(range(a.seeds))
    t0 = time.perf_counter()
    report = {"algorithm": algorithm_text(a, settings), "seeds": a.seeds}

    if a.position:
        from bergen_search.formats.game import load_game
        with open(a.position) as f:
            info = load_game(f.read())
        runs = seed_values(info, seeds, limits, a.algorithm, settings)
        rows = ratios(runs)
        print(f"{a.position}: {a.algorithm} {settings or ''} {a.seeds} seeds")
        print(f"  {'move':<10} {'mean value':>10} {'sd':>7} {'mean ±':>7} {'r':>6}  best in")
        for move, is_best, r, sd, err in rows:
            vals = [run[0][move][0] for run in runs]
            nbest = sum(run[1] == move for run in runs)
            print(f"  {move:<10} {statistics.fmean(vals):>+10.3f} {sd:>7.3f} {err:>7.3f} "
                  f"{r:>6.2f}  {nbest}/{len(runs)}")
        return 0

    done = {}
    if a.out and a.resume and os.path.exists(a.out):
        with open(a.out) as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    break           # a torn last line
                done[(row["kind"], row["index"])] = row
    out = open(a.out, "a" if a.resume else "w") if a.out else None
    kinds = [k for k in KINDS if k[0] in a.kinds.split(",")]
    per_kind = [a.decisions // len(kinds) + (1 if i < a.decisions % len(kinds) else 0)
                for i in range(len(kinds))] if kinds else []
    all_rows = {"best": [], "other": []}
    by_kind = {}
    for (kind, rules), n in zip(kinds, per_kind):
        if n == 0:
            continue
        infos = decisions_from_selfplay(rules, n, derive_seed(a.seed, len(by_kind)), a.engine)
        kind_rows = {"best": [], "other": []}
        for i, info in enumerate(infos):
            row = done.get((kind, i))
            if row is None:
                runs = seed_values(info, seeds, limits, a.algorithm, settings)
                row = {"kind": kind, "index": i,
                       "rows": [list(x) for x in ratios(runs)],
                       "values": {m: [r[0][m] for r in runs] for m in runs[0][0]}}
                if out:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
            for move, is_best, r, sd, err in row["rows"]:
                kind_rows["best" if is_best else "other"].append(r)
                all_rows["best" if is_best else "other"].append(r)
            print(f"\r{kind} {i + 1}/{len(infos)}  {time.perf_counter() - t0:.0f} s",
                  end="", file=sys.stderr, flush=True)
        by_kind[kind] = {k: summarise(v) for k, v in kind_rows.items()}
        print(file=sys.stderr)
    report["decisions"] = {k: summarise(v) for k, v in all_rows.items()}
    report["decisions"]["all"] = summarise(all_rows["best"] + all_rows["other"])
    report["by_kind"] = by_kind
    if a.analyze:
        alim = Limits(iterations=a.analyze_iterations) if a.analyze_iterations else Limits(
            iterations=4000)
        report["analyze"] = label_agreement(
            a.analyze, list(range(a.analyze_seeds)), alim, a.algorithm, settings, a.seed,
            a.engine, progress=lambda d, t: print(f"\ranalyze {d}/{t}", end="",
                                                  file=sys.stderr, flush=True))
        print(file=sys.stderr)
    report["seconds"] = round(time.perf_counter() - t0, 1)
    if a.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"calibration of {report['algorithm']}, {a.seeds} seeds per decision")
    for k in ("best", "other", "all"):
        print(f"  {k:<6} {fmt(report['decisions'][k])}")
    for kind, s in by_kind.items():
        print(f"  {kind:<12} best: {fmt(s['best'])}")
        print(f"  {'':<12} other: {fmt(s['other'])}")
    if a.analyze:
        an = report["analyze"]
        print(f"analyze: {an['decisions']} decisions, same label in {an['same']} "
              f"({100 * an['agreement']:.1f}%), differences not marked borderline in every "
              f"run: {an['unmarked_differences']}")
        for ex in an["examples"]:
            print("   ", ex)
    print(f"({report['seconds']} s)")
    return 0


def algorithm_text(a, settings) -> str:
    budget = f"{a.iterations} iterations" if a.iterations else (
        f"{a.time} s" if a.time else "the default budget")
    extra = "".join(f",{k}={v}" for k, v in settings.items())
    return f"{a.algorithm}{extra}, {budget}"


if __name__ == "__main__":
    sys.exit(main())
