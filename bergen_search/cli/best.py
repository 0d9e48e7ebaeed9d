"""`bergen best`: every legal move of the seat to move, ranked; `bergen eval`: the position
scored for every side."""
from __future__ import annotations

import click

from ..search.api import Limits
from ..search.evaluate import answer, evaluate
from ..views import evaluation
from ..views.search import best_document, best_text, interrupted_note
from .options import game_from_options, game_input, json_option, search_options, \
    search_settings
from .output import budget_text, emit_json, search_note, working


def _command(name: str, verbose_help: str):
    """A command of GAME, the search's options, --json and --verbose (`verbose_help`)."""
    def apply(f):
        f = click.option("--verbose", "-v", is_flag=True, help=verbose_help)(f)
        return click.command(name=name)(game_input(search_options(json_option(f))))
    return apply


def _start(game, kw, algorithm, sets, *, iterations, seconds, memory_mb) -> tuple:
    """(the game, the settings, the limits) of the options, checked."""
    settings = search_settings(algorithm, sets)
    game_ = game_from_options(game, kw)
    search_note()
    return game_, settings, Limits(iterations=iterations, time=seconds, memory_mb=memory_mb)


@_command("best", "Also the settings, why the exact endgame did not solve, the bracket's "
                  "table, visits and what the values mean.")
def best(*, game, algorithm, objective, iterations, seconds, memory_mb, seed, workers,
         sets, as_json, verbose, **kw):
    """Rank every legal move of the seat to move, best first.

    GAME is a bergen-record/1 (its last round unfinished: the seat to move is the viewpoint)
    or a bergen-position/1, a path or - for standard input; or give the position flags.
    The search uses only what the seat to move could know.
    """
    game_, settings, limits = _start(game, kw, algorithm, sets, iterations=iterations,
                                     seconds=seconds, memory_mb=memory_mb)
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


@_command("eval", "Also why the exact endgame did not solve, and the bracket's table.")
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
    game_, settings, limits = _start(game, kw, algorithm, sets, iterations=iterations,
                                     seconds=seconds, memory_mb=memory_mb)
    with working(f"evaluating (searches of {budget_text(limits, settings)})"):
        ev = evaluate(game_.info, settings, objective, limits, seed, workers)
    status = 130 if ev.interrupted else 0
    if as_json:
        emit_json(evaluation.evaluation_document(game_, ev, algorithm=algorithm,
                                                 objective=objective, seed=seed))
    else:
        click.echo(evaluation.evaluation_text(game_, ev, settings.engine,
                                              algorithm=algorithm, objective=objective,
                                              seed=seed, verbose=verbose))
        if status:
            click.echo(f"bergen: {evaluation.interrupted_note(ev)}", err=True)
    return status
