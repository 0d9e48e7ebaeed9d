# cython: language_level=3
"""Uniform worlds in C: the walk of sampler.WorldTable, bit for bit (same RNG draws, same
float table), writing a full-information State ready for a search to play out."""
from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t

from bergen_search.game._core cimport (CoreRules, END_NONE, MAX_SEATS, N_TILES, Rng, State, next64,
                                  shuffle, TILE_HIGH, TILE_LOW)

from bergen_search.errors import BergenError
from bergen_search.information.infoset import RESERVE, check_infoset
from bergen_search.game.rng import MASK64
from bergen_search.game.rng import Rng as PyRng
from bergen_search.information.sampler import WorldTable
from bergen_search.game.tiles import tile_index

cdef double INV_2_53 = 1.0 / 9007199254740992.0
#: The most worlds `sample_many` draws in one call.
MAX_SAMPLES = 10 ** 12


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


cdef int _checked_int(object value, long long low, long long high, str what) except? -1:
    """`value` as a C int when it is an integer in low..high, else BergenError."""
    if type(value) is not int or not low <= value <= high:
        raise BergenError(f"{what}: expected an integer {low}..{high}, got {value!r}",
                          field=what)
    return value


cdef int _check_programme(const Sampler* smp) except -1:
    """Every node a walk can reach at tile i < n_tiles has an option, each option leads one
    tile deeper (nodes are in breadth-first order), and the cumulative weights of a node's
    options are finite and increasing: the walk of `sample_world` then stays in bounds."""
    cdef int v, j, child
    cdef int* level = <int*>malloc(smp.n_nodes * sizeof(int))
    if level == NULL:
        raise MemoryError()
    try:
        for v in range(smp.n_nodes):
            level[v] = -1
        level[0] = 0
        if smp.opt_start[0] != 0:
            raise BergenError("malformed world table (the first node's options)", field="table")
        for v in range(smp.n_nodes):
            if smp.opt_start[v + 1] < smp.opt_start[v]:
                raise BergenError("malformed world table (option ranges)", field="table")
            if level[v] < 0:
                continue
            if level[v] < smp.n_tiles and smp.opt_start[v + 1] == smp.opt_start[v]:
                raise BergenError("malformed world table (a node without options)",
                                  field="table")
            for j in range(smp.opt_start[v], smp.opt_start[v + 1]):
                child = smp.opt_child[j]
                if not (smp.opt_cum[j] > 0 and smp.opt_cum[j] < INFINITY) or (
                        j > smp.opt_start[v] and not smp.opt_cum[j] >= smp.opt_cum[j - 1]):
                    raise BergenError("malformed world table (weights)", field="table")
                if level[v] >= smp.n_tiles or child <= v or (
                        level[child] >= 0 and level[child] != level[v] + 1):
                    raise BergenError("malformed world table (the children)", field="table")
                level[child] = level[v] + 1
    finally:
        free(level)
    return 0


cdef class CoreSampler:
    """A WorldTable's programme in C, ready to draw worlds for one information set.

    `CoreSampler(info, table=None)`: `info` an `infoset.InfoSet`, `table` its
    `sampler.WorldTable` (built here if not given). Everything is checked before the core
    sees it: the information set by `infoset.check_infoset` (a round that has been led and
    is not over, sizes and scores in range; the table's constructor runs it), and here every
    field copied into C and the whole programme (each option's group and child in range,
    every node a walk can reach has an option), so that no input can make the walk read out
    of bounds. The searches (`IsmctsTree`, `ExpectimaxSearch`) trust a CoreSampler."""

    def __cinit__(self):
        self.c.opt_start = NULL
        self.c.opt_group = NULL
        self.c.opt_child = NULL
        self.c.opt_cum = NULL
        self.ready = False

    def __init__(self, info, table=None):
        """Build from an InfoSet (and its WorldTable, made here if not given)."""
        cdef int i, n_opts, n_nodes, players, side
        cdef State* b = &self.c.base
        if self.ready:
            raise BergenError("a CoreSampler is built once")
        if table is None:
            table = WorldTable(info)
        elif not isinstance(table, WorldTable):
            raise BergenError(f"expected a sampler.WorldTable, got {type(table).__name__}",
                              field="table")
        elif table.info is not info:
            # The table checked its own information set; this one is checked here.
            check_infoset(info)
            if table.info.key() != info.key():
                raise BergenError("the world table belongs to another information set",
                                  field="table")
        if table.structure() != table.built:
            raise BergenError("malformed world table (changed since it was built)", field="table")
        # The fields the core copies, checked again where a bad value would reach memory.
        rules = info.rules
        players = _checked_int(rules.players, 2, MAX_SEATS, "players")
        self.rules_owner = CoreRules(rules)
        _checked_int(info.seat, 0, players - 1, "seat")
        _checked_int(info.hand, 1, (1 << N_TILES) - 1, "hand")
        _checked_int(info.reserve_size, 0, rules.reserve_start, "reserve_size")
        _checked_int(info.passes, 0, 255, "passes")
        _checked_int(info.draws_this_turn, 0, N_TILES, "draws_this_turn")
        if not info.line:
            raise BergenError("the line is empty: the lead is forced, nothing to search",
                              field="line")
        for v in (info.left, info.right):
            _checked_int(v, 0, 6, "line")
        if len(info.scores) != self.rules_owner.c.n_sides:
            raise BergenError(f"expected {self.rules_owner.c.n_sides} scores", field="scores")
        for score in info.scores:
            _checked_int(score, 0, rules.target - 1, "scores")
        n_nodes = _checked_int(table.n_nodes, 1, 1 << 26, "table")
        n_opts = len(table.opt_group)
        if (len(table.tiles) != len(info.free) or len(table.tiles) > N_TILES
                or len(table.is_played) != len(table.tiles)
                or not 1 <= len(table.owners) <= 64 or len(table.opt_start) != n_nodes + 1
                or len(table.opt_child) != n_opts or len(table.opt_cum) != n_opts):
            raise BergenError("malformed world table (sizes)", field="table")
        self.c.seat = info.seat
        self.c.n_tiles = len(table.tiles)
        for i, t in enumerate(table.tiles):
            self.c.tiles[i] = _checked_int(t, 0, N_TILES - 1, "table")
            self.c.played[i] = bool(table.is_played[i])
        for g, owner in enumerate(table.owners):
            self.c.owner[g] = -1 if owner == RESERVE else _checked_int(owner, 0, players - 1,
                                                                       "table")
        self.c.n_nodes = n_nodes
        self.c.opt_start = <int32_t*>malloc((n_nodes + 1) * sizeof(int32_t))
        self.c.opt_group = <uint8_t*>malloc(max(n_opts, 1) * sizeof(uint8_t))
        self.c.opt_child = <int32_t*>malloc(max(n_opts, 1) * sizeof(int32_t))
        self.c.opt_cum = <double*>malloc(max(n_opts, 1) * sizeof(double))
        if (self.c.opt_start == NULL or self.c.opt_group == NULL or self.c.opt_child == NULL
                or self.c.opt_cum == NULL):
            raise MemoryError()
        for i in range(n_nodes + 1):
            self.c.opt_start[i] = _checked_int(table.opt_start[i], 0, n_opts, "table")
        for i in range(n_opts):
            self.c.opt_group[i] = _checked_int(table.opt_group[i], 0, len(table.owners) - 1,
                                               "table")
            self.c.opt_child[i] = _checked_int(table.opt_child[i], 1, n_nodes - 1, "table")
            self.c.opt_cum[i] = table.opt_cum[i]
        _check_programme(&self.c)
        # The template: the public state as the seat sees it, its own hand, nothing else.
        memset(b, 0, sizeof(State))
        b.rules = &self.rules_owner.c
        b.hands[info.seat] = info.hand
        for side in range(self.rules_owner.c.n_sides):
            b.scores[side] = info.scores[side]
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
        self.info = info
        self.table = table
        self.ready = True

    def __dealloc__(self):
        free(self.c.opt_start)
        free(self.c.opt_group)
        free(self.c.opt_child)
        free(self.c.opt_cum)

    @property
    def total(self):
        """The exact number of consistent worlds (histories)."""
        return self.table.total

    cdef int _ready(self) except -1:
        if not self.ready:
            raise BergenError("this CoreSampler was not built (use CoreSampler(info, table))")
        return 0

    def sample(self, rng):
        """One world drawn with a `bergen_search.game.rng.Rng` (advanced as the reference's walk
        would): (hands by seat, reserve in draw order)."""
        cdef State s
        cdef Rng r
        self._ready()
        if not isinstance(rng, PyRng):
            raise BergenError(f"expected a bergen_search.game.rng.Rng, got {type(rng).__name__}",
                              field="rng")
        r.state = <uint64_t>(rng.state & MASK64)
        sample_world(&self.c, &r, &s)
        rng.state = r.state
        return (tuple(s.hands[i] for i in range(self.info.rules.players)),
                [s.reserve[i] for i in range(s.reserve_size)])

    def sample_many(self, n, seed):
        """Draw n worlds (0..MAX_SAMPLES) on one stream in C; return a checksum (the xor of
        the hand masks) so that the loop is not optimised away. For measuring throughput."""
        cdef State s
        cdef Rng r
        cdef long long i, count
        cdef uint64_t check = 0
        self._ready()
        if type(n) is not int or not 0 <= n <= MAX_SAMPLES:
            raise BergenError(f"n must be an integer 0..{MAX_SAMPLES}, got {n!r}", field="n")
        if type(seed) is not int:
            raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
        count = n
        r.state = <uint64_t>(seed & MASK64)
        with nogil:
            for i in range(count):
                sample_world(&self.c, &r, &s)
                check ^= s.hands[0] ^ (<uint64_t>s.hands[1] << 28) ^ s.reserve[0]
        return check
