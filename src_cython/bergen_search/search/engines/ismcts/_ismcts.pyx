# cython: language_level=3
"""Single-observer ISMCTS in C: one tree over what the searching seat observes.

The algorithm is SO-ISMCTS of Cowling, Powley & Whitehouse 2012 ("Information Set Monte
Carlo Tree Search", IEEE Trans. Comput. Intell. AI Games 4(2), Algorithm 3), laid out like
OpenSpiel's `open_spiel/algorithms/is_mcts.h` (a seeded bot, a node pool, integer keys).
Each iteration:

1. *Determinize*: `sample_world` draws one world (the other hands and a uniformly ordered
   reserve) among those consistent with the observer's information set: uniformly, or in
   proportion to the weights of inference when the sampler carries them (`inference.py`).
2. *Select*: descend the tree, playing the world forward. An edge is keyed by what the
   observer sees (`_ismcts.pxd`): a play by its move int, another seat's draw by `DRAW`, the
   observer's own draw by `OWN_DRAW + tile`, a pass by `PASS`. A forced step (one legal
   action) follows, or creates, the child with its key. At a decision (several legal plays
   in this world) every child whose play is legal here gets its availability counted (with
   `merge_twins`, a play that mirrors another, `_core.drop_mirror_twins`, is not a separate
   choice: the two lead to the same position up to the mirror); if a
   legal play has no child yet, one of those is expanded (chosen with the tree's RNG) and
   selection stops; otherwise the child maximising UCB1 with availability counts,
   `mean * value_scale + exploration * sqrt(ln(avail) / chosen)`, is taken, its mean (over
   its `chosen` iterations) taken from the side of the seat to move; a child never chosen yet
   (only ever forced) goes first.
3. *Play out* with the playout policy (`_core.pyx`: "random", "scoring" or "safe", which
   takes the match on offer and hands the next seat none) to the end of the round (objective
   "points") or of the
   match (objective "match": after a round without a winner, fresh deals from the core's
   `deal`, played out the same way, until a side reaches the target).
4. *Backpropagate*: each node on the path adds the reward of the side that took its edge.

Rewards: "points" gives side s the points it gains from the root to the end of the round
minus the mean gain of the other sides (for two sides, the points difference); "match" gives
1 to the side that wins the match, 0 to the others. The statistics keep rewards as they are;
UCB1 multiplies means by `value_scale` (1 for "match", 1 / POINTS_SCALE for "points") so that
the same exploration constant suits both objectives.

Everything random comes from one SplitMix64 stream seeded by the caller, and the clock only
decides when to stop between iterations: the same seed and the same total number of
iterations give the same tree, however `run` is sliced.

>>> from bergen_search.information.infoset import from_position
>>> from bergen_search.formats.notation import format_move
>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.information._sampler import CoreSampler
>>> pos = position_from_flags(hand="3-5 1-6", line="3-3 3-2 2-2 2-4 4-5", hand_sizes="2,5",
...                           rules={"hand_size": 3})    # hands of 3: seat 0 played 2, drew 1
>>> tree = IsmctsTree(CoreSampler(from_position(pos)), seed=1)
>>> tree.run(5000, 0)
5000
>>> move, visits, reward_sum, _ = max(tree.root_stats(), key=lambda row: row[1])
>>> format_move(move)   # 3-5 on the right end: a triple next to 3-3, not a double match
'3-5:R'
"""
cimport cython
from libc.math cimport log, sqrt
from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

from bergen_search.game._core cimport (DRAW, END_NONE, GOLDEN, MAX_MOVES, MAX_SEATS, PASS, Rng,
                                  Rules, State, atomic_add, below, clock_now, do_move, ctz64,
                                  drop_mirror_twins, gen_moves, mirrored_ends, mix64,
                                  popcount64, right_twin)
from bergen_search.information._sampler cimport CoreSampler, Sampler, sample_world
from bergen_search.search._playouts cimport outcome, play_out, reward as playout_reward

from bergen_search.errors import BergenError
from bergen_search.game._core import PLAYOUTS
from bergen_search.game.rng import MASK64

#: Points rewards are divided by this inside UCB1 (`constants.POINTS_SCALE`). From the first
#: decision of a 2-player round the points difference has a standard deviation of about 3.3
#: under random play; in self-play (2000 iterations, points), exploration 0.35, 1.0 and 1.4
#: were no better than 0.7 on this scale.
from bergen_search.constants import POINTS_SCALE
cdef double _POINTS_SCALE = POINTS_SCALE
#: The first pool allocation (nodes); it doubles when full.
cdef int32_t _INITIAL_CAPACITY = 1 << 12
#: Node counts are 32-bit: a tree takes at most this many iterations.
cdef long long _MAX_ITERATIONS = (1 << 31) - 1 - MAX_PATH
MAX_ITERATIONS = _MAX_ITERATIONS
#: The longest `run`, the largest UCB constant, the largest cap on the node pools and the
#: most worlds of one final pass: `constants`, shared with the reference.
from bergen_search.constants import (MAX_BYTES, MAX_EXPLORATION, MAX_PASS_WORLDS, MAX_SECONDS,
                                     objective_code)

cdef extern from "Python.h":
    # Runs the Python signal handlers (main thread only): -1 with their exception pending
    # (KeyboardInterrupt for Ctrl-C). Declared noexcept: the caller unwinds, then re-raises.
    int PyErr_CheckSignals() noexcept

cdef class MemoryAccount:
    """The bytes held by the node pools of the trees that share it (`IsmctsTree(account=)`):
    one search's trees, whose `max_bytes` caps their sum. A tree made without one has an
    account of its own. Nothing is counted across accounts: another search's trees, alive
    in the same process, never take from this one's cap."""

    def __cinit__(self):
        self.held = 0

    @property
    def bytes(self):
        """Bytes held now by the node pools of its trees alive."""
        return atomic_add(&self.held, 0)


cdef double _seconds(object seconds) except -1:
    """A time limit in seconds, 0..MAX_SECONDS (0: none), else BergenError."""
    if (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
            or not 0 <= seconds <= MAX_SECONDS):
        raise BergenError(f"seconds must be a number 0..{MAX_SECONDS:g} (0: no limit), got "
                          f"{seconds!r}", field="seconds")
    return seconds


cdef int _raise_pending() except -1:
    """Return to Python with the exception a signal handler raised (`PyErr_CheckSignals`
    left it pending: KeyboardInterrupt for Ctrl-C)."""
    return -1

#: Edge keys (see _ismcts.pxd): another seat's draw, a pass, the observer's draw of tile t.
KEY_DRAW = DRAW
KEY_PASS = PASS
KEY_OWN_DRAW = OWN_DRAW


cdef inline int _nth_bit(uint64_t mask, int k) noexcept nogil:
    """Index of the k-th lowest set bit of mask (k < popcount(mask))."""
    while k:
        mask &= mask - 1
        k -= 1
    return ctz64(mask)


cdef inline int32_t _child(const Node* nodes, int32_t parent, int key,
                           int32_t* last) noexcept nogil:
    """The child of `parent` along `key`, or NO_NODE with its last child in `last`."""
    cdef int32_t c = nodes[parent].first_child
    last[0] = NO_NODE
    while c != NO_NODE and nodes[c].key != key:
        last[0] = c
        c = nodes[c].next_sibling
    return c


cdef inline int _choices(State* s, int* moves, bint merge_twins) noexcept nogil:
    """The legal moves of `s` into `moves` (their count), a mirror twin dropped when twins
    are merged: the choices the tree has at `s`."""
    cdef int n = gen_moves(s, moves)
    if merge_twins and n > 1:
        n = drop_mirror_twins(s.left, s.right, s.left_double, s.right_double, moves, n)
    return n


cdef inline int _edge_key(const State* s, int move, int observer) noexcept nogil:
    """The edge `move` takes in the observer's tree: the observer's own draw is keyed by the
    tile drawn (OWN_DRAW + tile), another seat's by DRAW alone (the tile is unseen)."""
    if move == DRAW and s.to_move == observer:
        return OWN_DRAW + s.reserve[s.reserve_next]
    return move


# (Its account is read when it is freed: the garbage collector must not clear it first.)
@cython.no_gc_clear
cdef class IsmctsTree:
    """SO-ISMCTS (Cowling, Powley & Whitehouse 2012) for the seat of a `CoreSampler`'s
    information set. `run` adds iterations; `root_stats` reads the observer's moves.

    `objective`: 0 "points", 1 "match"; `playout`: 0 "random", 1 "scoring", 2 "safe" (names
    or codes; `_core.pyx`). `max_bytes` caps the node pools of the trees of its `account`
    (a `MemoryAccount`: its search's trees; None: an account of its own; 0: no cap but the
    machine's): at the cap this tree stops growing
    and goes on iterating without adding nodes (`full`, `full_at`); a tree made when the cap
    is already reached keeps 3 KB (its root and 64 children) all the same. `exploration` is the UCB1 constant on rewards scaled to about
    [0, 1] (see POINTS_SCALE). `merge_twins`: mirror twins are one choice, at the root and
    below (`twins`; the root reports a merged twin with its twin's statistics).
    """

    def __cinit__(self):
        self.tree.nodes = NULL
        self.tree.n_nodes = 0
        self.tree.capacity = 0
        self.running = False
        self.forced = -1
        self.ready = False
        self.full = False
        self.full_at = -1

    def __init__(self, sampler, seed, *, exploration=0.7, objective=0, playout=0,
                 merge_twins=False, choice_stats=False, max_bytes=0, account=None):
        cdef Node* root
        cdef int i
        cdef CoreSampler smp
        if self.ready:
            raise BergenError("an IsmctsTree is built once")
        if not isinstance(sampler, CoreSampler) or not (<CoreSampler>sampler).ready:
            raise BergenError("IsmctsTree needs a built CoreSampler", field="sampler")
        smp = <CoreSampler>sampler
        if type(seed) is not int:
            raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
        if (isinstance(exploration, bool) or not isinstance(exploration, (int, float))
                or not 0 <= exploration <= MAX_EXPLORATION):
            raise BergenError(f"exploration must be a number 0..{MAX_EXPLORATION}, got "
                              f"{exploration!r}", field="exploration")
        objective = objective_code(objective)
        playout = PLAYOUTS.get(playout, playout)
        if playout not in PLAYOUTS.values() or isinstance(playout, bool):
            raise BergenError(f"unknown playout {playout!r} (0 'random', 1 'scoring', 2 'safe')",
                              field="playout")
        if type(max_bytes) is not int or not 0 <= max_bytes <= MAX_BYTES:
            raise BergenError(f"max_bytes must be an integer 0..{MAX_BYTES} (0: no cap), got "
                              f"{max_bytes!r}", field="max_bytes")
        if account is not None and not isinstance(account, MemoryAccount):
            raise BergenError(f"account must be a MemoryAccount or None, got {account!r}",
                              field="account")
        self.account = MemoryAccount() if account is None else account
        self.merge_twins = bool(merge_twins)
        self.choice_stats = bool(choice_stats)
        self.max_bytes = max_bytes
        self.twins_mask = 0
        cdef int root_moves[MAX_MOVES]
        cdef int n_root = gen_moves(&smp.c.base, root_moves)
        if self.merge_twins and n_root > 1 and mirrored_ends(
                smp.c.base.left, smp.c.base.right, smp.c.base.left_double,
                smp.c.base.right_double):
            for i in range(1, n_root):
                if right_twin(root_moves, i):
                    self.twins_mask |= (<uint64_t>1) << root_moves[i - 1]
        self.sampler = smp
        self.smp = &smp.c
        self.observer = smp.c.seat
        self.rng.state = <uint64_t>(seed & MASK64)
        self.exploration = exploration
        self.objective = objective
        self.playout = playout
        self.value_scale = 1.0 if objective == OBJECTIVE_MATCH else 1.0 / _POINTS_SCALE
        self.total = 0
        memset(self.root_gain, 0, sizeof(self.root_gain))
        # The first pool: _INITIAL_CAPACITY nodes, or what the cap leaves (at least the root
        # and ROOT_SPARE children, 3 KB, so that even a tree born full can answer).
        cdef long long first = _INITIAL_CAPACITY
        if max_bytes > 0:
            first = min(first, max(1 + ROOT_SPARE,
                                   (max_bytes - atomic_add(&self.account.held, 0))
                                   // <long long>sizeof(Node)))
        self.tree.nodes = <Node*>malloc(first * sizeof(Node))
        if self.tree.nodes == NULL:
            raise MemoryError()
        atomic_add(&self.account.held, first * sizeof(Node))
        self.tree.capacity = <int32_t>first
        self.tree.n_nodes = 1
        root = &self.tree.nodes[0]
        memset(root, 0, sizeof(Node))
        root.first_child = NO_NODE
        root.next_sibling = NO_NODE
        root.side = -1
        self.ready = True

    def __dealloc__(self):
        if self.tree.nodes != NULL:
            atomic_add(&self.account.held, -<long long>self.tree.capacity * sizeof(Node))
        free(self.tree.nodes)

    cdef int _idle(self) except -1:
        """Raise unless the tree is built and no search is running on it (in another thread:
        `run` releases the GIL, and the pool may move while it grows)."""
        if not self.ready:
            raise BergenError("this IsmctsTree was not built (use IsmctsTree(sampler, seed))")
        if self.running:
            raise RuntimeError("this tree is already running a search in another thread")
        return 0

    # ---- the pool ---------------------------------------------------------------------------
    cdef bint _reserve(self) noexcept nogil:
        """Room for one more iteration (at most MAX_PATH new nodes, and ROOT_SPARE kept for the
        root's children); False when the pool cannot grow: the cap on the pools of the
        trees of its account (`max_bytes`, `MemoryAccount.bytes`) is reached, or the machine
        refuses the memory."""
        cdef Node* grown
        cdef long long capacity = self.tree.capacity, room, extra
        cdef long long need = self.tree.n_nodes + MAX_PATH + ROOT_SPARE
        if need <= capacity:
            return True
        while need > capacity:
            capacity *= 2
        if capacity > 0x7fffffff:
            capacity = 0x7fffffff
            if need > capacity:
                return False
        extra = (capacity - self.tree.capacity) * <long long>sizeof(Node)
        if self.max_bytes > 0:
            # Grow to what the cap allows, if that is room enough for this iteration.
            room = self.max_bytes - atomic_add(&self.account.held, 0)
            if room < extra:
                extra = room - room % <long long>sizeof(Node)
                capacity = self.tree.capacity + extra // <long long>sizeof(Node)
                if capacity < need:
                    return False
            if atomic_add(&self.account.held, extra) > self.max_bytes:   # another tree took it
                atomic_add(&self.account.held, -extra)
                return False
        else:
            atomic_add(&self.account.held, extra)
        grown = <Node*>realloc(self.tree.nodes, capacity * sizeof(Node))
        if grown == NULL:
            atomic_add(&self.account.held, -extra)
            return False
        self.tree.nodes = grown
        self.tree.capacity = <int32_t>capacity
        return True

    cdef bint _can_add(self, int depth) noexcept nogil:
        """Whether this iteration may add a node at `depth` (1: a child of the root): always
        while the tree grows (`_reserve` made room); once it is full, only a root child,
        into the nodes kept for them."""
        return not self.full or (depth == 1 and self.tree.n_nodes < self.tree.capacity)

    cdef int32_t _new_child(self, int32_t parent, int32_t last, int key, int side) noexcept nogil:
        """Append a child along `key` after `last`, the parent's last child (NO_NODE: none),
        so that children stay in creation order, the most used ones usually first. The caller
        has reserved room; return its index."""
        cdef int32_t c = self.tree.n_nodes
        cdef Node* node = &self.tree.nodes[c]
        self.tree.n_nodes += 1
        node.first_child = NO_NODE
        node.next_sibling = NO_NODE
        node.visits = 0
        node.avail = 0
        node.chosen = 0
        node.key = key
        node.side = side
        node.reward_sum = 0.0
        node.reward_sq = 0.0
        if last == NO_NODE:
            self.tree.nodes[parent].first_child = c
        else:
            self.tree.nodes[last].next_sibling = c
        return c

    # ---- one iteration ----------------------------------------------------------------------
    cdef void _iterate(self) noexcept nogil:
        """One SO-ISMCTS iteration: determinize, select and expand, play out, backpropagate."""
        cdef State s
        cdef int moves[MAX_MOVES]
        cdef int32_t path[MAX_PATH]
        cdef bint by_choice[MAX_PATH]    # the step into path[i] was a choice (see `chosen`)
        cdef double reward[MAX_SEATS]
        cdef const Rules* rules = self.smp.base.rules
        cdef Node* nodes = self.tree.nodes      # stable: room was reserved before
        cdef Node* c
        cdef int32_t node = 0, child, best, last
        cdef int depth = 1, n, i, m, key, side, n_sides, expanded = 0, root_key = -1
        cdef uint64_t legal, found, untried
        cdef double value, best_value, r, gain_total
        cdef double scale = self.value_scale, explore = self.exploration

        sample_world(self.smp, &self.rng, &s)
        path[0] = 0
        # Selection and expansion, along the observer's view of this world.
        while s.ended == END_NONE:
            n = _choices(&s, moves, self.merge_twins)
            side = rules.side_of[s.to_move]
            if n == 1:
                m = moves[0]
                key = _edge_key(&s, m, self.observer)
                if depth == 1:
                    root_key = key
                child = _child(nodes, node, key, &last)
                if child == NO_NODE:
                    if not self._can_add(depth):
                        # The tree is full: play on from here without a node.
                        do_move(&s, m)
                        break
                    child = self._new_child(node, last, key, side)
                by_choice[depth] = node == 0 or not self.choice_stats
                if by_choice[depth]:
                    nodes[child].avail += 1
            else:
                by_choice[depth] = True
                legal = 0
                for i in range(n):
                    legal |= (<uint64_t>1) << moves[i]
                found = 0
                best = NO_NODE
                best_value = -1e300
                last = NO_NODE
                child = nodes[node].first_child
                while child != NO_NODE:
                    last = child
                    c = &nodes[child]
                    if c.key < OWN_DRAW and (legal >> c.key) & 1:
                        found |= (<uint64_t>1) << c.key
                        c.avail += 1
                        if c.chosen == 0:
                            # Only ever forced here so far: a choice still untried.
                            value = 1e300
                        else:
                            value = (c.reward_sum / c.chosen * scale
                                     + explore * sqrt(log(<double>c.avail) / c.chosen))
                        if value > best_value:
                            best_value = value
                            best = child
                    child = c.next_sibling
                untried = legal & ~found
                if node == 0 and self.forced >= 0:
                    # `run_move`: the root's choice is the move being topped up.
                    if (found >> self.forced) & 1:
                        child = nodes[0].first_child
                        while nodes[child].key != self.forced:
                            child = nodes[child].next_sibling
                        m = self.forced
                    else:
                        m = self.forced
                        expanded = 1
                elif untried:
                    m = _nth_bit(untried, below(&self.rng, popcount64(untried)))
                    expanded = 1
                else:
                    child = best
                    m = nodes[best].key
                if depth == 1:
                    root_key = m
                if expanded:
                    if not self._can_add(depth):
                        # The tree is full: the new choice is played out without a node.
                        do_move(&s, m)
                        break
                    child = self._new_child(node, last, m, side)
                    nodes[child].avail = 1
            do_move(&s, m)
            path[depth] = child
            depth += 1
            node = child
            if expanded:
                break
        play_out(&s, self.objective, self.playout, &self.rng)

        # Each side's raw outcome, summed by the root edge taken (for `root_side_stats`);
        # its reward: the outcome (objective match), or its points less the mean of the
        # other sides' (objective points).
        n_sides = rules.n_sides
        key = root_key
        gain_total = 0.0
        for i in range(n_sides):
            reward[i] = outcome(self.objective, &s, self.smp.base.scores, i)
            if key >= 0:
                self.root_gain[key][i] += reward[i]
            gain_total += reward[i]
        if self.objective != OBJECTIVE_MATCH:
            for i in range(n_sides):
                reward[i] -= (gain_total - reward[i]) / (n_sides - 1)

        # Backpropagation.
        nodes[0].visits += 1
        for i in range(1, depth):
            c = &nodes[path[i]]
            c.visits += 1
            if by_choice[i]:
                r = reward[c.side]
                c.chosen += 1
                c.reward_sum += r
                c.reward_sq += r * r

    cdef long long _run(self, long long limit, double seconds) noexcept nogil:
        cdef double start = 0
        cdef long long done = 0
        if seconds > 0:
            start = clock_now()
        while limit <= 0 or done < limit:
            if seconds > 0 and done > 0 and (done & TIME_CHECK_MASK) == 0:
                if clock_now() - start >= seconds:
                    break
            if self.total >= _MAX_ITERATIONS:
                break
            if not self.full and not self._reserve():
                # At the memory cap: the tree stops growing, the search goes on sampling.
                self.full = True
                self.full_at = self.total
            self._iterate()
            done += 1
            self.total += 1
        return done

    # ---- Python API -------------------------------------------------------------------------
    def run_move(self, move, iterations, seconds):
        """As `run`, but every iteration takes the root move `move` (a legal choice of the
        observer; a merged right twin counts as its left twin): it grows that move's subtree
        alone, so that its value does not hinge on the few visits the search gave it. Below
        the root the search goes on as usual."""
        cdef int moves[MAX_MOVES]
        cdef int n, i, code
        self._idle()
        if type(move) is not int or not 0 <= move < DRAW:
            raise BergenError(f"run_move: {move!r} is not a play", field="move")
        n = _choices(<State*>&self.smp.base, moves, self.merge_twins)
        code = self._stats_key(move)
        if n < 2 or not any(moves[i] == code for i in range(n)):
            raise BergenError(f"run_move: {move} is not one of the root's choices", field="move")
        self.forced = code
        try:
            return self.run(iterations, seconds)
        finally:
            self.forced = -1

    def run(self, iterations, seconds):
        """Run up to `iterations` more iterations (0: no limit; a tree takes MAX_ITERATIONS
        at most) for at
        most `seconds` (0..MAX_SECONDS; 0: no limit; the clock is read every 64 iterations);
        return the iterations done. At least one limit is needed. The GIL is released while
        searching, so Ctrl-C is heard when the call returns: call it in slices (the search
        does, every 50 ms). One tree runs one search at a time (a second thread's `run`
        raises RuntimeError). When the node pool reaches its cap (`max_bytes`, counted over
        the trees of its account) or the machine's memory, the tree stops growing and
        the iterations go on without adding nodes (`full`, `full_at`): never MemoryError."""
        cdef long long done, limit
        cdef double secs
        self._idle()
        if type(iterations) is not int or not 0 <= iterations < 2 ** 63:
            raise BergenError(f"iterations must be a non-negative integer (0: no limit; a "
                              f"tree stops at MAX_ITERATIONS), got {iterations!r}",
                              field="iterations")
        secs = _seconds(seconds)
        limit = iterations
        if limit <= 0 and secs <= 0:
            raise BergenError("run needs a limit: iterations > 0 or seconds > 0")
        self.running = True
        try:
            with nogil:
                done = self._run(limit, secs)
        finally:
            self.running = False
        return done

    cdef int _stats_key(self, int move) noexcept nogil:
        """The root edge that holds a root move's statistics: its mirror twin's, when twins
        are merged and it is the right-end twin (see `twins`)."""
        if (self.merge_twins and move < DRAW and move & 1 and (self.twins_mask >> (move - 1)) & 1):
            return move - 1
        return move

    @property
    def twins(self):
        """{move: its twin at the left end} for the root moves merged with their mirror twin
        (the ends mirror and the tile fits both); empty unless `merge_twins`."""
        return {m: m - 1 for m in range(1, 56, 2) if (self.twins_mask >> (m - 1)) & 1}

    # ---- comparable values: the final pass -----------------------------------------------
    cdef double _play_on(self, State* s, int32_t node, Rng* rng) noexcept nogil:
        """From `s` at tree node `node` (NO_NODE: out of the tree), play as the search would
        without exploring: at a decision the legal child of the best mean for its mover,
        while the tree has one; then the playout policy. The observer's side's reward."""
        cdef int moves[MAX_MOVES]
        cdef int n, i, m
        cdef int32_t child, best, last
        cdef const Node* c
        cdef Node* nodes = self.tree.nodes
        cdef uint64_t legal
        cdef double v, best_value
        while s.ended == END_NONE and node != NO_NODE:
            n = _choices(s, moves, self.merge_twins)
            if n == 1:
                m = moves[0]
                node = _child(nodes, node, _edge_key(s, m, self.observer), &last)
                do_move(s, m)
                continue
            legal = 0
            for i in range(n):
                legal |= (<uint64_t>1) << moves[i]
            best = NO_NODE
            best_value = -1e300
            child = nodes[node].first_child
            while child != NO_NODE:
                c = &nodes[child]
                if c.key < OWN_DRAW and (legal >> c.key) & 1 and c.chosen > 0:
                    v = c.reward_sum / c.chosen
                    if v > best_value:
                        best_value = v
                        best = child
                child = c.next_sibling
            if best == NO_NODE:
                break
            do_move(s, nodes[best].key)
            node = best
        play_out(s, self.objective, self.playout, rng)
        return playout_reward(self.objective, s, self.smp.base.scores,
                              self.smp.base.rules.side_of[self.observer])

    def evaluate_root(self, worlds, seed, only=None, prefix=0):
        """Each root move's value when the search plays on from it as it would (no
        exploration), on `worlds` worlds drawn with Rng(seed): the same worlds, and the same
        random numbers in the playouts, for every move (common random numbers), so the
        differences between moves are far less noisy than the values. Returns
        [(move, sum, sum of squares, [each side's raw outcome summed])] in move order: the
        observer's side's rewards, and per side its points gained (or 1 for the match's
        winner), as `root_stats` and `root_side_stats`. A merged mirror twin gets its twin's.
        `only` (a root move): that move alone is played, and its row alone returned, the
        very numbers of its row in the full pass on the same worlds and seed (a move's value
        at a checkpoint of the search, at the cost of one move). `prefix` (1..worlds): each
        row also ends with its reward sum over the first `prefix` worlds alone, which are
        the worlds of a pass of `prefix` worlds on the same seed (a pass of fewer worlds
        compares with this one on them)."""
        cdef int moves[MAX_MOVES]
        cdef int n = 0
        cdef int n_sides = 0
        cdef int i, j, pick = -1
        cdef long long w
        cdef Rng world_rng, play_rng
        cdef State world, s
        cdef int32_t last, node
        cdef uint64_t play_seed
        cdef double v
        cdef double sums[MAX_MOVES]
        cdef double sqs[MAX_MOVES]
        cdef double firsts[MAX_MOVES]
        cdef long long split
        cdef double gains[MAX_MOVES][MAX_SEATS]
        cdef long long count
        cdef bint interrupted = False
        self._idle()
        if type(worlds) is not int or not 1 <= worlds <= MAX_PASS_WORLDS:
            raise BergenError(f"worlds must be an integer 1..{MAX_PASS_WORLDS}, got {worlds!r}",
                              field="worlds")
        if type(seed) is not int:
            raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
        count = worlds
        if type(prefix) is not int or not 0 <= prefix <= worlds:
            raise BergenError(f"prefix must be an integer 0..{worlds}, got {prefix!r}",
                              field="prefix")
        split = prefix
        n = gen_moves(&self.smp.base, moves)
        n_sides = self.smp.base.rules.n_sides
        if only is not None:
            if type(only) is not int or not any(moves[i] == only for i in range(n)):
                raise BergenError(f"evaluate_root: {only!r} is not a root move", field="only")
            pick = self._stats_key(only)
        memset(sums, 0, sizeof(sums))
        memset(sqs, 0, sizeof(sqs))
        memset(gains, 0, sizeof(gains))
        memset(firsts, 0, sizeof(firsts))
        world_rng.state = <uint64_t>(seed & MASK64)
        self.running = True
        try:
          with nogil:
            for w in range(count):
                if (w & PASS_CHECK_MASK) == PASS_CHECK_MASK:
                    # Ctrl-C, heard in the main thread (a match-objective pass can be long).
                    with gil:
                        if PyErr_CheckSignals() != 0:
                            interrupted = True
                    if interrupted:
                        break
                if w == split:
                    memcpy(firsts, sums, sizeof(sums))
                sample_world(self.smp, &world_rng, &world)
                play_seed = mix64(world_rng.state ^ GOLDEN)
                for i in range(n):
                    if self._stats_key(moves[i]) != moves[i] or (pick >= 0 and moves[i] != pick):
                        continue
                    memcpy(&s, &world, sizeof(State))
                    node = _child(self.tree.nodes, 0, _edge_key(&s, moves[i], self.observer),
                                  &last)
                    do_move(&s, moves[i])
                    play_rng.state = play_seed
                    v = self._play_on(&s, node, &play_rng)
                    sums[i] += v
                    sqs[i] += v * v
                    for j in range(n_sides):
                        gains[i][j] += outcome(self.objective, &s, self.smp.base.scores, j)
        finally:
            self.running = False
        if interrupted:
            _raise_pending()
        if split == count:
            memcpy(firsts, sums, sizeof(sums))
        out = []
        for i in range(n):
            k = i - 1 if self._stats_key(moves[i]) != moves[i] else i
            if pick < 0 or moves[i] == only:
                row = (moves[i], sums[k], sqs[k], [gains[k][j] for j in range(n_sides)])
                out.append(row + (firsts[k],) if split else row)
        return out

    def root_stats(self):
        """[(move, visits, reward_sum, reward_sq_sum)] for every legal move of the observer at
        the root, in move order, rewards from the observer's side (raw points or 0/1). A forced
        draw at the root sums the children of every tile drawn. A merged mirror twin (`twins`)
        reports its twin's statistics."""
        cdef int moves[MAX_MOVES]
        cdef int i, key, n
        cdef int32_t child
        cdef const Node* c
        self._idle()
        n = gen_moves(&self.smp.base, moves)
        out = []
        for i in range(n):
            visits, total, sq = 0, 0.0, 0.0
            key = self._stats_key(moves[i])
            child = self.tree.nodes[0].first_child
            while child != NO_NODE:
                c = &self.tree.nodes[child]
                if c.key == key or (moves[i] == DRAW and c.key >= OWN_DRAW):
                    visits += c.visits
                    total += c.reward_sum
                    sq += c.reward_sq
                child = c.next_sibling
            out.append((moves[i], visits, total, sq))
        return out

    def root_side_stats(self):
        """[(move, visits, [sum of each side's raw outcome])] for the observer's root moves,
        as root_stats: points each side gained to the end of the round (objective points) or
        1 for the side that won the match (objective match), summed over the iterations that
        took that move. Divided by visits: each side's expectation under the search's play."""
        cdef int moves[MAX_MOVES]
        cdef int i, j, k, n, n_sides
        self._idle()
        n = gen_moves(&self.smp.base, moves)
        n_sides = self.smp.base.rules.n_sides
        out = []
        for i in range(n):
            keys = ([self._stats_key(moves[i])] if moves[i] != DRAW
                    else [DRAW] + [OWN_DRAW + t for t in range(28)])
            sums = [0.0] * n_sides
            for k in keys:
                for j in range(n_sides):
                    sums[j] += self.root_gain[k][j]
            visits = [r for r in self.root_stats() if r[0] == moves[i]][0][1]
            out.append((moves[i], visits, sums))
        return out

    def children(self, keys=()):
        """[(key, side, visits, availability, reward_sum, reward_sq_sum)] of the children of
        the node reached from the root along the edge `keys` (see _ismcts.pxd: plays by move,
        DRAW for another seat's draw, OWN_DRAW + tile for the observer's, PASS), in creation
        order; rewards from `side`, the side that took the edge. None if there is no such
        node. For inspecting the tree (and testing it)."""
        cdef int32_t node = 0, child
        cdef const Node* c
        self._idle()
        for key in keys:
            child = self.tree.nodes[node].first_child
            while child != NO_NODE and self.tree.nodes[child].key != key:
                child = self.tree.nodes[child].next_sibling
            if child == NO_NODE:
                return None
            node = child
        out = []
        child = self.tree.nodes[node].first_child
        while child != NO_NODE:
            c = &self.tree.nodes[child]
            out.append((c.key, c.side, c.visits, c.avail, c.reward_sum, c.reward_sq))
            child = c.next_sibling
        return out

    @property
    def iterations(self):
        """Iterations done since the tree was made."""
        return self.total

    @property
    def n_nodes(self):
        return self.tree.n_nodes

    @property
    def memory_bytes(self):
        """Bytes held by the node pool (allocated, not just used)."""
        return self.tree.capacity * sizeof(Node)

    @property
    def seat(self):
        """The observer: the seat the tree searches for."""
        return self.observer

    @property
    def full(self):
        """Whether the node pool reached its cap (or the machine's memory) and the tree
        stopped growing; the iterations since went on without adding nodes."""
        return bool(self.full)

    @property
    def full_at(self):
        """The iterations done when the tree stopped growing, or None."""
        return None if self.full_at < 0 else self.full_at
