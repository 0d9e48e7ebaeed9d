"""Invariants of random games, on both backends (the `backend` fixture of conftest.py).

Whatever the rules and the moves: the 28 tiles are all somewhere (a hand, the line, the
reserve) and nowhere twice, drawing never takes the reserve below `reserve_kept`, scores never
decrease, and the match ends exactly when a side reaches the target.
"""
import pytest

from bergen_search.game import match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import BLOCKEDS, DRAWS, LEADS, NO_DOUBLES, Rules
from bergen_search.game.state import DRAW, PASS
from bergen_search.game.tiles import ALL_TILES, TILES_WITH, popcount

SEED = 77
N_WALKS = 2000
N_MATCHES = 2000
#: The walks and the matches in PARTS parts: the first in the default run (500 random rule
#: sets each), the rest behind the slow marker.
PARTS = 4
PART_PARAMS = [0, *(pytest.param(p, marks=pytest.mark.slow) for p in range(1, PARTS))]


def random_rules(rng: Rng) -> Rules:
    """A rule set with every field drawn at random (sizes that fit the 28 tiles)."""
    def pick(seq):
        return seq[rng.below(len(seq))]

    players, partnerships = pick(((2, False), (3, False), (4, False), (4, True)))
    kept = rng.below(4)
    hand_size = pick((None, None, 1, 2, 4, 7))
    if hand_size is not None and players * hand_size + kept > 28:
        hand_size = None
    return Rules(players=players, partnerships=partnerships, hand_size=hand_size,
                 target=pick((None, None, 3, 7, 30)), lead=pick(LEADS),
                 no_double=pick(NO_DOUBLES), draw=pick(DRAWS), reserve_kept=kept,
                 out_bonus=pick((2, 5)), blocked=pick(BLOCKEDS), endgame_cap=pick((True, False)))


def start_scores(rules: Rules, rng: Rng):
    """None, or scores below the target (often close to it)."""
    if rng.below(2) == 0:
        return None
    return tuple(max(0, rules.target - 1 - rng.below(6)) for _ in range(rules.n_sides))


def check_tiles(state, line: int):
    """Every tile in exactly one place: a hand, the line (`line`, a mask) or the reserve."""
    reserve = tuple(state.reserve)
    assert len(reserve) == state.reserve_size
    places = list(state.hands) + [line] + [1 << t for t in reserve]
    union = 0
    for mask in places:
        assert union & mask == 0, "a tile in two places"
        union |= mask
    assert union == ALL_TILES
    assert sum(popcount(m) for m in places) == 28


@pytest.mark.parametrize("part", PART_PARAMS)
def test_walk_invariants(backend, part):
    for i in range(part * N_WALKS // PARTS, (part + 1) * N_WALKS // PARTS):
        seed = derive_seed(SEED, i)
        rng = Rng(seed)
        rules = random_rules(rng)
        hands, reserve = match.deal(rules, rng)
        state = backend.new_state(rules, hands, reserve, start_scores(rules, rng))
        line = 0
        where = f"walk {i} ({rules})"
        check_tiles(state, line)
        while state.ended is None:
            moves = state.legal_moves()
            assert moves == sorted(set(moves)) and moves, where
            if DRAW in moves or PASS in moves:
                assert len(moves) == 1, where
                hand = state.hands[state.to_move]
                assert not hand & (TILES_WITH[state.left] | TILES_WITH[state.right]), where
            move = moves[rng.below(len(moves))]
            before = state
            state = state.apply(move)
            if move < DRAW:
                line |= 1 << (move >> 1)
            check_tiles(state, line)
            assert state.reserve_size >= rules.reserve_kept, where
            if move == DRAW:
                assert state.reserve_size == before.reserve_size - 1, where
            assert all(a >= b for a, b in zip(state.scores, before.scores)), where
            assert tuple(a - b for a, b in zip(state.scores, before.scores)) == \
                tuple(state.last_points), where
            reached = [s for s, v in enumerate(state.scores) if v >= rules.target]
            if state.winner is None:
                assert not reached, where
            else:
                assert reached == [state.winner] and state.ended is not None, where
            if state.ended is not None:
                assert state.to_move == -1 and state.legal_moves() == [], where
            if state.ended == "out":
                assert 0 in state.hands, where
            if state.ended == "blocked":
                assert state.reserve_size <= rules.reserve_kept, where
                assert state.passes >= rules.players, where


@pytest.mark.parametrize("part", PART_PARAMS)
def test_match_invariants(backend, part):
    for i in range(part * N_MATCHES // PARTS, (part + 1) * N_MATCHES // PARTS):
        seed = derive_seed(SEED + 1, i)
        rng = Rng(seed)
        rules = random_rules(rng)
        engines = [rng.below(2) for _ in range(rules.players)]
        start = start_scores(rules, rng)
        log = backend.play_match(rules, engines, seed, start)
        where = f"match {i} ({rules}, engines {engines})"
        scores = log.start_scores
        assert scores == (start if start is not None else (0,) * rules.n_sides)
        for r, rnd in enumerate(log.rounds):
            dealt = list(rnd.hands) + [1 << t for t in rnd.reserve]
            union = 0
            for mask in dealt:
                union |= mask
            assert sum(popcount(m) for m in dealt) == 28 and union == ALL_TILES, where
            assert all(popcount(h) == rules.hand_size for h in rnd.hands), where
            drawn = [tile for _, action, tile in rnd.events if action == DRAW]
            assert drawn == rnd.reserve[:len(drawn)], where
            assert len(rnd.reserve) - len(drawn) >= rules.reserve_kept, where
            assert all(tile == -1 for _, action, tile in rnd.events if action != DRAW), where
            assert all(a >= b for a, b in zip(rnd.scores, scores)), where
            scores = rnd.scores
            last = r == len(log.rounds) - 1
            assert (max(scores) >= rules.target) == last, where
            assert (rnd.end == "target") <= last, where
        assert log.scores == scores
        assert [s for s, v in enumerate(scores) if v >= rules.target] == [log.winner], where
