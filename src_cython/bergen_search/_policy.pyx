# cython: language_level=3
"""A playout policy for fully known states: a softmax over features of each play.

A search's playouts and horizon need a model of good play in a world where every hand is in
view. Uniformly random play is a poor one (it lets matches go untaken and hands the next seat
its match); the policy here scores each legal play by a weighted sum of cheap features and
draws a play with probability proportional to exp(score). The weights are fitted (by
`python -m bergen_search.fit_policy`) to the choices of the perfect-information solver
(`_pimc`) on positions of self-play, a conditional-logit regression in numpy, and ship as
`bergen_search/data/policy.json`.

The features of a play, for the seat to move (`FEATURES`, in order):

0. `points`: the match it makes at once (0, 2 or 3), / 3;
1. `out`: it lays the seat's last tile;
2. `gives_match`: the next seat holds the tile that makes a match at the new ends;
3. `pips`: the tile's pips, / 12;
4. `double`: the tile is a double;
5. `mobility`: the seat's other tiles that fit the new ends, / 6;
6. `blocks_next`: the next seat holds no tile that fits the new ends;
7. `control`: the seat's other tiles showing the number the play opens, / 6;
8. `holds_match`: the seat holds the tile that makes a match at the new ends;
9. `partner_match`: with partnerships, the partner (two seats on) holds it.

>>> from bergen_search.rules import Rules
>>> from bergen_search._core import Backend
>>> s = Backend.new_state(Rules(), [0b111111, 0b111111 << 6], list(range(12, 28)))
>>> [m for m in s.legal_moves()]
[0]
>>> FEATURES[0], len(FEATURES)
('points', 10)
"""
import numpy as np

from libc.math cimport exp
from libc.stdint cimport uint32_t, uint64_t

from bergen_search._core cimport (CoreState, MAX_MOVES, Rng, State, TILE_HIGH, TILE_LOW,
                                  TILES_WITH, below, gen_moves, next64, popcount)

FEATURES = ("points", "out", "gives_match", "pips", "double", "mobility", "blocks_next",
            "control", "holds_match", "partner_match")

cdef double INV_2_53 = 1.0 / 9007199254740992.0


cdef inline int _tile_of(int a, int b) noexcept nogil:
    """Index of the tile a-b."""
    cdef int lo = a if a < b else b
    cdef int hi = b if a < b else a
    return lo * 7 - lo * (lo - 1) // 2 + (hi - lo)


cdef void move_features(const State* s, int move, double* out) noexcept nogil:
    """The features of the play `move` by the seat to move (see FEATURES)."""
    cdef int t = move >> 1, seat = s.to_move, players = s.rules.players
    cdef int nxt = seat + 1 if seat + 1 < players else 0
    cdef int left = s.left, right = s.right, ldbl = s.left_double, rdbl = s.right_double
    cdef int opened, match_tile
    cdef bint dbl = TILE_LOW[t] == TILE_HIGH[t]
    cdef uint32_t mine = s.hands[seat] & ~((<uint32_t>1) << t)
    cdef uint32_t fits
    if move & 1:
        opened = TILE_LOW[t] + TILE_HIGH[t] - right
        right = opened
        rdbl = dbl
    else:
        opened = TILE_LOW[t] + TILE_HIGH[t] - left
        left = opened
        ldbl = dbl
    out[0] = 0.0
    if left == right:
        out[0] = (3.0 if (ldbl or rdbl) else 2.0) / 3.0
    out[1] = 1.0 if mine == 0 else 0.0
    match_tile = _tile_of(left, right)
    out[2] = 1.0 if (s.hands[nxt] >> match_tile) & 1 else 0.0
    out[3] = (TILE_LOW[t] + TILE_HIGH[t]) / 12.0
    out[4] = 1.0 if dbl else 0.0
    fits = TILES_WITH[left] | TILES_WITH[right]
    out[5] = popcount(mine & fits) / 6.0
    out[6] = 1.0 if (s.hands[nxt] & fits) == 0 else 0.0
    out[7] = popcount(mine & TILES_WITH[opened]) / 6.0
    out[8] = 1.0 if (mine >> match_tile) & 1 else 0.0
    out[9] = 0.0
    if s.rules.partnerships:
        out[9] = 1.0 if (s.hands[(seat + 2) % players] >> match_tile) & 1 else 0.0


cdef int policy_choice(const State* s, const int* moves, int n, const double* weights,
                       Rng* rng) noexcept nogil:
    """A play drawn with probability proportional to exp(weights . features)."""
    cdef double f[N_FEATURES]
    cdef double score[MAX_MOVES]
    cdef double top = -1e300, total = 0, u, x
    cdef int i, k
    for i in range(n):
        move_features(s, moves[i], f)
        x = 0
        for k in range(N_FEATURES):
            x += weights[k] * f[k]
        score[i] = x
        if x > top:
            top = x
    for i in range(n):
        score[i] = exp(score[i] - top)
        total += score[i]
    u = <double>(next64(rng) >> 11) * INV_2_53 * total
    for i in range(n - 1):
        u -= score[i]
        if u < 0:
            return moves[i]
    return moves[n - 1]


cdef int safe_choice(const State* s, const int* moves, int n, Rng* rng,
                     bint honest=False) noexcept nogil:
    """PLAYOUT_SAFE: the most points at once, then a play after which the next seat holds no
    tile making a match, ties at random. `honest`: any tile the mover has not seen (another
    hand or the reserve) counts as held by the next seat."""
    cdef int i, m, t, v, key, best = 0, best_key = -1, ties = 0, left, right, st
    cdef int nxt = s.to_move + 1 if s.to_move + 1 < s.rules.players else 0
    cdef uint32_t danger = s.hands[nxt]
    if honest:
        danger = 0
        for i in range(s.rules.players):
            if i != s.to_move:
                danger |= s.hands[i]
        for i in range(s.reserve_size):
            danger |= (<uint32_t>1) << s.reserve[s.reserve_next + i]
    for i in range(n):
        m = moves[i]
        t = m >> 1
        v = _match_points(s, m)
        left = s.left
        right = s.right
        if m & 1:
            right = TILE_LOW[t] + TILE_HIGH[t] - right
        else:
            left = TILE_LOW[t] + TILE_HIGH[t] - left
        st = _tile_of(left, right)
        key = v * 4 + (0 if (danger >> st) & 1 else 2)
        if key > best_key:
            best_key = key
            best = i
            ties = 1
        elif key == best_key:
            ties += 1
            if below(rng, ties) == 0:
                best = i
    return moves[best]


cdef inline int _match_points(const State* s, int move) noexcept nogil:
    """Points the play `move` makes as a match at once (no cap): 0, 2 or 3."""
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


def features(CoreState state):
    """(moves, features): the legal moves of a fully known core state and their features
    (a numpy array, moves x N_FEATURES). For fitting the weights."""
    cdef int moves[MAX_MOVES]
    cdef double f[N_FEATURES]
    cdef int i, k, n = gen_moves(&state.st, moves)
    out = np.zeros((n, N_FEATURES), dtype=np.float64)
    if n == 0 or moves[0] >= 56:
        return [], out[:0]
    for i in range(n):
        move_features(&state.st, moves[i], f)
        for k in range(N_FEATURES):
            out[i, k] = f[k]
    return [moves[i] for i in range(n)], out
