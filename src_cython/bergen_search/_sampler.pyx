# cython: language_level=3
"""Uniform worlds in C: the walk of sampler.WorldTable, bit for bit (same RNG draws, same
float table), writing a full-information State ready for a search to play out."""
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t

from bergen_search._core cimport (CoreRules, END_NONE, Rng, State, next64, shuffle,
                                  TILE_HIGH, TILE_LOW)

from bergen_search.errors import BergenError
from bergen_search.infoset import RESERVE
from bergen_search.sampler import WorldTable
from bergen_search.tiles import tile_index

cdef double INV_2_53 = 1.0 / 9007199254740992.0


cdef void sample_world(const Sampler* smp, Rng* rng, State* out) noexcept nogil:
    """One world, uniform among those consistent with the information set, with a uniform
    reserve order: the template with the other hands and the reserve filled in."""
    cdef int i, j, lo, hi, node = 0, g, owner, n_reserve = 0
    cdef double u
    memcpy(out, &smp.base, sizeof(State))
    for i in range(smp.n_tiles):
        lo = smp.opt_start[node]
        hi = smp.opt_start[node + 1]
        u = <double>(next64(rng) >> 11) * INV_2_53 * smp.opt_cum[hi - 1]
        j = lo
        while j < hi - 1 and u >= smp.opt_cum[j]:
            j += 1
        node = smp.opt_child[j]
        if smp.played[i]:
            continue
        owner = smp.owner[smp.opt_group[j]]
        if owner >= 0:
            out.hands[owner] |= (<uint32_t>1) << smp.tiles[i]
        else:
            out.reserve[n_reserve] = smp.tiles[i]
            n_reserve += 1
    shuffle(rng, out.reserve, n_reserve)


cdef class CoreSampler:
    def __cinit__(self):
        self.c.opt_start = NULL
        self.c.opt_group = NULL
        self.c.opt_child = NULL
        self.c.opt_cum = NULL

    def __init__(self, info, table=None):
        """Build from an InfoSet (and its WorldTable, made here if not given)."""
        cdef int i, n_opts
        cdef State* b = &self.c.base
        if table is None:
            table = WorldTable(info)
        self.info = info
        self.table = table
        self.rules_owner = CoreRules(info.rules)
        if len(table.owners) > 64:
            raise BergenError("too many groups of hidden tiles")
        self.c.seat = info.seat
        self.c.n_tiles = len(table.tiles)
        for i, t in enumerate(table.tiles):
            self.c.tiles[i] = t
            self.c.played[i] = table.is_played[i]
        for g, owner in enumerate(table.owners):
            self.c.owner[g] = -1 if owner == RESERVE else owner
        self.c.n_nodes = table.n_nodes
        n_opts = len(table.opt_group)
        self.c.opt_start = <int32_t*>malloc((table.n_nodes + 1) * sizeof(int32_t))
        self.c.opt_group = <uint8_t*>malloc(max(n_opts, 1) * sizeof(uint8_t))
        self.c.opt_child = <int32_t*>malloc(max(n_opts, 1) * sizeof(int32_t))
        self.c.opt_cum = <double*>malloc(max(n_opts, 1) * sizeof(double))
        if (self.c.opt_start == NULL or self.c.opt_group == NULL or self.c.opt_child == NULL
                or self.c.opt_cum == NULL):
            raise MemoryError()
        for i in range(table.n_nodes + 1):
            self.c.opt_start[i] = table.opt_start[i]
        for i in range(n_opts):
            self.c.opt_group[i] = table.opt_group[i]
            self.c.opt_child[i] = table.opt_child[i]
            self.c.opt_cum[i] = table.opt_cum[i]
        # The template: the public state as the seat sees it, its own hand, nothing else.
        memset(b, 0, sizeof(State))
        b.rules = &self.rules_owner.c
        b.hands[info.seat] = info.hand
        for side, score in enumerate(info.scores):
            b.scores[side] = score
        b.reserve_size = info.reserve_size
        b.reserve_next = 0
        b.left = info.left
        b.right = info.right
        b.left_double = info.left_double
        b.right_double = info.right_double
        b.to_move = info.seat
        b.passes = info.passes
        b.draws = info.draws_this_turn
        b.lead_tile = -1
        b.ended = END_NONE
        b.winner = -1

    def __dealloc__(self):
        free(self.c.opt_start)
        free(self.c.opt_group)
        free(self.c.opt_child)
        free(self.c.opt_cum)

    @property
    def total(self):
        """The exact number of consistent worlds (histories)."""
        return self.table.total

    def sample(self, rng):
        """One world drawn with a `bergen_search.rng.Rng` (advanced as the reference's walk
        would): (hands by seat, reserve in draw order)."""
        cdef State s
        cdef Rng r
        r.state = rng.state
        sample_world(&self.c, &r, &s)
        rng.state = r.state
        return (tuple(s.hands[i] for i in range(self.info.rules.players)),
                [s.reserve[i] for i in range(s.reserve_size)])

    def sample_many(self, long long n, uint64_t seed):
        """Draw n worlds on one stream in C; return a checksum (the xor of the hand masks) so
        that the loop is not optimised away. For measuring throughput."""
        cdef State s
        cdef Rng r
        cdef long long i
        cdef uint64_t check = 0
        r.state = seed
        with nogil:
            for i in range(n):
                sample_world(&self.c, &r, &s)
                check ^= s.hands[0] ^ (<uint64_t>s.hands[1] << 28) ^ s.reserve[0]
        return check
