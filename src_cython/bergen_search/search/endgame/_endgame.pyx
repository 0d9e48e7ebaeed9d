# cython: language_level=3
"""The exact endgame in C: the deals, the public tree, DCFR over hand vectors, best responses.

The same solver as `bergen_search/search/endgame/reference.py` (its pure-Python oracle,
`reference` below; the root's public state is `public.py`'s), computed in the same order, so
that both give the same numbers on the same tree (tests/test_endgame.py):

- `enumerate_deals(table)`: every deal of a `sampler.WorldTable` over both hands (the public
  view of `infoset.PublicView`), with its weight: its number of histories, times its
  inference factors when the table has them;
- `EndgameSolver`: builds the public tree from the root's public state and the deals, runs
  DCFR iterations (Brown & Sandholm 2019's discounting, the average weighted by t^6;
  alternating updates), and evaluates the average
  strategy: each player's best response against the other's (the exploitability), or its
  own average strategy against the other's (the values of the solved pair).

Hand vectors are dense arrays over a player's hands, one per depth; a node reads and writes
only the entries of its possible hands. The recursion's depth is bounded by the round
(every play removes a tile, and no two passes follow each other without ending it).
"""
from libc.math cimport pow, INFINITY
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcpy, memset

from bergen_search.game._core cimport (ALL_TILES, CoreRules, END_BLOCKED, END_NONE, MAX_MOVES,
                                  N_TILES, PASS, Rng, Rules, State, TILE_HIGH, TILE_LOW,
                                  TILES_WITH, apply_move, below, blocked_winner, clock_now,
                                  PIPS, drop_mirror_twins, floor_index, mix64, gen_moves,
                                  lowest_bit, mirrored_ends, random_choice)

from bergen_search.errors import BergenError, TooBig
from bergen_search.information.infoset import RESERVE

cdef enum:
    TOO_BIG = -2            # a cap was reached while building
    NO_MEMORY = -3
    STOPPED = -4            # asked to stop while building (its stop, or a signal)

# ---- stopping a build ------------------------------------------------------------------------
# Building the deals and the tree runs without the GIL for up to a second on the largest
# positions: every few thousand nodes it takes the GIL and looks at its own `stop` (a callable,
# true to stop: the search's stop, `Event.is_set`, which the engine protocol's `stop`,
# `terminate` and `quit` set for that search alone) and at the process's signals (Ctrl-C, in
# the main thread), and stops, raising KeyboardInterrupt (or the signal handler's exception)
# in the caller. Each build has its own `Halt`: nothing of it is shared with another build.
ctypedef struct Halt:
    void* stop              # the build's stop callable (borrowed from the caller), or NULL
    bint signalled          # a signal handler raised: its exception is pending until the
                            # build returns (then raised), and nothing more is looked at
    bint stopped            # the stop said so: nothing more is looked at

cdef extern from "Python.h":
    # Runs the Python signal handlers (main thread only): -1 with their exception pending
    # (KeyboardInterrupt for Ctrl-C). Declared noexcept: the build unwinds, then re-raises.
    int PyErr_CheckSignals() noexcept

#: The longest `EndgameSolver.run` may be given (a year: a limit, not a wish).
MAX_SECONDS = 365 * 86400.0


cdef int _halt(Halt* h, object stop) except -1:
    """A build's `Halt` over its `stop` (a callable, or None), which the caller keeps alive
    for the build's duration."""
    if stop is not None and not callable(stop):
        raise BergenError("stop must be a callable or None", field="stop")
    h.stop = NULL if stop is None else <void*>stop
    h.signalled = False
    h.stopped = False
    return 0


cdef int _should_stop(Halt* h) noexcept nogil:
    """STOPPED once the build's stop said so or a signal's handler raised, else 0."""
    if h.signalled or h.stopped:
        return STOPPED
    with gil:
        if PyErr_CheckSignals() != 0:
            h.signalled = True          # the handler's exception stays pending
            return STOPPED
        if h.stop != NULL:
            try:
                if (<object>h.stop)():
                    h.stopped = True
            except BaseException:
                h.stopped = True
    return STOPPED if h.stopped else 0


cdef int _raise_pending() except -1:
    """Return to Python with the exception a signal handler left pending."""
    return -1


cdef int _raise_stopped(const Halt* h) except -1:
    """After a build returned STOPPED: the signal handler's exception, or KeyboardInterrupt."""
    if h.signalled:
        _raise_pending()
    raise KeyboardInterrupt()


cdef inline double _now() noexcept nogil:
    return clock_now()     # _core's: CLOCK_MONOTONIC, or the tests' virtual clock


# ---- the deals -------------------------------------------------------------------------------
ctypedef struct Enum:
    int n_tiles
    const int32_t* opt_start
    const int32_t* opt_child
    const int8_t* opt_owner    # the seat of each option's group, -1 the reserve
    const double* opt_factor   # the tile's factor in each option's group (1 without inference)
    const uint8_t* tiles
    const uint8_t* played
    const int32_t* level_start # the table's nodes of tile i: level_start[i] .. level_start[i+1]-1
    double* acc                # per depth, a weight per node of that level
    int32_t* active            # per depth, the nodes with a weight
    int64_t* offset            # per depth, its first index in acc / active
    # the deals found
    int64_t n
    int64_t cap
    uint32_t* h0
    uint32_t* h1
    double* w
    int64_t max_deals          # more deals than this: stop (TOO_BIG)
    double deadline            # CLOCK_MONOTONIC seconds after which to stop (TOO_BIG); 0 none
    int64_t steps              # recursion steps, for looking at the clock now and then
    Halt halt                  # its stop


cdef int _follow(void** p, int64_t cap, size_t size) noexcept nogil:
    """Give the array p the capacity `cap` (an array that follows another's growth); when
    realloc fails, p keeps its old block (still the caller's to free) and NO_MEMORY."""
    cdef void* q = realloc(p[0], cap * size)
    if q == NULL:
        return NO_MEMORY
    p[0] = q
    return 0


cdef int _emit(Enum* E, uint32_t h0, uint32_t h1, double w) noexcept nogil:
    cdef int64_t cap
    if E.n >= E.max_deals:
        return TOO_BIG
    if E.n == E.cap:
        # Each array keeps its old block when realloc fails (the caller frees it); the
        # capacity grows only once all three have grown.
        cap = E.cap * 2 if E.cap else 1024
        if (_follow(<void**>&E.h0, cap, sizeof(uint32_t)) < 0
                or _follow(<void**>&E.h1, cap, sizeof(uint32_t)) < 0
                or _follow(<void**>&E.w, cap, sizeof(double)) < 0):
            return NO_MEMORY
        E.cap = cap
    E.h0[E.n] = h0
    E.h1[E.n] = h1
    E.w[E.n] = w
    E.n += 1
    return 0


cdef int _enum_rec(Enum* E, int i, int n_active, uint32_t h0, uint32_t h1) noexcept nogil:
    """The deals below the weighted set of table nodes of tile i (depth i's `active`): each
    choice of owner for tile i (one choice for a tile already on the line) carries the set on."""
    cdef double* acc = E.acc + E.offset[i]
    cdef int32_t* active = E.active + E.offset[i]
    cdef double* nacc
    cdef int32_t* nactive
    cdef int choice, k, v, j, child, base, n_next, rc
    cdef int owner
    cdef uint32_t bit
    cdef double add
    E.steps += 1
    if (E.steps & 0xFFFF) == 0:
        if E.deadline > 0 and _now() >= E.deadline:
            return TOO_BIG
        if _should_stop(&E.halt):
            return STOPPED
    if i == E.n_tiles:
        return _emit(E, h0, h1, acc[active[0] - E.level_start[i]]) if n_active else 0
    nacc = E.acc + E.offset[i + 1]
    nactive = E.active + E.offset[i + 1]
    base = E.level_start[i + 1]
    bit = (<uint32_t>1) << E.tiles[i]
    for choice in range(-1, 2):      # the reserve, seat 0, seat 1
        if E.played[i] and choice > -1:
            break
        n_next = 0
        for k in range(n_active):
            v = active[k]
            for j in range(E.opt_start[v], E.opt_start[v + 1]):
                if not E.played[i] and E.opt_owner[j] != choice:
                    continue
                add = acc[v - E.level_start[i]] * E.opt_factor[j]
                if add == 0:        # an underflow: no weight reaches the child
                    continue
                child = E.opt_child[j] - base
                if nacc[child] == 0:
                    nactive[n_next] = E.opt_child[j]
                    n_next += 1
                nacc[child] += add
        if n_next == 0:
            continue
        if E.played[i] or choice == -1:
            rc = _enum_rec(E, i + 1, n_next, h0, h1)
        elif choice == 0:
            rc = _enum_rec(E, i + 1, n_next, h0 | bit, h1)
        else:
            rc = _enum_rec(E, i + 1, n_next, h0, h1 | bit)
        for k in range(n_next):
            nacc[nactive[k] - base] = 0
        if rc < 0:
            return rc
    return 0


cdef int _deal_order(const void* a, const void* b) noexcept nogil:
    cdef const int64_t* x = <const int64_t*>a
    cdef const int64_t* y = <const int64_t*>b
    return (x[0] > y[0]) - (x[0] < y[0])


cdef int _checked_int(object value, long long low, long long high, str what) except? -1:
    """`value` as a C int when it is an integer in low..high, else BergenError."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BergenError(f"{what}: expected an integer {low}..{high}, got {value!r}",
                          field=what)
    return value


cdef int _check_levels(int32_t* level_of, const int32_t* opt_start, const int32_t* opt_child,
                       int n_nodes, int m) except -1:
    """Fill `level_of` (each node's tile, the root's 0) and check what the walk of
    `_enum_rec` relies on: every node but the root is some earlier node's child, the children
    of a node lie one level deeper (and no deeper than `m`, where one node at most ends the
    walk), and the levels never go down from one node to the next (breadth first)."""
    cdef int v, j, child, at_end = 0
    for v in range(n_nodes):
        level_of[v] = -1
    level_of[0] = 0
    for v in range(n_nodes):
        if level_of[v] < 0 or (v > 0 and level_of[v] < level_of[v - 1]):
            raise BergenError("malformed world table (node order)", field="table")
        if level_of[v] == m:
            at_end += 1
        for j in range(opt_start[v], opt_start[v + 1]):
            child = opt_child[j]
            if child <= v or level_of[v] >= m or (
                    level_of[child] >= 0 and level_of[child] != level_of[v] + 1):
                raise BergenError("malformed world table (the children)", field="table")
            level_of[child] = level_of[v] + 1
    if at_end > 1:
        raise BergenError("malformed world table (the last level)", field="table")
    return 0


def enumerate_deals(table, long long max_deals=0, double seconds=0.0, stop=None):
    """Every distinct deal of `table` (a `WorldTable` over both seats' hands, as
    `endgame.public_table` builds it) as sorted lists (hands of seat 0, hands of seat 1,
    weights): each deal's weight is the sum over its histories of their factors (their
    number, without inference), as `WorldTable.enumerate` gives it. BergenError ("too
    many deals") past `max_deals` deals or `seconds` (0: no limit). `stop`: a callable
    looked at every 65,536 steps; when it returns true the enumeration stops with
    KeyboardInterrupt, as at Ctrl-C."""
    cdef Enum E
    cdef int m, n_nodes, n_opts
    cdef int i, j, v, rc
    cdef int64_t k, total
    cdef int32_t* level_of = NULL
    cdef int64_t* keys = NULL
    # Every length and index copied into C is checked first (the copies run without bounds
    # checks): the tiles fit `uint8_t[N_TILES]`, the arrays have the lengths the node and
    # option counts say, and each option's child lies one level deeper (`_check_levels`).
    m = len(table.tiles)
    if m > N_TILES:
        raise BergenError(f"malformed world table ({m} tiles, at most {N_TILES})",
                          field="table")
    n_nodes = _checked_int(table.n_nodes, 1, 1 << 26, "table")
    n_opts = len(table.opt_group)
    if (len(table.is_played) != m or len(table.opt_start) != n_nodes + 1
            or len(table.opt_child) != n_opts):
        raise BergenError("malformed world table (sizes)", field="table")
    memset(&E, 0, sizeof(Enum))
    _halt(&E.halt, stop)
    E.n_tiles = m
    E.max_deals = max_deals if max_deals > 0 else (<int64_t>1 << 62)
    E.deadline = _now() + seconds if seconds > 0 else 0.0
    owners = table.owners
    if any(o not in (0, 1, RESERVE) for o in owners):
        raise BergenError("the endgame's deals are dealt among two seats")
    cdef int32_t* opt_start = <int32_t*>malloc((n_nodes + 1) * sizeof(int32_t))
    cdef int32_t* opt_child = <int32_t*>malloc(max(n_opts, 1) * sizeof(int32_t))
    cdef int8_t* opt_owner = <int8_t*>malloc(max(n_opts, 1) * sizeof(int8_t))
    cdef double* opt_factor = <double*>malloc(max(n_opts, 1) * sizeof(double))
    cdef uint8_t tiles[N_TILES]
    cdef uint8_t played[N_TILES]
    cdef int32_t* level_start = <int32_t*>malloc((m + 2) * sizeof(int32_t))
    level_of = <int32_t*>malloc(max(n_nodes, 1) * sizeof(int32_t))
    try:
        if (opt_start == NULL or opt_child == NULL or opt_owner == NULL or opt_factor == NULL
                or level_start == NULL or level_of == NULL):
            raise MemoryError()
        weight = table.weight
        for v in range(n_nodes + 1):
            opt_start[v] = _checked_int(table.opt_start[v], 0, n_opts, "table")
            if v > 0 and opt_start[v] < opt_start[v - 1]:
                raise BergenError("malformed world table (option ranges)", field="table")
        for j in range(n_opts):
            opt_child[j] = _checked_int(table.opt_child[j], 1, n_nodes - 1, "table")
        # Levels: the table is breadth first from the root, so each tile's nodes are a range.
        _check_levels(level_of, opt_start, opt_child, n_nodes, m)
        for i in range(m + 2):
            level_start[i] = n_nodes
        for v in range(n_nodes - 1, -1, -1):
            level_start[level_of[v]] = v
        for v in range(n_nodes):
            for j in range(opt_start[v], opt_start[v + 1]):
                g = table.opt_group[j]
                opt_owner[j] = -1 if owners[g] == RESERVE else owners[g]
                factor = 1.0 if weight is None else weight[level_of[v]][g]
                # > 0 and finite: a node's accumulated weight is 0 only until a history
                # reaches it, which is how `_enum_rec` lists each child once
                if not 0 < factor < INFINITY:
                    raise BergenError("malformed world table (the weights)", field="table")
                opt_factor[j] = factor
        for i in range(m):
            tiles[i] = _checked_int(table.tiles[i], 0, N_TILES - 1, "table")
            played[i] = bool(table.is_played[i])
        E.opt_start = opt_start
        E.opt_child = opt_child
        E.opt_owner = opt_owner
        E.opt_factor = opt_factor
        E.tiles = tiles
        E.played = played
        E.level_start = level_start
        total = 0
        E.offset = <int64_t*>malloc((m + 2) * sizeof(int64_t))
        if E.offset == NULL:
            raise MemoryError()
        for i in range(m + 1):
            E.offset[i] = total
            total += max(level_start[i + 1] - level_start[i], 1) if i < m else 1
        E.acc = <double*>malloc(total * sizeof(double))
        E.active = <int32_t*>malloc(total * sizeof(int32_t))
        if E.acc == NULL or E.active == NULL:
            raise MemoryError()
        for k in range(total):
            E.acc[k] = 0
        E.acc[0] = 1.0
        E.active[0] = 0
        with nogil:
            rc = _enum_rec(&E, 0, 1, 0, 0)
        if rc == STOPPED:
            _raise_stopped(&E.halt)
        if rc == TOO_BIG:
            raise TooBig("too many deals for the budget")
        if rc < 0:
            raise MemoryError()
        # Sorted by (hand of seat 0, hand of seat 1): a deal is found once, the sort is the order.
        keys = <int64_t*>malloc(max(E.n, 1) * 2 * sizeof(int64_t))
        if keys == NULL:
            raise MemoryError()
        for k in range(E.n):
            keys[2 * k] = (<int64_t>E.h0[k] << 28) | E.h1[k]
            keys[2 * k + 1] = k
        qsort(keys, E.n, 2 * sizeof(int64_t), _deal_order)
        h0 = [E.h0[keys[2 * k + 1]] for k in range(E.n)]
        h1 = [E.h1[keys[2 * k + 1]] for k in range(E.n)]
        w = [E.w[keys[2 * k + 1]] for k in range(E.n)]
        return h0, h1, w
    finally:
        free(opt_start)
        free(opt_child)
        free(opt_owner)
        free(opt_factor)
        free(level_start)
        free(level_of)
        free(E.offset)
        free(E.acc)
        free(E.active)
        free(E.h0)
        free(E.h1)
        free(E.w)
        free(keys)


# ---- the size of the game, predicted ---------------------------------------------------------
#: The groups `predict` takes at most (its feasibility test walks their 2^G subsets).
PREDICT_MAX_GROUPS = 10


cdef bint _feasible(const int32_t* cnt, int32_t* f, const int32_t* cap_of, int G) noexcept nogil:
    """The tiles counted by their allowed groups (cnt[mask]) can fill the groups, each to its
    capacity (Hall's condition for the b-matching: for every set S of groups, the tiles that
    may enter only groups of S are at most S's capacity; there are as many tiles as places)."""
    cdef int b, S, n = 1 << G
    memcpy(f, cnt, n * sizeof(int32_t))
    for b in range(G):
        for S in range(n):
            if (S >> b) & 1:
                f[S] += f[S ^ (1 << b)]
    for S in range(n):
        if f[S] > cap_of[S]:
            return False
    return True


cdef int _root_state(State* s, const Rules* rules, object root) except -1:
    """`s` set to the root's public state (`public.Root`: scores, reserve, ends, turn,
    passes) under `rules`, no hands yet: the one start of the solver's build and of
    `predict`'s walks."""
    memset(s, 0, sizeof(State))
    s.rules = rules
    s.scores[0] = root.scores[0]
    s.scores[1] = root.scores[1]
    s.reserve_size = root.reserve_size
    s.left = root.left
    s.right = root.right
    s.left_double = root.left_double
    s.right_double = root.right_double
    s.to_move = root.to_move
    s.passes = root.passes
    s.lead_tile = -1
    s.ended = END_NONE
    s.winner = -1
    return 0


def predict(rules, root, *, owners, caps, tiles, allowed, played, long long walks,
            unsigned long long seed, long long max_steps=0, double stop_above=0.0,
            long long min_walks=32):
    """The size of the endgame of a public view, estimated before anything is built: (deals,
    terminal deals, steps, walks). Knuth's estimator (1975, "Estimating the efficiency of
    backtrack programs"): `walks` random paths down the tree that first gives each unplayed
    free tile an owner (seat 0, seat 1 or the reserve: those with which the groups can still
    be filled) and then plays the round out with those hands (every legal move, a mirror twin
    once); the product of the choices along a path is an unbiased estimate of the tree's
    leaves. The leaves of the first part are the deals; those of the whole, the terminal deals
    of the public tree (each deal ends once per sequence of plays it can make: the solver's
    `n_pairs`, a lower bound of its work). `owners`, `caps`: the groups (owner 0, 1 or
    RESERVE; capacity); `tiles`, `allowed`, `played`: the free tiles, each one's mask of groups,
    and whether it is on the line (it fills a group but is in no hand). Stops after
    `max_steps` steps (0: no limit), or once `min_walks` are done and the estimate of the
    terminal deals is above `stop_above` (if > 0), with the walks done so far; `steps` counts
    the owner choices tested and the plays made."""
    cdef int G = len(caps), m = len(allowed), i, o, S, n_opt, n, pick
    cdef int32_t k
    cdef int64_t w_done = 0, steps = 0, n_walks = walks, step_cap = max_steps
    cdef int32_t base[1 << 10]
    cdef int32_t cnt[1 << 10]
    cdef int32_t f[1 << 10]
    cdef int32_t cap_of[1 << 10]
    cdef int32_t group_of[3]        # per owner (reserve, seat 0, seat 1): its groups' mask
    cdef int32_t tile_allowed[N_TILES]
    cdef uint8_t tile_played[N_TILES]
    cdef uint8_t tile_of[N_TILES]
    cdef int32_t opt_mask[3]
    cdef int opt_owner[3]
    cdef uint32_t hands[2]
    cdef double deals_sum = 0.0, pairs_sum = 0.0, w_deal, w_all
    cdef int moves[MAX_MOVES]
    cdef State start, s, nxt
    cdef Rng rng
    cdef CoreRules crules
    if rules.players != 2 or rules.n_sides != 2:
        raise BergenError("the exact endgame is a game of two players")
    crules = CoreRules(rules)
    if not 0 < G <= PREDICT_MAX_GROUPS:
        raise BergenError(f"predict: 1..{PREDICT_MAX_GROUPS} groups, got {G}", field="caps")
    if len(owners) != G or len(played) != m or len(tiles) != m or m > N_TILES:
        raise BergenError("predict: malformed public view (sizes)", field="allowed")
    if not 1 <= walks <= (1 << 30):
        raise BergenError("predict: walks must be 1..2^30", field="walks")
    for v in (root.left, root.right):
        _checked_int(v, 0, 6, "root")
    _checked_int(root.to_move, 0, 1, "root")
    _checked_int(root.passes, 0, 255, "root")
    _checked_int(root.reserve_size, 0, rules.reserve_kept, "root")
    if len(root.scores) != 2:
        raise BergenError("expected 2 scores", field="root")
    for v in root.scores:
        _checked_int(v, -1_000_000, 1_000_000, "root")
    group_of[0] = group_of[1] = group_of[2] = 0
    for i in range(G):
        o = owners[i]
        if o == RESERVE:
            group_of[0] |= 1 << i
        elif o in (0, 1):
            group_of[o + 1] |= 1 << i
        else:
            raise BergenError("the endgame's deals are dealt among two seats", field="owners")
    for S in range(1 << G):
        cap_of[S] = 0
        base[S] = 0
    for i in range(G):
        k = _checked_int(caps[i], 0, N_TILES, "caps")
        for S in range(1 << G):
            if (S >> i) & 1:
                cap_of[S] += k
    for i in range(m):
        tile_allowed[i] = _checked_int(allowed[i], 1, (1 << G) - 1, "allowed")
        tile_of[i] = _checked_int(tiles[i], 0, N_TILES - 1, "tiles")
        tile_played[i] = bool(played[i])
        base[tile_allowed[i]] += 1
    if cap_of[(1 << G) - 1] != m or not _feasible(base, f, cap_of, G):
        raise BergenError("impossible position: no deal fills the groups", field="allowed")
    _root_state(&start, &crules.c, root)
    rng.state = seed
    with nogil:
        while w_done < n_walks and (step_cap <= 0 or steps < step_cap):
            memcpy(cnt, base, (1 << G) * sizeof(int32_t))
            hands[0] = 0
            hands[1] = 0
            w_deal = 1.0
            for i in range(m):
                if tile_played[i]:
                    continue
                n_opt = 0
                for o in range(3):
                    k = tile_allowed[i] & group_of[o]
                    if k == 0:
                        continue
                    if k == tile_allowed[i]:    # one owner only: it keeps the deal possible
                        opt_mask[0] = k
                        opt_owner[0] = o
                        n_opt = 1
                        break
                    steps += 1
                    cnt[tile_allowed[i]] -= 1
                    cnt[k] += 1
                    if _feasible(cnt, f, cap_of, G):
                        opt_mask[n_opt] = k
                        opt_owner[n_opt] = o
                        n_opt += 1
                    cnt[k] -= 1
                    cnt[tile_allowed[i]] += 1
                if n_opt == 0:      # never from a feasible start (some owner keeps it so)
                    w_deal = 0.0
                    break
                pick = below(&rng, n_opt)
                cnt[tile_allowed[i]] -= 1
                cnt[opt_mask[pick]] += 1
                w_deal *= n_opt
                if opt_owner[pick] > 0:
                    hands[opt_owner[pick] - 1] |= (<uint32_t>1) << tile_of[i]
            deals_sum += w_deal
            # The play: every legal move of the dealt hands (a mirror twin once).
            memcpy(&s, &start, sizeof(State))
            s.hands[0] = hands[0]
            s.hands[1] = hands[1]
            w_all = w_deal
            while s.ended == END_NONE:
                n = gen_moves(&s, moves)
                n = drop_mirror_twins(s.left, s.right, s.left_double, s.right_double, moves, n)
                steps += 1
                w_all *= n
                apply_move(&s, random_choice(moves, n, &rng), &nxt)
                memcpy(&s, &nxt, sizeof(State))
            pairs_sum += w_all
            w_done += 1
            if stop_above > 0 and w_done >= min_walks and pairs_sum > stop_above * w_done:
                break
    return deals_sum / w_done, pairs_sum / w_done, steps, w_done


# ---- the public tree --------------------------------------------------------------------------
# The play-outs' transposition table: the same state is reached from many leaves (other
# orders of the same plays) and by many deals; a state is its hands, ends, turn, passes and
# scores (the scores matter near the target), its value side 0's lead at the end of the round.
ctypedef struct Seen:
    uint64_t a                  # both hands (28 bits each), the turn and the passes
    uint64_t b                  # the ends, their doubles and both scores; 0: empty
    int32_t value
    int8_t kind                 # SEEN_EXACT, SEEN_LOWER (value a lower bound), SEEN_UPPER

cdef enum:
    SEEN_BITS = 19              # a PlayoutTable's size by default (2^19 entries, 12.6 MB)
    POLICY_PERFECT = 3          # the greedy seat too plays perfectly (it knows the deal)
    SEEN_EXACT = 0
    SEEN_LOWER = 1
    SEEN_UPPER = 2


ctypedef struct Builder:
    Tree* T
    const int32_t* deal_h[2]    # each deal's hand index per player
    const double* deal_w        # each deal's weight
    int32_t root_scores[2]
    int32_t* stack              # the deal lists of the current path
    int64_t stack_cap
    int32_t* stamp[2]           # per hand: the last `stamp_id` that listed it as a row (dedup)
    int32_t stamp_id
    int64_t max_nodes
    int64_t max_pairs
    int64_t max_ents
    double deadline             # CLOCK_MONOTONIC seconds after which to stop (TOO_BIG); 0 none
    # A depth-limited tree (`horizon` > 0): a decision at that depth is a leaf, each deal of
    # it played out to the end with both hands seen (`_playout`).
    int horizon
    int greedy_seat             # -1: both play perfectly; else that seat plays greedily
    int64_t playout_steps       # states visited by the play-outs
    int64_t max_steps           # ... at most (TOO_BIG past it); 0: no limit
    int64_t abort               # a play-out stopped: TOO_BIG or STOPPED
    int64_t leaves              # the leaves made at the horizon
    int policies                # greedy_seat's policies at a leaf (FLOOR_*), 1..3
    int policy                  # the one being played out
    int32_t* values             # a leaf's values, deal by policy
    int64_t values_cap
    Seen* seen                  # the play-outs' transposition table
    uint64_t seen_mask          # its entries - 1 (a power of two)
    Halt halt                   # its stop


cdef int _grow(void** p, int64_t* cap, int64_t need, size_t size) noexcept nogil:
    """Make room for `need` items of `size` bytes in the array p (capacity *cap), doubling."""
    cdef int64_t c = cap[0]
    cdef void* q
    if need <= c:
        return 0
    if c < 1024:
        c = 1024
    while c < need:
        c *= 2
    q = realloc(p[0], c * size)
    if q == NULL:
        return NO_MEMORY
    p[0] = q
    cap[0] = c
    return 0


cdef int _grow_with(int64_t* cap_of, int64_t need, void** lead, size_t lead_size,
                    void** b, size_t b_size, void** c, size_t c_size) noexcept nogil:
    """Give the array `lead` room for `need` entries (`_grow`), and the two arrays `b` and `c`
    that run beside it the same capacity, kept in `cap_of`."""
    cdef int64_t cap = cap_of[0]
    if _grow(lead, &cap, need, lead_size) < 0:
        return NO_MEMORY
    if cap != cap_of[0]:
        if _follow(b, cap, b_size) < 0 or _follow(c, cap, c_size) < 0:
            return NO_MEMORY
        cap_of[0] = cap
    return 0


cdef inline int _grow_rows(Tree* T, int64_t need) noexcept nogil:
    return _grow_with(&T.cap_row, need, <void**>&T.row_hand, sizeof(int32_t),
                      <void**>&T.row_ent, sizeof(int32_t), <void**>&T.row_n, sizeof(uint8_t))


cdef inline int _grow_ents(Tree* T, int64_t need) noexcept nogil:
    return _grow_with(&T.cap_ent, need, <void**>&T.ent_hand, sizeof(int32_t),
                      <void**>&T.ent_action, sizeof(uint8_t), <void**>&T.col_ent,
                      sizeof(int32_t))


cdef inline int _grow_children(Tree* T, int64_t need) noexcept nogil:
    return _grow_with(&T.cap_child, need, <void**>&T.child_node, sizeof(int32_t),
                      <void**>&T.child_move, sizeof(int16_t), <void**>&T.child_col,
                      sizeof(int32_t))


cdef int64_t _new_node(Builder* B, int player) noexcept nogil:
    cdef Tree* T = B.T
    cdef int64_t n = T.n_nodes
    if n >= B.max_nodes:
        return TOO_BIG
    if (n & 0xFFF) == 0:
        if B.deadline > 0 and _now() >= B.deadline:
            return TOO_BIG
        if (n & 0x3FFF) == 0 and _should_stop(&B.halt):
            return STOPPED
    if _grow(<void**>&T.nodes, &T.cap_nodes, n + 1, sizeof(Node)) < 0:
        return NO_MEMORY
    memset(&T.nodes[n], 0, sizeof(Node))
    T.nodes[n].player = player
    T.n_nodes = n + 1
    return n


cdef inline int _margin(const Builder* B, const int32_t* scores) noexcept nogil:
    return (scores[0] - B.root_scores[0]) - (scores[1] - B.root_scores[1])


cdef int64_t _new_terminal(Builder* B, int n_alive) noexcept nogil:
    """A new terminal node with room for `n_alive` deals after the tree's last (filled by
    `_put_pair`, in order), or TOO_BIG past B.max_pairs, NO_MEMORY, STOPPED."""
    cdef Tree* T = B.T
    cdef int64_t nid, cap
    if T.n_pair + n_alive > B.max_pairs:
        return TOO_BIG
    nid = _new_node(B, -1)
    if nid < 0:
        return nid
    cap = T.cap_pair
    if _grow(<void**>&T.pair_h0, &cap, T.n_pair + n_alive, sizeof(int32_t)) < 0:
        return NO_MEMORY
    if cap != T.cap_pair:
        if (_follow(<void**>&T.pair_h1, cap, sizeof(int32_t)) < 0
                or _follow(<void**>&T.pair_wx, cap, sizeof(double)) < 0
                or _follow(<void**>&T.pair_wg, cap, sizeof(double)) < 0):
            return NO_MEMORY
        T.cap_pair = cap
    T.nodes[nid].first = T.n_pair
    T.nodes[nid].count = n_alive
    return nid


cdef inline void _put_pair(Builder* B, int32_t d, int margin, int gain) noexcept nogil:
    """Deal `d` into the terminal being filled: its weight times side 0's margin and gain."""
    cdef Tree* T = B.T
    T.pair_h0[T.n_pair] = B.deal_h[0][d]
    T.pair_h1[T.n_pair] = B.deal_h[1][d]
    T.pair_wx[T.n_pair] = B.deal_w[d] * <double>margin
    T.pair_wg[T.n_pair] = B.deal_w[d] * <double>gain
    T.n_pair += 1


cdef int64_t _terminal(Builder* B, const State* s, const int32_t* alive, int n_alive,
                       const uint32_t* played, bint blocked) noexcept nogil:
    """A terminal over the deals `alive`. `s`: the ended state, or with `blocked` the state
    before the pass that blocked the round (each deal then scores its own hands)."""
    cdef Tree* T = B.T
    cdef int64_t nid, k
    cdef int x = _margin(B, s.scores), g0 = s.scores[0] - B.root_scores[0], side, extra
    cdef int32_t d
    cdef State tmp
    nid = _new_terminal(B, n_alive)
    if nid < 0:
        return nid
    if blocked:
        memcpy(&tmp, s, sizeof(State))
    for k in range(n_alive):
        d = alive[k]
        extra = 0
        if blocked:
            tmp.hands[0] = T.hands[0][B.deal_h[0][d]] & ~played[0]
            tmp.hands[1] = T.hands[1][B.deal_h[1][d]] & ~played[1]
            side = blocked_winner(&tmp)
            extra = 0 if side < 0 else (2 if side == 0 else -2)
        _put_pair(B, d, x + extra, g0 + (2 if extra > 0 else 0))
    return nid


cdef int _playout(Builder* B, const State* s, int alpha, int beta) noexcept nogil:
    """Side 0's lead (its score minus side 1's) at the end of the round from `s`, both hands
    known: each side plays to its best (alpha-beta over the window (alpha, beta): a value
    outside it is a bound on its side), except B.greedy_seat, which plays its policy's move
    (`floor_index`; B.policy, or perfectly with POLICY_PERFECT). A mirror twin is one
    choice (the one at the left end): the policy so played is the one on the left twin's
    position, mirrored after a right twin, and against it the two twins are worth the same
    (reference.playout alike). Past B.max_steps states, the deadline or a stop request:
    B.abort is set and the value is meaningless."""
    cdef int moves[MAX_MOVES]
    cdef int keys[MAX_MOVES]
    cdef int n, i, j, m, k, v, best, p, alpha0, beta0
    cdef uint64_t key_a, key_b
    cdef Seen* slot
    cdef State nxt
    if s.ended != END_NONE:
        return s.scores[0] - s.scores[1]
    B.playout_steps += 1
    if (B.playout_steps & 0x3FFF) == 0:
        if B.max_steps > 0 and B.playout_steps > B.max_steps:
            B.abort = TOO_BIG
        elif B.deadline > 0 and _now() >= B.deadline:
            B.abort = TOO_BIG
        elif _should_stop(&B.halt):
            B.abort = STOPPED
    if B.abort:
        return 0
    n = gen_moves(s, moves)
    n = drop_mirror_twins(s.left, s.right, s.left_double, s.right_double, moves, n)
    p = s.to_move
    if n == 1 or (p == B.greedy_seat and B.policy != POLICY_PERFECT):
        i = 0 if n == 1 else floor_index(s, moves, n, B.policy)
        apply_move(s, moves[i], &nxt)
        return _playout(B, &nxt, alpha, beta)
    key_a = (<uint64_t>s.hands[0] | (<uint64_t>s.hands[1] << 28) | (<uint64_t>p << 56)
             | (<uint64_t>s.passes << 57) | (<uint64_t>B.policy << 59))
    key_b = (<uint64_t>1 | (<uint64_t>s.left << 1) | (<uint64_t>s.right << 4)
             | (<uint64_t>s.left_double << 7) | (<uint64_t>s.right_double << 8)
             | ((<uint64_t>(<uint32_t>s.scores[0]) & 0xFFFFFF) << 9)
             | ((<uint64_t>(<uint32_t>s.scores[1]) & 0xFFFFFF) << 33))
    slot = &B.seen[mix64(key_a ^ mix64(key_b)) & B.seen_mask]
    if slot.a == key_a and slot.b == key_b:
        if (slot.kind == SEEN_EXACT or (slot.kind == SEEN_LOWER and slot.value >= beta)
                or (slot.kind == SEEN_UPPER and slot.value <= alpha)):
            return slot.value
    alpha0 = alpha
    beta0 = beta
    # The greedy order first (points at once, then the heaviest tile): cut-offs come early.
    for i in range(n):
        apply_move(s, moves[i], &nxt)
        keys[i] = (nxt.scores[p] - s.scores[p]) * 64 + PIPS[moves[i] >> 1]
    for i in range(1, n):
        m = moves[i]
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            moves[j + 1] = moves[j]
            keys[j + 1] = keys[j]
            j -= 1
        moves[j + 1] = m
        keys[j + 1] = k
    best = -2000000 if p == 0 else 2000000
    for i in range(n):
        apply_move(s, moves[i], &nxt)
        v = _playout(B, &nxt, alpha, beta)
        if B.abort:
            return 0
        if p == 0:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    slot.a = key_a
    slot.b = key_b
    slot.value = best
    slot.kind = (SEEN_UPPER if best <= alpha0 else SEEN_LOWER if best >= beta0
                 else SEEN_EXACT)
    return best


cdef inline int _deal_playout(Builder* B, State* at, int32_t d,
                              const uint32_t* played) noexcept nogil:
    """Deal `d` played out from `at` (its hands set to the deal's, less what was played):
    side 0's margin from the root (`_playout`, by B.policy)."""
    at.hands[0] = B.T.hands[0][B.deal_h[0][d]] & ~played[0]
    at.hands[1] = B.T.hands[1][B.deal_h[1][d]] & ~played[1]
    return (_playout(B, at, -2000000, 2000000)
            - (B.root_scores[0] - B.root_scores[1]))


cdef int64_t _leaf(Builder* B, const State* s, const int32_t* alive, int n_alive,
                   const uint32_t* played) noexcept nogil:
    """A leaf of a depth-limited tree: a terminal over the deals `alive` whose payoff is each
    deal played out from `s` (`_playout`: perfectly by both, or with B.greedy_seat greedy);
    its gain is side 0's points to the horizon only."""
    cdef int64_t nid, k
    cdef int v, q, chosen, gs, g0 = s.scores[0] - B.root_scores[0]
    cdef int32_t d, h
    cdef double total, best_total = 0.0
    cdef State tmp
    nid = _new_terminal(B, n_alive)
    if nid < 0:
        return nid
    B.leaves += 1
    memcpy(&tmp, s, sizeof(State))
    if _grow(<void**>&B.values, &B.values_cap, <int64_t>n_alive * B.policies,
             sizeof(int32_t)) < 0:
        return NO_MEMORY
    # A deal alone at the leaf with its greedy-seat hand: that seat knows the other hand
    # there (the only one left beside its own), so playing perfectly is a strategy of it.
    gs = B.greedy_seat
    if gs >= 0:
        B.stamp_id += 1
        for k in range(n_alive):
            h = B.deal_h[gs][alive[k]]
            if B.stamp[gs][h] == B.stamp_id:
                B.stamp[gs][h] = -B.stamp_id     # met again: not alone
            elif B.stamp[gs][h] != -B.stamp_id:
                B.stamp[gs][h] = B.stamp_id
        for k in range(n_alive):
            d = alive[k]
            if B.stamp[gs][B.deal_h[gs][d]] == B.stamp_id:
                B.policy = POLICY_PERFECT
                v = _deal_playout(B, &tmp, d, played)
                if B.abort:
                    return B.abort
                for q in range(B.policies):
                    B.values[k * B.policies + q] = v
    # Each policy's play-out of every other deal; the leaf takes the policy whose weighted
    # sum over its deals is largest for the greedy seat (the first such): a choice made from
    # the leaf's public facts and the seat's own hand, a strategy of the seat.
    chosen = 0
    for q in range(B.policies):
        B.policy = q
        total = 0.0
        for k in range(n_alive):
            d = alive[k]
            if gs < 0 or B.stamp[gs][B.deal_h[gs][d]] != B.stamp_id:
                v = _deal_playout(B, &tmp, d, played)
                if B.abort:
                    return B.abort
                B.values[k * B.policies + q] = v
            total += B.deal_w[d] * <double>B.values[k * B.policies + q]
        if B.greedy_seat == 1:
            total = -total
        if q == 0 or total > best_total:
            chosen = q
            best_total = total
    for k in range(n_alive):
        _put_pair(B, alive[k], B.values[k * B.policies + chosen], g0)
    return nid


cdef int _row_order(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef inline bint _legal(int move, uint32_t current, uint32_t fit) noexcept nogil:
    if move == PASS:
        return (current & fit) == 0
    return (current >> (move >> 1)) & 1


cdef int64_t _build(Builder* B, const State* s, int64_t list_at, int n_alive,
                    const uint32_t* played, int depth, int64_t scratch) noexcept nogil:
    """The subtree of `s` over the deals stack[list_at .. list_at + n_alive - 1] (each one's
    hands as dealt; `played`: the tiles each player has played since the root); returns its
    node (reference.build)."""
    cdef Tree* T = B.T
    cdef int p, j, c, k, n_rows, n_moves = 0, n_sub, t, lo, hi, n_legal
    cdef int64_t nid, child_id, sub_at, row_at, ent_at, col, first
    cdef int32_t e, n_ents
    cdef uint32_t fit, tiles = 0, cur
    cdef uint32_t now_played[2]
    cdef bint can_pass = False, mirror, fl, fr
    cdef int moves[32]
    cdef int32_t d, h
    cdef int32_t* alive
    cdef State child, rep_state
    if s.ended != END_NONE:
        return _terminal(B, s, B.stack + list_at, n_alive, played, False)
    p = s.to_move
    alive = B.stack + list_at
    fit = TILES_WITH[s.left] | TILES_WITH[s.right]
    # The rows: the distinct hands of the player to act, ascending.
    B.stamp_id += 1
    row_at = T.n_row
    n_rows = 0
    for k in range(n_alive):
        h = B.deal_h[p][alive[k]]
        if B.stamp[p][h] != B.stamp_id:
            B.stamp[p][h] = B.stamp_id
            if _grow_rows(T, row_at + n_rows + 1) < 0:
                return NO_MEMORY
            T.row_hand[row_at + n_rows] = h
            n_rows += 1
    qsort(T.row_hand + row_at, n_rows, sizeof(int32_t), _row_order)
    for j in range(n_rows):
        cur = T.hands[p][T.row_hand[row_at + j]] & ~played[p]
        tiles |= cur & fit
        if not (cur & fit):
            can_pass = True
    # The public actions (public.public_moves).
    mirror = mirrored_ends(s.left, s.right, s.left_double, s.right_double)
    while tiles:
        t = lowest_bit(tiles)
        tiles &= tiles - 1
        lo = TILE_LOW[t]
        hi = TILE_HIGH[t]
        fl = lo == s.left or hi == s.left
        fr = lo == s.right or hi == s.right
        if fl:
            moves[n_moves] = t * 2
            n_moves += 1
        if fr and not (fl and mirror):
            moves[n_moves] = t * 2 + 1
            n_moves += 1
    if can_pass:
        moves[n_moves] = PASS
        n_moves += 1
    if n_moves == 1 and depth > 0:
        # One public action, which every hand must take: no decision, no node.
        apply_move(s, moves[0], &child)
        if child.ended == END_BLOCKED:
            return _terminal(B, s, alive, n_alive, played, True)
        now_played[0] = played[0]
        now_played[1] = played[1]
        if moves[0] != PASS:
            now_played[p] |= (<uint32_t>1) << (moves[0] >> 1)
        return _build(B, &child, list_at, n_alive, now_played, depth, scratch)
    if B.horizon > 0 and depth >= B.horizon:
        return _leaf(B, s, alive, n_alive, played)
    nid = _new_node(B, p)
    if nid < 0:
        return nid
    if depth > T.max_depth:
        T.max_depth = depth
    T.n_row = row_at + n_rows
    # The entries, row by row, then the column list, action by action.
    ent_at = T.n_ent
    n_ents = 0
    for j in range(n_rows):
        h = T.row_hand[row_at + j]
        cur = T.hands[p][h] & ~played[p]
        T.row_ent[row_at + j] = n_ents
        n_legal = 0
        for c in range(n_moves):
            if _legal(moves[c], cur, fit):
                if _grow_ents(T, ent_at + n_ents + 1) < 0:
                    return NO_MEMORY
                T.ent_hand[ent_at + n_ents] = h
                T.ent_action[ent_at + n_ents] = c
                n_ents += 1
                n_legal += 1
        T.row_n[row_at + j] = n_legal
    if ent_at + n_ents > B.max_ents:
        return TOO_BIG
    T.n_ent = ent_at + n_ents
    if _grow_children(T, T.n_child + n_moves) < 0:
        return NO_MEMORY
    first = T.n_child
    T.n_child += n_moves
    col = 0
    for c in range(n_moves):
        T.child_move[first + c] = moves[c]
        T.child_col[first + c] = <int32_t>col
        for e in range(n_ents):
            if T.ent_action[ent_at + e] == c:
                T.col_ent[ent_at + col] = e
                col += 1
    T.nodes[nid].n_rows = n_rows
    T.nodes[nid].rows = row_at
    T.nodes[nid].ents = ent_at
    T.nodes[nid].n_ents = n_ents
    T.nodes[nid].count = n_moves
    T.nodes[nid].first = first
    scratch += 2 * <int64_t>n_ents
    if scratch > T.max_scratch:
        T.max_scratch = scratch
    for c in range(n_moves):
        # The deals where the action is legal for p's hand, on the stack after this node's.
        sub_at = list_at + n_alive
        if _grow(<void**>&B.stack, &B.stack_cap, sub_at + n_alive, sizeof(int32_t)) < 0:
            return NO_MEMORY
        alive = B.stack + list_at
        n_sub = 0
        for k in range(n_alive):
            d = alive[k]
            if _legal(moves[c], T.hands[p][B.deal_h[p][d]] & ~played[p], fit):
                B.stack[sub_at + n_sub] = d
                n_sub += 1
        d = B.stack[sub_at]
        memcpy(&rep_state, s, sizeof(State))
        rep_state.hands[0] = T.hands[0][B.deal_h[0][d]] & ~played[0]
        rep_state.hands[1] = T.hands[1][B.deal_h[1][d]] & ~played[1]
        apply_move(&rep_state, moves[c], &child)
        if child.ended == END_BLOCKED:
            child_id = _terminal(B, s, B.stack + sub_at, n_sub, played, True)
        else:
            now_played[0] = played[0]
            now_played[1] = played[1]
            if moves[c] != PASS:
                now_played[p] |= (<uint32_t>1) << (moves[c] >> 1)
            child_id = _build(B, &child, sub_at, n_sub, now_played, depth + 1, scratch)
        if child_id < 0:
            return child_id
        T.child_node[first + c] = <int32_t>child_id
    return nid


cdef void _free_tree(Tree* T) noexcept nogil:
    free(T.hands[0])
    free(T.hands[1])
    free(T.nodes)
    free(T.child_node)
    free(T.child_move)
    free(T.child_col)
    free(T.row_hand)
    free(T.row_ent)
    free(T.row_n)
    free(T.ent_hand)
    free(T.ent_action)
    free(T.col_ent)
    free(T.regret)
    free(T.strat)
    free(T.pair_h0)
    free(T.pair_h1)
    free(T.pair_wx)
    free(T.pair_wg)
    memset(T, 0, sizeof(Tree))


# ---- DCFR ------------------------------------------------------------------------------------
ctypedef struct Run:
    Tree* T
    double* reach[2]        # per player: a hand vector per depth
    double* out             # a hand vector per depth (the larger player's size)
    double* scratch         # strategies and action values along the current path
    int width               # entries of an `out` vector
    double pos              # this iteration's discount of positive regrets
    double neg              # ... of negative regrets
    double weight           # this iteration's weight in the average strategy
    int avg                 # 1: the average strategy (evaluations), 0: the current (DCFR)


cdef void _strategies(const Run* R, const Node* n, double* sigma) noexcept nogil:
    """Each entry's share in its row's strategy: regret matching, or the average strategy
    with R.avg (reference._matching, _average)."""
    cdef const Tree* T = R.T
    cdef int j, i, m
    cdef const double* src = (T.strat if R.avg else T.regret) + n.ents
    cdef const int32_t* row_ent = T.row_ent + n.rows
    cdef const uint8_t* row_n = T.row_n + n.rows
    cdef bint avg = R.avg
    cdef double total, x
    cdef int32_t a
    for j in range(n.n_rows):
        a = row_ent[j]
        m = row_n[j]
        if m == 1:
            sigma[a] = 1.0
            continue
        total = 0.0
        for i in range(a, a + m):
            x = src[i]
            if not avg:
                x = x if x > 0 else 0.0
            sigma[i] = x
            total += x
        if total > 0:
            for i in range(a, a + m):
                sigma[i] = sigma[i] / total
        else:
            for i in range(a, a + m):
                sigma[i] = 1.0 / m


cdef inline void _terminal_values(const Tree* T, const Node* n, const double* reach0,
                                  const double* reach1, double* out, int u,
                                  const double* pay) noexcept nogil:
    """Player u's counterfactual values at a terminal: each deal's payoff (`pay`: weight
    times side 0's margin, or its gain) times the other player's reach."""
    cdef int64_t k, a = n.first, b = n.first + n.count
    cdef const int32_t* h0 = T.pair_h0
    cdef const int32_t* h1 = T.pair_h1
    if u == 0:
        for k in range(a, b):
            out[h0[k]] += pay[k] * reach1[h1[k]]
    else:
        for k in range(a, b):
            out[h1[k]] += -pay[k] * reach0[h0[k]]


cdef inline void _cfr_child(Run* R, int64_t nid, int depth, double* reach0, double* reach1,
                            double* out, int u, double* scratch) noexcept nogil:
    """_cfr of a child, a terminal's values at once (no call for the commonest node)."""
    cdef const Node* n = &R.T.nodes[nid]
    if n.player < 0:
        _terminal_values(R.T, n, reach0, reach1, out, u, R.T.pair_wx)
    else:
        _cfr(R, nid, depth, reach0, reach1, out, u, scratch)


cdef void _cfr(Run* R, int64_t nid, int depth, double* reach0, double* reach1, double* out,
               int u, double* scratch) noexcept nogil:
    """Add player u's counterfactual values of its hands at node nid into `out`; at u's
    nodes, update the regrets and the strategy sums (reference.Solver._cfr)."""
    cdef Tree* T = R.T
    cdef const Node* n = &T.nodes[nid]
    cdef int p = n.player, j, c, k, m
    cdef int32_t h, e, x0, x1, a
    cdef double* sigma
    cdef double* values
    cdef double* sub
    cdef double* reach_p
    cdef double* child_out
    cdef double* regret
    cdef double* strat
    cdef const int32_t* ent_hand
    cdef const int32_t* cols
    cdef const int32_t* col_at
    cdef const int32_t* kids
    cdef double v, x, pos, neg, weight
    cdef int32_t n_ents
    if p < 0:
        _terminal_values(T, n, reach0, reach1, out, u, T.pair_wx)
        return
    k = n.count
    n_ents = n.n_ents
    ent_hand = T.ent_hand + n.ents
    cols = T.col_ent + n.ents
    col_at = T.child_col + n.first
    kids = T.child_node + n.first
    sigma = scratch
    values = scratch + n_ents
    _strategies(R, n, sigma)
    reach_p = reach0 if p == 0 else reach1
    sub = R.reach[p] + (depth + 1) * T.n_hands[p]
    if p != u:
        for c in range(k):
            x1 = col_at[c + 1] if c + 1 < k else n_ents
            for x0 in range(col_at[c], x1):
                e = cols[x0]
                h = ent_hand[e]
                sub[h] = reach_p[h] * sigma[e]
            if p == 0:
                _cfr_child(R, kids[c], depth + 1, sub, reach1, out, u, values)
            else:
                _cfr_child(R, kids[c], depth + 1, reach0, sub, out, u, values)
        return
    child_out = R.out + (depth + 1) * R.width
    for c in range(k):
        x1 = col_at[c + 1] if c + 1 < k else n_ents
        for x0 in range(col_at[c], x1):
            e = cols[x0]
            h = ent_hand[e]
            sub[h] = reach_p[h] * sigma[e]
            child_out[h] = 0.0
        if p == 0:
            _cfr_child(R, kids[c], depth + 1, sub, reach1, child_out, u, values + n_ents)
        else:
            _cfr_child(R, kids[c], depth + 1, reach0, sub, child_out, u, values + n_ents)
        for x0 in range(col_at[c], x1):
            e = cols[x0]
            values[e] = child_out[ent_hand[e]]
    pos, neg, weight = R.pos, R.neg, R.weight
    regret = T.regret + n.ents
    strat = T.strat + n.ents
    for j in range(n.n_rows):
        h = T.row_hand[n.rows + j]
        a = T.row_ent[n.rows + j]
        m = T.row_n[n.rows + j]
        v = 0.0
        for e in range(a, a + m):
            v += sigma[e] * values[e]
        out[h] += v
        if m == 1:
            continue
        for e in range(a, a + m):
            x = regret[e]
            x *= pos if x > 0 else neg
            regret[e] = x + (values[e] - v)
            strat[e] += weight * reach_p[h] * sigma[e]


cdef void _eval(Run* R, int64_t nid, int depth, double* reach_o, double* out, int b,
                double* scratch, double* root_values, const double* pay,
                bint best) noexcept nogil:
    """Add player b's counterfactual values of its hands at nid into `out`, against the
    other player's average strategy (reach_o: its hand vector): b playing its best response
    (`best`) or its own average strategy. `pay`: the terminal deals' payoffs (T.pair_wx,
    side 0's margin, or T.pair_wg, side 0's gain, both weighted). At the root, with
    `root_values`, also each action's values of b's hands (count x n_hands[b])
    (reference.Solver._eval)."""
    cdef Tree* T = R.T
    cdef const Node* n = &T.nodes[nid]
    cdef int p = n.player, j, c, k, m
    cdef int32_t h, e, x0, x1, a, i
    cdef double* sigma
    cdef double* values
    cdef double* sub
    cdef double* child_out
    cdef const int32_t* ent_hand
    cdef const int32_t* cols
    cdef const int32_t* col_at
    cdef const int32_t* kids
    cdef double v
    cdef int32_t n_ents
    if p < 0:
        if b == 0:
            _terminal_values(T, n, out, reach_o, out, 0, pay)
        else:
            _terminal_values(T, n, reach_o, out, out, 1, pay)
        return
    k = n.count
    n_ents = n.n_ents
    ent_hand = T.ent_hand + n.ents
    cols = T.col_ent + n.ents
    col_at = T.child_col + n.first
    kids = T.child_node + n.first
    sigma = scratch
    values = scratch + n_ents
    _strategies(R, n, sigma)
    if p != b:
        sub = R.reach[p] + (depth + 1) * T.n_hands[p]
        for c in range(k):
            x1 = col_at[c + 1] if c + 1 < k else n_ents
            for x0 in range(col_at[c], x1):
                e = cols[x0]
                h = ent_hand[e]
                sub[h] = reach_o[h] * sigma[e]
            _eval(R, kids[c], depth + 1, sub, out, b, values, NULL, pay, best)
        return
    child_out = R.out + (depth + 1) * R.width
    for c in range(k):
        x1 = col_at[c + 1] if c + 1 < k else n_ents
        if root_values != NULL:
            for i in range(T.n_hands[b]):
                child_out[i] = 0.0
        else:
            for x0 in range(col_at[c], x1):
                child_out[ent_hand[cols[x0]]] = 0.0
        _eval(R, kids[c], depth + 1, reach_o, child_out, b, values + n_ents, NULL, pay, best)
        for x0 in range(col_at[c], x1):
            e = cols[x0]
            values[e] = child_out[ent_hand[e]]
        if root_values != NULL:
            memcpy(root_values + c * T.n_hands[b], child_out, T.n_hands[b] * sizeof(double))
    for j in range(n.n_rows):
        a = T.row_ent[n.rows + j]
        m = T.row_n[n.rows + j]
        if best:
            v = -INFINITY
            for e in range(a, a + m):
                if values[e] > v:
                    v = values[e]
        else:
            v = 0.0
            for e in range(a, a + m):
                v += sigma[e] * values[e]
        out[T.row_hand[n.rows + j]] += v


# ---- the Python entry point --------------------------------------------------------------------
cdef int _fill_levels(double* a, int levels, int n) noexcept nogil:
    cdef int64_t i
    for i in range(<int64_t>levels * n):
        a[i] = 0.0
    return 0


cdef class PlayoutTable:
    """The transposition table of depth-limited trees' play-outs (`EndgameSolver`'s
    `horizon`): a state (both hands, ends, turn, passes, scores) and its value, side 0's lead
    at the end of the round, kept across the trees built with it (deeper horizons of the same
    subgame, the subgames after other moves: their leaves reach the same states). One rule
    set and one `greedy_seat` (-1: both sides play perfectly) per table; its size
    (2^`bits` entries of 24 bytes: `nbytes`), a slot's entry replaced by the newest."""
    cdef Seen* seen
    cdef uint64_t mask
    cdef readonly object rules
    cdef readonly int greedy_seat

    def __cinit__(self):
        self.seen = NULL

    def __init__(self, rules=None, int greedy_seat=-1, int bits=SEEN_BITS):
        if self.seen != NULL:
            raise BergenError("a PlayoutTable is made once")
        if not 4 <= bits <= 26:
            raise BergenError("a PlayoutTable's bits: 4 to 26", field="bits")
        self.rules = rules
        self.greedy_seat = greedy_seat
        self.seen = <Seen*>calloc(<size_t>1 << bits, sizeof(Seen))
        if self.seen == NULL:
            raise MemoryError()
        self.mask = (<uint64_t>1 << bits) - 1

    @property
    def nbytes(self):
        return (self.mask + 1) * sizeof(Seen)

    def __dealloc__(self):
        free(self.seen)


cdef class EndgameSolver:
    """The public tree of an endgame over its deals, and DCFR on it (reference.Solver).

    `root`: a `public.Root`; `hands`: (hands of player 0, hands of player 1), masks as
    dealt at the root, each list sorted; `deals`: (hand index of 0, hand index of 1, weight)
    sorted. The build stops with `TooBig` past `max_nodes` nodes,
    `max_pairs` terminal deals or `max_entries` (hand, legal action) entries, or once
    `seconds` (0: no limit) have passed; with KeyboardInterrupt, as at Ctrl-C, once `stop`
    (a callable, looked at every 16,384 nodes and play-out states) returns true.

    `horizon` > 0: depth-limited. A decision that many decisions below the root is a leaf:
    a terminal whose payoff per deal is that deal played out from there with both hands in
    view (alpha-beta, a transposition table `playouts` shared with other trees), by both
    sides perfectly, or with `greedy_seat` playing a fixed policy (the best over the leaf's
    deals of the first `policies` of `floor_index`'s; perfectly in a deal alone at the leaf
    with its hand); its gain is side 0's points to the horizon only. Past `max_steps`
    play-out states (0: no limit) the build is too big. The oracle is `reference.build`'s
    `horizon`."""
    cdef Tree T
    cdef Run R
    cdef CoreRules rules_owner
    cdef readonly long long iterations
    cdef readonly double alpha, beta, gamma
    #: Depth-limited (`horizon` > 0, decisions from the root): the states its leaves' play-outs
    #: visited. A leaf's payoff per deal is that deal played out with both hands seen: by both
    #: sides perfectly, or with `greedy_seat` playing a fixed policy (`_playout`).
    cdef readonly long long playout_steps
    cdef readonly int horizon
    cdef readonly long long n_leaves    # its terminals at the horizon (0: the tree is whole)
    cdef object playouts                # the PlayoutTable its leaves used
    cdef bint begun                 # __init__ was called: it never runs twice
    cdef bint ready                 # built: __init__ ran to its end

    def __cinit__(self):
        memset(&self.T, 0, sizeof(Tree))
        memset(&self.R, 0, sizeof(Run))
        self.begun = False
        self.ready = False

    cdef int _ready(self) except -1:
        if not self.ready:
            raise BergenError("this EndgameSolver was not built (use EndgameSolver(rules, "
                              "root, hands, deals))")
        return 0

    def __init__(self, rules, root, hands, deals, *, long long max_nodes=2_000_000,
                 long long max_pairs=20_000_000, long long max_entries=20_000_000,
                 double alpha=1.5, double beta=0.0, double gamma=6.0, double seconds=0.0,
                 int horizon=0, int greedy_seat=-1, long long max_steps=0, playouts=None,
                 int policies=1, stop=None):
        cdef Builder B
        cdef State s
        cdef int p, i, levels
        cdef int64_t n_deals = len(deals), k, rc
        cdef int32_t* dh0 = NULL
        cdef int32_t* dh1 = NULL
        cdef double* dw = NULL
        cdef uint32_t played[2]
        # Built once: a second call would leak the first tree and build on top of it (and
        # free what a caller holding the first may still read).
        if self.begun:
            raise BergenError("an EndgameSolver is built once")
        self.begun = True
        self.rules_owner = CoreRules(rules)
        if rules.players != 2 or rules.n_sides != 2:
            raise BergenError("the exact endgame is a game of two players")
        if n_deals == 0:
            raise BergenError("the endgame has no deal")
        # The root's fields index C tables (TILES_WITH, the seats' arrays), and a reserve
        # that could still be drawn from would let passes go on without end (the tree has no
        # draws): checked here.
        for v in (root.left, root.right):
            _checked_int(v, 0, 6, "root")
        _checked_int(root.to_move, 0, 1, "root")
        _checked_int(root.passes, 0, 255, "root")
        _checked_int(root.reserve_size, 0, rules.reserve_kept, "root")
        if len(root.scores) != 2:
            raise BergenError("expected 2 scores", field="root")
        for v in root.scores:
            _checked_int(v, -1_000_000, 1_000_000, "root")
        if len(hands) != 2:
            raise BergenError("expected the hands of 2 players", field="hands")
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        memset(&B, 0, sizeof(Builder))
        _halt(&B.halt, stop)
        B.T = &self.T
        for p in range(2):
            listed = list(hands[p])
            self.T.n_hands[p] = len(listed)
            self.T.hands[p] = <uint32_t*>malloc(max(len(listed), 1) * sizeof(uint32_t))
            if self.T.hands[p] == NULL:
                raise MemoryError()
            for i, h in enumerate(listed):
                self.T.hands[p][i] = _checked_int(h, 0, ALL_TILES, "hands")
        dh0 = <int32_t*>malloc(n_deals * sizeof(int32_t))
        dh1 = <int32_t*>malloc(n_deals * sizeof(int32_t))
        dw = <double*>malloc(n_deals * sizeof(double))
        B.stamp[0] = <int32_t*>malloc(max(self.T.n_hands[0], 1) * sizeof(int32_t))
        B.stamp[1] = <int32_t*>malloc(max(self.T.n_hands[1], 1) * sizeof(int32_t))
        try:
            if (dh0 == NULL or dh1 == NULL or dw == NULL or B.stamp[0] == NULL
                    or B.stamp[1] == NULL):
                raise MemoryError()
            for k, (i0, i1, w) in enumerate(deals):
                if k >= n_deals:
                    raise BergenError("the deals changed while they were read", field="deals")
                if not (0 <= i0 < self.T.n_hands[0] and 0 <= i1 < self.T.n_hands[1]):
                    raise BergenError("a deal names a hand that is not listed")
                dh0[k] = i0
                dh1[k] = i1
                dw[k] = w
                if not 0 <= dw[k] < INFINITY:
                    raise BergenError("a deal's weight must be a finite number >= 0",
                                      field="deals")
            for p in range(2):
                for i in range(self.T.n_hands[p]):
                    B.stamp[p][i] = 0
            B.deal_h[0] = dh0
            B.deal_h[1] = dh1
            B.deal_w = dw
            B.root_scores[0] = root.scores[0]
            B.root_scores[1] = root.scores[1]
            B.max_nodes = max_nodes
            B.max_pairs = max_pairs
            B.max_ents = max_entries
            B.deadline = _now() + seconds if seconds > 0 else 0.0
            if horizon < 0 or greedy_seat not in (-1, 0, 1) or max_steps < 0:
                raise BergenError("horizon >= 0, greedy_seat -1, 0 or 1, max_steps >= 0",
                                  field="horizon")
            if not 1 <= policies <= 3:
                raise BergenError("policies: 1 to 3", field="policies")
            B.horizon = horizon
            B.greedy_seat = greedy_seat
            B.policies = policies if greedy_seat >= 0 else 1
            B.max_steps = max_steps
            if horizon > 0:
                if playouts is None:
                    playouts = PlayoutTable(rules, greedy_seat)
                if not isinstance(playouts, PlayoutTable):
                    raise BergenError("playouts: a PlayoutTable", field="playouts")
                if (<PlayoutTable>playouts).greedy_seat != greedy_seat or (
                        (<PlayoutTable>playouts).rules is not rules):
                    raise BergenError("a PlayoutTable serves one rule set and one greedy_seat",
                                      field="playouts")
                B.seen = (<PlayoutTable>playouts).seen
                B.seen_mask = (<PlayoutTable>playouts).mask
                self.playouts = playouts
            if _grow(<void**>&B.stack, &B.stack_cap, n_deals, sizeof(int32_t)) < 0:
                raise MemoryError()
            for k in range(n_deals):
                B.stack[k] = k
            _root_state(&s, &self.rules_owner.c, root)
            s.hands[0] = self.T.hands[0][dh0[0]]
            s.hands[1] = self.T.hands[1][dh1[0]]
            played[0] = 0
            played[1] = 0
            with nogil:
                rc = _build(&B, &s, 0, n_deals, played, 0, 0)
            self.playout_steps = B.playout_steps
            self.n_leaves = B.leaves
            self.horizon = horizon
            if rc == STOPPED:
                _raise_stopped(&B.halt)
            if rc == TOO_BIG:
                raise TooBig(f"the endgame's tree is too big (over {max_nodes:,} nodes, "
                                  f"or {seconds:g} s to build, "
                                  f"{max_pairs:,} terminal deals or {max_entries:,} "
                                  f"hand-action entries"
                                  + (f", {max_steps:,} play-out steps" if max_steps else "")
                                  + ")")
            if rc < 0:
                raise MemoryError()
        finally:
            free(dh0)
            free(dh1)
            free(dw)
            free(B.stack)
            free(B.values)
            free(B.stamp[0])
            free(B.stamp[1])
        # The solver's arrays.
        self.T.regret = <double*>malloc(max(self.T.n_ent, 1) * sizeof(double))
        self.T.strat = <double*>malloc(max(self.T.n_ent, 1) * sizeof(double))
        levels = self.T.max_depth + 3
        self.R.T = &self.T
        self.R.width = max(self.T.n_hands[0], self.T.n_hands[1])
        self.R.reach[0] = <double*>malloc(levels * max(self.T.n_hands[0], 1) * sizeof(double))
        self.R.reach[1] = <double*>malloc(levels * max(self.T.n_hands[1], 1) * sizeof(double))
        self.R.out = <double*>malloc(levels * self.R.width * sizeof(double))
        self.R.scratch = <double*>malloc((self.T.max_scratch + 64) * sizeof(double))
        if (self.T.regret == NULL or self.T.strat == NULL or self.R.reach[0] == NULL
                or self.R.reach[1] == NULL or self.R.out == NULL or self.R.scratch == NULL):
            raise MemoryError()
        for k in range(self.T.n_ent):
            self.T.regret[k] = 0.0
            self.T.strat[k] = 0.0
        _fill_levels(self.R.reach[0], levels, self.T.n_hands[0])
        _fill_levels(self.R.reach[1], levels, self.T.n_hands[1])
        _fill_levels(self.R.out, levels, self.R.width)
        self.iterations = 0
        self.ready = True

    def __dealloc__(self):
        _free_tree(&self.T)
        free(self.R.reach[0])
        free(self.R.reach[1])
        free(self.R.out)
        free(self.R.scratch)

    # ---- sizes ----------------------------------------------------------------------------
    @property
    def n_nodes(self):
        return self.T.n_nodes

    @property
    def n_pairs(self):
        """Deals summed over the terminals."""
        return self.T.n_pair

    @property
    def n_entries(self):
        """(hand, legal action) entries, summed over the decision nodes."""
        return self.T.n_ent

    @property
    def n_hands(self):
        return (self.T.n_hands[0], self.T.n_hands[1])

    @property
    def work(self):
        """Slots and terminal deals: what one traversal touches (an iteration is two)."""
        return self.T.n_ent + self.T.n_pair

    @property
    def max_depth(self):
        return self.T.max_depth

    @property
    def root_moves(self):
        """The root's public actions (`endgame.solvers.Solver`)."""
        return self.node(0)[1]

    @property
    def root_rows(self):
        """The root's rows: the seat's possible hands, by index."""
        return self.node(0)[3]

    # ---- DCFR -----------------------------------------------------------------------------
    cdef void _root_reach(self) noexcept nogil:
        cdef int i
        for i in range(self.T.n_hands[0]):
            self.R.reach[0][i] = 1.0
        for i in range(self.T.n_hands[1]):
            self.R.reach[1][i] = 1.0

    def run(self, iterations, seconds=0.0):
        """Up to `iterations` more DCFR iterations (an integer; 0: no limit), stopping once
        `seconds` (if > 0; at most MAX_SECONDS) have passed; returns how many were done."""
        cdef long long done = 0, t, limit
        cdef double s, pa, nb, end, secs
        cdef int u, i
        self._ready()
        # Checked as Python objects: C's conversion would read 0.5 or False as 0 (no limit),
        # and NaN or an infinite time would never end a run that has no iteration limit.
        if type(iterations) is not int or not 0 <= iterations < 2 ** 63:
            raise BergenError(f"iterations must be an integer >= 0 (0: no limit), got "
                              f"{iterations!r}", field="iterations")
        if (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                or not 0 <= seconds <= MAX_SECONDS):
            raise BergenError(f"seconds must be a number 0..{MAX_SECONDS:g} (0: no limit), got "
                              f"{seconds!r}", field="seconds")
        limit = iterations
        secs = seconds
        if limit <= 0 and secs <= 0:
            return 0
        end = _now() + secs if secs > 0 else 0.0
        with nogil:
            while limit <= 0 or done < limit:
                t = self.iterations + 1
                if t > 1:
                    s = t - 1.0
                    pa = pow(s, self.alpha)
                    nb = pow(s, self.beta)
                    self.R.pos = pa / (pa + 1.0)
                    self.R.neg = nb / (nb + 1.0)
                else:
                    self.R.pos = 1.0
                    self.R.neg = 1.0
                self.R.weight = pow(<double>t, self.gamma)
                self.R.avg = 0
                for u in range(2):
                    self._root_reach()
                    for i in range(self.R.width):
                        self.R.out[i] = 0.0
                    _cfr(&self.R, 0, 0, self.R.reach[0], self.R.reach[1], self.R.out, u,
                         self.R.scratch)
                self.iterations = t
                done += 1
                if end > 0 and _now() >= end:
                    break
        return done

    # ---- the average strategy ---------------------------------------------------------------
    def best_response(self, int b):
        """(player b's best-response values of its hands at the root against the other's
        average strategy, {root action: values of b's hands after it} when b acts at the
        root, else {}): counterfactual values, weighted by the chance weights (reference)."""
        return self._evaluate(b, True, False)

    def values(self, int b, bint gains=False):
        """As `best_response`, b playing its own average strategy; with `gains`, the payoff
        is side 0's points gained instead of its margin."""
        return self._evaluate(b, False, gains)

    def _evaluate(self, int b, bint best, bint gains):
        cdef int n, k, i, c
        cdef bint at_root
        cdef double* root_values = NULL
        cdef double* reach_o
        cdef const double* pay = self.T.pair_wg if gains else self.T.pair_wx
        self._ready()
        if b not in (0, 1):
            raise ValueError("b must be 0 or 1")
        k = self.T.nodes[0].count
        n = self.T.n_hands[b]
        at_root = self.T.nodes[0].player == b
        if at_root:
            root_values = <double*>malloc(max(k * n, 1) * sizeof(double))
            if root_values == NULL:
                raise MemoryError()
        try:
            self.R.avg = 1
            self._root_reach()
            reach_o = self.R.reach[1 - b]
            for i in range(self.R.width):
                self.R.out[i] = 0.0
            with nogil:
                _eval(&self.R, 0, 0, reach_o, self.R.out, b, self.R.scratch, root_values, pay,
                      best)
            values = [self.R.out[i] for i in range(n)]
            per = {}
            if at_root:
                for c in range(k):
                    per[self.T.child_move[self.T.nodes[0].first + c]] = [
                        root_values[c * n + i] for i in range(n)]
            return values, per
        finally:
            free(root_values)

    def average(self, long long nid):
        """The average strategy at node `nid`, per row, dense over the node's actions
        (reference.Solver.average)."""
        cdef const Node* n
        cdef double* sigma
        cdef int j, e
        self._ready()
        if not 0 <= nid < self.T.n_nodes or self.T.nodes[nid].player < 0:
            raise ValueError("not a decision node")
        n = &self.T.nodes[nid]
        sigma = <double*>malloc(max(n.n_ents, 1) * sizeof(double))
        if sigma == NULL:
            raise MemoryError()
        try:
            self.R.avg = 1
            _strategies(&self.R, n, sigma)
            out = []
            for j in range(n.n_rows):
                row = [0.0] * n.count
                a = self.T.row_ent[n.rows + j]
                for e in range(a, a + self.T.row_n[n.rows + j]):
                    row[self.T.ent_action[n.ents + e]] = sigma[e]
                out.append(row)
            return out
        finally:
            free(sigma)

    def node(self, long long nid):
        """Node `nid` as the reference holds it: (player, moves, children, rows, legal,
        pairs)."""
        cdef const Node* n
        cdef int64_t j
        cdef int c, e
        self._ready()
        if not 0 <= nid < self.T.n_nodes:
            raise ValueError("no such node")
        n = &self.T.nodes[nid]
        if n.player < 0:
            return (-1, [], [], [], [], [(self.T.pair_h0[n.first + j], self.T.pair_h1[n.first + j],
                                          self.T.pair_wx[n.first + j], self.T.pair_wg[n.first + j])
                                         for j in range(n.count)])
        rows = [self.T.row_hand[n.rows + j] for j in range(n.n_rows)]
        legal = []
        for j in range(n.n_rows):
            row = [False] * n.count
            a = self.T.row_ent[n.rows + j]
            for e in range(a, a + self.T.row_n[n.rows + j]):
                row[self.T.ent_action[n.ents + e]] = True
            legal.append(row)
        return (n.player, [self.T.child_move[n.first + c] for c in range(n.count)],
                [self.T.child_node[n.first + c] for c in range(n.count)], rows, legal, [])
