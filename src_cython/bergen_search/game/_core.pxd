# cython: language_level=3
"""The contract of the Bergen core: C types, bit helpers, tables, the SplitMix64 RNG, the rules
and the play policies.

Everything here mirrors the pure-Python reference bit for bit: tiles are indices 0..27 in
`bergen_search.game.tiles` order, a set of tiles is a 28-bit mask, a move is an int
(`tile * 2 + end`, end 0 left / 1 right, the lead `tile * 2`, `DRAW` 56, `PASS` 57 as in
`bergen_search.game.state`) and the rule codes are those of `bergen_search.game.rules` (LEAD_CODE...).

Other Cython modules `cimport` this file; the functions declared at the bottom are
implemented in `_core.pyx`. The core trusts its input: validation lives in the Python
wrappers (`CoreState.apply`, `Backend.*`).
"""
from libc.stdint cimport int8_t, int32_t, uint8_t, uint32_t, uint64_t

# ---- constants ----------------------------------------------------------------------------
cdef enum:
    N_TILES = 28
    MAX_SEATS = 4
    DRAW = 56            # draw the next reserve tile (forced: nothing fits)
    PASS = 57            # pass (forced: nothing fits and no draw allowed)
    MAX_MOVES = 32       # a move buffer's size: at most 13 tiles fit, 2 ends each
    MAX_EVENTS = 512     # an event buffer's size for one round (a round takes at most ~200)

# Why a round ended (`State.ended`), as `bergen_search.game.state.ENDS`.
cdef enum:
    END_NONE = 0
    END_OUT = 1
    END_BLOCKED = 2
    END_TARGET = 3

# Rule codes, as `bergen_search.game.rules.*_CODE`.
cdef enum:
    LEAD_LOWEST_DOUBLE = 0
    LEAD_HIGHEST_DOUBLE = 1
    NO_DOUBLE_REDEAL = 0
    NO_DOUBLE_LOWEST_TILE = 1
    DRAW_UNTIL_PLAYABLE = 0
    DRAW_ONE = 1
    BLOCKED_GERMAN = 0
    BLOCKED_PIPS = 1
    BLOCKED_AMERICAN = 2

# Engines of `play_round`, as `bergen_search.game.match.SIMPLE_ENGINES`.
cdef enum:
    ENGINE_RANDOM = 0
    ENGINE_GREEDY = 1

# ---- tables (C data shared by every module that cimports this file) ------------------------
cdef extern from *:
    """
    #include <stdint.h>
    /* tiles 0..27: 0-0, 0-1, ..., 0-6, 1-1, ..., 6-6 (bergen_search/game/tiles.py) */
    static const uint8_t bergen_TILE_LOW[28] = {
        0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6};
    static const uint8_t bergen_TILE_HIGH[28] = {
        0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 2, 3, 4, 5, 6, 3, 4, 5, 6, 4, 5, 6, 5, 6, 6};
    static const uint8_t bergen_PIPS[28] = {
        0, 1, 2, 3, 4, 5, 6, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 8, 6, 7, 8, 9, 8, 9, 10, 10, 11, 12};
    static const uint8_t bergen_LOW_RANK[28] = {
        0, 1, 2, 4, 6, 9, 12, 3, 5, 7, 10, 13, 16, 8, 11, 14, 17, 19, 15, 18, 20, 22, 21, 23,
        24, 25, 26, 27};
    static const uint32_t bergen_TILES_WITH[7] = {
        0x7fu, 0x1f82u, 0x3e104u, 0x3c4208u, 0x1c88410u, 0x6910820u, 0xd221040u};
    static const uint8_t bergen_DOUBLE_OF[7] = {0, 7, 13, 18, 22, 25, 27};
    """
    const uint8_t TILE_LOW "bergen_TILE_LOW"[28]      # lower half of each tile
    const uint8_t TILE_HIGH "bergen_TILE_HIGH"[28]    # higher half of each tile
    const uint8_t PIPS "bergen_PIPS"[28]              # pip total of each tile
    const uint8_t LOW_RANK "bergen_LOW_RANK"[28]      # order of the `lowest-tile` lead
    const uint32_t TILES_WITH "bergen_TILES_WITH"[7]  # mask of the tiles showing v
    const uint8_t DOUBLE_OF "bergen_DOUBLE_OF"[7]     # tile index of the double v-v

cdef enum:
    DOUBLES = 0xa442081      # mask of the seven doubles
    ALL_TILES = 0xfffffff    # mask of the 28 tiles

# ---- bit helpers --------------------------------------------------------------------------
# The one definition of the bit intrinsics every module uses, chosen when the C is compiled:
# GCC's and Clang's builtins, MSVC's intrinsics (__popcnt on x86, _BitScanForward and
# _BitScanReverse, their 64-bit variants where the target has them), or plain C, which any
# compiler takes (and which BERGEN_PLAIN_BITS=1 at build time forces: setup.py). The plain C
# versions are always compiled (`_core.plain_bits_mismatches` checks them against the chosen
# ones). The same for the one atomic add (the trees' memory accounts) and the monotonic clock.
cdef extern from *:
    """
    #include <stdint.h>
    static inline int bergen_popcount32_c(uint32_t x) {
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        return (int)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
    }
    static inline int bergen_popcount64_c(uint64_t x) {
        return bergen_popcount32_c((uint32_t)x) + bergen_popcount32_c((uint32_t)(x >> 32));
    }
    static inline int bergen_ctz32_c(uint32_t x) {      /* x != 0 */
        int n = 0;
        if (!(x & 0xffffu)) { n += 16; x >>= 16; }
        if (!(x & 0xffu)) { n += 8; x >>= 8; }
        if (!(x & 0xfu)) { n += 4; x >>= 4; }
        if (!(x & 0x3u)) { n += 2; x >>= 2; }
        return n + (int)(~x & 1u);
    }
    static inline int bergen_ctz64_c(uint64_t x) {      /* x != 0 */
        return (uint32_t)x ? bergen_ctz32_c((uint32_t)x) : 32 + bergen_ctz32_c((uint32_t)(x >> 32));
    }
    static inline int bergen_clz32_c(uint32_t x) {      /* x != 0 */
        int n = 0;
        if (!(x & 0xffff0000u)) { n += 16; x <<= 16; }
        if (!(x & 0xff000000u)) { n += 8; x <<= 8; }
        if (!(x & 0xf0000000u)) { n += 4; x <<= 4; }
        if (!(x & 0xc0000000u)) { n += 2; x <<= 2; }
        return n + (int)(~x >> 31);
    }
    #if defined(BERGEN_PLAIN_BITS)
      #define BERGEN_BITS "plain C"
    #elif defined(__GNUC__) || defined(__clang__)
      #define BERGEN_BITS "builtins"
      #define bergen_popcount32(x) __builtin_popcount(x)
      #define bergen_popcount64(x) __builtin_popcountll(x)
      #define bergen_ctz32(x) __builtin_ctz(x)
      #define bergen_ctz64(x) __builtin_ctzll(x)
      #define bergen_clz32(x) __builtin_clz(x)
    #elif defined(_MSC_VER)
      #include <intrin.h>
      #define BERGEN_BITS "MSVC intrinsics"
      #if defined(_M_X64) || defined(_M_IX86)
        #define bergen_popcount32(x) ((int)__popcnt(x))
      #endif
      #if defined(_M_X64)
        #define bergen_popcount64(x) ((int)__popcnt64(x))
      #endif
      static inline int bergen_ctz32(uint32_t x) {
          unsigned long i; _BitScanForward(&i, x); return (int)i;
      }
      static inline int bergen_clz32(uint32_t x) {
          unsigned long i; _BitScanReverse(&i, x); return 31 - (int)i;
      }
      #if defined(_M_X64) || defined(_M_ARM64)
        static inline int bergen_ctz64(uint64_t x) {
            unsigned long i; _BitScanForward64(&i, x); return (int)i;
        }
      #endif
    #else
      #define BERGEN_BITS "plain C"
    #endif
    #ifndef bergen_popcount32
      #define bergen_popcount32(x) bergen_popcount32_c(x)
    #endif
    #ifndef bergen_popcount64
      #define bergen_popcount64(x) bergen_popcount64_c(x)
    #endif
    #ifndef bergen_ctz32
      #define bergen_ctz32(x) bergen_ctz32_c(x)
    #endif
    #ifndef bergen_ctz64
      #define bergen_ctz64(x) bergen_ctz64_c(x)
    #endif
    #ifndef bergen_clz32
      #define bergen_clz32(x) bergen_clz32_c(x)
    #endif
    /* *p += delta, atomically where the compiler can (the result). */
    static inline long long bergen_atomic_add(long long *p, long long delta) {
    #if defined(__GNUC__) || defined(__clang__)
        return __atomic_add_fetch(p, delta, __ATOMIC_SEQ_CST);
    #elif defined(_MSC_VER)
        return _InterlockedExchangeAdd64((volatile long long *)p, delta) + delta;
    #else
        return *p += delta;
    #endif
    }
    """
    const char* BITS "BERGEN_BITS"          # which of them this build uses
    int popcount32 "bergen_popcount32"(uint32_t x) noexcept nogil
    int popcount64 "bergen_popcount64"(uint64_t x) noexcept nogil
    int ctz32 "bergen_ctz32"(uint32_t x) noexcept nogil
    int ctz64 "bergen_ctz64"(uint64_t x) noexcept nogil
    int clz32 "bergen_clz32"(uint32_t x) noexcept nogil
    int popcount32_c "bergen_popcount32_c"(uint32_t x) noexcept nogil
    int popcount64_c "bergen_popcount64_c"(uint64_t x) noexcept nogil
    int ctz32_c "bergen_ctz32_c"(uint32_t x) noexcept nogil
    int ctz64_c "bergen_ctz64_c"(uint64_t x) noexcept nogil
    int clz32_c "bergen_clz32_c"(uint32_t x) noexcept nogil
    long long atomic_add "bergen_atomic_add"(long long* p, long long delta) noexcept nogil

cdef inline int popcount(uint32_t mask) noexcept nogil:
    return popcount32(mask)

cdef inline int lowest_bit(uint32_t mask) noexcept nogil:
    """Index of the lowest set bit (the lowest tile of a mask); mask must not be 0."""
    return ctz32(mask)

cdef inline int highest_bit(uint32_t mask) noexcept nogil:
    """Index of the highest set bit; mask must not be 0."""
    return 31 - clz32(mask)

cdef inline bint is_double(int tile) noexcept nogil:
    return TILE_LOW[tile] == TILE_HIGH[tile]

cdef inline int mask_pips(uint32_t mask) noexcept nogil:
    cdef int pips = 0
    while mask:
        pips += PIPS[lowest_bit(mask)]
        mask &= mask - 1
    return pips

# ---- SplitMix64, bit for bit as bergen_search/game/rng.py -----------------------------------
ctypedef struct Rng:
    uint64_t state       # the SplitMix64 counter; advanced by GOLDEN before every output

cdef extern from *:
    """
    #define BERGEN_GOLDEN 0x9E3779B97F4A7C15ULL
    #define BERGEN_PLAY_STREAM 0x5851F42D4C957F2DULL
    #define BERGEN_MIX1 0xBF58476D1CE4E5B9ULL
    #define BERGEN_MIX2 0x94D049BB133111EBULL
    """
    const uint64_t GOLDEN "BERGEN_GOLDEN"
    const uint64_t PLAY_STREAM "BERGEN_PLAY_STREAM"   # XORed into a game's seed for the plays
    const uint64_t MIX1 "BERGEN_MIX1"
    const uint64_t MIX2 "BERGEN_MIX2"

cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """The SplitMix64 finaliser (rng.mix64)."""
    z = (z ^ (z >> 30)) * MIX1
    z = (z ^ (z >> 27)) * MIX2
    return z ^ (z >> 31)

cdef inline uint64_t next64(Rng* rng) noexcept nogil:
    rng.state += GOLDEN
    return mix64(rng.state)

cdef inline uint32_t below(Rng* rng, uint32_t n) noexcept nogil:
    """A number in 0..n-1: the high 32 bits scaled (Lemire's multiply-shift), as Rng.below."""
    return <uint32_t>(((next64(rng) >> 32) * <uint64_t>n) >> 32)

cdef inline void shuffle(Rng* rng, uint8_t* items, int n) noexcept nogil:
    """Fisher-Yates from the top down, as Rng.shuffle."""
    cdef int i, j
    cdef uint8_t tmp
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp

# ---- mirror twins -------------------------------------------------------------------------
cdef inline bint mirrored_ends(int left, int right, int left_double, int right_double) noexcept nogil:
    """Both ends show the same number and are both doubles or neither: a tile that fits one
    end fits the other, and laying it at either gives the same position up to the mirror."""
    return left == right and left_double == right_double


cdef inline bint right_twin(const int* moves, int i) noexcept nogil:
    """`moves[i]` (of moves ascending, as gen_moves gives them) is a play at the right end
    whose tile is also played at the left, just before it: its mirror twin when the ends
    mirror (`mirrored_ends`)."""
    return i > 0 and (moves[i] & 1) and moves[i] < DRAW and moves[i - 1] == moves[i] - 1


cdef inline int drop_mirror_twins(int left, int right, int left_double, int right_double,
                                  int* moves, int n) noexcept nogil:
    """Remove from `moves` (ascending, as gen_moves gives them) each play at the right end
    whose tile is also played at the left, when the ends mirror (`mirrored_ends`); return the
    new count. The two are one choice."""
    cdef int i, k = 0
    if n < 2 or not mirrored_ends(left, right, left_double, right_double):
        return n
    for i in range(n):
        if right_twin(moves, i):
            continue
        moves[k] = moves[i]
        k += 1
    return k


# ---- rules and state ----------------------------------------------------------------------
ctypedef struct Rules:
    int players          # seats, 2..4; play passes from seat i to i + 1
    int n_sides          # sides that score: 2 with partnerships, else players
    bint partnerships    # seats 0 and 2 against seats 1 and 3
    int target           # points that win the match
    int hand_size        # tiles dealt to each seat
    int lead             # LEAD_LOWEST_DOUBLE or LEAD_HIGHEST_DOUBLE
    int no_double        # NO_DOUBLE_REDEAL or NO_DOUBLE_LOWEST_TILE
    int draw             # DRAW_UNTIL_PLAYABLE or DRAW_ONE
    int reserve_kept     # tiles of the reserve never drawn
    int out_bonus        # points for going out
    int blocked          # BLOCKED_GERMAN, BLOCKED_PIPS or BLOCKED_AMERICAN
    bint endgame_cap     # matches reduced near the target
    int reserve_start    # tiles in the reserve after the deal: 28 - players * hand_size
    int side_of[4]       # the side of each seat

ctypedef struct State:
    const Rules* rules   # the rule set; owned by the caller, must outlive the state
    uint32_t hands[4]    # tiles held by each seat (28-bit masks; seats >= players are 0)
    int32_t scores[4]    # points of each side (sides >= n_sides are 0)
    uint8_t reserve[28]  # the reserve in draw order (full information); first reserve_start used
    uint8_t reserve_next # index in `reserve` of the next tile to draw
    uint8_t reserve_size # tiles still in the reserve
    int8_t left          # value showing at the left end; -1 before the lead
    int8_t right         # value showing at the right end; -1 before the lead
    uint8_t left_double  # 1 when the tile at the left end is a double
    uint8_t right_double # 1 when the tile at the right end is a double
    int8_t to_move       # seat to act; -1 once the round has ended
    uint8_t passes       # consecutive passes since the last play
    uint8_t draws        # tiles drawn by the seat to move in this turn
    int8_t lead_tile     # the forced lead (tile index), meaningful while left == -1
    uint8_t ended        # END_NONE, END_OUT, END_BLOCKED or END_TARGET
    int8_t winner        # the side that reached the target (the match is over); -1 none

# ---- the draw rule (Rules.drawable and Rules.may_draw in game/rules.py) ----------------------
cdef inline int drawable(const State* s) noexcept nogil:
    """Tiles of the reserve that may still be drawn (the last reserve_kept never are)."""
    cdef int n = s.reserve_size - s.rules.reserve_kept
    return n if n > 0 else 0

cdef inline bint may_draw(const State* s) noexcept nogil:
    """Whether the seat to move, with no play, draws (else it passes)."""
    return drawable(s) > 0 and not (s.rules.draw == DRAW_ONE and s.draws)

# ---- the core (implemented in _core.pyx) ----------------------------------------------------
cdef int rules_from_py(Rules* out, object rules) except -1
cdef int find_leader(const Rules* rules, const uint32_t* hands, int* seat) noexcept nogil
cdef void state_init(State* s, const Rules* rules, const uint32_t* hands,
                     const uint8_t* reserve, const int32_t* scores) noexcept nogil
cdef void deal(State* s, const Rules* rules, Rng* rng, const int32_t* scores) noexcept nogil
cdef int gen_moves(const State* s, int* out) noexcept nogil
cdef void do_move(State* s, int move) noexcept nogil
cdef void apply_move(const State* s, int move, State* out) noexcept nogil
cdef int blocked_winner(const State* s) noexcept nogil
cdef int play_round(State* s, const int* engines, Rng* rng, int* events) noexcept nogil
cdef long long random_rounds_c(const Rules* rules, long long n, Rng* rng) noexcept nogil
cdef double clock_now() noexcept nogil      # seconds: the searches' clock (set_test_clock)

# ---- the play policies (implemented in _core.pyx; their twin: bergen_search/game/policy.py) --
# Every compiled module that plays a policy takes it from here. Each picks one of n > 1 legal
# plays of a fully known state (every hand in view) and draws from the caller's Rng only: the
# twin draws the same numbers in the same order.
cdef enum:
    PLAYOUT_RANDOM = 0      # uniformly random plays
    PLAYOUT_SCORING = 1     # a play that scores at once when there is one, else random
    PLAYOUT_SAFE = 2        # the most points at once, then not handing the next seat a match

# The exact endgame's floor policies below a horizon (`floor_index`): the seat's own hand and
# the ends decide, never the other hand.
cdef enum:
    FLOOR_GREEDY = 0        # greedy_index
    FLOOR_DOUBLES = 1       # the heaviest double, else greedy
    FLOOR_FITTING = 2       # the most tiles left fitting an end (going out first), then greedy

cdef inline int random_choice(const int* moves, int n, Rng* rng) noexcept nogil:
    """A uniformly random one of the n plays: the simple engine and the playout `random`."""
    return moves[below(rng, n)]

cdef int greedy_index(const State* s, const int* moves, int n) noexcept nogil
cdef int playout_choice(int policy, const State* s, const int* moves, int n,
                        Rng* rng) noexcept nogil
cdef int floor_index(const State* s, const int* moves, int n, int policy) noexcept nogil


cdef class CoreRules:
    """A Python rule set and its C struct, kept alive by every state that points to it."""
    cdef Rules c
    cdef readonly object py


cdef class CoreState:
    """A fully known round state: the C struct plus the points of the last action."""
    cdef State st
    cdef CoreRules owner
    cdef int32_t last[4]
    cdef int _built(self) except -1
