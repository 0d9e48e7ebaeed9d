# cython: language_level=3
"""The playouts in C, for every compiled search that plays a world out (`search/playouts.py`
is their pure-Python twin, draw for draw): a fully known state played to its end by a playout
policy, and what that end is worth to a side. Inline functions only: nothing to build or
import at run time."""
from libc.stdint cimport int32_t
from libc.string cimport memcpy

from bergen_search.game._core cimport (END_NONE, MAX_MOVES, MAX_SEATS, Rng, State, deal,
                                  do_move, gen_moves, playout_choice)

cdef enum:
    OBJECTIVE_POINTS = 0    # reward: points gained until the round ends, minus the others' mean
    OBJECTIVE_MATCH = 1     # reward: 1 for the side that wins the match, 0 otherwise


cdef inline void play_out(State* s, int objective, int policy, Rng* rng) noexcept nogil:
    """`s` played by `policy` to the round's end, and for the match objective through fresh
    deals until a side reaches the target; every random choice from `rng` (`playouts.play_out`)."""
    cdef int moves[MAX_MOVES]
    cdef int32_t scores[MAX_SEATS]
    cdef int n, m
    while True:
        while s.ended == END_NONE:
            n = gen_moves(s, moves)
            m = moves[0] if n == 1 else playout_choice(policy, s, moves, n, rng)
            do_move(s, m)
        if objective == OBJECTIVE_POINTS or s.winner >= 0:
            return
        memcpy(scores, s.scores, sizeof(scores))
        deal(s, s.rules, rng, scores)


cdef inline double outcome(int objective, const State* s, const int32_t* base,
                           int side) noexcept nogil:
    """A side's raw outcome of a finished playout from scores `base`: 1 if it won the match
    (objective match, else 0), or the points it gained (`playouts.outcome`)."""
    if objective == OBJECTIVE_MATCH:
        return 1.0 if s.winner == side else 0.0
    return <double>(s.scores[side] - base[side])


cdef inline double reward(int objective, const State* s, const int32_t* base,
                          int side) noexcept nogil:
    """A side's reward of a finished playout: its match won, or its points gained less the
    other sides' mean (`playouts.reward`)."""
    cdef int i, n_sides = s.rules.n_sides
    cdef double mine = outcome(objective, s, base, side), others = 0.0
    if objective == OBJECTIVE_MATCH:
        return mine
    for i in range(n_sides):
        if i != side:
            others += outcome(objective, s, base, i)
    return mine - others / (n_sides - 1)
