# cython: language_level=3
"""Perfect Information Monte Carlo with a solver to the end of the round, in C.

PIMC (Long, Sturtevant, Buro & Furtak 2010, "Understanding the Success of Perfect Information
Monte Carlo Sampling in Game Tree Search"; Ginsberg's GIB for bridge, Buro et al. 2009 for
Skat) values each move of the seat to move by the mean, over sampled worlds, of its value in
the world with everything in view. A world here is complete: the other hands *and the
reserve's order* (`_sampler.sample_world` draws both uniformly among those consistent with
what the seat saw), so a world is a deterministic game and is solved exactly:

- alpha-beta to the end of the round with a transposition table (the key: the hands, the
  ends, the reserve position, the seat to move, the pass and draw counts and the scores; each
  world salts it, so entries of one world never answer for another), the TT's best move tried
  first, then the plays that score at once;
- the value is the root side's utility: its gain minus the mean gain of the other sides (two
  sides: the points difference; objective `match`: its probability of winning the match, the
  match equity of the scores at the end of a round without a winner). With three or more
  sides the others are taken to play against the root side (the *paranoid* reduction, Sturtevant
  & Korf 2000), which keeps the search a two-sided alpha-beta;
- moves that lead to the same position up to the mirror (a tile that fits both ends alike:
  the two ends show the same number and are both doubles or neither) are one choice: the
  first is solved, its twin takes the same value.

Every root move is solved with a full window in every world, so the values of all moves are
exact per world and compare on the same worlds (common random numbers): the difference of two
moves has far less noise than either value.

`root_values()` gives the per-world values (a numpy array, worlds x moves) and each world's
weight (1 unless the caller sets weights), for `bergen_search.search` to average.

>>> from bergen_search.position import position_from_flags
>>> from bergen_search.infoset import from_position
>>> from bergen_search._sampler import CoreSampler
>>> pos = position_from_flags(hand="2-4", hand_sizes="1,1", line="2-2 2-6 6-0 0-1 1-4 4-4 "
...     "4-5 5-3 3-4 4-0 0-2 2-1 1-3 3-0 0-5 5-1 1-6 6-6 6-3 3-3 3-2 2-5 5-6 6-4")
>>> search = PimcSearch(CoreSampler(from_position(pos)), seed=1)
>>> search.run_worlds(10, 0)
10
>>> search.moves, search.root_values()[0][0].tolist()
([30, 31], [4.0, 5.0])
"""
import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from bergen_search._core cimport (CoreState, DRAW, END_NONE, GOLDEN, MAX_MOVES, MAX_SEATS,
                                  PASS, Rng, Rules, State, TILE_HIGH, TILE_LOW, apply_move, below, deal,
                                  do_move, gen_moves, mix64)
from bergen_search._sampler cimport CoreSampler, Sampler, sample_world

from bergen_search.errors import BergenError
from bergen_search.expectimax_ref import EQUITY_STREAM as _PY_EQUITY_STREAM
from bergen_search.expectimax_ref import SCORE_BITS as _PY_SCORE_BITS
from bergen_search.expectimax_ref import check_world, objective_code

cdef enum:
    OBJ_POINTS = 0
    OBJ_MATCH = 1
    TT_EXACT = 0
    TT_LOWER = 1           # the value is at least the stored one
    TT_UPPER = 2           # the value is at most the stored one
    NO_MOVE = 255
    CHECK_EVERY = 4096     # nodes between two looks at the clock
    EQUITY_MEMO_MAX = 1 << 16
    DEFAULT_TT_BITS = 18   # 2^18 entries of 16 bytes: 4 MiB
    DEFAULT_EQUITY_PLAYOUTS = 256

cdef uint64_t EQUITY_STREAM = _PY_EQUITY_STREAM
cdef int SCORE_BITS = _PY_SCORE_BITS


ctypedef struct TTEntry:
    uint64_t key           # the full hash (0: empty)
    float value            # the root side's utility, or a bound of it (see flag)
    uint8_t flag           # TT_EXACT, TT_LOWER or TT_UPPER
    uint8_t best           # the best move found (a play), NO_MOVE if none


ctypedef struct Solver:
    const Rules* rules
    int n_sides
    int objective          # OBJ_POINTS or OBJ_MATCH
    int root_side          # the side whose utility is searched (the seat to move at the root)
    int32_t root_scores[4] # the scores at the root (gains count from them)
    TTEntry* tt
    uint64_t tt_mask
    uint64_t salt          # the world's salt, mixed into every key
    uint64_t seed          # the search's seed (the equity playouts)
    int equity_playouts    # random matches per equity entry
    double* equity         # memo: n_sides values per score vector, < 0 unknown; NULL: none
    long long nodes
    long long check_at     # node count of the next look at the clock
    double deadline        # CLOCK_MONOTONIC seconds after which a world is abandoned; 0 none
    bint aborted


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline uint64_t _key(const Solver* S, const State* s) noexcept nogil:
    cdef uint64_t h = S.salt
    h = mix64(h ^ (<uint64_t>s.hands[0] | (<uint64_t>s.hands[1] << 28)))
    h = mix64(h + GOLDEN ^ (<uint64_t>s.hands[2] | (<uint64_t>s.hands[3] << 28)))
    h = mix64(h + GOLDEN ^ (<uint64_t>(s.left + 1)
                            | (<uint64_t>(s.right + 1) << 4)
                            | (<uint64_t>s.left_double << 8)
                            | (<uint64_t>s.right_double << 9)
                            | (<uint64_t>s.reserve_next << 10)
                            | (<uint64_t>(s.to_move + 1) << 16)
                            | (<uint64_t>s.passes << 20)
                            | (<uint64_t>s.draws << 24)))
    h = mix64(h + GOLDEN ^ (<uint64_t><uint32_t>s.scores[0] | (<uint64_t><uint32_t>s.scores[1] << 32)))
    h = mix64(h + GOLDEN ^ (<uint64_t><uint32_t>s.scores[2] | (<uint64_t><uint32_t>s.scores[3] << 32)))
    return h | 1     # 0 marks an empty entry


# ---- leaves ---------------------------------------------------------------------------------
cdef void _equity(Solver* S, const int32_t* scores, double* out) noexcept nogil:
    """Per side, the share of `equity_playouts` random matches from `scores` it wins; seeded
    by the scores and the search's seed (a fixed function of the scores), memoised."""
    cdef Rng rng
    cdef State st
    cdef int32_t sc[MAX_SEATS]
    cdef int moves[MAX_MOVES]
    cdef int wins[MAX_SEATS]
    cdef int i, k, p, n = S.n_sides, index = 0, stride = 1
    cdef uint64_t key = 0
    cdef double* memo = NULL
    if S.equity != NULL:
        for i in range(n):
            index += scores[i] * stride
            stride *= S.rules.target
        memo = S.equity + index * n
        if memo[0] >= 0:
            for i in range(n):
                out[i] = memo[i]
            return
    for i in range(n):
        key |= (<uint64_t>scores[i]) << (SCORE_BITS * i)
    rng.state = mix64((S.seed ^ EQUITY_STREAM) + (key + 1) * GOLDEN)
    for i in range(MAX_SEATS):
        wins[i] = 0
    for p in range(S.equity_playouts):
        for i in range(MAX_SEATS):
            sc[i] = scores[i] if i < n else 0
        while True:
            deal(&st, S.rules, &rng, sc)
            while st.ended == END_NONE:
                k = gen_moves(&st, moves)
                do_move(&st, moves[0] if k == 1 else moves[below(&rng, k)])
            if st.winner >= 0:
                wins[st.winner] += 1
                break
            for i in range(MAX_SEATS):
                sc[i] = st.scores[i]
    for i in range(n):
        out[i] = <double>wins[i] / S.equity_playouts
        if memo != NULL:
            memo[i] = out[i]


cdef double _terminal(Solver* S, const State* s) noexcept nogil:
    """The root side's utility of a finished round."""
    cdef double vec[MAX_SEATS]
    cdef double others = 0
    cdef int i
    if S.objective == OBJ_MATCH:
        if s.winner >= 0:
            return 1.0 if s.winner == S.root_side else 0.0
        _equity(S, s.scores, vec)
        return vec[S.root_side]
    for i in range(S.n_sides):
        if i != S.root_side:
            others += s.scores[i] - S.root_scores[i]
    return (s.scores[S.root_side] - S.root_scores[S.root_side]) - others / (S.n_sides - 1)


cdef inline bint _scores_now(const State* s, int move) noexcept nogil:
    """The play `move` makes both ends show the same number (a match, scored at once)."""
    cdef int t = move >> 1
    cdef int left = s.left, right = s.right
    if move & 1:
        right = TILE_LOW[t] + TILE_HIGH[t] - right
    else:
        left = TILE_LOW[t] + TILE_HIGH[t] - left
    return left == right


# ---- the solver -----------------------------------------------------------------------------
cdef double _solve(Solver* S, const State* s, double alpha, double beta) noexcept nogil:
    """The root side's utility of `s` with everything known, fail-soft alpha-beta within
    (alpha, beta): the root side's seats maximise it, every other seat minimises it."""
    cdef int moves[MAX_MOVES]
    cdef int n, i, j, k, tmp, best_move = NO_MOVE, hint = NO_MOVE
    cdef State cur, child
    cdef double v, best, a0 = alpha, b0 = beta
    cdef bint maxing
    cdef uint64_t key
    cdef TTEntry* e
    S.nodes += 1
    if S.deadline > 0 and S.nodes >= S.check_at:
        S.check_at = S.nodes + CHECK_EVERY
        if _now() >= S.deadline:
            S.aborted = True
    if S.aborted:
        return 0
    # Forced steps (draws, passes, a single play) need no table entry.
    while s.ended == END_NONE:
        n = gen_moves(s, moves)
        if n > 1:
            break
        if s != &cur:
            memcpy(&cur, s, sizeof(State))
            s = &cur
        do_move(&cur, moves[0])
    if s.ended != END_NONE:
        return _terminal(S, s)
    key = _key(S, s)
    e = &S.tt[key & S.tt_mask]
    if e.key == key:
        v = e.value
        if e.flag == TT_EXACT:
            return v
        if e.flag == TT_LOWER:
            if v >= beta:
                return v
            if v > alpha:
                alpha = v
        else:
            if v <= alpha:
                return v
            if v < beta:
                beta = v
        hint = e.best
    # Move ordering: the table's move, then the plays that score at once.
    k = 0
    for i in range(n):
        if moves[i] == hint:
            tmp = moves[k]; moves[k] = moves[i]; moves[i] = tmp
            k += 1
            break
    for i in range(k, n):
        if _scores_now(s, moves[i]):
            tmp = moves[k]; moves[k] = moves[i]; moves[i] = tmp
            k += 1
    maxing = S.rules.side_of[s.to_move] == S.root_side
    best = -INFINITY if maxing else INFINITY
    for i in range(n):
        apply_move(s, moves[i], &child)
        v = _solve(S, &child, alpha, beta)
        if S.aborted:
            return 0
        if maxing:
            if v > best:
                best = v
                best_move = moves[i]
                if v > alpha:
                    alpha = v
        else:
            if v < best:
                best = v
                best_move = moves[i]
                if v < beta:
                    beta = v
        if alpha >= beta:
            break
    e.key = key
    e.value = <float>best
    e.best = <uint8_t>best_move
    e.flag = TT_UPPER if best <= a0 else (TT_LOWER if best >= b0 else TT_EXACT)
    return best


# ---- the search object ----------------------------------------------------------------------
cdef class PimcSearch:
    """A seeded PIMC search over one information set's worlds, each solved to the end of the
    round.

    `PimcSearch(sampler, seed, objective=0, *, tt_bits=18, equity_playouts=256)`: `sampler`
    a CoreSampler of the information set; `objective` 0/'points' or 1/'match'. Worlds are
    drawn on Rng(seed); the same seed and number of worlds give the same values however the
    calls split them. The search runs without the GIL; one object must not be used by two
    threads at once.
    """
    cdef Solver S
    cdef CoreSampler sampler
    cdef Rng world_rng
    cdef int root_moves[MAX_MOVES]
    cdef int twin_of[MAX_MOVES]       # index of the move it mirrors, or its own index
    cdef int n_root
    cdef double* values               # n_worlds x n_root, row by row
    cdef double* weights              # per world
    cdef uint32_t* hands              # n_worlds x players: each world's hands (for weighting)
    cdef long long n_worlds
    cdef long long capacity

    def __cinit__(self):
        self.S.tt = NULL
        self.S.equity = NULL
        self.values = NULL
        self.weights = NULL
        self.hands = NULL

    def __init__(self, CoreSampler sampler, seed, objective=0, *, int tt_bits=DEFAULT_TT_BITS,
                 int equity_playouts=DEFAULT_EQUITY_PLAYOUTS):
        cdef const Rules* rules = sampler.c.base.rules
        cdef const State* base = &sampler.c.base
        cdef long long cells = 1
        cdef int i, j, t
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
        if not 10 <= tt_bits <= 28:
            raise BergenError(f"tt_bits must be 10..28, got {tt_bits}", field="tt_bits")
        if equity_playouts < 1:
            raise BergenError(f"equity_playouts must be at least 1, got {equity_playouts}",
                              field="equity_playouts")
        self.sampler = sampler
        self.S.rules = rules
        self.S.n_sides = rules.n_sides
        self.S.objective = objective_code(objective)
        self.S.root_side = rules.side_of[base.to_move]
        for i in range(MAX_SEATS):
            self.S.root_scores[i] = base.scores[i]
        self.S.seed = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        self.S.equity_playouts = equity_playouts
        self.S.nodes = 0
        self.S.deadline = 0
        self.S.aborted = False
        self.world_rng.state = self.S.seed
        self.S.tt = <TTEntry*>calloc((<size_t>1) << tt_bits, sizeof(TTEntry))
        if self.S.tt == NULL:
            raise MemoryError()
        self.S.tt_mask = ((<uint64_t>1) << tt_bits) - 1
        if self.S.objective == OBJ_MATCH:
            for i in range(rules.n_sides):
                cells *= rules.target
                if cells > EQUITY_MEMO_MAX:
                    break
            if cells <= EQUITY_MEMO_MAX:
                self.S.equity = <double*>malloc(cells * rules.n_sides * sizeof(double))
                if self.S.equity == NULL:
                    raise MemoryError()
                for i in range(cells * rules.n_sides):
                    self.S.equity[i] = -1.0
        self.n_root = gen_moves(base, self.root_moves)
        for i in range(self.n_root):
            self.twin_of[i] = i
            t = self.root_moves[i] >> 1
            if (self.root_moves[i] & 1 and self.root_moves[i] < DRAW and i > 0
                    and self.root_moves[i - 1] == t * 2
                    and base.left == base.right and base.left_double == base.right_double):
                self.twin_of[i] = i - 1
        self.n_worlds = 0
        self.capacity = 0

    def __dealloc__(self):
        free(self.S.tt)
        free(self.S.equity)
        free(self.values)
        free(self.weights)
        free(self.hands)

    cdef int _grow(self) except -1:
        cdef long long cap = self.capacity * 2 if self.capacity else 256
        cdef int players = self.S.rules.players
        cdef double* v = <double*>realloc(self.values, cap * max(self.n_root, 1) * sizeof(double))
        if v == NULL:
            raise MemoryError()
        self.values = v
        v = <double*>realloc(self.weights, cap * sizeof(double))
        if v == NULL:
            raise MemoryError()
        self.weights = v
        cdef uint32_t* h = <uint32_t*>realloc(self.hands, cap * players * sizeof(uint32_t))
        if h == NULL:
            raise MemoryError()
        self.hands = h
        self.capacity = cap
        return 0

    cdef void _solve_world(self, State* world, double* out) noexcept nogil:
        """Every root move's value in one complete world (aborted: S.aborted set)."""
        cdef State child
        cdef int i
        self.S.salt = mix64(self.S.seed ^ (<uint64_t>self.n_worlds + 1) * GOLDEN
                            ^ (<uint64_t>world.hands[0] << 7) ^ (<uint64_t>world.reserve[0] << 3))
        for i in range(self.n_root):
            if self.twin_of[i] != i:
                out[i] = out[self.twin_of[i]]
                continue
            apply_move(world, self.root_moves[i], &child)
            out[i] = _solve(&self.S, &child, -INFINITY, INFINITY)
            if self.S.aborted:
                return

    cdef bint _record(self, State* world, double* vals) noexcept nogil:
        """Append a solved world (room must have been made)."""
        cdef int i
        cdef long long row = self.n_worlds
        for i in range(self.n_root):
            self.values[row * self.n_root + i] = vals[i]
        self.weights[row] = 1.0
        for i in range(self.S.rules.players):
            self.hands[row * self.S.rules.players + i] = world.hands[i]
        self.n_worlds += 1
        return True

    @property
    def moves(self):
        """The root moves, in move order (the columns of `root_values`)."""
        return [self.root_moves[i] for i in range(self.n_root)]

    @property
    def twins(self):
        """For each root move, the index of the move it mirrors (itself if none)."""
        return [self.twin_of[i] for i in range(self.n_root)]

    @property
    def worlds(self):
        return self.n_worlds

    @property
    def nodes(self):
        """Decision nodes searched (forced steps are not counted)."""
        return self.S.nodes

    def run_worlds(self, long long n, double seconds):
        """Sample and solve worlds until `n` are done (<= 0: no limit) or `seconds` have passed
        (<= 0: no limit; a world still running then is dropped, and the next call starts it
        afresh). Returns the worlds solved by this call."""
        cdef const Sampler* smp = &self.sampler.c
        cdef State world
        cdef double vals[MAX_MOVES]
        cdef Rng saved
        cdef long long done = 0, saved_nodes
        cdef double deadline = 0
        if n <= 0 and seconds <= 0:
            raise BergenError("run_worlds needs a number of worlds or a time limit")
        while n <= 0 or done < n:
            if self.n_worlds >= self.capacity:
                self._grow()
            with nogil:
                if seconds > 0 and deadline == 0:
                    deadline = _now() + seconds
                self.S.deadline = deadline
                self.S.aborted = False
                self.S.check_at = self.S.nodes + CHECK_EVERY
                while (n <= 0 or done < n) and self.n_worlds < self.capacity:
                    if deadline > 0 and _now() >= deadline:
                        self.S.aborted = True
                        break
                    saved = self.world_rng
                    saved_nodes = self.S.nodes
                    sample_world(smp, &self.world_rng, &world)
                    self._solve_world(&world, vals)
                    if self.S.aborted:
                        self.world_rng = saved
                        self.S.nodes = saved_nodes
                        break
                    self._record(&world, vals)
                    done += 1
            if self.S.aborted:
                break
        self.S.deadline = 0
        self.S.aborted = False
        return done

    def run_world(self, hands, reserve_order, double seconds=0):
        """The values of the root moves (move order, the root side's utility) in one world:
        `hands` a mask per seat (the seat's own included), `reserve_order` the reserve in draw
        order. Recorded like a sampled world. With `seconds` > 0 the world is abandoned if
        it takes longer: None, and nothing is recorded."""
        cdef State world
        cdef double vals[MAX_MOVES]
        cdef int i
        cdef long long saved_nodes = self.S.nodes
        checked, order = check_world(self.sampler.info, hands, reserve_order)
        memcpy(&world, &self.sampler.c.base, sizeof(State))
        for i in range(self.S.rules.players):
            world.hands[i] = checked[i]
        for i, t in enumerate(order):
            world.reserve[i] = t
        world.reserve_next = 0
        if self.n_worlds >= self.capacity:
            self._grow()
        with nogil:
            self.S.deadline = _now() + seconds if seconds > 0 else 0
            self.S.aborted = False
            self.S.check_at = self.S.nodes + CHECK_EVERY
            self._solve_world(&world, vals)
        if self.S.aborted:
            self.S.aborted = False
            self.S.deadline = 0
            self.S.nodes = saved_nodes
            return None
        self.S.deadline = 0
        self._record(&world, vals)
        return [vals[i] for i in range(self.n_root)]

    def root_values(self):
        """(values, weights): the root moves' values per world (worlds x moves, the root
        side's utility: points, or the probability of winning the match) and each world's
        weight."""
        cdef long long i, n = self.n_worlds
        vals = np.empty((n, self.n_root), dtype=np.float64)
        wts = np.empty(n, dtype=np.float64)
        cdef double[:, ::1] vv = vals
        cdef double[::1] ww = wts
        cdef int j
        for i in range(n):
            ww[i] = self.weights[i]
            for j in range(self.n_root):
                vv[i, j] = self.values[i * self.n_root + j]
        return vals, wts

    def world_hands(self):
        """Each solved world's hands (worlds x players, masks), in the order solved."""
        cdef long long i, n = self.n_worlds
        cdef int j, players = self.S.rules.players
        out = np.empty((n, players), dtype=np.uint32)
        cdef uint32_t[:, ::1] oo = out
        for i in range(n):
            for j in range(players):
                oo[i, j] = self.hands[i * players + j]
        return out

    def set_weights(self, weights):
        """Set every solved world's weight (a sequence of n_worlds non-negative numbers)."""
        cdef long long i
        if len(weights) != self.n_worlds:
            raise BergenError(f"expected {self.n_worlds} weights, got {len(weights)}")
        for i in range(self.n_worlds):
            if not weights[i] >= 0:
                raise BergenError(f"a world's weight must be non-negative, got {weights[i]}")
            self.weights[i] = weights[i]


def solve_moves(CoreState state, objective=0, int tt_bits=16):
    """[(move, value)] for every legal move of a fully known core state (the reserve in its
    order): its exact value to the side to move with everything in view, as a world of
    `PimcSearch` is solved. For the policy fit and the tests."""
    cdef Solver S
    cdef int moves[MAX_MOVES]
    cdef int i, n = gen_moves(&state.st, moves)
    cdef State child
    cdef double v
    memset(&S, 0, sizeof(Solver))
    S.rules = state.st.rules
    S.n_sides = S.rules.n_sides
    S.objective = objective_code(objective)
    if S.objective == OBJ_MATCH:
        raise BergenError("solve_moves: the points objective only")
    if state.st.ended != END_NONE:
        return []
    S.root_side = S.rules.side_of[state.st.to_move]
    for i in range(MAX_SEATS):
        S.root_scores[i] = state.st.scores[i]
    S.tt = <TTEntry*>calloc((<size_t>1) << tt_bits, sizeof(TTEntry))
    if S.tt == NULL:
        raise MemoryError()
    S.tt_mask = ((<uint64_t>1) << tt_bits) - 1
    S.salt = 0x9E3779B97F4A7C15
    out = []
    try:
        for i in range(n):
            apply_move(&state.st, moves[i], &child)
            with nogil:
                v = _solve(&S, &child, -INFINITY, INFINITY)
            out.append((moves[i], v))
    finally:
        free(S.tt)
    return out
