"""The game: tiles as small ints and masks, the rule set, the reference rules engine, the
seeded RNG, and matches between the simple engines (with the compiled core's twin of each
in `backend`). Nothing here knows what a seat can see or how to search.

>>> from bergen_search.game import Rules, State, Tile
>>> Rules().target, str(Tile.parse("5-3"))
(15, '3-5')
"""
from .rng import Rng, derive_seed
from .rules import Rules
from .state import DRAW, PASS, State
from .tiles import Tile

__all__ = ["DRAW", "PASS", "Rng", "Rules", "State", "Tile", "derive_seed"]
