"""The search: `search(info, Limits(...), seed=...)` ranks every legal move of the seat to move
from what it knows, on whichever engine of the registry is named (docs/DESIGN.md).

>>> from bergen_search.formats import load_game
>>> info = load_game("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14")
>>> result = search(info, Limits(iterations=2000), seed=1)
>>> result.best == result.moves[0].move
True
"""
from .api import search
from .limits import Limits
from .registry import Algorithm, Setting, names, register
from .results import MoveValue, SearchInfo, SearchResult, choices, paired_stderr, pool

__all__ = ["Algorithm", "Limits", "MoveValue", "SearchInfo", "SearchResult", "Setting",
           "choices", "names", "paired_stderr", "pool", "register", "search"]
