# cython: language_level=3
"""The world sampler's C side: a flattened counting programme (see
bergen_search/information/sampler.py) and a determinization template; `sample_world` draws
one uniform world into a full State."""
from libc.stdint cimport int8_t, int32_t, uint8_t
from bergen_search.game._core cimport CoreRules, Rng, State

ctypedef struct Sampler:
    State base            # the determinization template: public state and the seat's own hand
    int seat              # the viewpoint
    int n_tiles           # free tiles to place
    uint8_t tiles[28]     # the free tiles, ascending (the programme's order)
    uint8_t played[28]    # 1 when the free tile is already on the line (it only fills a group)
    int8_t owner[64]      # seat owning each group, -1 for the reserve
    int n_nodes           # nodes of the programme; node 0 is the root
    int32_t* opt_start    # options of node v: opt_start[v] .. opt_start[v+1]-1 (n_nodes + 1)
    uint8_t* opt_group    # group of each option
    int32_t* opt_child    # node reached by each option
    double* opt_cum       # cumulative weight of the options of a node, the last is its total

cdef void sample_world(const Sampler* smp, Rng* rng, State* out) noexcept nogil


cdef class CoreSampler:
    """A WorldTable's programme in C, ready to draw worlds for one information set."""
    cdef Sampler c
    cdef CoreRules rules_owner
    cdef readonly object info
    cdef readonly object table
    cdef readonly bint ready      # built: __init__ ran to its end (a searcher needs this)
    cdef int _ready(self) except -1
