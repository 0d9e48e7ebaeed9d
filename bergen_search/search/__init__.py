"""The search: `search(info, Limits(...), seed=...)` ranks every legal move of the seat to move
from what it knows, in python-chess's engine manner, on whichever engine is named.

- `api`: `search()`, which runs the engine named through the registry's protocol;
- `limits`, `results`, `workers`: the public machinery every engine uses (the budget, the
  clock and deadlines; the typed results, `SearchInfo` and a unit's `UnitOutput`; slices and
  stops, processes, units and their merge);
- `registry`: the `Algorithm` protocol an engine implements and the registry that finds
  them; `engines/`: one module per engine (ISMCTS, expectimax, the exact endgame, flat
  Monte Carlo, UCB1 at the root), each registering itself;
- `endgame`: the end of a two-player round solved exactly, as a game;
- `backend`: the compiled modules, or their pure-Python twins (`ismcts_ref`, `expectimax_ref`,
  `endgame_ref`, `policy`), which give the same answers for the same seed.

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
