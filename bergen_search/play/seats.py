"""The engines in their seats (`Seats`), and a whole match between engine specs
(`play_engines`).

>>> from bergen_search.play.engines import parse_engine_list
>>> from bergen_search.game.rules import Rules
>>> log = play_engines(Rules(), parse_engine_list("greedy,random", 2), seed=3)
>>> log.winner in (0, 1), len(log.rounds) >= 1
(True, True)
"""
from __future__ import annotations

import time
import warnings

from ..constants import SEARCH_STREAM
from ..game import backend as game_backend
from ..game import match
from ..game.match import MatchLog, choose
from ..game.policy import greedy_choice
from ..game.rng import Rng, derive_seed
from ..game.rules import Rules
from ..game.state import State
from ..information.infoset import Observer
from .engines import EngineWarning
from .external import ExternalSeat


class Seats:
    """The engines in their seats during one match, a search seeing only its seat's
    information. `specs[s]` None: no engine plays s; `rng`: the random and greedy moves'
    stream; `timing` gets seat -> [searches, seconds]."""

    def __init__(self, rules: Rules, specs, seed: int, rng: Rng, timing: dict | None = None):
        self.rules, self.specs, self.seed, self.rng = rules, list(specs), seed, rng
        self.codes = [None if s is None else s.simple_code for s in self.specs]
        self.decisions = 0
        self.observers: dict = {}
        self.external = {s: ExternalSeat(rules, s, spec) for s, spec in enumerate(self.specs)
                         if spec is not None and spec.engine is not None}
        self.timing = {} if timing is None else timing

    def new_round(self, state: State) -> None:
        self.observers = {s: Observer(self.rules, {s}, state)
                          for s, spec in enumerate(self.specs)
                          if spec is not None and spec.simple_code is None
                          and s not in self.external}
        for seat in self.external.values():
            seat.new_round(state)

    def choose(self, state: State, moves: list) -> int:
        """The move of the seat to move (one of `moves`, its legal moves)."""
        seat = state.to_move
        if len(moves) == 1 or self.codes[seat] is not None:
            return choose(self.codes[seat] or 0, state, moves, self.rng)
        start = time.perf_counter()
        seed = derive_seed(self.seed ^ SEARCH_STREAM, self.decisions)
        if seat in self.external:
            move = self.external[seat].choose(state, moves, seed)
            self._count(seat, start)
            return move
        args = self.specs[seat].search_args()
        info = self.observers[seat].infoset(seat)
        result = args.search(info, seed=seed, values=False)
        if result.info.get("interrupted"):      # a match does not go on with what it found
            raise KeyboardInterrupt
        self._count(seat, start)
        if result.info.get("empty"):            # no values to choose by: the greedy move
            unit = args.settings.engine.unit.rstrip("s")
            warnings.warn(EngineWarning(
                f"engine {self.specs[seat]} finished no {unit} within its time limit at a "
                f"move, and played the greedy move there (give it more time"
                + (", or less depth)" if unit == "world" else ")")), stacklevel=2)
            return greedy_choice(state, moves)
        return result.moves[0].code

    def _count(self, seat: int, start: float) -> None:
        self.decisions += 1
        spent = self.timing.setdefault(seat, [0, 0.0])
        spent[0] += 1
        spent[1] += time.perf_counter() - start

    def observe(self, seat: int, move: int, after: State) -> None:
        for obs in self.observers.values():
            obs.step(seat, move, after)
        for external in self.external.values():
            external.observe(seat, move, after)


def play_engines(rules: Rules, specs, seed: int, start_scores=None, backend=None,
                 timing: dict | None = None, *, max_rounds: int | None = None) -> MatchLog:
    """A whole match between engines (with only `random` and `greedy`, the backend's)."""
    codes = [s.simple_code for s in specs]
    if all(c is not None for c in codes):
        return (backend or game_backend.ACTIVE).play_match(rules, codes, seed, start_scores,
                                                           max_rounds=max_rounds)
    return match.play_match(rules, codes, seed, start_scores,
                            seats=lambda rng: Seats(rules, specs, seed, rng, timing),
                            max_rounds=max_rounds)
