"""What one seat knows: its information set, the exact world sampler, inference from the
other seats' plays, the hidden-play check of a record, and the beliefs a player reads.

>>> from bergen_search.formats.game import load
>>> game = load("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14")
>>> WorldTable(game.info).total
462
"""
from .beliefs import Beliefs, beliefs
from .inference import TileModel, tile_factors
from .infoset import InfoSet, Observer, from_position
from .sampler import ReferenceSampler, WorldTable, count_deals

__all__ = ["Beliefs", "InfoSet", "Observer", "ReferenceSampler", "TileModel", "WorldTable",
           "beliefs", "count_deals", "from_position", "tile_factors"]
