"""Where the exact endgame's time goes on the stage decisions of self-play, at the budget the
default engine gives it: the share solved, within 100 ms and within 1 s, the median and the
worst, the largest position solved, what a declined position costs, and the time by phase.

    python lab/endgame/endgame_stage.py [--records A.jsonl,B.jsonl] [--iterations 100000]
        [--json OUT.json] [--no-refine | --deviations | --bounds]

(`--no-refine`: the moves outside the mix keep the solve's values, as before they were valued
against an answer; `--deviations`: how far those values moved; `--bounds`: whether the
printed bound covers the distance to a tight solve.)

The corpus (lab/endgame/data/stage_corpus.jsonl.gz, out of git: `lab/endgame/corpora.sh`
makes it) is the self-play of the default engine at 20,000 iterations a move on two seeds
nobody tuned on:

    bergen selfplay --games 80 --seed 9101 --engine ismcts:iterations=20000 --out a.jsonl
    bergen selfplay --games 80 --seed 9102 --engine ismcts:iterations=20000 --out b.jsonl
    cat a.jsonl b.jsonl | gzip -9n > lab/endgame/data/stage_corpus.jsonl.gz

The records an engine plays change with the engine: the corpus measured (160 matches, 491
stage decisions) is commit fa1c8c1's (`corpora.sh measured` copies it out of git). A second
corpus, stage_corpus_100k.jsonl.gz (540 stage decisions as measured), is the default engine's
self-play at its default 100,000 iterations on two other seeds (30301, 30302), made after the
bracket was built and measured only (`--records` it), and a third,
stage_corpus_100k_fresh.jsonl.gz (seeds 30303 and 30304 alike, 471 stage decisions), made
after the bracket's last setting (BRACKET_MIN_ITERATIONS, chosen looking at the second
corpus's declined positions) and looked at only to report it (`corpora.sh all` plays both).
The lab's tests read `SAMPLE`, the measured corpus's first 15 matches (46 stage decisions).

Every decision
with a choice at the stage (no draw can happen again) is given to `endgame.attempt` as the
default engine gives it (its iterations buy endgame.budget.WORK_PER_ITERATION work each, the memory
cap search.Limits' default): the time from the information set to the answer or the decline,
one core, split into the phases `endgame.attempt` reports: predict (the size, before anything
is built), deals (the public view's table and its deals), build (the public tree), iterations
(DCFR), checks (the exploitability: two exact best responses), report (each move's values),
refine (the moves outside the mix valued against an answer: the subgames after them),
failed (a tree built and then found too big, or a solve that ran out of budget).
With `--bracket`, also the bracket of each declined position (`endgame.bracket`), and how
many of them cut a move at a horizon (depth-limited) with their ceiling - floor.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time

from bergen_search.formats.record_io import load_records
from bergen_search.play.bench import solve_time_summary, stage_decisions
from bergen_search.search import endgame
from bergen_search.search.limits import Limits

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "data", "stage_corpus.jsonl.gz")
#: The measured corpus's first 15 matches, for the lab's tests (made by
#: `git show fa1c8c1:benchmarks/data/stage_corpus.jsonl.gz | gunzip | head -15 | gzip -9n`).
SAMPLE = os.path.join(HERE, "fixture", "stage_sample.jsonl.gz")
PHASES = ("predict", "deals", "build", "iterations", "checks", "report", "refine", "failed",
          "bracket")


def corpus_infos(paths=None):
    """The information sets of every stage decision of the records (the corpus by default)."""
    if not paths and not os.path.exists(CORPUS):
        raise SystemExit(f"{os.path.relpath(CORPUS)} is not made: run lab/endgame/corpora.sh "
                         f"(or `corpora.sh measured`), or give --records")
    texts = []
    for path in paths or [CORPUS]:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            texts.append(f.read())
    return [info for text in texts for rec in load_records(text)
            for _, _, info, _, _ in stage_decisions(rec)]


def attempts(infos, iterations=100_000, progress=None, refine=True, bracketing=False):
    """Per information set: seconds, solved, why, phases, size (endgame.attempt; `refine`:
    with the deviations valued against an answer; `bracketing`: a declined position
    bracketed, `endgame.bracket`, as the default engine does under an iteration budget)."""
    rows = []
    limits = Limits(iterations=iterations)
    for k, info in enumerate(infos):
        t0 = time.perf_counter()
        tried = endgame.attempt(info, limits, seed=0, objective="points",
                                memory_bytes=limits.memory_bytes, refine=refine,
                                bracketing=bracketing)
        row = {"seconds": time.perf_counter() - t0, "hands": list(info.hand_sizes),
               "solved": tried.result is not None, "why": tried.why,
               "phases": tried.phases}
        b = tried.bracket
        if b is not None:
            row["bracket"] = {"deals": b.deals, "sizes": list(b.sizes),
                              "missing": len(b.missing), "moves": len(b.floors),
                              "gap": max(b.ceilings[m] - b.floors[m] for m in b.floors),
                              "cut": len(b.horizons),
                              "horizons": sorted(min(h) for h in b.horizons.values()),
                              "seconds": tried.phases.get("bracket", 0.0)}
        elif tried.bracket_why is not None:
            row["bracket_declined"] = tried.phases.get("bracket", 0.0)
        if tried.size is not None:
            built = tried.size
            row.update(deals=built.deals, work=built.work, pairs=built.pairs)
        if tried.result is not None:
            row["exploitability"] = tried.result.info["endgame"]["exploitability"]
        rows.append(row)
        if progress:
            progress(k, row)
    return rows


def bound_study(infos, iterations=100_000, tight=1e-5, max_iterations=4_000, seconds=20.0,
                progress=None):
    """Per decision the engine solves at the budget: whether the printed bound
    (`endgame.Solution.hand_bound`) covers the distance of each value to a solve at `tight`
    (its own bound added), for the moves the solved strategy plays (a share of its average of
    MIN_SHARE or more) and apart for the others (deviations: their values depend on how the
    other side answers a move it never meets, which the solve leaves loose). The tight solve
    stops at `max_iterations` or `seconds` short of `tight`: its own bound is added."""
    rows = []
    limits = Limits(iterations=iterations)
    for k, info in enumerate(infos):
        tried = endgame.attempt(info, limits, seed=0, objective="points",
                                memory_bytes=limits.memory_bytes)
        if tried.result is None:
            continue
        g = endgame.game(info)
        sol = endgame.solve(g, max_work=endgame.budget_work(iterations),
                            memory_bytes=limits.memory_bytes)
        ref = endgame.solve(g, tolerance=tight, hand_tolerance=tight, max_work=10 ** 13,
                            max_iterations=max_iterations, seconds=seconds)
        played = [m for m, p in sol.average.items() if p >= endgame.budget.MIN_SHARE]
        far = max(abs(sol.values[m] - ref.values[m]) for m in played)
        off = max((abs(v - ref.values[m]) for m, v in sol.values.items() if m not in played),
                  default=0.0)
        rows.append({"deals": len(g.deals), "share": g.hand_weight / g.weight,
                     "bound": sol.hand_bound, "exploitability": sol.exploitability,
                     "distance": far, "off_support_distance": off,
                     "tight_bound": ref.hand_bound,
                     "covered": far <= sol.hand_bound + ref.hand_bound,
                     "off_support_covered": off <= sol.hand_bound + ref.hand_bound,
                     "old_covered": far <= sol.exploitability + ref.hand_bound})
        if progress:
            progress(k, rows[-1])
    return rows


def deviation_study(infos, iterations=100_000, progress=None):
    """Per decision the engine solves at the budget: its moves outside the played mix, how
    many were valued against an answer (`endgame.Solution.refined`) and how far each moved
    from the solve's own value (`unrefined`)."""
    rows = []
    limits = Limits(iterations=iterations)
    for k, info in enumerate(infos):
        if endgame.applicable(info) is not None:
            continue
        try:
            g = endgame.game(info, max_deals=endgame.allowance(
                endgame.budget_work(iterations), None, limits.memory_bytes)[1])
            sol = endgame.solve(g, max_work=endgame.budget_work(iterations),
                                memory_bytes=limits.memory_bytes)
        except endgame.TooBig:
            continue
        changes = [abs(sol.values[m] - sol.unrefined[m]) for m, ok in sol.refined.items() if ok]
        rows.append({"deals": len(g.deals), "hands": list(info.hand_sizes),
                     "off_support": len(sol.refined), "refined": sum(sol.refined.values()),
                     "largest_change": max(changes, default=0.0),
                     "lowered": sum(sol.values[m] < sol.unrefined[m] - 0.05
                                    for m in sol.refined),
                     "raised": sum(sol.values[m] > sol.unrefined[m] + 0.05
                                   for m in sol.refined)})
        if progress:
            progress(k, rows[-1])
    return rows


def summary(rows) -> dict:
    n = len(rows)
    solved = [r for r in rows if r["solved"]]
    declined = [r for r in rows if not r["solved"] and "predicted" in (r["why"] or "")]
    failed = [r for r in rows if not r["solved"] and r not in declined]
    times = solve_time_summary([r["seconds"] if r["solved"] else float("inf") for r in rows])
    big = max(solved, key=lambda r: r["deals"], default=None)
    phases = {p: sum(r["phases"].get(p, 0.0) for r in rows) for p in PHASES}
    total = sum(phases.values())
    work = sum(r["work"] for r in solved if r.get("pairs"))
    return {
        "positions": n, "solved": len(solved), "declined_at_once": len(declined),
        "failed_after_building": len(failed),
        "solved_share": len(solved) / n if n else None,
        "within_0.1s": times["within_0.1s"], "within_1s": times["within_1s"],
        "median_s": times["median_s"], "worst_solved_s": times["worst_solved_s"],
        "largest_solved": None if big is None else {"deals": big["deals"],
                                                     "hands": big["hands"]},
        "largest_hand_solved": max((max(r["hands"]) for r in solved), default=None),
        # (a decline without its bracket, which comes after it)
        "decline_median_s": statistics.median(_unbracketed(r) for r in declined)
        if declined else None,
        "decline_worst_s": max((_unbracketed(r) for r in declined), default=None),
        "failed_seconds": sum(r["seconds"] for r in failed),
        "phase_seconds": phases,
        "phase_share": {p: (v / total if total else 0.0) for p, v in phases.items()},
        "terminal_share_of_work": (sum(r["pairs"] for r in solved if r.get("pairs")) / work
                                   if work else None),
        **bracket_summary(rows),
    }


def _unbracketed(row) -> float:
    return row["seconds"] - row["phases"].get("bracket", 0.0)


def bracket_summary(rows) -> dict:
    """With `--bracket`: the declined positions bracketed, the share of the stage solved or
    bracketed (within 100 ms and 1 s: the time from the information set to the answer, the
    decline and the bracket included), what a bracket and a declined bracket cost."""
    n = len(rows)
    br = [r for r in rows if "bracket" in r]
    no = [r["bracket_declined"] for r in rows if "bracket_declined" in r]
    if not br and not no:
        return {}
    either = solve_time_summary([r["seconds"] if r["solved"] or "bracket" in r
                                 else float("inf") for r in rows])
    whole = [r for r in br if not r["bracket"]["missing"]]
    return {
        "bracketed": len(br), "bracketed_every_move": len(whole),
        # depth-limited: a move cut at a horizon (endgame.shown.limited)
        "bracketed_depth_limited": sum(1 for r in br if r["bracket"].get("cut")),
        "bracket_gap_median_depth_limited": statistics.median(
            r["bracket"]["gap"] for r in br if r["bracket"].get("cut"))
        if any(r["bracket"].get("cut") for r in br) else None,
        "bracket_gap_median_whole": statistics.median(
            r["bracket"]["gap"] for r in br if not r["bracket"].get("cut"))
        if any(not r["bracket"].get("cut") for r in br) else None,
        "bracket_declined": len(no),
        "solved_or_bracketed_share": either["solved"] / n,
        "solved_or_bracketed_within_0.1s": either["within_0.1s"],
        "solved_or_bracketed_within_1s": either["within_1s"],
        "bracket_median_s": statistics.median(r["bracket"]["seconds"] for r in br)
        if br else None,
        "bracket_worst_s": max((r["bracket"]["seconds"] for r in br), default=None),
        "bracket_gap_median": statistics.median(r["bracket"]["gap"] for r in br)
        if br else None,
        "bracket_gap_worst": max((r["bracket"]["gap"] for r in br), default=None),
        "largest_bracketed": max(((r["bracket"]["deals"], r["hands"]) for r in br),
                                 default=None),
        "largest_hand_bracketed": max((max(r["hands"]) for r in br), default=None),
        "bracket_declined_median_s": statistics.median(no) if no else None,
        "bracket_declined_worst_s": max(no, default=None),
    }


def _s(x):
    """A time; None: none, or (the median) a position not solved."""
    return "-" if x is None else f"{x:.3f} s"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", default=None, help="comma-separated .jsonl(.gz) files "
                    "(default: lab/endgame/data/stage_corpus.jsonl.gz)")
    ap.add_argument("--iterations", type=int, default=100_000,
                    help="the engine's iteration budget (the default engine's: 100,000)")
    ap.add_argument("--json", dest="json_out", default=None)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--no-predict", action="store_true",
                    help="build before declining, as before the prediction (PREDICT_WALKS 0)")
    ap.add_argument("--no-refine", action="store_true",
                    help="leave the moves outside the mix with the solve's own values (as "
                         "before they were valued against an answer)")
    ap.add_argument("--bracket", action="store_true",
                    help="bracket each declined position as the default engine does under an "
                         "iteration budget (endgame.bracket) and say how much of the stage is "
                         "solved or bracketed")
    ap.add_argument("--deviations", action="store_true",
                    help="instead: how far the values of the moves outside the mix moved when "
                         "valued against an answer, on every decision solved at the budget")
    ap.add_argument("--bounds", action="store_true",
                    help="instead: whether the printed bound covers the distance to a solve "
                         "at tolerance 1e-5, on every decision solved at the budget")
    ap.add_argument("--recheck-cut", default=None, metavar="RUN.json",
                    help="instead: bracket again the decisions an earlier `--bracket --json` "
                         "run of the same records cut at a horizon, and print their widest "
                         "ceiling - floor then and now")
    args = ap.parse_args(argv)
    if args.no_predict:
        endgame.budget.PREDICT_WALKS = 0
    infos = corpus_infos(args.records.split(",") if args.records else None)
    study_progress = None if args.quiet else (
        lambda k, r: print(f"{k + 1}/{len(infos)} {r}", file=sys.stderr))

    def saved(doc):
        """`doc`, also written to --json when given."""
        if args.json_out:
            with open(args.json_out, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
        return doc

    if args.recheck_cut:
        with open(args.recheck_cut, encoding="utf-8") as f:
            before = json.load(f)["rows"]
        then, now = [], []
        for info, row in zip(infos, before):
            if row.get("bracket", {}).get("cut"):
                tried = endgame.attempt(info, Limits(iterations=args.iterations), seed=0,
                                        objective="points", bracketing=True)
                b = tried.bracket
                then.append(row["bracket"]["gap"])
                now.append(None if b is None else
                           max(b.ceilings[m] - b.floors[m] for m in b.floors))
        done = [g for g in now if g is not None]
        print(f"{len(then)} decisions cut at a horizon: widest ceiling - floor then "
              f"{statistics.median(then):.3f} median, {statistics.mean(then):.3f} mean; now "
              f"{statistics.median(done):.3f}, {statistics.mean(done):.3f} "
              f"({len(now) - len(done)} not bracketed)")
        return saved({"then": then, "now": now})
    if args.deviations:
        rows = deviation_study(infos, args.iterations, progress=study_progress)
        with_off = [r for r in rows if r["off_support"]]
        print(f"{len(rows)} decisions solved at {args.iterations:,} iterations, "
              f"{len(with_off)} with moves outside the mix ({sum(r['off_support'] for r in rows)}"
              f" moves, {sum(r['refined'] for r in rows)} refined); decisions where a value "
              f"moved by more than 0.05: {sum(r['largest_change'] > 0.05 for r in rows)} "
              f"({sum(r['lowered'] for r in rows)} moves lowered, "
              f"{sum(r['raised'] for r in rows)} raised); largest change "
              f"{max((r['largest_change'] for r in rows), default=0.0):.3f}; decisions with a "
              f"move left unrefined: {sum(r['refined'] < r['off_support'] for r in rows)}")
        return saved(rows)
    if args.bounds:
        rows = bound_study(infos, args.iterations, progress=study_progress)
        worst = max(rows, key=lambda r: r["distance"] / max(r["bound"], 1e-12))
        print(f"{len(rows)} decisions solved at {args.iterations:,} iterations: the printed "
              f"bound covers the distance to the solve at 1e-5 in "
              f"{sum(r['covered'] for r in rows)} for the moves played (the game's "
              f"exploitability alone would in {sum(r['old_covered'] for r in rows)}), in "
              f"{sum(r['off_support_covered'] for r in rows)} for the moves outside the "
              f"support; largest distance over bound (moves played) "
              f"{worst['distance'] / max(worst['bound'], 1e-12):.3f}; tight solves within 1e-5: "
              f"{sum(r['tight_bound'] <= 1e-5 for r in rows)}")
        return saved(rows)

    def progress(k, row):
        if not args.quiet:
            print(f"{k + 1}/{len(infos)} hands {row['hands']} deals {row.get('deals', '-')} "
                  f"{row['seconds']:.3f} s {'solved' if row['solved'] else row['why']}",
                  file=sys.stderr)
    rows = attempts(infos, args.iterations, progress, refine=not args.no_refine,
                    bracketing=args.bracket)
    out = summary(rows)
    big = out["largest_solved"]
    print(f"{out['positions']} stage decisions at {args.iterations:,} iterations: solved "
          f"{100 * out['solved_share']:.1f}% ({out['declined_at_once']} declined at once, "
          f"{out['failed_after_building']} after building); within 100 ms "
          f"{100 * out['within_0.1s']:.1f}%, within 1 s {100 * out['within_1s']:.1f}%; median "
          f"{_s(out['median_s'])}, worst solved {_s(out['worst_solved_s'])}; largest solved "
          + (f"{big['deals']:,} deals, hands {big['hands']}" if big else "-")
          + f"; a decline {_s(out['decline_median_s'])} median, {_s(out['decline_worst_s'])} "
          f"at worst; failed attempts {out['failed_seconds']:.2f} s in all")
    print("time by phase: " + ", ".join(
        f"{p} {out['phase_seconds'][p]:.2f} s ({100 * out['phase_share'][p]:.0f}%)"
        for p in PHASES))
    if out["terminal_share_of_work"] is not None:
        print(f"terminal deals: {100 * out['terminal_share_of_work']:.0f}% of the solved "
              f"trees' work (nodes, entries, terminal deals)")
    if "bracketed" in out:
        lb = out["largest_bracketed"]
        print(f"bracketed {out['bracketed']} of the declined ({out['bracketed_every_move']} "
              f"every move; {out['bracket_declined']} declined again, "
              f"{_s(out['bracket_declined_median_s'])} median, "
              f"{_s(out['bracket_declined_worst_s'])} at worst): solved or bracketed "
              f"{100 * out['solved_or_bracketed_share']:.1f}%, within 100 ms "
              f"{100 * out['solved_or_bracketed_within_0.1s']:.1f}%, within 1 s "
              f"{100 * out['solved_or_bracketed_within_1s']:.1f}%; a bracket "
              f"{_s(out['bracket_median_s'])} median, {_s(out['bracket_worst_s'])} at worst; "
              f"ceiling - floor {out['bracket_gap_median']:.4f} median, "
              f"{out['bracket_gap_worst']:.3f} at worst; largest bracketed "
              + (f"{lb[0]:,} deals (hands {lb[1]})" if lb else "-")
              + f", a hand of {out['largest_hand_bracketed']}")
        if out["bracketed_depth_limited"]:
            print(f"depth-limited (a move cut at a horizon): {out['bracketed_depth_limited']} "
                  f"brackets, ceiling - floor {out['bracket_gap_median_depth_limited']:.3f} "
                  f"median (brackets solved to the end: "
                  + (f"{out['bracket_gap_median_whole']:.4f})"
                     if out["bracket_gap_median_whole"] is not None else "-)"))
    saved({"summary": out, "rows": rows})
    return out


if __name__ == "__main__":
    main()
