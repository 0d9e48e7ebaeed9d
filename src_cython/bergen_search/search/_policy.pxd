# cython: language_level=3
"""The contract of the playout policies: how a search plays on in a fully known world once it
leaves its tree (ISMCTS) or reaches its horizon. Each picks one of `n` > 1 legal plays."""
from bergen_search.game._core cimport Rng, State

cdef enum:
    PLAYOUT_RANDOM = 0      # uniformly random plays
    PLAYOUT_SCORING = 1     # a play that scores at once when there is one, else random
    PLAYOUT_SAFE = 2        # the most points at once, then not handing the next seat a match

cdef int match_points(const State* s, int move) noexcept nogil
cdef int match_tile(int left, int right) noexcept nogil
cdef int scoring_choice(const State* s, const int* moves, int n, Rng* rng) noexcept nogil
cdef int safe_choice(const State* s, const int* moves, int n, Rng* rng) noexcept nogil
cdef int playout_choice(int policy, const State* s, const int* moves, int n,
                        Rng* rng) noexcept nogil
