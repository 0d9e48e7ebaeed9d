"""`bergen analyze`: every decision of a game reviewed."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import time

import click

from .. import __version__
from ..analysis.review import (DECISION_ITERATIONS, DEFAULT_WORLDS, analyze_all, check_budget,
                               count_decisions, decision_limits)
from ..analysis.journal import journal_searcher
from ..analysis.verdicts import DEFAULT_THRESHOLDS, label_thresholds
from ..errors import BergenError
from ..formats.jsondoc import MAX_RECORDS_BYTES
from ..formats.record_io import load_records
from ..search import backend
from ..search.api import MAX_ITERATIONS, MAX_SECONDS
from ..views import report
from .longrun import LongRun
from .options import (ITERATIONS_TYPE, SECONDS_TYPE, FiniteFloat, algorithm_option, cluster_option,
                      json_option, memory_option, naming, read_text, resume_option,
                      search_settings, seed_option, set_option, workers_option)
from .output import check_distinct, check_writable, emit_json, search_note, write_atomic

_POINTS, _MATCH = DEFAULT_THRESHOLDS["points"], DEFAULT_THRESHOLDS["match"]


@click.command()
@click.argument("record_path", metavar="RECORD")
@click.option("--seat", "seats", type=click.IntRange(0, 3), multiple=True,
              help="Analyse this seat only (repeatable; default every seat whose hands the "
                   "record shows).")
@click.option("--iterations", type=ITERATIONS_TYPE, default=None,
              help=f"Search budget per decision (default {DECISION_ITERATIONS} ISMCTS "
                   f"iterations / {DEFAULT_WORLDS} worlds; 1/{backend.FALLBACK_DIVISOR} of it "
                   f"without the compiled core; at most {MAX_ITERATIONS:,}, rechecks included).")
@click.option("--time", "seconds", type=SECONDS_TYPE, default=None,
              help=f"Seconds of search per decision (instead of --iterations; 0.001 to "
                   f"{MAX_SECONDS:,.0f}).")
@memory_option
@algorithm_option
@set_option
@click.option("--objective", type=click.Choice(("points", "match")), default="points",
              show_default=True, help="The unit of the values and losses.")
@seed_option("Seed: same seed and budget, same analysis.")
@workers_option("Processes per search (root parallelism).")
@click.option("--recheck", type=click.IntRange(1, 100), default=4, show_default=True,
              help="A suspected error is searched again with this many times the budget "
                   "(and again, this many times more, while its interval straddles a "
                   "threshold).")
@click.option("--max-rechecks", type=click.IntRange(0, 5), default=2, show_default=True,
              help="The most searches of a decision after its first; a loss still undecided "
                   "then is marked borderline.")
@click.option("--inaccuracy", type=FiniteFloat(0, 1000), default=None,
              help=f"Loss from which a play is an inaccuracy (default {_POINTS['inaccuracy']:g} "
                   f"points; {_MATCH['inaccuracy']:g} for the match objective).")
@click.option("--mistake", type=FiniteFloat(0, 1000), default=None,
              help=f"Loss from which a play is a mistake (default {_POINTS['mistake']:g} points; "
                   f"{_MATCH['mistake']:g} match).")
@click.option("--blunder", type=FiniteFloat(0, 1000), default=None,
              help=f"Loss from which a play is a blunder (default {_POINTS['blunder']:g} points; "
                   f"{_MATCH['blunder']:g} match).")
@functools.partial(cluster_option, help="Analyse the matches of a .jsonl file on the Dask "
                  "scheduler at ADDRESS, one task per match; the same analysis. Needs pip "
                  "install 'bergen_search[cluster]'.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Also write the report as one self-contained HTML file "
                                   "(graph, every decision drawn, summary).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Write the analysis as its JSON document (--json's, without "
                                   "the wall time) to FILE, atomically, keeping a journal "
                                   "beside it for --resume.")
@click.option("--force", is_flag=True, help="Let --out and --html replace existing files.")
@resume_option
@click.option("--quiet", is_flag=True, help="No progress bar on standard error.")
@json_option
def analyze(*, record_path, seats, iterations, seconds, memory_mb, algorithm, sets, objective,
            seed, workers, recheck, max_rechecks, inaccuracy, mistake, blunder, cluster, html_path,
            out_path, force, resume, quiet, as_json):
    """Review every decision of a game: the best play, the loss, and a label for errors.

    Each decision is judged from what the seat knew then (never the hands it could not see).
    A suspected error is searched again with a bigger budget before it is labelled; a label
    is given only when the loss's 99% interval lies within its band, else the decision is
    searched again (up to --max-rechecks) and, still undecided, marked borderline. RECORD
    may hold several matches, one per line (.jsonl, as selfplay and arena write them): each
    is analysed as it would be alone, then the seats' totals over all of them.

    With --out (or --html), a journal beside the file keeps every finished match and search:
    --resume goes on after Ctrl-C, kill -9 or a lost scheduler and writes the same file.
    An existing --out or --html file is replaced only with --force, or by a --resume of the
    run its journal holds. Ctrl-C prints the decisions analysed so far and exits 130.
    """
    settings = search_settings(algorithm, sets=sets)
    check_distinct({"RECORD": record_path}, {"--out": out_path, "--html": html_path})
    text = read_text(record_path, MAX_RECORDS_BYTES)
    with naming(record_path):
        records = load_records(text, needed_by="analyze")
    try:
        thresholds = label_thresholds(objective, inaccuracy=inaccuracy, mistake=mistake,
                                      blunder=blunder)
    except BergenError as e:
        raise click.UsageError(e.message) from None
    for s in seats:
        for rec in records:
            if s >= rec.rules.players:
                raise click.BadParameter(f"seat {s} does not exist with {rec.rules.players} "
                                         f"players", param_hint="--seat")
        if all(rnd.hands[s] is None for rec in records for rnd in rec.rounds):
            raise click.BadParameter(f"the record hides seat {s}'s hand in every round: none "
                                     f"of its plays can be judged", param_hint="--seat")
    limits = decision_limits(settings, iterations, seconds, memory_mb)
    iterations = limits.iterations
    search_note()
    check_budget(limits, recheck, max_rechecks, settings)
    if html_path is not None:
        check_writable(html_path, "--html", regular=True)
        if out_path is not None and not force and not resume and os.path.exists(html_path):
            raise click.BadParameter(f"{html_path} exists: give --force to replace it, or "
                                     f"another --html", param_hint="--html")
    show = not quiet and sys.stderr.isatty()
    t0 = time.perf_counter()
    progress = _progress_bar(show, t0)
    kept = out_path or html_path
    option = "--out" if out_path else "--html" if html_path else "--out or --html"
    with LongRun(kept, "analyze", seed, resume, option=option, unit="decisions", partial=[],
                 force=force, also=[html_path] if out_path and html_path else [],
                 total=lambda: sum(count_decisions(r, set(seats) or None) for r in records),
                 done=lambda j: sum(len(a.decisions) for a in _analysed(j).values())) as run:
        journal = run.start({
            "record": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "seats": sorted(seats), "iterations": iterations, "time": seconds,
            "memory": memory_mb, "algorithm": algorithm, "settings": dict(settings.given),
            "objective": objective, "workers": workers, "recheck": recheck,
            "max_rechecks": max_rechecks, "thresholds": thresholds})
        done = on_result = searcher_for = None
        if journal is not None:
            done = _analysed(journal)
            on_result = lambda i, analysis: journal.add(("record", i), analysis)
            searcher_for = functools.partial(journal_searcher, journal)
        with naming(record_path):
            results = analyze_all(records, seats=set(seats) or None, limits=limits,
                                  seed=seed, settings=settings, objective=objective,
                                  workers=workers, thresholds=thresholds, recheck=recheck,
                                  max_rechecks=max_rechecks, progress=progress,
                                  cluster=cluster, done=done, on_result=on_result,
                                  searcher_for=searcher_for)
        if show and time.perf_counter() - t0 > 1.0:
            click.echo("", err=True)
        seconds_taken = time.perf_counter() - t0
        if html_path is not None:
            write_atomic(html_path, report.html_report(results))
        if out_path is not None:
            # without its wall time: a resumed run writes the same bytes
            write_atomic(out_path, json.dumps({**report.to_json(results, None),
                                               "version": __version__},
                                              separators=(",", ":")) + "\n")
    if run.interrupted:
        if show:
            click.echo("", err=True)
        _say_interrupted(run.interrupted, len(records), as_json, time.perf_counter() - t0)
        return run.stop()
    if as_json:
        emit_json(report.to_json(results, seconds_taken))
    elif html_path is None and out_path is None:
        click.echo(report.text(results[0]) if len(results) == 1 else report.text_all(results))
    else:
        wrote = " and ".join(p for p in (out_path, html_path) if p)
        click.echo(f"wrote {wrote}: {sum(len(r.decisions) for r in results)} decisions of "
                   f"{len(results)} match{'es' if len(results) != 1 else ''}")


def _progress_bar(show: bool, t0: float):
    def progress(done, total):
        if show and time.perf_counter() - t0 > 1.0:
            width = 30
            filled = int(width * done / max(total, 1))
            click.echo(f"\ranalyze [{'#' * filled}{'.' * (width - filled)}] {done}/{total}",
                       err=True, nl=False)
    return progress


def _say_interrupted(e, n_records: int, as_json: bool, seconds: float) -> None:
    partial = [r for r in e.partial if r is not None]
    how_far = {"interrupted": True, "decisions_done": e.done, "decisions_total": e.total}
    if as_json:
        emit_json({**(report.to_json(partial, seconds) if partial else {}), **how_far})
    elif partial:
        click.echo(report.text(partial[0]) if n_records == 1
                   else report.text_all(list(e.partial) + [None] * (n_records - len(e.partial))))
        click.echo(f"interrupted after {e.done} of {e.total} decisions: the listing and "
                   f"the totals cover those")


def _analysed(journal) -> dict:
    return {k[1]: v for k, v in (journal.done.items() if journal else ())
            if isinstance(k, tuple) and k[0] == "record"}
