# cython: language_level=3
"""The contract of the ISMCTS search: the tree's node pool and the seeded search object.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 4(2)), shaped like OpenSpiel's `open_spiel/algorithms/is_mcts.h`: nodes
live in one C array that grows by doubling, children are a linked list of integer-keyed edges.

An edge key is what the observer sees of an action:
- a play, whoever makes it: the move int 0..55 (`tile * 2 + end`);
- a draw by another seat: `DRAW` (56), the tile unseen;
- a draw by the observer: `OWN_DRAW + tile` (64..91), the tile seen;
- a pass: `PASS` (57).
"""
from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t
from bergen_search.game._core cimport MAX_EVENTS, Rng, State
from bergen_search.information._sampler cimport CoreSampler, Sampler
from bergen_search.search._playouts cimport OBJECTIVE_MATCH, OBJECTIVE_POINTS

cdef enum:
    OWN_DRAW = 64           # key of the observer's draw of tile t: OWN_DRAW + t
    NO_NODE = -1            # no child / sibling
    MAX_PATH = MAX_EVENTS + 1   # nodes on one root-to-leaf path (a round has < MAX_EVENTS actions)
    TIME_CHECK_MASK = 63    # the clock is read every 64 iterations
    ROOT_SPARE = 64         # pool nodes kept for the root's children once the tree is full
    PASS_CHECK_MASK = 15    # the final pass looks for Ctrl-C every 16 worlds

ctypedef struct Node:      # 40 bytes (the reference's CORE_NODE_BYTES)
    int32_t first_child   # the first child, NO_NODE for a leaf
    int32_t next_sibling  # the next child of the same parent, NO_NODE at the end
    int32_t visits        # iterations that went through this node
    int32_t avail         # iterations in which this edge was legal when its parent was reached
                          # (with `choice_stats`: and its parent's mover had a choice)
    int32_t chosen        # iterations that took this edge by choice: every visit, or with
                          # `choice_stats` only those where the mover had several choices (and
                          # every visit of a root child); the count behind the mean
    uint8_t key           # the edge from the parent (see the module docstring); 0 for the root
    int8_t side           # side of the seat that took the edge; -1 for the root
    double reward_sum     # sum of the rewards of `side` over the `chosen` iterations
    double reward_sq      # sum of their squares (for standard errors)

ctypedef struct Tree:
    Node* nodes           # the pool; node 0 is the root
    int32_t n_nodes       # nodes in use
    int32_t capacity      # nodes allocated (a power of two)


cdef class MemoryAccount:
    """The memory of the trees that share it (one search's): what their cap bounds."""
    cdef long long held           # bytes held by their node pools (changed atomically)


cdef class IsmctsTree:
    """One observer's search tree over its information set, with its sampler and RNG."""
    cdef Tree tree
    cdef bint ready               # built: __init__ ran to its end
    cdef long long max_bytes      # the cap on the node pools of the trees of its account
                                  # (bytes; 0: none but the machine's)
    cdef MemoryAccount account    # the count the cap bounds: its search's, or its own
    cdef bint full                # the pool could not grow: the tree stopped growing, and
                                  # iterations go on without adding nodes below the root
    cdef long long full_at        # iterations done when the tree stopped growing (-1: never)
    cdef readonly CoreSampler sampler
    cdef const Sampler* smp       # &sampler.c, alive as long as `sampler`
    cdef Rng rng                  # every random choice of the search: worlds, expansion, playouts
    cdef readonly double exploration
    cdef readonly int objective
    cdef readonly int playout     # PLAYOUT_* of _core.pxd
    cdef readonly bint merge_twins  # mirror twins are one choice (_core.drop_mirror_twins)
    cdef readonly bint choice_stats # a move's mean counts only the iterations where its mover
                                    # chose it among several (not those where it was forced)
    cdef uint64_t twins_mask        # root plays at the left end whose right twin is merged
    cdef readonly double value_scale   # mean rewards are multiplied by this inside UCB1 only
    cdef int observer             # the seat searched for (to move at the root)
    cdef long long total          # iterations done so far
    cdef bint running             # a `run` is in progress (it releases the GIL)
    cdef int forced               # the root move every iteration takes (`run_move`), or -1
    cdef double root_gain[128][4] # per root edge key: sum of each side's raw outcome (points
                                  # gained to the end of the round, or 1 for the match winner)

    cdef bint _reserve(self) noexcept nogil
    cdef bint _can_add(self, int depth) noexcept nogil
    cdef int _idle(self) except -1
    cdef int32_t _new_child(self, int32_t parent, int32_t last, int key, int side) noexcept nogil
    cdef int _stats_key(self, int move) noexcept nogil
    cdef double _play_on(self, State* s, int32_t node, Rng* rng) noexcept nogil
    cdef void _iterate(self) noexcept nogil
    cdef long long _run(self, long long limit, double seconds) noexcept nogil
