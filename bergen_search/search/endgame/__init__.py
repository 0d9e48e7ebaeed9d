"""The exact endgame: the end of a two-player round solved as the game it is.

Once the reserve is down to the tiles that are never drawn (`reserve_kept`; under `draw:
one` likewise), no chance is left but the deal itself. With two players the rest of the
round is then a finite two-player zero-sum game with hidden hands:

- chance deals the tiles nobody has seen into both hands and the kept tiles, uniformly over
  the deals consistent with what *everyone* saw (hand sizes, the lead, the voids proved by
  draws and passes: `infoset.PublicView`), each deal weighted by its number of histories, as
  the exact sampler counts them (`sampler.WorldTable`); with `inference`, also by the
  inference model's factors (`inference.tile_factors`, for both seats' plays);
- each player knows its own hand; every action is public. The seat to move holds one of the
  dealt hands, and the other player does not know which: a seat's value is the value of its
  own hand under an equilibrium of that game, not of a game where its hand were shown.

The solver (`_endgame.pyx`, its oracle `endgame_ref.py`) builds the public tree and runs
discounted CFR (Brown & Sandholm 2019) over hand vectors until the *exploitability* of the
average strategy pair, measured exactly by a best response for each side, is below the
tolerance: `exploitability` = (what the seat's side gets best-responding to the other's
strategy) - (what it gets when the other best-responds to its strategy), over the whole
game (every deal); the game's value lies between the two. Each legal move's value is the
seat's best-response value after it against the other's solved strategy, for the seat's own
hand; the mix is the seat's average strategy there (a mixed equilibrium is an answer: "0-2
70%, 2-2 30%"). Values of single hands are not unique across the equilibria of a game with
hidden information (as in poker); those printed are the solved strategy's.

*The bound printed with a hand's values* (`Solution.hand_bound`, the "± ε" of `best`,
`analyze` and the protocol) is the game's exploitability divided by the hand's share of the
deals' weight: the whole game's error put on this one hand. The solver iterates until that
bound is within HAND_TOLERANCE and the game's exploitability within TOLERANCE, or prints the
bound reached when the budget runs out. It is not a theorem for every game (a hand's values are not
unique across equilibria, and a solved opponent may answer one hand better than an
equilibrium does): it is the error allotment of the issue that asked for it, checked against
solves at tolerance 1e-5 (`tests/test_endgame.py`, `lab/endgame/endgame_stage.py --bounds`)
for the moves the solution plays.

*A move outside the played mix's support* is a deviation, and the solve's own value of it is
too kind: the other side's strategy after it is weighted by how often the seat takes it, which
goes to 0, so CFR never has to answer it well (on the issue's example 1-6:L read +1.993 where
a good answer holds it to -2.0). Each such move is valued again (`value_after`): the subgame
after it is solved as a game of its own, the other side believing every hand that could have
taken the move as likely as the prior makes it (a uniform tremble: the deals where the seat's
hand could have taken it, with their prior weights), both sides playing an equilibrium of it;
the move's value is the seat's hand's best response there against the other side's solved
strategy, with the subgame's own hand bound (`Solution.move_bounds`). It is the value of the
mistake against an opponent who answers it as well as it can without knowing the seat's
hand: checked against a sequence-form LP of that subgame, which gives the least the hand gets
against any of the other side's equilibrium answers (`tests/test_endgame_deviations.py`).
The subgames are solved after the root game, best valued first, each with a fair share of
what is left of the budget (their work is the search's); a move the budget did not reach
keeps the solve's value and is flagged unrefined (`Solution.refined`, "refined" in the JSON,
"unrefined" in `best`'s text). The mix is the root solve's.
The mix played leaves out every move whose value is below the best's by more than twice the
bound (the two values' bounds together: such a move is worse whichever way the errors fall);
the average strategy keeps a trace of every move CFR tried on the way.

It applies to two players with objective `points` (the margin of the round); three or four
players are not a zero-sum game, partnerships are a team game, and the match objective needs
match-win values at the leaves (not built): there, and where the public tree is too big for
the budget, the search falls back to today's engine and says so (`Attempt.why`).

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

The package's modules, each one job: `budget` (the figures: tolerances, costs, caps;
`allowance`), `deals` (whether it applies, the deals of what everyone saw: `game`),
`prediction` (its size before anything is built), `native` (the compiled solver, when
built), `solvers` (the two solvers behind one `Solver` interface; `build`, `iterate`),
`solving` (`solve`, `Solution`, `refine`), `deviations` (`after`, `value_after`), `shown`
(`bracket`) and `attempts` (`attempt`: the search's step, its result). Code that replaces
one of them in a test replaces it in its own module (`endgame.solvers.build`), where every
caller looks it up.
"""
from __future__ import annotations

from ...errors import TooBig
from .attempts import Attempt, attempt
from .budget import allowance, budget_work
from .deals import Endgame, applicable, at_stage, game, public_table, shown_free
from .deviations import Refined, after, value_after
from .prediction import Prediction, predict
from .shown import Bracket, Limited, bracket
from .native import compiled
from .solvers import Iterated, Solver
from .solving import Solution, played_mix, solve

__all__ = ["Attempt", "Bracket", "Endgame", "Iterated", "Limited", "Prediction", "Refined",
           "Solution", "Solver", "TooBig", "after", "allowance", "applicable", "at_stage",
           "attempt", "bracket", "budget_work", "compiled", "game", "played_mix", "predict",
           "public_table", "shown_free", "solve", "value_after"]
