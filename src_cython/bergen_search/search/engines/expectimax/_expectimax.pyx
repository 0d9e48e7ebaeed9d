# cython: language_level=3
"""Determinized expectimax in C: Perfect Information Monte Carlo over sampled worlds.

PIMC (Long, Sturtevant, Buro & Furtak 2010, "Understanding the Success of Perfect Information
Monte Carlo Sampling in Game Tree Search") values each move of the seat to move by sampling
worlds consistent with what the seat saw (`_sampler.sample_world`: uniform over the histories)
and searching each world with every hand in view. Here each world is searched by expectimax:

- a decision is taken by the player to move for its own side. With two sides (two players, or
  partnerships) the search is a minimax on side 0's value with alpha-beta pruning at decision
  nodes; with three or more sides it is max-n on a vector of per-side values (no pruning);
- a draw is a chance node over the tiles left in the reserve, each with probability
  1 / reserve size (a tile is moved to `reserve[reserve_next]` in a copy, then `DRAW` is
  played). Chance nodes average their children, each searched with a full window. Under
  `draw: until-playable` the tiles that do not fit, drawn in one turn, are enumerated in
  ascending order only, each weighted by the orders it stands for (the state after them does
  not depend on the order);
- the depth counts actions (plays, draws, passes) from the root: the root move is the first.
  At the horizon a state is valued by the mean of `playouts` random playouts to the end of the
  round (the reserve's remaining order shuffled first, on the search's own Rng), unless the
  round is small: when the tiles in the hands plus the drawable reserve number at most
  `exact_tiles` the search goes on to the end of the round regardless of depth;
- one world's work (nodes + the horizon playouts' actions) is bounded by `max_work`: past it,
  once a horizon was met, the world is searched by iterative deepening and takes the deepest
  depth that finished (`_solve_world`).

Objectives (values are from a side's point of view): 0 `points`, the side's gain from the root
minus the mean of the other sides' gains (two sides: the points difference); 1 `match`, the
probability that the side wins the match: 1 or 0 when a side reached the target, and at the end
of a round without a winner the match equity of the scores, the share of `equity_playouts`
random matches from fresh deals (`_core.deal`) that each side wins. The equity playouts are
seeded by the scores and the search's seed (`reference.equity_seed`), so the equity is a
fixed function of the scores, memoised, and the same as the reference's.

Ties between moves go to the first in move order (max-n: a later move must be better by more
than 1e-9), as in `bergen_search.search.engines.expectimax.reference`, the pure-Python oracle this
search equals at unlimited depth.

>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.information.infoset import from_position
>>> from bergen_search.information._sampler import CoreSampler
>>> pos = position_from_flags(hand="2-4", hand_sizes="1,1", line="2-2 2-6 6-0 0-1 1-4 4-4 "
...     "4-5 5-3 3-4 4-0 0-2 2-1 1-3 3-0 0-5 5-1 1-6 6-6 6-3 3-3 3-2 2-5 5-6 6-4")
>>> search = ExpectimaxSearch(CoreSampler(from_position(pos)), depth=6, seed=1)
>>> search.run_worlds(10, 0)
10
>>> [(move, worlds, total) for move, worlds, total, _ in search.root_stats()]
[(30, 10, 40.0), (31, 10, 50.0)]
"""
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from bergen_search.game._core cimport (ALL_TILES, DRAW, DRAW_UNTIL_PLAYABLE, END_NONE, GOLDEN,
                                  MAX_MOVES, MAX_SEATS, N_TILES, Rng, Rules, State,
                                  TILES_WITH, apply_move, clock_now, deal, do_move, drawable,
                                  drop_mirror_twins, gen_moves, mirrored_ends,
                                  mix64, PLAY_STREAM, popcount, random_choice, shuffle)
from bergen_search.information._sampler cimport CoreSampler, Sampler, sample_world

from bergen_search.errors import BergenError
from bergen_search.constants import EQUITY_STREAM as _PY_EQUITY_STREAM
from bergen_search.constants import SCORE_BITS as _PY_SCORE_BITS
from bergen_search.constants import objective_code
from bergen_search.information.sampler import check_world

cdef enum:
    OBJ_POINTS = 0
    OBJ_MATCH = 1
    UNLIMITED = 1 << 20        # a depth no round reaches (a round takes at most ~200 actions)
    CHECK_EVERY = 4096         # nodes between two looks at the clock inside a world
    EQUITY_MEMO_MAX = 1 << 16  # score vectors memoised at most (target ** sides)
    DEFAULT_EXACT_TILES = 7

cdef double TIE_EPS = 1e-9
#: The deepest search and the most playouts a leaf or an equity entry takes.
MAX_DEPTH = 1 << 20
MAX_PLAYOUTS = 100_000
#: The work (nodes + horizon playout actions) a world's search at full depth takes at most by
#: default, about 0.02 s of one core (see `ExpectimaxSearch`): above what a round dealt six
#: tiles a hand costs at depth 6 (tens of thousands; half a million at most seen), below what
#: one dealt three often does (most of its turns draw: up to 3 million).
DEFAULT_MAX_WORK = 1_000_000
MAX_WORK = 1 << 62
#: The longest a call may be told to run, in seconds (a day).
from bergen_search.constants import MAX_SECONDS

cdef extern from "Python.h":
    # Runs the Python signal handlers (main thread only): -1 with their exception pending
    # (KeyboardInterrupt for Ctrl-C). Declared noexcept: the caller unwinds, then re-raises.
    int PyErr_CheckSignals() noexcept


cdef int _raise_pending() except -1:
    """Return to Python with the exception a signal handler left pending."""
    return -1


cdef double _seconds(object seconds) except -1:
    """A time limit in seconds, 0..MAX_SECONDS (0: none), else BergenError."""
    if (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
            or not 0 <= seconds <= MAX_SECONDS):
        raise BergenError(f"seconds must be a number 0..{MAX_SECONDS:g} (0: no limit), got "
                          f"{seconds!r}", field="seconds")
    return seconds


cdef long long _count(object value, long long low, long long high, str what) except? -1:
    if type(value) is not int or not low <= value <= high:
        raise BergenError(f"{what} must be an integer {low}..{high}, got {value!r}", field=what)
    return value
cdef uint64_t EQUITY_STREAM = _PY_EQUITY_STREAM
cdef int SCORE_BITS = _PY_SCORE_BITS


ctypedef struct Search:
    const Rules* rules      # the rule set (owned by the sampler)
    int n_sides             # sides that score
    int objective           # OBJ_POINTS or OBJ_MATCH
    int depth               # actions searched from the root before the horizon
    int playouts            # random playouts per horizon leaf
    int equity_playouts     # random matches per match-equity entry
    int exact_tiles         # hand tiles + drawable reserve at or below which depth is ignored
    bint prune              # alpha-beta at decision nodes (two sides)
    int root_side           # the side of the seat to move at the root
    int32_t root_scores[4]  # the scores at the root (gains are measured from them)
    Rng rng                 # the horizon playouts' stream
    uint64_t seed           # the search's seed, for the equity playouts
    double* equity          # memo: n_sides values per score vector, < 0 unknown; NULL: none
    long long nodes         # nodes searched (playout actions not counted)
    long long steps         # the horizon playouts' actions
    long long max_work      # nodes + steps a world's search at full depth may take; 0: no limit
    long long cap_at        # nodes + steps at which the search in progress is cut; 0: never
    long long cap_horizons  # ... once `horizons` has passed this (an exact solve is never cut)
    bint capped             # the search in progress was cut at cap_at
    long long cut           # worlds valued at a shallower depth than `depth` (max_work)
    long long horizons      # leaves valued by playouts at the horizon (0: the values are exact)
    long long check_at      # node count of the next look at the clock
    double deadline         # CLOCK_MONOTONIC seconds after which a world is abandoned; 0 none
    bint aborted            # the deadline passed, or a stop came, inside a world
    bint interrupted        # a Python signal handler raised (Ctrl-C): its exception is pending
    void* stop              # a Python callable, true to stop (borrowed from the object); NULL


cdef inline double _now() noexcept nogil:
    return clock_now()     # _core's: CLOCK_MONOTONIC, or the tests' virtual clock


cdef inline bint _tick(Search* S) noexcept nogil:
    """Count a node; true once the world is to be abandoned: the deadline has passed, Ctrl-C
    was pressed or the stop callable said so (looked at every CHECK_EVERY nodes), or the search
    is cut: its work (nodes + playout actions) reached `cap_at` and it met a horizon."""
    S.nodes += 1
    if S.nodes >= S.check_at:
        S.check_at = S.nodes + CHECK_EVERY
        if S.deadline > 0 and _now() >= S.deadline:
            S.aborted = True
        _poll(S)
    if S.cap_at > 0 and S.nodes + S.steps >= S.cap_at and S.horizons > S.cap_horizons:
        S.capped = True
        S.aborted = True
    return S.aborted


cdef inline bint _watch(Search* S, int k) noexcept nogil:
    """Inside a long loop of playouts (at the k-th): every 64th, the deadline, Ctrl-C and the
    stop as `_tick` looks at them, without counting a node. True once abandoned."""
    if (k & 63) == 63 and not S.aborted:
        if S.deadline > 0 and _now() >= S.deadline:
            S.aborted = True
        _poll(S)
    return S.aborted


cdef void _poll(Search* S) noexcept nogil:
    """Hear Ctrl-C (the Python signal handlers, which run in the main thread only) and the
    stop callable: either abandons the world."""
    if S.interrupted:
        return
    with gil:
        if PyErr_CheckSignals() != 0:
            S.interrupted = True      # the handler's exception stays pending until we return
            S.aborted = True
        elif S.stop != NULL:
            try:
                if (<object>S.stop)():
                    S.aborted = True
            except BaseException:
                S.aborted = True


cdef inline int _remaining(const State* s) noexcept nogil:
    """Tiles still in play: in the hands, plus those of the reserve that may be drawn."""
    cdef int i, n = 0
    for i in range(s.rules.players):
        n += popcount(s.hands[i])
    return n + drawable(s)


# ---- leaves ---------------------------------------------------------------------------------
cdef void _equity(Search* S, const int32_t* scores, double* out) noexcept nogil:
    """Per side, the share of random matches from `scores` it wins (reference.match_equity)."""
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
        if _watch(S, p):
            break
        for i in range(MAX_SEATS):
            sc[i] = scores[i] if i < n else 0
        while True:
            deal(&st, S.rules, &rng, sc)
            while st.ended == END_NONE:
                k = gen_moves(&st, moves)
                do_move(&st, moves[0] if k == 1 else random_choice(moves, k, &rng))
            if st.winner >= 0:
                wins[st.winner] += 1
                break
            for i in range(MAX_SEATS):
                sc[i] = st.scores[i]
    for i in range(n):
        out[i] = <double>wins[i] / S.equity_playouts
        if memo != NULL and not S.aborted:     # an abandoned entry is not kept
            memo[i] = out[i]


cdef void _terminal_vec(Search* S, const State* s, double* out) noexcept nogil:
    """Per-side values of a finished round."""
    cdef int i
    if S.objective == OBJ_POINTS:
        for i in range(S.n_sides):
            out[i] = s.scores[i] - S.root_scores[i]
    elif s.winner >= 0:
        for i in range(S.n_sides):
            out[i] = 1.0 if i == s.winner else 0.0
    else:
        _equity(S, s.scores, out)


cdef inline double _terminal_x(Search* S, const State* s) noexcept nogil:
    """Side 0's value of a finished round, two sides."""
    cdef double vec[MAX_SEATS]
    if S.objective == OBJ_POINTS:
        return (s.scores[0] - S.root_scores[0]) - (s.scores[1] - S.root_scores[1])
    if s.winner >= 0:
        return 1.0 if s.winner == 0 else 0.0
    _equity(S, s.scores, vec)
    return vec[0]


cdef void _playout(Search* S, const State* s, State* out) noexcept nogil:
    """`out`: `s` played to the end of the round by random moves, the reserve shuffled first."""
    cdef int moves[MAX_MOVES]
    cdef int k
    memcpy(out, s, sizeof(State))
    shuffle(&S.rng, out.reserve + out.reserve_next, out.reserve_size)
    while out.ended == END_NONE:
        k = gen_moves(out, moves)
        do_move(out, moves[0] if k == 1 else random_choice(moves, k, &S.rng))
        S.steps += 1


cdef double _horizon_x(Search* S, const State* s) noexcept nogil:
    cdef State end
    cdef double total = 0
    cdef int p
    S.horizons += 1
    for p in range(S.playouts):
        if _watch(S, p):
            break
        _playout(S, s, &end)
        total += _terminal_x(S, &end)
    return total / S.playouts


cdef void _horizon_vec(Search* S, const State* s, double* out) noexcept nogil:
    cdef State end
    cdef double vec[MAX_SEATS]
    cdef int p, i
    S.horizons += 1
    for i in range(S.n_sides):
        out[i] = 0
    for p in range(S.playouts):
        if _watch(S, p):
            break
        _playout(S, s, &end)
        _terminal_vec(S, &end, vec)
        for i in range(S.n_sides):
            out[i] += vec[i]
    for i in range(S.n_sides):
        out[i] /= S.playouts


cdef inline double _utility(const Search* S, const double* vec, int side) noexcept nogil:
    """The value to `side` of per-side values: its own (match), or its own minus the others'
    mean (points)."""
    cdef double others = 0
    cdef int i
    if S.objective == OBJ_MATCH:
        return vec[side]
    for i in range(S.n_sides):
        if i != side:
            others += vec[i]
    return vec[side] - others / (S.n_sides - 1)


# ---- chance: the draws ----------------------------------------------------------------------
cdef inline int _draw_child(const State* s, int k, int prev, int count, State* child,
                            double* weight) noexcept nogil:
    """Draw the k-th tile of the reserve into `child`. Returns the tile when it does not fit
    (and under until-playable the drawer may draw again), -2 when the branch is skipped as an
    order already counted, -1 otherwise. `weight` gets the branch's probability."""
    cdef int base = s.reserve_next
    cdef int t = s.reserve[base + k]
    cdef uint32_t fits = TILES_WITH[s.left] | TILES_WITH[s.right]
    cdef bint again = not (fits >> t & 1) and s.rules.draw == DRAW_UNTIL_PLAYABLE
    if again and t < prev:
        return -2
    memcpy(child, s, sizeof(State))
    child.reserve[base] = t
    child.reserve[base + k] = s.reserve[base]
    do_move(child, DRAW)
    # Non-fitting tiles of one turn come in ascending order only: count + 1 orders each.
    weight[0] = (count + 1.0 if again else 1.0) / s.reserve_size
    return t if again else -1


cdef double _chance_x(Search* S, const State* s, int depth, int prev, int count) noexcept nogil:
    """Side 0's value of a draw by the seat to move; `prev` the last non-fitting tile it drew
    in this turn within the search (-1 none), `count` how many."""
    cdef State child
    cdef double total = 0, w
    cdef int k, t
    for k in range(s.reserve_size):
        t = _draw_child(s, k, prev, count, &child, &w)
        if t == -2:
            continue
        if t >= 0:
            total += w * _node_x(S, &child, depth - 1, -INFINITY, INFINITY, t, count + 1)
        else:
            total += w * _node_x(S, &child, depth - 1, -INFINITY, INFINITY, -1, 0)
    return total


cdef void _chance_vec(Search* S, const State* s, int depth, int prev, int count,
                      double* out) noexcept nogil:
    cdef State child
    cdef double vec[MAX_SEATS]
    cdef double w
    cdef int k, t, i
    for i in range(S.n_sides):
        out[i] = 0
    for k in range(s.reserve_size):
        t = _draw_child(s, k, prev, count, &child, &w)
        if t == -2:
            continue
        if t >= 0:
            _node_vec(S, &child, depth - 1, t, count + 1, vec)
        else:
            _node_vec(S, &child, depth - 1, -1, 0, vec)
        for i in range(S.n_sides):
            out[i] += w * vec[i]


# ---- decisions ------------------------------------------------------------------------------
cdef double _node_x(Search* S, const State* s, int depth, double alpha, double beta,
                    int prev, int count) noexcept nogil:
    """Side 0's value of `s` (two sides), fail-soft alpha-beta within (alpha, beta). `prev`,
    `count`: the draws of the turn in progress (see _chance_x)."""
    cdef int moves[MAX_MOVES]
    cdef int n, i
    cdef State child
    cdef double v, best
    if _tick(S):
        return 0
    if s.ended != END_NONE:
        return _terminal_x(S, s)
    if depth <= 0:
        if _remaining(s) > S.exact_tiles:
            return _horizon_x(S, s)
        depth = UNLIMITED
    n = gen_moves(s, moves)
    if moves[0] == DRAW:
        return _chance_x(S, s, depth, prev, count)
    n = drop_mirror_twins(s.left, s.right, s.left_double, s.right_double, moves, n)
    if n == 1:
        apply_move(s, moves[0], &child)
        return _node_x(S, &child, depth - 1, alpha, beta, -1, 0)
    if S.rules.side_of[s.to_move] == 0:
        best = -INFINITY
        for i in range(n):
            apply_move(s, moves[i], &child)
            v = _node_x(S, &child, depth - 1, alpha, beta, -1, 0)
            if v > best:
                best = v
                if S.prune:
                    if best > alpha:
                        alpha = best
                    if alpha >= beta:
                        break
    else:
        best = INFINITY
        for i in range(n):
            apply_move(s, moves[i], &child)
            v = _node_x(S, &child, depth - 1, alpha, beta, -1, 0)
            if v < best:
                best = v
                if S.prune:
                    if best < beta:
                        beta = best
                    if alpha >= beta:
                        break
    return best


cdef void _node_vec(Search* S, const State* s, int depth, int prev, int count,
                    double* out) noexcept nogil:
    """Per-side values of `s` by max-n: the mover takes the first move best for its side."""
    cdef int moves[MAX_MOVES]
    cdef int n, i, j, side
    cdef State child
    cdef double vec[MAX_SEATS]
    cdef double u, best = -INFINITY
    if _tick(S):
        for i in range(S.n_sides):
            out[i] = 0
        return
    if s.ended != END_NONE:
        _terminal_vec(S, s, out)
        return
    if depth <= 0:
        if _remaining(s) > S.exact_tiles:
            _horizon_vec(S, s, out)
            return
        depth = UNLIMITED
    n = gen_moves(s, moves)
    if moves[0] == DRAW:
        _chance_vec(S, s, depth, prev, count, out)
        return
    n = drop_mirror_twins(s.left, s.right, s.left_double, s.right_double, moves, n)
    if n == 1:
        apply_move(s, moves[0], &child)
        _node_vec(S, &child, depth - 1, -1, 0, out)
        return
    side = S.rules.side_of[s.to_move]
    for i in range(n):
        apply_move(s, moves[i], &child)
        _node_vec(S, &child, depth - 1, -1, 0, vec)
        u = _utility(S, vec, side)
        if i == 0 or u > best + TIE_EPS:
            best = u
            for j in range(S.n_sides):
                out[j] = vec[j]


cdef void _search_world(Search* S, const State* root, const int* moves, int n,
                        double* values) noexcept nogil:
    """The value of each root move in one full-information world, from the root side's view.
    A play that mirrors the one before it (`_core.mirrored_ends`) takes its value."""
    cdef State child
    cdef double vec[MAX_SEATS]
    cdef double x
    cdef int i
    cdef bint mirror = mirrored_ends(root.left, root.right, root.left_double, root.right_double)
    S.root_side = S.rules.side_of[root.to_move]
    for i in range(MAX_SEATS):
        S.root_scores[i] = root.scores[i]
    for i in range(n):
        if mirror and i > 0 and moves[i] < DRAW and moves[i] & 1 and moves[i - 1] == moves[i] - 1:
            values[i] = values[i - 1]
            continue
        if S.n_sides == 2:
            if moves[i] == DRAW:
                x = _chance_x(S, root, S.depth, -1, 0)
            else:
                apply_move(root, moves[i], &child)
                x = _node_x(S, &child, S.depth - 1, -INFINITY, INFINITY, -1, 0)
            if S.root_side == 0:
                values[i] = x
            else:
                values[i] = -x if S.objective == OBJ_POINTS else 1.0 - x
        else:
            if moves[i] == DRAW:
                _chance_vec(S, root, S.depth, -1, 0, vec)
            else:
                apply_move(root, moves[i], &child)
                _node_vec(S, &child, S.depth - 1, -1, 0, vec)
            values[i] = _utility(S, vec, S.root_side)


cdef void _solve_world(Search* S, const State* root, const int* moves, int n,
                       double* values) noexcept nogil:
    """`_search_world` within the work budget. A search at full depth whose work (nodes +
    playout actions) passes `max_work` once it has met a horizon (a world being solved exactly
    is never cut) is cut, and the world is searched again by iterative deepening from depth 1,
    within as much work again, and valued at the deepest depth that finished (depth 1 is never
    cut; a depth that met no horizon is the last). Every depth starts from the same playout
    stream, so a world within the budget is valued exactly as without one, and a cut world's
    values depend on the world alone. S.aborted on return: the world abandoned (the clock, a
    stop, Ctrl-C)."""
    cdef double trial[MAX_MOVES]
    cdef Rng start = S.rng, kept = S.rng
    cdef int full = S.depth, d, i
    cdef long long horizons, budget_end
    S.capped = False
    S.cap_horizons = S.horizons
    S.cap_at = S.nodes + S.steps + S.max_work if S.max_work > 0 else 0
    _search_world(S, root, moves, n, values)
    S.cap_at = 0
    if not S.capped or S.interrupted:
        return
    S.capped = False
    S.aborted = False
    budget_end = S.nodes + S.steps + S.max_work
    for d in range(1, (full - 1 if full > 1 else 1) + 1):
        S.depth = d
        S.rng = start
        horizons = S.cap_horizons = S.horizons
        S.cap_at = 0 if d == 1 else budget_end
        _search_world(S, root, moves, n, trial)
        if S.aborted:
            break
        for i in range(n):
            values[i] = trial[i]
        kept = S.rng
        if S.horizons == horizons:
            break
    S.depth = full
    S.cap_at = 0
    if S.capped and not S.interrupted:
        S.aborted = False          # cut again: the depth before it stands
    S.capped = False
    S.rng = kept
    if not S.aborted:
        S.cut += 1


# ---- the Python object ----------------------------------------------------------------------
cdef class ExpectimaxSearch:
    """A seeded determinized expectimax over one information set's worlds.

    `ExpectimaxSearch(sampler, depth, seed, objective=0, playouts=2)`: `sampler` a CoreSampler
    of the information set, `depth` the actions searched before the horizon (>= 1; 1000 is
    unlimited in practice), `objective` 0/'points' or 1/'match', `playouts` random playouts per
    horizon leaf. Keywords: `prune` (alpha-beta with two sides, default True), `exact_tiles`
    (the remaining round, hand tiles plus drawable reserve, at or below which the search
    ignores the depth; default 7), `equity_playouts` (random matches per match-equity entry,
    default `playouts`), `max_work` (the work budget of one world, nodes plus horizon playout
    actions; 0: none; default DEFAULT_MAX_WORK): a world whose search at `depth` passes it
    once a horizon was met is searched again by iterative deepening from depth 1 within as
    much again and valued at the deepest depth that finished (`cut` counts them), so that a
    round where most turns draw (three tiles a hand: each draw a chance node over the whole
    reserve) costs a world tens of milliseconds, not seconds. A world within the budget is
    valued as without one; a world solved exactly (no horizon met) is never cut.

    Worlds are drawn on Rng(seed), the horizon playouts on Rng(seed ^ PLAY_STREAM): for a seed,
    `run_worlds` searches the same worlds whatever the depth, and n worlds give the same
    statistics however the calls split them. The default `exact_tiles` of 7 costs microseconds
    per exact solve; 8 and 9 already slow late-round positions several times over.
    The searches run without the GIL; one object must not be used by two threads at once.
    """
    cdef Search S
    cdef CoreSampler sampler
    cdef Rng world_rng
    cdef int root_moves[MAX_MOVES]
    cdef int n_root
    cdef double value_sum[MAX_MOVES]
    cdef double value_sq[MAX_MOVES]
    cdef long long n_worlds
    cdef bint ready                 # built: __init__ ran to its end
    cdef bint running               # a search is in progress (it releases the GIL)
    cdef object stop_check          # the stop callable (S.stop borrows it), or None

    def __cinit__(self):
        self.S.equity = NULL
        self.S.stop = NULL
        self.ready = False
        self.running = False
        self.stop_check = None

    def __init__(self, sampler, depth, seed, objective=0, playouts=2, *, prune=True,
                 exact_tiles=DEFAULT_EXACT_TILES, equity_playouts=None,
                 max_work=DEFAULT_MAX_WORK):
        cdef const Rules* rules
        cdef long long cells = 1
        cdef int i
        if self.ready:
            raise BergenError("an ExpectimaxSearch is built once")
        if not isinstance(sampler, CoreSampler) or not (<CoreSampler>sampler).ready:
            raise BergenError("ExpectimaxSearch needs a built CoreSampler", field="sampler")
        rules = (<CoreSampler>sampler).c.base.rules
        depth = _count(depth, 1, MAX_DEPTH, "depth")
        playouts = _count(playouts, 1, MAX_PLAYOUTS, "playouts")
        exact_tiles = _count(exact_tiles, 0, N_TILES, "exact_tiles")
        max_work = _count(max_work, 0, MAX_WORK, "max_work")
        if type(seed) is not int:
            raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
        if equity_playouts is None:
            equity_playouts = playouts
        equity_playouts = _count(equity_playouts, 1, MAX_PLAYOUTS, "equity_playouts")
        self.sampler = sampler
        self.S.rules = rules
        self.S.n_sides = rules.n_sides
        self.S.objective = objective_code(objective)
        self.S.depth = depth if depth < UNLIMITED else UNLIMITED
        self.S.playouts = playouts
        self.S.equity_playouts = equity_playouts
        self.S.exact_tiles = exact_tiles
        self.S.prune = bool(prune)
        self.S.seed = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        self.S.rng.state = self.S.seed ^ PLAY_STREAM
        self.S.nodes = 0
        self.S.steps = 0
        self.S.max_work = max_work
        self.S.cap_at = 0
        self.S.cap_horizons = 0
        self.S.capped = False
        self.S.cut = 0
        self.S.horizons = 0
        self.S.deadline = 0
        self.S.aborted = False
        self.S.interrupted = False
        self.world_rng.state = self.S.seed
        self.S.equity = NULL
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
        self.n_root = gen_moves(&self.sampler.c.base, self.root_moves)
        for i in range(self.n_root):
            self.value_sum[i] = 0
            self.value_sq[i] = 0
        self.n_worlds = 0
        self.ready = True

    cdef int _idle(self) except -1:
        if not self.ready:
            raise BergenError("this ExpectimaxSearch was not built (use ExpectimaxSearch("
                              "sampler, depth, seed))")
        if self.running:
            raise RuntimeError("this search is already running in another thread")
        return 0

    @property
    def stop(self):
        """A callable looked at inside every world (every few thousand nodes) and between
        worlds: when it returns true the world in progress is abandoned (as at the deadline)
        and `run_worlds` returns. None: no stop. Ctrl-C is heard the same way (in the main
        thread) and raises KeyboardInterrupt."""
        return self.stop_check

    @stop.setter
    def stop(self, value):
        self._idle()
        if value is not None and not callable(value):
            raise BergenError("stop must be a callable or None", field="stop")
        self.stop_check = value
        self.S.stop = NULL if value is None else <void*>value

    def __dealloc__(self):
        free(self.S.equity)

    @property
    def moves(self):
        """The root moves, in move order (the order of every list of values)."""
        return [self.root_moves[i] for i in range(self.n_root)]

    @property
    def worlds(self):
        """Worlds searched by `run_worlds` so far."""
        return self.n_worlds

    @property
    def horizons(self):
        """Leaves valued by random playouts at the horizon so far: 0 means every value
        searched was exact (the round searched to its end in every world)."""
        return self.S.horizons

    @property
    def cut(self):
        """Worlds valued at a shallower depth than `depth` so far: their search at full depth
        passed `max_work` (the work budget of one world; see the class)."""
        return self.S.cut

    @property
    def work(self):
        """Nodes searched plus the actions of the horizon playouts: what `max_work` bounds."""
        return self.S.nodes + self.S.steps

    @property
    def nodes(self):
        """Nodes searched (decision, chance and leaf nodes; not the playouts' actions)."""
        return self.S.nodes

    def run_world(self, hands, reserve_tiles, seed=None, seconds=0):
        """Values of the root moves (move order, from the side of the seat to move) in one
        world: `hands` a mask per seat (the seat's own included), `reserve_tiles` the
        reserve's contents. Does not touch the statistics of `run_worlds`. The horizon's
        playouts continue one stream from call to call, or with `seed` start this world's own
        (so that a world's values do not depend on the order worlds are solved in). With
        `seconds` > 0 the world is abandoned if it takes longer, and when `stop` says so:
        None, and nothing changes. Ctrl-C abandons it too and raises KeyboardInterrupt."""
        cdef State world
        cdef double values[MAX_MOVES]
        cdef int i, k
        cdef double secs
        self._idle()
        secs = _seconds(seconds)
        if seed is not None and type(seed) is not int:
            raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
        hands, reserve = check_world(self.sampler.info, hands, reserve_tiles)
        memcpy(&world, &self.sampler.c.base, sizeof(State))
        for i in range(self.S.rules.players):
            world.hands[i] = hands[i]
        for k, t in enumerate(sorted(reserve)):
            world.reserve[k] = t
        world.reserve_next = 0
        cdef Rng saved_search = self.S.rng
        cdef long long saved_nodes = self.S.nodes, saved_steps = self.S.steps
        cdef bint aborted, interrupted
        if seed is not None:
            self.S.rng.state = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        self.running = True
        try:
            with nogil:
                self.S.deadline = _now() + secs if secs > 0 else 0
                self.S.aborted = False
                self.S.interrupted = False
                self.S.check_at = self.S.nodes + CHECK_EVERY
                _solve_world(&self.S, &world, self.root_moves, self.n_root, values)
                aborted = self.S.aborted
                interrupted = self.S.interrupted
                self.S.deadline = 0
                self.S.aborted = False
                self.S.interrupted = False
        finally:
            self.running = False
        if aborted:
            self.S.rng = saved_search
            self.S.nodes = saved_nodes
            self.S.steps = saved_steps
            if interrupted:
                _raise_pending()
            return None
        return [values[i] for i in range(self.n_root)]

    def run_worlds(self, n, seconds, *, world_seconds=None):
        """Sample and search worlds until `n` are done (0: no limit) or `seconds` have passed
        (0: no limit), or `stop` says so. Returns the worlds searched by this call. A world
        still running when `seconds` pass is dropped, and the next call starts it afresh.
        A caller that runs in short slices gives its own deadline as `world_seconds` (from the
        call's start; 0: none): the call then starts one world whatever the time, and finishes
        a world still running when `seconds` pass unless `world_seconds` pass too, so that a
        world longer than a slice is not dropped at every slice, for ever. Ctrl-C drops the
        world in progress, keeps those done (`worlds`, `root_stats`) and raises
        KeyboardInterrupt."""
        cdef const Sampler* smp = &self.sampler.c
        cdef State world
        cdef double values[MAX_MOVES]
        cdef Rng saved_world, saved_search
        cdef long long done = 0, saved_nodes, saved_steps, limit
        cdef double deadline = 0, v, secs, wsecs
        cdef int i
        cdef bint interrupted = False, sliced = world_seconds is not None
        self._idle()
        if type(n) is not int or not 0 <= n < 2 ** 63:
            raise BergenError(f"n must be a non-negative integer (0: no limit), got {n!r}",
                              field="n")
        secs = _seconds(seconds)
        wsecs = _seconds(world_seconds) if sliced else secs
        limit = n
        if limit <= 0 and secs <= 0:
            raise BergenError("run_worlds needs a number of worlds or a time limit")
        self.running = True
        try:
            with nogil:
                if secs > 0:
                    deadline = _now() + secs
                self.S.deadline = (_now() + wsecs if wsecs > 0 else 0) if sliced else deadline
                self.S.aborted = False
                self.S.interrupted = False
                self.S.check_at = self.S.nodes + CHECK_EVERY
                while limit <= 0 or done < limit:
                    if deadline > 0 and (done > 0 or not sliced) and _now() >= deadline:
                        break
                    saved_world = self.world_rng
                    saved_search = self.S.rng
                    saved_nodes = self.S.nodes
                    saved_steps = self.S.steps
                    sample_world(smp, &self.world_rng, &world)
                    _solve_world(&self.S, &world, self.root_moves, self.n_root, values)
                    if self.S.aborted:
                        self.world_rng = saved_world
                        self.S.rng = saved_search
                        self.S.nodes = saved_nodes
                        self.S.steps = saved_steps
                        break
                    for i in range(self.n_root):
                        v = values[i]
                        self.value_sum[i] += v
                        self.value_sq[i] += v * v
                    done += 1
                    if self.S.stop != NULL:
                        _poll(&self.S)        # a stop between worlds, too
                        if self.S.aborted:
                            break
                interrupted = self.S.interrupted
                self.S.deadline = 0
                self.S.aborted = False
                self.S.interrupted = False
        finally:
            self.running = False
        self.n_worlds += done
        if interrupted:
            _raise_pending()
        return done

    def root_stats(self):
        """[(move, worlds, sum of values, sum of squared values)] in move order."""
        self._idle()
        return [(self.root_moves[i], self.n_worlds, self.value_sum[i], self.value_sq[i])
                for i in range(self.n_root)]
