# cython: language_level=3
"""Playout policies: how a search plays on in a fully known world (every hand in view) once it
leaves its tree or reaches its horizon.

In Bergen a match can only be made with one tile: at ends (a, b), a != b, the tile a-b (laid
at either end), and at ends (a, a) the double a-a (`match_tile`). So the play that matters
most after taking a match is not handing the next seat one:

- `random` (PLAYOUT_RANDOM): a uniformly random legal play. It lets matches go untaken and
  hands the next seat its match as often as not, so a search's values are biased towards
  positions where that does not matter;
- `scoring` (PLAYOUT_SCORING): the play that scores most at once (the first such), else a
  random one;
- `safe` (PLAYOUT_SAFE): the most points at once; among those, a play after which the next
  seat does not hold the match tile of the new ends; ties at random. It is the default of
  ISMCTS: at 4,000 iterations it beats random playouts by +0.18 +- 0.06 points a round
  (benchmarks/STRENGTH.md). The next seat's hand is in view in the world being played out,
  as every hand is.

Every choice draws from the caller's Rng only.
"""
from libc.stdint cimport uint32_t, uint64_t

from bergen_search.game._core cimport (CoreState, MAX_MOVES, Rng, State, TILE_HIGH, TILE_LOW, below,
                                  gen_moves)

from bergen_search.errors import BergenError

PLAYOUTS = {"random": PLAYOUT_RANDOM, "scoring": PLAYOUT_SCORING, "safe": PLAYOUT_SAFE}


cdef int match_tile(int left, int right) noexcept nogil:
    """The tile that makes a match at ends (left, right): left-right, or the double when the
    ends are equal (tiles are ordered 0-0..0-6, 1-1..1-6, ...)."""
    cdef int lo = left if left < right else right
    cdef int hi = right if left < right else left
    return lo * 7 - lo * (lo - 1) // 2 + (hi - lo)


cdef int match_points(const State* s, int move) noexcept nogil:
    """Points the play `move` makes as a match at once (before any cap): 0, 2 or 3."""
    cdef int t = move >> 1
    cdef int left = s.left, right = s.right
    cdef int left_double = s.left_double, right_double = s.right_double
    cdef int is_dbl = TILE_LOW[t] == TILE_HIGH[t]
    if move & 1:
        right = TILE_LOW[t] + TILE_HIGH[t] - right
        right_double = is_dbl
    else:
        left = TILE_LOW[t] + TILE_HIGH[t] - left
        left_double = is_dbl
    if left != right:
        return 0
    return 3 if (left_double or right_double) else 2


cdef int scoring_choice(const State* s, const int* moves, int n, Rng* rng) noexcept nogil:
    """PLAYOUT_SCORING: the play scoring most at once (the first such), else a random one."""
    cdef int i, v, best = -1, best_value = 0
    for i in range(n):
        v = match_points(s, moves[i])
        if v > best_value:
            best_value = v
            best = i
    if best < 0:
        return moves[below(rng, n)]
    return moves[best]


cdef int safe_choice(const State* s, const int* moves, int n, Rng* rng) noexcept nogil:
    """PLAYOUT_SAFE: the most points at once, then a play after which the next seat does not
    hold the match tile of the new ends; ties at random (reservoir sampling)."""
    cdef int i, m, t, key, best = 0, best_key = -1, ties = 0, left, right
    cdef int nxt = s.to_move + 1 if s.to_move + 1 < s.rules.players else 0
    cdef uint32_t next_hand = s.hands[nxt]
    for i in range(n):
        m = moves[i]
        t = m >> 1
        left = s.left
        right = s.right
        if m & 1:
            right = TILE_LOW[t] + TILE_HIGH[t] - right
        else:
            left = TILE_LOW[t] + TILE_HIGH[t] - left
        key = match_points(s, m) * 4 + (0 if (next_hand >> match_tile(left, right)) & 1 else 2)
        if key > best_key:
            best_key = key
            best = i
            ties = 1
        elif key == best_key:
            ties += 1
            if below(rng, ties) == 0:
                best = i
    return moves[best]


cdef int playout_choice(int policy, const State* s, const int* moves, int n,
                        Rng* rng) noexcept nogil:
    """The play of `policy` (PLAYOUT_*) among n > 1 legal plays."""
    if policy == PLAYOUT_SAFE:
        return safe_choice(s, moves, n, rng)
    if policy == PLAYOUT_SCORING:
        return scoring_choice(s, moves, n, rng)
    return moves[below(rng, n)]


def playout_move(CoreState state, policy, seed):
    """The play `policy` ("random", "scoring", "safe" or its code) makes in a fully known core
    state with several legal plays, drawing on Rng(seed): for tests and inspection."""
    cdef int moves[MAX_MOVES]
    cdef int n
    cdef Rng rng
    if state is None:
        raise BergenError("playout_move needs a CoreState", field="state")
    state._built()
    if type(seed) is not int:
        raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
    n = gen_moves(&state.st, moves)
    code = PLAYOUTS.get(policy, policy)
    if code not in PLAYOUTS.values() or isinstance(code, bool):
        raise BergenError(f"unknown playout {policy!r} (random, scoring, safe)", field="playout")
    if n < 2:
        raise BergenError("the state has fewer than two legal moves: nothing to choose")
    rng.state = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    return playout_choice(code, &state.st, moves, n, &rng)
