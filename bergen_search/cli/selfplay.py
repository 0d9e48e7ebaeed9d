"""`bergen selfplay`: whole matches between engines, written as records."""
from __future__ import annotations

import re
import time

import click

from ..game.backend import ACTIVE
from ..play.engines import parse_engine_list, parse_externals
from ..play.selfplay import selfplay as run_selfplay
from ..views.selfplay import selfplay_summary
from . import output
from .longrun import LongRun
from .options import (MAX_GAMES, external_commands, play_run_options,
                      rules_from_options, seed_option, start_scores_from, workers_option)

#: An engine registration's shape, NAME=COMMAND (an engine spec never has '=' before ':').
REGISTRATION = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_.-]*\s*=")


@click.command()
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=1, show_default=True,
              help=f"Number of matches to play (at most {MAX_GAMES:,}).")
@seed_option("Seed of the run; match i is seeded from it and i.")
@click.option("--engine", "engine_args", multiple=True, metavar="SPEC[,SPEC...]",
              help="Engine per seat (one for all, or one per seat; default random): random, "
                   "greedy, ismcts[:iterations=N,time=S,exploration=C,objective=O,playout=P,"
                   "inference=on|off,twins=on|off], classic[:...], "
                   "expectimax[:iterations=N,time=S,depth=D,playouts=P,objective=O], or the "
                   "NAME[:...] of an --external.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the records here (.jsonl, one match per line) instead of stdout.")
@click.option("--force", is_flag=True, help="Let --out replace an existing file.")
@click.option("--start-scores", metavar="A,B,...",
              help="Scores by side at the start of each match.")
@workers_option("Processes playing matches in parallel (the same records as one).")
@play_run_options
def selfplay(*, games, seed, engine_args, out_path, force, start_scores, workers,
             external_engines, engine_timeout, cluster, quiet, resume, **kw):
    """Play whole matches between engines and write complete bergen-record/1 records.

    Every record replays with `bergen replay`. Same seed, same records, byte for byte, on
    either backend, with any --workers or --cluster. With --out, the file appears only once
    every match is played, and a journal beside it (OUT.journal) keeps each match as it
    finishes: after Ctrl-C, kill -9 or a lost scheduler, --resume plays only the rest and
    writes the same file. An existing --out file is replaced only with --force, or by a
    --resume of the run its journal holds. Ctrl-C (SIGTERM, SIGHUP) exits 130 (143, 129)
    saying how far the run got.
    """
    rules = rules_from_options(kw)
    for arg in engine_args:
        if REGISTRATION.match(arg):
            raise click.BadParameter(f"{arg.split('=')[0].strip()}=COMMAND registers an engine "
                                     f"in another process: give it to --external, and its "
                                     f"name to --engine", param_hint="--engine")
    if len(engine_args) > 1:
        raise click.BadParameter("give the engines once, one for all seats or one per seat "
                                 "(SPEC,SPEC,...)", param_hint="--engine")
    specs = parse_engine_list(engine_args[0] if engine_args else "random", rules.players,
                              parse_externals(external_engines, engine_timeout))
    commands = external_commands(specs, cluster)
    start = start_scores_from(start_scores, rules)
    output.search_note(specs)
    t0 = time.perf_counter()
    with LongRun(out_path, "selfplay", seed, resume, total=games, unit="matches",
                 partial=[], force=force) as run:
        run.start({"games": games, "engines": [str(x) for x in specs], "rules": rules.to_dict(),
                   "start_scores": start, **({"commands": commands} if commands else {})})
        rows = run_selfplay(rules, specs, games, seed, start, workers=workers, cluster=cluster,
                            progress=output.progress_bar("selfplay", "matches", quiet),
                            **run.hooks)
        output.write_lines(out_path, [line for line, _ in rows])
    if run.interrupted:
        e = run.interrupted
        if out_path is None:
            for line, _ in e.partial:
                click.echo(line)
        return run.stop(f" (the first {len(e.partial)} printed)"
                        if out_path is None and e.partial else "")
    click.echo(selfplay_summary([winner for _, winner in rows], rules.n_sides,
                                time.perf_counter() - t0, ACTIVE.name, run.resumed, out_path),
               err=True)
