"""`bergen show`: what the seat to move knows."""
from __future__ import annotations

import click

from ..information.beliefs import WEIGHTINGS
from ..views.show import knowledge
from .options import game_from_options, game_input, json_option
from .output import emit_json


@click.command()
@game_input
@click.option("--weighting", type=click.Choice(WEIGHTINGS),
              default="uniform", show_default=True,
              help="How the hidden tiles' chances are weighed: every consistent history "
                   "alike (the searches' inference off), or by what the other seats' plays "
                   "say about their hands (the hand-set model, as the searches' inference "
                   "on weighs them).")
@json_option
def show(game, weighting, as_json, **kw):
    """Check a game and print what its seat to move knows: the hands and their sizes, the
    voids each other seat has proved and where, the tiles each may still hold, the lead's
    proof, where each hidden tile is (each seat's and the reserve's chance of holding it),
    the number of consistent deals (exact), and the position string.

    GAME is a record, a position, - for standard input, or a position string; or give
    --position STRING or the position flags.
    """
    known = knowledge(game_from_options(game, kw), weighting)
    if as_json:
        emit_json(known.to_json())
    else:
        click.echo(known.text())

