"""The match: its deals, the simple engines (`random`, `greedy`) and the one match driver,
whose log the core's `play_match` matches for a seed."""
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
    """(hands, reserve in draw order) of a shuffle, dealt again while nobody may lead."""
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
    """The state after `move`, appended to `events` as `(seat, move, tile drawn or -1)`."""
    seat = state.to_move
    tile = state.reserve[0] if move == DRAW and state.reserve else -1
    after = state.apply(move)
    if seats is not None:
        seats.observe(seat, move, after)
    events.append((seat, move, tile))
    return after


def play_round(state: State, engines, rng: Rng, events: list, seats=None, until=None,
               *, on_action=None) -> State:
    """Play the round to its end (or until `until(state, moves)`), the moves chosen by
    `engines[seat]` or `seats`, each appended to `events` and told to `on_action(before, move,
    after)`."""
    while state.ended is None:
        moves = state.legal_moves()
        if until is not None and until(state, moves):
            break
        m = (choose(engines[state.to_move], state, moves, rng) if seats is None
             else seats.choose(state, moves))
        after = apply_action(state, m, events, seats)
        if on_action is not None:
            on_action(state, m, after)
        state = after
    return state


class Match:
    """A match until a side reaches the target or `max_rounds` are played: deals from
    `Rng(seed)`, choices from `Rng(seed ^ PLAY_STREAM)` by `seats(play_rng)` or the engines."""

    def __init__(self, rules: Rules, seed: int, start_scores=None, seats=None,
                 max_rounds: int | None = None):
        self.rules, self.max_rounds = rules, max_rounds
        self.deal_rng, self.play_rng = Rng(seed), Rng(seed ^ PLAY_STREAM)
        scores = tuple(start_scores) if start_scores is not None else (0,) * rules.n_sides
        self.log = MatchLog(rules, scores)
        self.seats = None if seats is None else seats(self.play_rng)
        self.state: State
        self.new_round()

    @property
    def round(self) -> RoundLog:
        return self.log.rounds[-1]

    @property
    def over(self) -> bool:
        return self.log.winner is not None or (
            self.state.ended is not None and len(self.log.rounds) == self.max_rounds)

    def new_round(self) -> None:
        scores = self.log.rounds[-1].scores if self.log.rounds else self.log.start_scores
        hands, reserve = deal(self.rules, self.deal_rng)
        self.state = State.deal(self.rules, hands, reserve, scores)
        self.log.rounds.append(RoundLog(hands, reserve, []))
        if self.seats is not None:
            self.seats.new_round(self.state)

    def apply(self, move: int) -> State:
        self.state = apply_action(self.state, move, self.round.events, self.seats)
        return self.state

    def play_round(self, engines=None, until=None, on_action=None) -> State:
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
        """Play the match to its end (`engines`: the simple engines' codes)."""
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
    """The number of actions of n random rounds on one `Rng(seed)` (a checksum)."""
    rng = Rng(seed)
    actions = 0
    for _ in range(n):
        hands, reserve = deal(rules, rng)
        state = State.deal(rules, hands, reserve)
        events: list[tuple[int, int, int]] = []
        play_round(state, [ENGINE_RANDOM] * rules.players, rng, events)
        actions += len(events)
    return actions
