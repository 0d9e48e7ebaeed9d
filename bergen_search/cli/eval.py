"""`bergen eval`: the position scored for every side."""
from __future__ import annotations

import click

from ..search.api import Limits
from ..search.evaluate import evaluate
from ..views.evaluation import evaluation_document, evaluation_text, interrupted_note
from .options import game_from_options, game_input, json_option, search_options, \
    search_settings
from .output import budget_text, emit_json, search_note, working


@click.command(name="eval")
@game_input
@search_options
@json_option
@click.option("--verbose", "-v", is_flag=True,
              help="Also why the exact endgame did not solve, and the bracket's table.")
def eval_(*, game, algorithm, objective, iterations, seconds, memory_mb, seed, workers,
          sets, as_json, verbose, **kw):
    """Score the position for every side: expected points to the end of the round and the
    probability of winning the match.

    The value (with its standard error) is the best move's, from the side to move, by the
    chosen algorithm and objective. Each side's expected points and match chances come from
    ISMCTS searches with the points and the match objective (same budget and seed; the
    chosen algorithm's settings when it is ISMCTS, else ISMCTS's defaults). Ctrl-C prints
    what the searches had found (a side's figure not searched yet is n/a) and exits 130.
    """
    settings = search_settings(algorithm, sets)
    game_ = game_from_options(game, kw)
    search_note()
    limits = Limits(iterations=iterations, time=seconds, memory_mb=memory_mb)
    with working(f"evaluating (searches of {budget_text(limits, settings)})"):
        ev = evaluate(game_.info, settings, objective, limits, seed, workers)
    status = 130 if ev.interrupted else 0
    if as_json:
        emit_json(evaluation_document(game_, ev, algorithm=algorithm, objective=objective,
                                      seed=seed))
    else:
        click.echo(evaluation_text(game_, ev, settings.engine,
                                   algorithm=algorithm, objective=objective, seed=seed,
                                   verbose=verbose))
        if status:
            click.echo(f"bergen: {interrupted_note(ev)}", err=True)
    return status
