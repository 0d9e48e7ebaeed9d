# cython: language_level=3
"""The compiled rules core: move generation, copy-make, the deal and the simple engines.

It plays exactly as the pure-Python reference (`bergen_search.game.state`, `match`): the same
moves in the same order, the same scores, the same random numbers. The C functions trust their
input; `Backend` and `CoreState` at the bottom are the checked Python entry points.

>>> from bergen_search.game.rules import Rules
>>> from bergen_search.game import match
>>> Backend().random_rounds(Rules(), 100, 1) == match.random_rounds(Rules(), 100, 1)
True
"""
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    /* The monotonic clock in seconds, from an arbitrary origin: CLOCK_MONOTONIC, or on
       Windows the performance counter. */
    #if defined(_WIN32)
      #define WIN32_LEAN_AND_MEAN
      #include <windows.h>
      static double bergen_monotonic(void) {
          LARGE_INTEGER f, c;
          QueryPerformanceFrequency(&f);
          QueryPerformanceCounter(&c);
          return (double)c.QuadPart / (double)f.QuadPart;
      }
    #else
      #include <time.h>
      static double bergen_monotonic(void) {
          struct timespec ts;
          clock_gettime(CLOCK_MONOTONIC, &ts);
          return ts.tv_sec + ts.tv_nsec * 1e-9;
      }
    #endif
    """
    double monotonic "bergen_monotonic"() noexcept nogil

from bergen_search.game import rules as _rules
from bergen_search.game.rng import MASK64
from bergen_search.errors import BergenError
from bergen_search.game.match import SIMPLE_ENGINES, MatchLog, RoundLog
from bergen_search.game.tiles import tile_str

cdef object _ENDS = (None, "out", "blocked", "target")


# ---- rules --------------------------------------------------------------------------------
cdef int rules_from_py(Rules* out, object rules) except -1:
    """Fill `out` from a `bergen_search.game.rules.Rules` (already validated by its constructor)."""
    if not isinstance(rules, _rules.Rules):
        raise BergenError(f"expected a bergen_search.game.rules.Rules, got {type(rules).__name__}",
                          field="rules")
    memset(out, 0, sizeof(Rules))
    out.players = rules.players
    out.n_sides = rules.n_sides
    out.partnerships = rules.partnerships
    out.target = rules.target
    out.hand_size = rules.hand_size
    out.lead = _rules.LEAD_CODE[rules.lead]
    out.no_double = _rules.NO_DOUBLE_CODE[rules.no_double]
    out.draw = _rules.DRAW_CODE[rules.draw]
    out.reserve_kept = rules.reserve_kept
    out.out_bonus = rules.out_bonus
    out.blocked = _rules.BLOCKED_CODE[rules.blocked]
    out.endgame_cap = rules.endgame_cap
    out.reserve_start = rules.reserve_start
    cdef int seat
    for seat in range(out.players):
        out.side_of[seat] = rules.side_of(seat)
    return 0


# ---- the deal -----------------------------------------------------------------------------
cdef int find_leader(const Rules* rules, const uint32_t* hands, int* seat) noexcept nogil:
    """The forced lead tile for fully known hands (its holder in `seat`), or -1: redeal."""
    cdef uint32_t held = 0, doubles
    cdef int i, t = -1
    for i in range(rules.players):
        held |= hands[i]
    doubles = held & DOUBLES
    if doubles:
        # DOUBLE_OF is increasing, so the lowest bit is the lowest double
        t = lowest_bit(doubles) if rules.lead == LEAD_LOWEST_DOUBLE else highest_bit(doubles)
    elif rules.no_double == NO_DOUBLE_LOWEST_TILE and held:
        t = lowest_bit(held)
        held &= held - 1
        while held:
            i = lowest_bit(held)
            if LOW_RANK[i] < LOW_RANK[t]:
                t = i
            held &= held - 1
    if t < 0:
        return -1
    for i in range(rules.players):
        if hands[i] >> t & 1:
            seat[0] = i
    return t


cdef inline void _state_start(State* s, const Rules* rules, const uint32_t* hands,
                              const uint8_t* reserve, const int32_t* scores,
                              int lead_tile, int lead_seat) noexcept nogil:
    cdef int i
    memset(s, 0, sizeof(State))
    s.rules = rules
    for i in range(rules.players):
        s.hands[i] = hands[i]
    if scores != NULL:
        for i in range(rules.n_sides):
            s.scores[i] = scores[i]
    memcpy(s.reserve, reserve, rules.reserve_start)
    s.reserve_size = rules.reserve_start
    s.left = -1
    s.right = -1
    s.lead_tile = lead_tile
    s.to_move = lead_seat if lead_tile >= 0 else -1
    s.winner = -1


cdef void state_init(State* s, const Rules* rules, const uint32_t* hands,
                     const uint8_t* reserve, const int32_t* scores) noexcept nogil:
    """A round about to be led from known hands and reserve (draw order); scores may be NULL."""
    cdef int seat = -1
    cdef int t = find_leader(rules, hands, &seat)
    _state_start(s, rules, hands, reserve, scores, t, seat)


cdef void deal(State* s, const Rules* rules, Rng* rng, const int32_t* scores) noexcept nogil:
    """Shuffle the 28 tiles, hand them out seat by seat, the rest is the reserve in draw order;
    deal again while there is no lead (match.deal). `scores` may be NULL (zeros)."""
    cdef uint8_t tiles[N_TILES]
    cdef uint32_t hands[MAX_SEATS]
    cdef int i, k, seat = -1, t = -1
    cdef int h = rules.hand_size
    while t < 0:
        for i in range(N_TILES):
            tiles[i] = i
        shuffle(rng, tiles, N_TILES)
        for i in range(rules.players):
            hands[i] = 0
            for k in range(i * h, (i + 1) * h):
                hands[i] |= (<uint32_t>1) << tiles[k]
        t = find_leader(rules, hands, &seat)
    _state_start(s, rules, hands, tiles + rules.players * h, scores, t, seat)


# ---- moves --------------------------------------------------------------------------------
cdef int gen_moves(const State* s, int* out) noexcept nogil:
    """Fill `out` with the legal moves in ascending order (State.legal_moves); return the count.
    Before the lead: the forced lead alone. No fitting tile: DRAW or PASS alone."""
    cdef uint32_t hand, fit_left, fit_right, fit
    cdef int n = 0, t
    if s.ended != END_NONE:
        return 0
    if s.left < 0:
        out[0] = s.lead_tile * 2
        return 1
    hand = s.hands[s.to_move]
    fit_left = hand & TILES_WITH[s.left]
    fit_right = hand & TILES_WITH[s.right]
    fit = fit_left | fit_right
    while fit:
        t = lowest_bit(fit)
        fit &= fit - 1
        # branch-free: write both ends, keep those that fit (out has room for MAX_MOVES)
        out[n] = t * 2
        n += fit_left >> t & 1
        out[n] = t * 2 + 1
        n += fit_right >> t & 1
    if n:
        return n
    if may_draw(s):
        out[0] = DRAW
    else:
        out[0] = PASS
    return 1


cdef inline int _capped(int value, int score, const Rules* rules) noexcept nogil:
    """A match's value reduced near the target (state.capped)."""
    cdef int need
    if value == 0 or not rules.endgame_cap:
        return value
    need = rules.target - score
    if need <= 2:
        return 1
    if need == 3 and value > 2:
        return 2
    return value


cdef inline void _score(State* s, int side, int points) noexcept nogil:
    """Add points to a side; once a side has reached the target nothing more is scored."""
    if points <= 0 or s.winner >= 0:
        return
    s.scores[side] += points
    if s.scores[side] >= s.rules.target:
        s.winner = side


cdef inline int _min_sides(const int* key, int candidates, int n_sides) noexcept nogil:
    """Mask of the candidate sides whose key is smallest."""
    cdef int side, best = 0x7fffffff, mask = 0
    for side in range(n_sides):
        if candidates >> side & 1:
            if key[side] < best:
                best = key[side]
                mask = 1 << side
            elif key[side] == best:
                mask |= 1 << side
    return mask


cdef int blocked_winner(const State* s) noexcept nogil:
    """The side that scores a blocked round, or -1 for a full tie (state.blocked_winner)."""
    cdef const Rules* rules = s.rules
    cdef int doubles[MAX_SEATS]
    cdef int pips[MAX_SEATS]
    cdef int lowest[MAX_SEATS]
    cdef int seat, side, low, winners, free = 0
    cdef int n = rules.n_sides
    cdef int everyone = (1 << n) - 1
    cdef uint32_t d
    for side in range(n):
        doubles[side] = 0
        pips[side] = 0
        lowest[side] = 99
    for seat in range(rules.players):
        side = rules.side_of[seat]
        d = s.hands[seat] & DOUBLES
        doubles[side] += popcount(d)
        pips[side] += mask_pips(s.hands[seat])
        if d:
            low = TILE_LOW[lowest_bit(d)]
            if low < lowest[side]:
                lowest[side] = low
    if rules.blocked == BLOCKED_PIPS:
        winners = _min_sides(pips, everyone, n)
    elif rules.blocked == BLOCKED_GERMAN:
        winners = _min_sides(doubles, everyone, n)
        if popcount(winners) > 1:
            winners = _min_sides(pips, winners, n)
    else:
        for side in range(n):
            if doubles[side] == 0:
                free |= 1 << side
        winners = _min_sides(pips, free, n) if free else _min_sides(lowest, everyone, n)
    return lowest_bit(winners) if popcount(winners) == 1 else -1


cdef void do_move(State* s, int move) noexcept nogil:
    """Apply a legal move in place (the core trusts it: see CoreState.apply for the checks)."""
    cdef const Rules* rules = s.rules
    cdef int seat = s.to_move
    cdef int t, low, high, value, side
    if move == DRAW:
        t = s.reserve[s.reserve_next]
        s.reserve_next += 1
        s.reserve_size -= 1
        s.hands[seat] |= (<uint32_t>1) << t
        s.draws += 1
        return
    s.draws = 0
    if move == PASS:
        s.passes += 1
        s.to_move = seat + 1 if seat + 1 < rules.players else 0
        if s.passes >= rules.players and drawable(s) == 0:
            s.ended = END_BLOCKED
            s.to_move = -1
            side = blocked_winner(s)
            if side >= 0:
                _score(s, side, 2)
        return
    t = move >> 1
    low = TILE_LOW[t]
    high = TILE_HIGH[t]
    s.hands[seat] &= ~((<uint32_t>1) << t)
    if s.left < 0:
        s.left = low
        s.right = high
        s.left_double = s.right_double = low == high
        value = 2 if low == high else 0
    else:
        if move & 1:
            s.right = low + high - s.right
            s.right_double = low == high
        else:
            s.left = low + high - s.left
            s.left_double = low == high
        value = 0
        if s.left == s.right:
            value = 3 if (s.left_double or s.right_double) else 2
    s.passes = 0
    side = rules.side_of[seat]
    _score(s, side, _capped(value, s.scores[side], rules))
    if s.hands[seat] == 0:
        _score(s, side, rules.out_bonus)
        s.ended = END_OUT
    elif s.winner >= 0:
        s.ended = END_TARGET
    if s.ended != END_NONE:
        s.to_move = -1
    else:
        s.to_move = seat + 1 if seat + 1 < rules.players else 0


cdef void apply_move(const State* s, int move, State* out) noexcept nogil:
    """Copy-make: `out` becomes the state after `move` (out must not be s)."""
    memcpy(out, s, sizeof(State))
    do_move(out, move)


# ---- the play policies (the contract: _core.pxd; the twin: game/policy.py) ------------------
# In Bergen a match can only be made with one tile: at ends (a, b), a != b, the tile a-b (laid
# at either end), and at ends (a, a) the double a-a (`_match_tile`). So the play that matters
# most after taking a match is not handing the next seat one (`safe`).
cdef int greedy_index(const State* s, const int* moves, int n) noexcept nogil:
    """Index of the greedy choice (policy.greedy_choice): most points scored at once, then
    the heaviest tile, then the first in move order. The moves are plays (n > 1)."""
    cdef State after
    cdef int i, key, best = 0, best_key = -1
    cdef int side = s.rules.side_of[s.to_move]
    for i in range(n):
        apply_move(s, moves[i], &after)
        # points >= 0 and pips <= 12 < 64: the key orders as the tuple (points, pips)
        key = (after.scores[side] - s.scores[side]) * 64 + PIPS[moves[i] >> 1]
        if key > best_key:
            best = i
            best_key = key
    return best


cdef int _match_tile(int left, int right) noexcept nogil:
    """The tile that makes a match at ends (left, right): left-right, or the double when the
    ends are equal (tiles are ordered 0-0..0-6, 1-1..1-6, ...)."""
    cdef int lo = left if left < right else right
    cdef int hi = right if left < right else left
    return lo * 7 - lo * (lo - 1) // 2 + (hi - lo)


cdef int _match_points(const State* s, int move) noexcept nogil:
    """Points the play `move` makes as a match at once (before any cap): 0, 2 or 3."""
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


cdef int _scoring_choice(const State* s, const int* moves, int n, Rng* rng) noexcept nogil:
    """PLAYOUT_SCORING: the play scoring most at once (the first such), else a random one."""
    cdef int i, v, best = -1, best_value = 0
    for i in range(n):
        v = _match_points(s, moves[i])
        if v > best_value:
            best_value = v
            best = i
    if best < 0:
        return random_choice(moves, n, rng)
    return moves[best]


cdef int _safe_choice(const State* s, const int* moves, int n, Rng* rng) noexcept nogil:
    """PLAYOUT_SAFE: the most points at once, then a play after which the next seat does not
    hold the match tile of the new ends; ties at random (reservoir sampling)."""
    cdef int i, m, t, key, best = 0, best_key = -1, ties = 0, left, right
    cdef int nxt = s.to_move + 1 if s.to_move + 1 < s.rules.players else 0
    cdef uint32_t next_hand = s.hands[nxt]
    for i in range(n):
        m = moves[i]
        t = m >> 1
        left = s.left
        right = s.right
        if m & 1:
            right = TILE_LOW[t] + TILE_HIGH[t] - right
        else:
            left = TILE_LOW[t] + TILE_HIGH[t] - left
        key = _match_points(s, m) * 4 + (0 if (next_hand >> _match_tile(left, right)) & 1 else 2)
        if key > best_key:
            best_key = key
            best = i
            ties = 1
        elif key == best_key:
            ties += 1
            if below(rng, ties) == 0:
                best = i
    return moves[best]


cdef int playout_choice(int policy, const State* s, const int* moves, int n,
                        Rng* rng) noexcept nogil:
    """The play of the playout `policy` (PLAYOUT_*) among n > 1 legal plays."""
    if policy == PLAYOUT_SAFE:
        return _safe_choice(s, moves, n, rng)
    if policy == PLAYOUT_SCORING:
        return _scoring_choice(s, moves, n, rng)
    return random_choice(moves, n, rng)


cdef int floor_index(const State* s, const int* moves, int n, int policy) noexcept nogil:
    """The index of the move the floor `policy` (FLOOR_*) plays among n > 1 plays
    (policy.floor_choice): FLOOR_GREEDY, `greedy_index`; FLOOR_DOUBLES, the heaviest double
    it can play, else greedy; FLOOR_FITTING, the play that leaves most of its tiles fitting
    an end (going out first), then greedy's order."""
    cdef int i, best = -1, key, best_key = -1, seat = s.to_move
    cdef uint32_t fit
    cdef State nxt
    if policy == FLOOR_DOUBLES:
        for i in range(n):
            if is_double(moves[i] >> 1) and PIPS[moves[i] >> 1] > best_key:
                best = i
                best_key = PIPS[moves[i] >> 1]
        return best if best >= 0 else greedy_index(s, moves, n)
    if policy == FLOOR_FITTING:
        for i in range(n):
            apply_move(s, moves[i], &nxt)
            if nxt.ended != END_NONE:
                key = 64
            else:
                fit = TILES_WITH[nxt.left] | TILES_WITH[nxt.right]
                key = popcount(nxt.hands[seat] & fit)
            key = (key * 64 + nxt.scores[seat] - s.scores[seat]) * 64 + PIPS[moves[i] >> 1]
            if key > best_key:
                best = i
                best_key = key
        return best
    return greedy_index(s, moves, n)


# ---- the drivers --------------------------------------------------------------------------
cdef int play_round(State* s, const int* engines, Rng* rng, int* events) noexcept nogil:
    """Play the round to its end with an engine per seat (match.play_round), writing
    (seat, move, drawn tile or -1) triples to `events` (room for MAX_EVENTS); return their
    count, or -1 if the round did not end within MAX_EVENTS actions (it always does)."""
    cdef int moves[MAX_MOVES]
    cdef int n, m, seat, k = 0
    while s.ended == END_NONE:
        if k == MAX_EVENTS:
            return -1
        n = gen_moves(s, moves)
        seat = s.to_move
        if n == 1:
            m = moves[0]
        elif engines[seat] == ENGINE_RANDOM:
            m = random_choice(moves, n, rng)
        else:
            m = moves[greedy_index(s, moves, n)]
        events[3 * k] = seat
        events[3 * k + 1] = m
        events[3 * k + 2] = s.reserve[s.reserve_next] if m == DRAW else -1
        do_move(s, m)
        k += 1
    return k


cdef long long random_rounds_c(const Rules* rules, long long n, Rng* rng) noexcept nogil:
    """n random rounds from fresh deals on one stream (match.random_rounds): actions taken."""
    cdef State s
    cdef int moves[MAX_MOVES]
    cdef int k
    cdef long long i, actions = 0
    for i in range(n):
        deal(&s, rules, rng, NULL)
        while s.ended == END_NONE:
            k = gen_moves(&s, moves)
            do_move(&s, moves[0] if k == 1 else random_choice(moves, k, rng))
            actions += 1
    return actions


# ---- Python entry points ------------------------------------------------------------------
cdef class CoreRules:
    def __cinit__(self, rules):
        rules_from_py(&self.c, rules)
        self.py = rules


cdef inline uint64_t _seed64(object seed) except? 0:
    if not isinstance(seed, int):
        raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
    return <uint64_t>(seed & MASK64)


cdef int _int_in(object value, int low, int high, str what) except? -1:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BergenError(f"{what} must be an integer {low}..{high}, got {value!r}")
    return value


# ---- the searches' clock ----------------------------------------------------------------
cdef double _test_step = 0.0     # > 0: the virtual clock of set_test_clock
cdef double _test_now = 0.0


cdef double clock_now() noexcept nogil:
    """CLOCK_MONOTONIC in seconds (Windows: the performance counter): the clock every time
    limit of the compiled searches reads (`IsmctsTree.run`, `ExpectimaxSearch.run_worlds`,
    `run_world`, the endgame solver); `set_test_clock` replaces it."""
    global _test_now
    if _test_step > 0:
        _test_now += _test_step
        return _test_now
    return monotonic()


def set_test_clock(step=0.0):
    """For the tests: with `step` > 0 the compiled searches' clock is virtual and advances by
    `step` seconds at each reading, so that a time limit ends a run after a number of
    readings a test can count, whatever the machine's load; 0 puts back the real clock.

    >>> set_test_clock(0.25); clock_reading(); clock_reading()
    0.25
    0.5
    >>> set_test_clock(0)
    """
    global _test_step, _test_now
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not 0 <= step < 1e6:
        raise BergenError(f"step must be a number of seconds >= 0, got {step!r}", field="step")
    _test_step, _test_now = step, 0.0


def clock_reading():
    """One reading of the searches' clock (seconds; from an arbitrary origin)."""
    return clock_now()


def _move_str(int move):
    if move == DRAW:
        return "draw"
    if move == PASS:
        return "pass"
    return f"{tile_str(move >> 1)}:{'LR'[move & 1]}"


cdef CoreState _new_state(CoreRules owner):
    """An empty CoreState bound to its rules (the caller fills `st`)."""
    cdef CoreState s = CoreState.__new__(CoreState)
    s.owner = owner
    memset(s.last, 0, sizeof(s.last))
    return s


cdef class CoreState:
    """A fully known round of a match on the core, with the reference State's interface.
    Immutable: `apply` returns a new state."""

    def __init__(self):
        raise TypeError("build a CoreState with Backend().new_state(rules, hands, reserve)")

    cdef int _built(self) except -1:
        if self.owner is None:
            raise BergenError("this CoreState was not built (use Backend().new_state(...))")
        return 0

    def legal_moves(self):
        """The legal moves, in ascending order (DRAW or PASS alone when nothing fits)."""
        cdef int moves[MAX_MOVES]
        cdef int i, n
        self._built()
        n = gen_moves(&self.st, moves)
        return [moves[i] for i in range(n)]

    def apply(self, move):
        """The state after `move`; BergenError if the move is not legal here."""
        cdef int moves[MAX_MOVES]
        cdef int i, m, n
        cdef CoreState after
        self._built()
        if self.st.ended != END_NONE:
            why = ("the match ended" if self.st.winner >= 0
                   else f"the round ended ({_ENDS[self.st.ended]})")
            raise BergenError(f"no event may follow: {why}")
        if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move <= PASS:
            raise BergenError(f"unknown action {move!r}")
        m = move
        n = gen_moves(&self.st, moves)
        for i in range(n):
            if moves[i] == m:
                break
        else:
            legal = ", ".join([_move_str(moves[i]) for i in range(n)])
            raise BergenError(f"seat {self.st.to_move} may not {_move_str(m)}; legal: {legal}",
                              field="play")
        after = _new_state(self.owner)
        apply_move(&self.st, m, &after.st)
        for i in range(MAX_SEATS):
            after.last[i] = after.st.scores[i] - self.st.scores[i]
        return after

    @property
    def rules(self):
        return self.owner.py

    @property
    def scores(self):
        return tuple([self.st.scores[i] for i in range(self.owner.c.n_sides)])

    @property
    def last_points(self):
        """Points each side got from the action that led here."""
        return tuple([self.last[i] for i in range(self.owner.c.n_sides)])

    @property
    def hands(self):
        return tuple([self.st.hands[i] for i in range(self.owner.c.players)])

    @property
    def reserve(self):
        """The tiles still in the reserve, in draw order."""
        return tuple([self.st.reserve[i] for i in range(self.st.reserve_next,
                                                         self.st.reserve_next + self.st.reserve_size)])

    @property
    def reserve_size(self):
        return self.st.reserve_size

    @property
    def to_move(self):
        return self.st.to_move

    @property
    def ended(self):
        return _ENDS[self.st.ended]

    @property
    def winner(self):
        return None if self.st.winner < 0 else self.st.winner

    @property
    def left(self):
        return self.st.left

    @property
    def right(self):
        return self.st.right

    @property
    def left_double(self):
        return bool(self.st.left_double)

    @property
    def right_double(self):
        return bool(self.st.right_double)

    @property
    def passes(self):
        return self.st.passes

    @property
    def draws_this_turn(self):
        return self.st.draws

    def __repr__(self):
        return (f"<CoreState to_move={self.to_move} ends=({self.left}, {self.right}) "
                f"scores={self.scores} ended={self.ended!r}>")


cdef int _check_tiles(CoreRules owner, hands, reserve, uint32_t* hand_masks,
                      uint8_t* reserve_tiles) except -1:
    """Validate a fully known deal (as State.deal does) into C arrays."""
    cdef const Rules* rules = &owner.c
    cdef uint32_t seen = 0, hand
    cdef int seat, i, t
    hands = list(hands)
    if len(hands) != rules.players:
        raise BergenError(f"expected {rules.players} hands, got {len(hands)}", field="hands")
    for seat in range(rules.players):
        hand = _int_in(hands[seat], 0, ALL_TILES, f"hand {seat} (a 28-bit mask)")
        if popcount(hand) != rules.hand_size:
            raise BergenError(f"seat {seat}'s hand has {popcount(hand)} tiles, the rules deal "
                              f"{rules.hand_size}", field=f"hands[{seat}]")
        if hand & seen:
            raise BergenError(f"tile {tile_str(lowest_bit(hand & seen))} is held twice",
                              field=f"hands[{seat}]")
        seen |= hand
        hand_masks[seat] = hand
    reserve = list(reserve)
    if len(reserve) != rules.reserve_start:
        raise BergenError(f"the reserve has {len(reserve)} tiles, expected "
                          f"{rules.reserve_start}", field="reserve")
    for i in range(rules.reserve_start):
        t = _int_in(reserve[i], 0, N_TILES - 1, "a reserve tile")
        if seen >> t & 1:
            raise BergenError(f"tile {tile_str(t)} is twice in the deal", field="reserve")
        seen |= (<uint32_t>1) << t
        reserve_tiles[i] = t
    return 0


class Backend:
    """The compiled core behind `bergen_search.search.backend` (same functions as the reference)."""
    name = "core"

    @staticmethod
    def new_state(rules, hands, reserve, scores=None):
        """A fully known round about to be led (State.deal with known hands and reserve)."""
        cdef CoreRules owner = CoreRules(rules)
        cdef CoreState s = _new_state(owner)
        cdef uint32_t hand_masks[MAX_SEATS]
        cdef uint8_t reserve_tiles[N_TILES]
        cdef int32_t start[MAX_SEATS]
        _check_tiles(owner, hands, reserve, hand_masks, reserve_tiles)
        _fill_scores(owner, scores, start)
        state_init(&s.st, &owner.c, hand_masks, reserve_tiles, start)
        if s.st.lead_tile < 0:
            raise BergenError("nobody holds a double: under no_double 'redeal' these tiles are "
                              "dealt again", field="hands")
        return s

    @staticmethod
    def random_rounds(rules, n, seed):
        """Play n random rounds from fresh deals on one Rng(seed) stream, all in C; return the
        number of actions taken (the checksum of match.random_rounds)."""
        cdef Rules c
        cdef Rng rng
        cdef long long count = _int_in(n, 0, 0x7fffffff, "the number of rounds")
        cdef long long actions
        rules_from_py(&c, rules)
        rng.state = _seed64(seed)
        with nogil:
            actions = random_rounds_c(&c, count, &rng)
        return actions

    @staticmethod
    def play_match(rules, engines, seed, start_scores=None, max_rounds=None):
        """A whole match (match.play_match): deals from Rng(seed), plays from
        Rng(seed ^ PLAY_STREAM), engines per seat (0 random, 1 greedy, or their names);
        with `max_rounds`, only its first rounds."""
        cdef CoreRules owner = CoreRules(rules)
        cdef const Rules* c = &owner.c
        cdef int engine_codes[MAX_SEATS]
        cdef int32_t scores[MAX_SEATS]
        cdef int events[3 * MAX_EVENTS]
        cdef Rng deal_rng, play_rng
        cdef State s
        cdef int i, k, seat
        engines = list(engines)
        if len(engines) != c.players:
            raise BergenError(f"expected {c.players} engines, got {len(engines)}", field="engines")
        for seat in range(c.players):
            engine = SIMPLE_ENGINES.get(engines[seat], engines[seat])
            if engine not in (ENGINE_RANDOM, ENGINE_GREEDY) or isinstance(engine, bool):
                raise BergenError(f"unknown engine {engines[seat]!r} for seat {seat} "
                                  f"(known: 0 random, 1 greedy)", field="engines")
            engine_codes[seat] = engine
        _fill_scores(owner, start_scores, scores)
        deal_rng.state = _seed64(seed)
        play_rng.state = _seed64(seed) ^ PLAY_STREAM
        log = MatchLog(rules, tuple([scores[i] for i in range(c.n_sides)]))
        while True:
            deal(&s, c, &deal_rng, scores)
            hands = [s.hands[i] for i in range(c.players)]
            reserve = [s.reserve[i] for i in range(c.reserve_start)]
            k = play_round(&s, engine_codes, &play_rng, events)
            if k < 0:
                raise RuntimeError("a round did not end within MAX_EVENTS actions")
            memcpy(scores, s.scores, sizeof(scores))
            final = tuple([scores[i] for i in range(c.n_sides)])
            log.rounds.append(RoundLog(
                hands, reserve,
                [(events[3 * i], events[3 * i + 1], events[3 * i + 2]) for i in range(k)],
                _ENDS[s.ended], final))
            if s.winner >= 0 or len(log.rounds) == max_rounds:
                log.scores = final
                log.winner = s.winner if s.winner >= 0 else None
                return log


cdef int _fill_scores(CoreRules owner, scores, int32_t* out) except -1:
    cdef int i
    memset(out, 0, MAX_SEATS * sizeof(int32_t))
    if scores is None:
        return 0
    scores = list(scores)
    if len(scores) != owner.c.n_sides:
        raise BergenError(f"expected {owner.c.n_sides} scores, got {len(scores)}", field="scores")
    for i in range(owner.c.n_sides):
        out[i] = _int_in(scores[i], -1000000, 1000000, "a score")
    return 0


#: The playout policies by name, with their codes (policy.PLAYOUTS).
PLAYOUTS = {"random": PLAYOUT_RANDOM, "scoring": PLAYOUT_SCORING, "safe": PLAYOUT_SAFE}


def playout_move(CoreState state, policy, seed):
    """The play `policy` ("random", "scoring", "safe" or its code) makes in a fully known core
    state with several legal plays, drawing on Rng(seed): for tests and inspection."""
    cdef int moves[MAX_MOVES]
    cdef int n
    cdef Rng rng
    if state is None:
        raise BergenError("playout_move needs a CoreState", field="state")
    state._built()
    if type(seed) is not int:
        raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
    n = gen_moves(&state.st, moves)
    code = PLAYOUTS.get(policy, policy)
    if code not in PLAYOUTS.values() or isinstance(code, bool):
        raise BergenError(f"unknown playout {policy!r} (random, scoring, safe)", field="playout")
    if n < 2:
        raise BergenError("the state has fewer than two legal moves: nothing to choose")
    rng.state = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    return playout_choice(code, &state.st, moves, n, &rng)


# ---- hooks for the tests: the C tables and RNG seen from Python ------------------------------
def _tables():
    """The core's lookup tables, to compare with bergen_search.game.tiles."""
    return {
        "TILE_LOW": tuple([TILE_LOW[i] for i in range(N_TILES)]),
        "TILE_HIGH": tuple([TILE_HIGH[i] for i in range(N_TILES)]),
        "PIPS": tuple([PIPS[i] for i in range(N_TILES)]),
        "LOW_RANK": tuple([LOW_RANK[i] for i in range(N_TILES)]),
        "TILES_WITH": tuple([TILES_WITH[i] for i in range(7)]),
        "DOUBLE_OF": tuple([DOUBLE_OF[i] for i in range(7)]),
        "DOUBLES": DOUBLES,
    }


def _rng_below(seed, uint32_t n, int count):
    """`count` draws of Rng(seed).below(n) from the C RNG."""
    cdef Rng rng
    rng.state = _seed64(seed)
    return [below(&rng, n) for _ in range(count)]


def _rng_shuffle(seed, int n):
    """list(range(n)) shuffled by the C RNG seeded with `seed`."""
    cdef Rng rng
    cdef uint8_t items[256]
    cdef int i
    if not 0 <= n <= 256:
        raise ValueError("n must be 0..256")
    rng.state = _seed64(seed)
    for i in range(n):
        items[i] = i
    shuffle(&rng, items, n)
    return [items[i] for i in range(n)]


def plain_bits_mismatches(uint64_t seed, long long n, int width=28):
    """For the tests: the plain C bit helpers (the fallback of a compiler with neither GCC's
    builtins nor MSVC's intrinsics) against the ones this build uses (`BITS`), over every
    mask of `width` bits (0..28: 28, every set of tiles) and `n` 64-bit masks of SplitMix64 from `seed` (each with its lowest
    bits cleared one by one, so that the trailing-zero counts cover the word): the number of
    masks where
    a popcount, a trailing- or leading-zero count differs. (Built with BERGEN_PLAIN_BITS=1,
    both are the plain ones.)"""
    cdef uint64_t m, x, state = seed
    cdef uint32_t low
    cdef long long i, bad = 0
    cdef int k
    if not 0 <= width <= 28:
        raise BergenError(f"width must be 0..28, got {width}", field="width")
    with nogil:
        for m in range(1, <uint64_t>1 << width):
            low = <uint32_t>m
            bad += (popcount32(low) != popcount32_c(low) or ctz32(low) != ctz32_c(low)
                    or clz32(low) != clz32_c(low))
        for i in range(n):
            state = state + GOLDEN
            x = mix64(state)
            for k in range(64):
                if x:
                    low = <uint32_t>(x >> 32) | 1u
                    bad += (popcount64(x) != popcount64_c(x) or ctz64(x) != ctz64_c(x)
                            or popcount32(<uint32_t>x) != popcount32_c(<uint32_t>x)
                            or clz32(low) != clz32_c(low))
                x &= x - 1
    return bad


#: Which bit helpers this build uses: "builtins", "MSVC intrinsics" or "plain C".
BIT_HELPERS = BITS.decode("ascii")

