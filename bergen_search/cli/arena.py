"""`bergen arena`: engine A against engine B over duplicate sets."""
from __future__ import annotations

import click

from ..formats.record_io import dump_record
from ..play.arena import run_arena
from ..play.engines import parse_engine_spec, parse_externals
from ..search import backend
from ..views.arena import arena_document, arena_text, interrupted_document, interrupted_text
from . import output
from .longrun import LongRun
from .options import (MAX_GAMES, external_commands, json_option, play_run_options,
                      rules_from_options, seed_option, start_scores_from, workers_option)


@click.command()
@click.argument("engine_a", metavar="A")
@click.argument("engine_b", metavar="B")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True,
              help=f"Duplicate sets: each plays the same deals with the engines' seats "
                   f"swapped (at most {MAX_GAMES:,}).")
@seed_option("Seed of the run; set i is seeded from it and i.")
@workers_option("Processes playing sets in parallel (same results as one).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True),
              help="Write every match as a complete record (.jsonl).")
@click.option("--force", is_flag=True, help="Let --out replace an existing file.")
@click.option("--round", "single_round", is_flag=True,
              help="Play single rounds instead of whole matches: each set is one deal played "
                   "in every seating from --start-scores (far less variance per game).")
@click.option("--start-scores", metavar="A,B,...",
              help="Scores by side at the start of every match (or round).")
@click.option("--no-luck-adjust", "no_luck_adjust", is_flag=True,
              help="Report only the raw margin (skip the correction for the luck of the "
                   "draws).")
@play_run_options
@json_option
def arena(*, engine_a, engine_b, games, seed, workers, out_path, force, single_round, start_scores,
          no_luck_adjust, external_engines, engine_timeout, cluster, quiet, resume, as_json,
          **kw):
    """Play many matches between engines A and B, as duplicate sets so that luck cancels.

    Engines: random, greedy, ismcts[:iterations=N,time=S,...] (the default engine), classic[:...]
    (ISMCTS before inference and safe playouts), expectimax[:iterations=N,depth=D,...], and
    engines in other processes registered with --external NAME=COMMAND (another build's
    `bergen engine`, say), each sent only what its seat sees.
    Reports A's win rate with a 95% interval computed from the sets, and points per round:
    the margin less the luck of the draws (unbiased, smaller error) and the raw margin.
    With --out, a journal beside the file keeps each set as it finishes: --resume goes on
    after Ctrl-C, kill -9 or a lost scheduler. An existing --out file is replaced only with
    --force, or by a --resume of the run its journal holds. Ctrl-C prints the figures of the
    finished sets and exits 130.
    """
    rules = rules_from_options(kw)
    externals = parse_externals(external_engines, engine_timeout)
    spec_a = parse_engine_spec(engine_a, externals)
    spec_b = parse_engine_spec(engine_b, externals)
    commands = external_commands([spec_a, spec_b], cluster)
    start = start_scores_from(start_scores, rules)
    output.search_note([spec_a, spec_b])
    with LongRun(out_path, "arena", seed, resume, total=games, unit="sets",
                 force=force) as run:
        run.start({"engines": [str(spec_a), str(spec_b)], "games": games,
                   "rules": rules.to_dict(), "start_scores": start, "round": single_round,
                   **({"commands": commands} if commands else {})})
        result = run_arena(rules, spec_a, spec_b, games, seed, workers=workers,
                           progress=output.progress_bar("arena", "sets", quiet),
                           keep_logs=out_path is not None, start_scores=start,
                           single_round=single_round, cluster=cluster,
                           luck_adjust=not no_luck_adjust, **run.hooks)
        if out_path:
            output.write_lines(out_path,
                               [dump_record(log) for log in result.logs])
    if run.interrupted:
        e = run.interrupted
        if as_json:
            output.emit_json(interrupted_document(e.partial, e.done, e.total))
        elif e.partial:
            click.echo(interrupted_text(e.partial, e.done, e.total))
        return run.stop()
    if as_json:
        output.emit_json(arena_document(result, backend.SEARCH.name))
    else:
        click.echo(arena_text(result))
        if out_path:
            click.echo(f"saved to {out_path}"
                       + (f" ({run.resumed} sets from the journal)" if run.resumed else ""))
