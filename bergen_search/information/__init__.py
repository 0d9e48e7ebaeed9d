"""What one seat knows: its information set (what it saw, and every proof about the hidden
tiles), the exact world sampler (every deal consistent with it, counted and drawn
uniformly), inference (what the other seats' free choices say, softly), the hidden-play check
of a record, and the beliefs a player reads (each unseen tile's chance of being in each
hand and in the reserve). Nothing here searches, and nothing reads a hand the seat did not
see.

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
