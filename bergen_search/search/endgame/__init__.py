"""The exact endgame: the end of a two-player round solved as the game it is.

Once no draw can happen, the rest of a two-player round is a finite zero-sum game with hidden
hands, the deals weighted as everyone saw them. Discounted CFR (Brown & Sandholm 2019) runs
until the exploitability of the average strategy pair is within tolerance; a move's value is
the seat's hand's best response after it, the mix its average strategy, and a move outside
the mix is valued again against an answer (`solving.value_after`; docs/GUIDE.md).

>>> from bergen_search.formats.game import load_game
>>> info = load_game('{"format":"bergen-position/1","rules":{"players":2},"scores":[5,3],'
...     '"to_move":1,"hand":["1-2","1-5"],"line":"6-4 4-0 0-1 1-3 3-2 2-4 4-4 4-3 3-3 3-6 '
...     '6-5 5-0 0-6 6-6 6-2 2-5 5-5 5-4 4-1 1-1","hand_sizes":[4,2],"reserve_size":2,'
...     '"voids":{"0":[4,6],"1":[3]}}')
>>> sol = solve(game(info), tolerance=1e-6)
>>> [(m, round(v, 3)) for m, v in sorted(sol.values.items())]
[(Move.parse('1-2:R'), -0.4), (Move.parse('1-5:R'), 1.2)]
>>> sol.exploitability <= sol.tolerance
True
"""
from __future__ import annotations

from ...errors import TooBig
from .attempts import Attempt, attempt
from .budget import allowance, budget_work
from .deals import (Endgame, Prediction, applicable, at_stage, compiled, game, predict,
                    public_table, shown_free)
from .shown import Bracket, Limited, bracket
from .solving import (Iterated, Refined, Solution, Solver, after, played_mix, solve,
                      value_after)

__all__ = ["Attempt", "Bracket", "Endgame", "Iterated", "Limited", "Prediction", "Refined",
           "Solution", "Solver", "TooBig", "after", "allowance", "applicable", "at_stage",
           "attempt", "bracket", "budget_work", "compiled", "game", "played_mix", "predict",
           "public_table", "shown_free", "solve", "value_after"]
