# cython: language_level=3
"""The contract of the playout policy: features of a play in a fully known state, and a
softmax choice over them with fitted weights (`bergen_search/data/policy.json`)."""
from bergen_search._core cimport Rng, State

cdef enum:
    N_FEATURES = 10     # see FEATURES in _policy.pyx

cdef void move_features(const State* s, int move, double* out) noexcept nogil
cdef int policy_choice(const State* s, const int* moves, int n, const double* weights,
                       Rng* rng) noexcept nogil
cdef int safe_choice(const State* s, const int* moves, int n, Rng* rng,
                     bint honest=*) noexcept nogil
