"""`bergen play`: a match against the engine in the terminal."""
from __future__ import annotations

import os
import sys
import time

import click

from ..errors import BergenError
from ..formats.jsondoc import pretty_json
from ..play.engines import parse_engine_spec
from ..search import backend
from .options import rule_options, rules_from_options
from .output import check_writable, fresh_name, search_note, write_atomic
from .session import HELP, PlaySession

#: The budget of `play`'s default engine (ISMCTS iterations a move).
PLAY_ITERATIONS = 20000


@click.command()
@click.option("--engine", "engine_spec", default=None, metavar="SPEC",
              help="The engine you play against (random, greedy, ismcts:..., expectimax:...; "
                   f"default ismcts:iterations={PLAY_ITERATIONS}, or 1/"
                   f"{backend.FALLBACK_DIVISOR} of it without the compiled core).")
@click.option("--you", "seat", type=click.IntRange(0, 3), default=None, metavar="SEAT",
              help="Your seat (default 0; 0 leads the turn order).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Seed of the deals (default: from the clock).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Where to save the game (default bergen-game-SEED.json, or -SEED-2.json "
                   "and so on when that exists). Checked before the first move.")
@click.option("--force", is_flag=True, help="Let --out replace an existing file.")
@rule_options
def play(engine_spec, seat, seed, out_path, force, **kw):
    """Play a match against the engine in the terminal.

    Type moves as a-b:L or a-b:R (a bare a-b when it fits one end only, or both ends give
    the same position mirrored); 'hint' asks the
    engine, 'undo' takes back your last play, 'quit' (or Ctrl-C, even while the engine
    thinks, or end of input) saves the game as a bergen-record/1 that `bergen analyze` can
    read. An existing file is never replaced without --force.
    """
    seat = 0 if seat is None else seat
    rules = rules_from_options(kw)
    if seat >= rules.players:
        raise click.BadParameter(f"seat {seat} does not exist with {rules.players} players",
                                 param_hint="--you")
    spec = parse_engine_spec(engine_spec or
                             f"ismcts:iterations={backend.SEARCH.budget(PLAY_ITERATIONS)}")
    search_note([spec])
    if seed is None:
        seed = time.time_ns() % 1_000_000
    if out_path is None:
        out_path = fresh_name(f"bergen-game-{seed}", ".json")
    elif os.path.exists(out_path) and not force:
        raise click.BadParameter(f"{out_path} exists: give --force to replace it, or "
                                 f"another --out", param_hint="--out")
    check_writable(out_path, "--out")
    session = PlaySession(rules, spec, seat, seed)
    commands = {"help": lambda _: [HELP], "?": lambda _: [HELP], "": lambda _: [],
                "hint": lambda _: [session.hint()], "undo": lambda _: session.undo(),
                "moves": lambda _: ["legal: " + ", ".join(session.legal())]}
    click.echo(f"Bergen against {spec}; you are seat {seat}; seed {seed}.\n{HELP}")
    try:
        for line in session.advance():
            click.echo(line)
        while not session.over:
            click.echo(session.view())
            click.echo("your move> ", nl=False)
            text = sys.stdin.readline()
            if not text:
                click.echo("")
                break
            cmd = text.strip()
            if cmd in ("quit", "q", "exit"):
                break
            try:
                lines = commands.get(cmd, session.play)(cmd)
            except BergenError as e:
                lines = [f"not played: {e}"]
            for line in lines:
                click.echo(line)
    except KeyboardInterrupt:
        status = 130
        click.echo("")
        click.echo("bergen: interrupted", err=True)
    else:
        status = 0
    write_atomic(out_path, pretty_json(session.record()) + "\n")
    click.echo(f"game saved to {out_path}")
    return status
