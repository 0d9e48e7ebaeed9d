"""`bergen best`: every legal move of the seat to move, ranked."""
from __future__ import annotations

import click

from ..search.api import Limits
from ..search.evaluate import answer
from ..views.search import best_document, best_text, interrupted_note
from .options import game_from_options, game_input, json_option, search_options, \
    search_settings
from .output import budget_text, emit_json, search_note, working


@click.command()
@game_input
@search_options
@json_option
@click.option("--verbose", "-v", is_flag=True,
              help="Also the settings, why the exact endgame did not solve, the bracket's "
                   "table, visits and what the values mean.")
def best(*, game, algorithm, objective, iterations, seconds, memory_mb, seed, workers,
         sets, as_json, verbose, **kw):
    """Rank every legal move of the seat to move, best first.

    GAME is a bergen-record/1 (its last round unfinished: the seat to move is the viewpoint)
    or a bergen-position/1, a path or - for standard input; or give the position flags.
    The search uses only what the seat to move could know.
    """
    settings = search_settings(algorithm, sets)
    game_ = game_from_options(game, kw)
    search_note()
    limits = Limits(iterations=iterations, time=seconds, memory_mb=memory_mb)
    with working(f"searching ({budget_text(limits, settings)})"):
        result = answer(game_.info, settings, objective, limits, seed, workers)
    status = 130 if result.info.get("interrupted") else 0
    if as_json:
        emit_json(best_document(game_, result, seed=seed, workers=workers,
                                objective=objective, algorithm=algorithm))
    else:
        click.echo(best_text(game_, result, settings.engine,
                             algorithm=algorithm, objective=objective, seed=seed,
                             verbose=verbose))
        if status:
            click.echo(f"bergen: {interrupted_note(result.info, settings.engine)}", err=True)
    return status
