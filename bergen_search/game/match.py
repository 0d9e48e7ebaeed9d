"""The match: its deals, the simple engines (`random`, `greedy`), and the one match driver.

A `Match` deals from `Rng(seed)`, keeps the state and the `MatchLog`, and applies each action,
telling the seated engines (`play.seats.Seats`). The core's `play_match` returns the identical
log for the same seed with the simple engines.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..constants import PLAY_STREAM
from .policy import greedy_choice
from .rng import Rng
from .rules import Rules
from .state import DRAW, State, find_leader
from .tiles import N_TILES, mask_of

ENGINE_RANDOM = 0
ENGINE_GREEDY = 1
SIMPLE_ENGINES = {"random": ENGINE_RANDOM, "greedy": ENGINE_GREEDY}


@dataclass
class RoundLog:
    hands: list            # masks as dealt
    reserve: list          # tiles in draw order
    events: list           # (seat, action, tile): action a play, DRAW (tile drawn) or PASS
    end: str | None = None     # "out", "blocked", "target"; None while it is played
    scores: tuple = ()     # by side, after the round


@dataclass
class MatchLog:
    rules: Rules
    start_scores: tuple
    rounds: list = field(default_factory=list)
    scores: tuple = ()
    winner: int | None = None   # the side that reached the target; None before, or without one


def deal(rules: Rules, rng: Rng):
    """Shuffle the 28 tiles, hand them out seat by seat, the rest is the reserve in draw
    order; deal again while nobody holds a double under `no_double: redeal`."""
    n, h = rules.players, rules.hand_size
    while True:
        tiles = list(range(N_TILES))
        rng.shuffle(tiles)
        hands = [mask_of(tiles[i * h:(i + 1) * h]) for i in range(n)]
        if find_leader(rules, hands) is not None:
            return hands, tiles[n * h:]


def choose(engine: int, state: State, moves: list, rng: Rng) -> int:
    if len(moves) == 1:
        return moves[0]
    if engine == ENGINE_RANDOM:
        return moves[rng.below(len(moves))]
    return greedy_choice(state, moves)


def apply_action(state: State, move: int, events: list, seats=None) -> State:
    """Apply `move` of the seat to move, appending `(seat, move, tile drawn or -1)` to
    `events`; a `seats` (`play.seats.Seats`) `observe`s it. Returns the state after it."""
    seat = state.to_move
    if move == DRAW:
        assert state.reserve is not None
        tile = state.reserve[0]
    else:
        tile = -1
    after = state.apply(move)
    if seats is not None:
        seats.observe(seat, move, after)
    events.append((seat, move, tile))
    return after


def play_round(state: State, engines, rng: Rng, events: list, seats=None, until=None,
               *, on_action=None) -> State:
    """Play the round to its end, appending `(seat, move, tile drawn or -1)` to `events`, the
    moves chosen by `engines[seat]` or `seats`. `until(state, moves)` stops it before the
    action it is true for; `on_action(before, move, after)` hears of each action."""
    while state.ended is None:
        moves = state.legal_moves()
        if until is not None and until(state, moves):
            break
        if seats is None:
            m = choose(engines[state.to_move], state, moves, rng)
        else:
            m = seats.choose(state, moves)
        after = apply_action(state, m, events, seats)
        if on_action is not None:
            on_action(state, m, after)
        state = after
    return state


class Match:
    """A match being played from `start_scores` (default zeros) until a side reaches the
    target or `max_rounds` rounds are played: deals from `Rng(seed)`, choices from
    `Rng(seed ^ PLAY_STREAM)`; `seats` what `seats(play_rng)` made (None: the simple engines'
    codes choose)."""

    def __init__(self, rules: Rules, seed: int, start_scores=None, seats=None,
                 max_rounds: int | None = None):
        self.rules, self.max_rounds = rules, max_rounds
        self.deal_rng, self.play_rng = Rng(seed), Rng(seed ^ PLAY_STREAM)
        scores = tuple(start_scores) if start_scores is not None else (0,) * rules.n_sides
        self.log = MatchLog(rules, scores)
        self.seats = None if seats is None else seats(self.play_rng)
        self.state: State       # set by new_round, here and at each round
        self.new_round()

    @property
    def round(self) -> RoundLog:
        """The round being played (the last of the log)."""
        return self.log.rounds[-1]

    @property
    def over(self) -> bool:
        return self.log.winner is not None or (
            self.state.ended is not None and len(self.log.rounds) == self.max_rounds)

    def new_round(self) -> None:
        """Deal the next round, from the scores the last one ended with."""
        scores = self.log.rounds[-1].scores if self.log.rounds else self.log.start_scores
        hands, reserve = deal(self.rules, self.deal_rng)
        self.state = State.deal(self.rules, hands, reserve, scores)
        self.log.rounds.append(RoundLog(hands, reserve, []))
        if self.seats is not None:
            self.seats.new_round(self.state)

    def apply(self, move: int) -> State:
        """Apply `move` of the seat to move (the engines in their seats observe it)."""
        self.state = apply_action(self.state, move, self.round.events, self.seats)
        return self.state

    def play_round(self, engines=None, until=None, on_action=None) -> State:
        """Play the round on, to its end or until `until(state, moves)` (see `play_round`)."""
        self.state = play_round(self.state, engines, self.play_rng, self.round.events,
                                self.seats, until, on_action=on_action)
        return self.state

    def end_round(self) -> bool:
        """Log the end of the round just finished; True when the match is over."""
        state = self.state
        self.round.end, self.round.scores = state.ended, state.scores
        if state.winner is not None or len(self.log.rounds) == self.max_rounds:
            self.log.scores, self.log.winner = state.scores, state.winner
            return True
        return False

    def play(self, engines=None) -> MatchLog:
        """Play the match to its end, every seat by `engines` (the simple engines' codes) or
        the seats."""
        while True:
            self.play_round(engines)
            if self.end_round():
                return self.log
            self.new_round()


def play_match(rules: Rules, engines, seed: int, start_scores=None, seats=None,
               max_rounds: int | None = None) -> MatchLog:
    """A whole match (or its first `max_rounds` rounds): see `Match`."""
    return Match(rules, seed, start_scores, seats, max_rounds).play(engines)


def random_rounds(rules: Rules, n: int, seed: int) -> int:
    """The number of actions of n random rounds on one `Rng(seed)` stream (a checksum)."""
    rng = Rng(seed)
    actions = 0
    for _ in range(n):
        hands, reserve = deal(rules, rng)
        state = State.deal(rules, hands, reserve)
        events: list[tuple[int, int, int]] = []
        play_round(state, [ENGINE_RANDOM] * rules.players, rng, events)
        actions += len(events)
    return actions
