"""Reference match driver and the simple engines (`random`, `greedy`).

`play_match` deals with a seeded `Rng`, plays every round to its end with the engines given
per seat, and returns a `MatchLog` that `record.write_record` turns into `bergen-record/1`.
The core's `play_match` (src_cython) returns the identical log for the same seed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .rng import PLAY_STREAM, Rng
from .rules import Rules
from .state import DRAW, PASS, State, find_leader
from .tiles import N_TILES, PIPS, mask_of

ENGINE_RANDOM = 0
ENGINE_GREEDY = 1
SIMPLE_ENGINES = {"random": ENGINE_RANDOM, "greedy": ENGINE_GREEDY}


@dataclass
class RoundLog:
    hands: list            # masks as dealt
    reserve: list          # tiles in draw order
    events: list           # (seat, action, tile): action a play, DRAW (tile drawn) or PASS
    end: str = None        # "out", "blocked", "target"
    scores: tuple = ()     # by side, after the round


@dataclass
class MatchLog:
    rules: Rules
    start_scores: tuple
    rounds: list = field(default_factory=list)
    scores: tuple = ()
    winner: int = None


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


def greedy_choice(state: State, moves: list) -> int:
    """The play scoring most at once (match value and going out), then the heaviest tile,
    then the first in move order."""
    side = state.rules.side_of(state.to_move)
    best, best_key = moves[0], None
    for m in moves:
        after = state.apply(m)
        key = (after.scores[side] - state.scores[side], PIPS[m >> 1])
        if best_key is None or key > best_key:
            best, best_key = m, key
    return best


def choose(engine: int, state: State, moves: list, rng: Rng) -> int:
    if len(moves) == 1:
        return moves[0]
    if engine == ENGINE_RANDOM:
        return moves[rng.below(len(moves))]
    return greedy_choice(state, moves)


def play_round(state: State, engines, rng: Rng, events: list, table=None) -> State:
    """Play the round to its end, appending `(seat, move, tile drawn or -1)` to `events`.
    The moves are `choose(engines[seat], ...)`, or with a `table` (`engines.Table`) its
    `choose`, and it `observe`s every action."""
    while state.ended is None:
        moves = state.legal_moves()
        seat = state.to_move
        if table is None:
            m = choose(engines[seat], state, moves, rng)
        else:
            m = table.choose(state, moves)
        tile = state.reserve[0] if m == DRAW else -1
        after = state.apply(m)
        if table is not None:
            table.observe(seat, m, after)
        events.append((seat, m, tile))
        state = after
    return state


def play_match(rules: Rules, engines, seed: int, start_scores=None, table=None,
               max_rounds: int | None = None) -> MatchLog:
    """A whole match, from `start_scores` (default zeros) until a side reaches the target,
    or only its first `max_rounds` rounds (then `winner` stays None unless a side reached the
    target). `table(play_rng)`, if given, makes the `engines.Table` that chooses the moves."""
    deal_rng, play_rng = Rng(seed), Rng(seed ^ PLAY_STREAM)
    scores = tuple(start_scores) if start_scores is not None else (0,) * rules.n_sides
    log = MatchLog(rules, scores)
    players = None if table is None else table(play_rng)
    while True:
        hands, reserve = deal(rules, deal_rng)
        state = State.deal(rules, hands, reserve, scores)
        rnd = RoundLog(hands, reserve, [])
        if players is not None:
            players.new_round(state)
        state = play_round(state, engines, play_rng, rnd.events, players)
        rnd.end, rnd.scores = state.ended, state.scores
        log.rounds.append(rnd)
        scores = state.scores
        if state.winner is not None or len(log.rounds) == max_rounds:
            log.scores, log.winner = scores, state.winner
            return log


def random_rounds(rules: Rules, n: int, seed: int) -> int:
    """Play n random rounds from fresh deals on one `Rng(seed)` stream; return the number of
    actions taken in all (a checksum the core must match)."""
    rng = Rng(seed)
    actions = 0
    for _ in range(n):
        hands, reserve = deal(rules, rng)
        state = State.deal(rules, hands, reserve)
        events = []
        play_round(state, [ENGINE_RANDOM] * rules.players, rng, events)
        actions += len(events)
    return actions
