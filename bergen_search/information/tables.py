"""The table of worlds each value of the searches' `inference` setting draws from, in one
place for the searches (`search.registry.Algorithm.table`) and the beliefs
(`beliefs.beliefs`, `bergen show --weighting`), so that the chances shown are those the
search draws by.

>>> from bergen_search.formats.game import load_game
>>> info = load_game(open("examples/decision.json").read())
>>> type(world_table(info, True)).__name__, type(world_table(info, "action-sir")).__name__
('WorldTable', 'PoolTable')
"""
from __future__ import annotations

from .inference import RESAMPLED, inference_model, tile_factors
from .infoset import InfoSet
from .resample import pool_table
from .sampler import WorldTable


def world_table(info: InfoSet, setting) -> WorldTable:
    """The table `setting` draws from: the uniform one (off), the exact table of the tile
    factors of the model it names (on: the hand-set model; learned; action: the hand-set
    model moved by the action model), or with `action-sir` the hand-set model's worlds
    resampled by the action model (`resample.pool_table`, which says its pool in `resampled`)."""
    if setting == RESAMPLED:
        return pool_table(info)
    model = inference_model(info.rules, setting)
    return WorldTable(info, None if model is None else tile_factors(info, model))
