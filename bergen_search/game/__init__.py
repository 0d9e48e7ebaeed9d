"""The game: tiles, the rule set, the reference rules engine, the seeded RNG and matches of
the simple engines (the compiled core's twin in `backend`).

>>> from bergen_search.game import Rules, State, Tile
>>> Rules().target, str(Tile.parse("5-3"))
(15, '3-5')
"""
from .rng import Rng, derive_seed
from .rules import Rules
from .state import DRAW, PASS, State
from .tiles import Tile

__all__ = ["DRAW", "PASS", "Rng", "Rules", "State", "Tile", "derive_seed"]
