# cython: language_level=3
"""Rollout values of a draw's outcomes in C, for `bergen_search.play.luck` (the `rollout` estimate).

`draw_rollouts` takes a fully known position where the seat to move is about to draw and, for
every tile that could be drawn, the mean over `playouts` playouts (greedy by default: every
seat plays `policy.greedy_choice`) of each side's points to come in the round after that tile
is drawn. Playout k shuffles the reserve (from its tiles in ascending order: the values do not
depend on the order given) with the k-th stream of `seed`, the same for every candidate tile (common random numbers: the candidate is taken out of the same shuffled order),
so the differences between candidates carry less noise than the values themselves.
`luck.reference_rollouts` is the pure-Python twin (the same numbers, bit for bit).
"""
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from bergen_search.game._core cimport (ALL_TILES, END_NONE, ENGINE_GREEDY, ENGINE_RANDOM, GOLDEN,
                                  MAX_EVENTS, MAX_SEATS, N_TILES, Rng, Rules, State, mix64,
                                  play_round, rules_from_py, shuffle)

from bergen_search.errors import BergenError


cdef long long _checked_int(object value, long long low, long long high, str what) except? -1:
    """`value` when it is an integer in low..high, else BergenError."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BergenError(f"{what}: expected an integer {low}..{high}, got {value!r}",
                          field=what)
    return value


def draw_rollouts(rules, hands, reserve, *, int left, int right, bint left_double,
                  bint right_double, scores, int to_move, int draws, int passes, int playouts,
                  seed, int engine=ENGINE_GREEDY, equity=None):
    """rows[i][j]: the mean, over `playouts` playouts, of side j's points to come in the round
    after the seat to move draws `reserve[i]` (the other tiles staying in the reserve).
    `draws` are the tiles it already drew this turn, `passes` the passes since the last play.
    With `equity` (two sides: side 0's chance to win the match from the scores s0, s1 at the
    start of a round, at index s0 * target + s1), each row also holds each side's chance to
    win the match: 1 or 0 once a side reached the target, else the equity of the playout's
    final scores."""
    cdef Rules c
    cdef State base, s
    cdef Rng rng, prng
    cdef uint8_t tiles[N_TILES]
    cdef uint8_t perm[N_TILES]
    cdef uint8_t ordered[N_TILES]
    cdef int events[3 * MAX_EVENTS]
    cdef int engines[MAX_SEATS]
    cdef double total[N_TILES][MAX_SEATS]
    cdef double wins[N_TILES]
    cdef double* eq = NULL
    cdef int i, j, k, m, n, r, t, target
    cdef uint64_t base_seed = (<uint64_t>seed) & 0xFFFFFFFFFFFFFFFFULL
    cdef uint32_t seen = 0
    rules_from_py(&c, rules)
    r = len(reserve)
    if not 1 <= r <= N_TILES or playouts < 1:
        raise ValueError("a draw needs a reserve tile and at least one playout")
    target = c.target
    if equity is not None:
        if c.n_sides != 2 or len(equity) != target * target:
            raise ValueError("equity needs two sides and target * target entries")
    # Everything copied into C is checked first (the copies and the playouts run without
    # bounds checks): the tiles index the core's tables and shift 32-bit masks, the seat and
    # the ends index arrays, and with `equity` the scores index it.
    hands = list(hands)
    scores = list(scores)
    if len(hands) != c.players or len(scores) != c.n_sides:
        raise BergenError(f"expected {c.players} hands and {c.n_sides} scores")
    for i in range(c.players):
        _checked_int(hands[i], 0, ALL_TILES, "hands")
        if hands[i] & seen:
            raise BergenError("a tile is held twice", field="hands")
        seen |= <uint32_t>hands[i]
    reserve = list(reserve)
    for i in range(r):
        t = _checked_int(reserve[i], 0, N_TILES - 1, "reserve")
        if seen >> t & 1:
            raise BergenError("a reserve tile is held, or twice in the reserve",
                              field="reserve")
        seen |= (<uint32_t>1) << t
    for i in range(c.n_sides):
        if equity is None:
            _checked_int(scores[i], -1_000_000, 1_000_000, "scores")
        else:
            _checked_int(scores[i], 0, target - 1, "scores")
    _checked_int(left, 0, 6, "left")
    _checked_int(right, 0, 6, "right")
    _checked_int(to_move, 0, c.players - 1, "to_move")
    _checked_int(draws, 0, N_TILES - 1, "draws")
    _checked_int(passes, 0, 255, "passes")
    if engine != ENGINE_GREEDY and engine != ENGINE_RANDOM:
        raise BergenError(f"engine: expected {ENGINE_RANDOM} (random) or {ENGINE_GREEDY} "
                          f"(greedy), got {engine}", field="engine")
    if equity is not None:
        eq = <double*>malloc(target * target * sizeof(double))
        if eq == NULL:
            raise MemoryError()
        for i in range(target * target):
            eq[i] = equity[i]
    for i in range(r):
        tiles[i] = reserve[i]
    # the playouts shuffle the reserve from its contents in ascending order, so that the
    # values do not depend on the order given (which tells the tile about to be drawn)
    sorted_tiles = sorted(reserve)
    for i in range(r):
        ordered[i] = sorted_tiles[i]
    base.rules = &c
    for i in range(MAX_SEATS):
        base.hands[i] = hands[i] if i < c.players else 0
        base.scores[i] = scores[i] if i < c.n_sides else 0
        engines[i] = engine
    base.reserve_next = 0
    base.reserve_size = r - 1
    base.left, base.right = left, right
    base.left_double, base.right_double = left_double, right_double
    base.to_move = to_move
    base.passes = passes
    base.draws = draws + 1
    base.lead_tile = -1
    base.ended = END_NONE
    base.winner = -1
    for i in range(r):
        wins[i] = 0.0
        for j in range(MAX_SEATS):
            total[i][j] = 0.0
    with nogil:
        for k in range(playouts):
            rng.state = mix64(base_seed + <uint64_t>(k + 1) * GOLDEN)
            memcpy(perm, ordered, r)
            shuffle(&rng, perm, r)
            for i in range(r):
                t = tiles[i]
                memcpy(&s, &base, sizeof(State))
                s.hands[to_move] |= (<uint32_t>1) << t
                n = 0
                for m in range(r):
                    if perm[m] != t:
                        s.reserve[n] = perm[m]
                        n += 1
                prng.state = rng.state
                play_round(&s, engines, &prng, events)
                for j in range(c.n_sides):
                    total[i][j] += s.scores[j] - base.scores[j]
                if eq != NULL:
                    if s.winner >= 0:
                        wins[i] += 1.0 if s.winner == 0 else 0.0
                    else:
                        wins[i] += eq[s.scores[0] * target + s.scores[1]]
    if eq != NULL:
        free(eq)
        return [[total[i][j] / playouts for j in range(c.n_sides)]
                + [wins[i] / playouts, 1.0 - wins[i] / playouts] for i in range(r)]
    return [[total[i][j] / playouts for j in range(c.n_sides)] for i in range(r)]
