# cython: language_level=3
"""The playouts of `before_lead.deal_value` in C, without the GIL.

`LeadPlayouts` holds the loop's state: each possible lead's playouts, their rewards' sum and
sum of squares, each side's outcome summed, and the lead's own random stream. `run(n)` plays n
more, each from the lead furthest behind its share, on a deal drawn uniformly among those that
lead it, played out by the playout policy (`_playouts.pxd`), draw for draw as the pure-Python
loop of `before_lead.deal_value` does: the same seed and count give the same sums, bit for bit.
`start_playouts` plays `before_lead.start_values`' deals. The GIL is released while they play:
a search beside them in another thread is not slowed.
"""
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from bergen_search.game._core cimport (MAX_SEATS, N_TILES, Rng, Rules, State, deal,
                                  rules_from_py, shuffle, state_init)
from bergen_search.search._playouts cimport outcome, play_out, reward

from bergen_search.errors import BergenError

cdef enum:
    MAX_LEADS = N_TILES


cdef int _scores_in(const Rules* rules, object scores, int32_t* out) except -1:
    """`scores` (a score per side, each 0 <= score < the target) into `out`, zeros past them."""
    cdef int i
    scores = list(scores)
    if len(scores) != rules.n_sides:
        raise BergenError(f"expected {rules.n_sides} scores, got {len(scores)}", field="scores")
    for i in range(MAX_SEATS):
        out[i] = 0
    for i in range(rules.n_sides):
        if not isinstance(scores[i], int) or not 0 <= scores[i] < rules.target:
            raise BergenError(f"side {i}'s score must be an integer 0..{rules.target - 1}, "
                              f"got {scores[i]!r}", field="scores")
        out[i] = scores[i]
    return 0


def start_playouts(rules, scores, int objective, int policy, long long playouts, seed):
    """`before_lead.start_values`' sums: each side's reward summed over `playouts` deals from
    Rng(seed), each played out by the policy (the GIL released)."""
    cdef Rules c
    cdef State s
    cdef Rng rng
    cdef int32_t start[MAX_SEATS]
    cdef double total[MAX_SEATS]
    cdef long long k
    cdef int j
    rules_from_py(&c, rules)
    _scores_in(&c, scores, start)
    if objective not in (0, 1) or policy not in (0, 1, 2) or playouts < 0:
        raise BergenError("start_playouts: an objective, a policy and playouts >= 0")
    for j in range(MAX_SEATS):
        total[j] = 0.0
    rng.state = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
    with nogil:
        for k in range(playouts):
            deal(&s, &c, &rng, start)
            play_out(&s, objective, policy, &rng)
            for j in range(c.n_sides):
                total[j] += reward(objective, &s, start, j)
    return [total[j] for j in range(c.n_sides)]


cdef class LeadPlayouts:
    """`leads`: (leader, tile, chance) of every possible lead; `ranks`: each tile's lead rank
    (`state.lead_rank`); `seeds`: each lead's stream's state."""
    cdef Rules rules
    cdef int seat, n_leads, objective, policy, side
    cdef uint32_t hand
    cdef int32_t scores[MAX_SEATS]      # each side's at the deal (zeros past n_sides)
    cdef int leader[MAX_LEADS]
    cdef int tile[MAX_LEADS]
    cdef double chance[MAX_LEADS]
    cdef uint8_t before[MAX_LEADS][N_TILES]
    cdef uint8_t rest[MAX_LEADS][N_TILES]
    cdef int n_before[MAX_LEADS]
    cdef int n_rest[MAX_LEADS]
    cdef Rng rng[MAX_LEADS]
    cdef long long count[MAX_LEADS]
    cdef double sums[MAX_LEADS][2]
    cdef double gains[MAX_LEADS][MAX_SEATS]
    cdef long long done

    def __init__(self, rules, int seat, hand, leads, scores, *, int objective, int policy,
                 ranks, seeds):
        cdef int i, t, rank
        rules_from_py(&self.rules, rules)
        leads, ranks, seeds = list(leads), list(ranks), list(seeds)
        _scores_in(&self.rules, scores, self.scores)
        if not 0 <= seat < self.rules.players or not 1 <= len(leads) <= MAX_LEADS \
                or len(seeds) != len(leads) or len(ranks) != N_TILES \
                or objective not in (0, 1) or policy not in (0, 1, 2):
            raise BergenError("LeadPlayouts: a seat, 1..28 leads with a seed each, 28 ranks, "
                              "an objective and a policy")
        if not isinstance(hand, int) or not 0 <= hand < (1 << N_TILES) \
                or bin(hand).count("1") != self.rules.hand_size:
            raise BergenError(f"LeadPlayouts: a hand of {self.rules.hand_size} tiles")
        self.seat, self.hand, self.objective, self.policy = seat, hand, objective, policy
        self.side = self.rules.side_of[seat]
        self.n_leads = len(leads)
        for i, (leader, lead_tile, p) in enumerate(leads):
            if not 0 <= leader < self.rules.players or not 0 <= lead_tile < N_TILES \
                    or (leader == seat) != bool(hand >> lead_tile & 1):
                raise BergenError(f"LeadPlayouts: lead {i} is not a seat and a tile it may "
                                  f"hold")
            self.leader[i], self.tile[i], self.chance[i] = leader, lead_tile, p
            self.rng[i].state = <uint64_t>(seeds[i] & 0xFFFFFFFFFFFFFFFF)
            rank = ranks[lead_tile]
            self.n_before[i] = self.n_rest[i] = 0
            self.count[i] = 0
            self.sums[i][0] = self.sums[i][1] = 0.0
            for t in range(MAX_SEATS):
                self.gains[i][t] = 0.0
            for t in range(N_TILES):             # the unseen tiles, ascending
                if self.hand >> t & 1:
                    continue
                if ranks[t] < rank:
                    self.before[i][self.n_before[i]] = t
                    self.n_before[i] += 1
                elif t != lead_tile:
                    self.rest[i][self.n_rest[i]] = t
                    self.n_rest[i] += 1
            # (Every deal is then whole: the reserve takes what the hands leave.)
            if self.n_rest[i] < (self.rules.players - 1) * self.rules.hand_size - (leader != seat):
                raise BergenError(f"LeadPlayouts: no deal leads lead {i}: the tiles before it "
                                  f"outnumber the reserve")
        self.done = 0

    def run(self, long long n):
        """Play `n` more playouts; return the playouts done in all."""
        if n < 0:
            raise BergenError(f"LeadPlayouts.run: n must be >= 0, got {n}")
        with nogil:
            self._run(n)
        return self.done

    def stats(self):
        """(playouts, (sum, sum of squares), each side's outcome summed) of every lead."""
        n_sides = self.rules.n_sides
        return ([self.count[i] for i in range(self.n_leads)],
                [[self.sums[i][0], self.sums[i][1]] for i in range(self.n_leads)],
                [[self.gains[i][j] for j in range(n_sides)] for i in range(self.n_leads)])

    cdef void _run(self, long long n) noexcept nogil:
        cdef long long k
        cdef int i, j, best
        cdef bint few, few_best
        cdef double key, key_best, v
        cdef State s
        for k in range(n):
            # The lead furthest behind its share (each at least 2 playouts first); ties to the
            # first, as max() over (count < 2, chance * (done + 1) - count, -index).
            best = 0
            few_best = self.count[0] < 2
            key_best = self.chance[0] * <double>(self.done + 1) - <double>self.count[0]
            for i in range(1, self.n_leads):
                few = self.count[i] < 2
                key = self.chance[i] * <double>(self.done + 1) - <double>self.count[i]
                if few > few_best or (few == few_best and key > key_best):
                    best, few_best, key_best = i, few, key
            self._deal(best, &s)
            play_out(&s, self.objective, self.policy, &self.rng[best])
            v = reward(self.objective, &s, self.scores, self.side)
            self.count[best] += 1
            self.sums[best][0] += v
            self.sums[best][1] += v * v
            for j in range(self.rules.n_sides):
                self.gains[best][j] += outcome(self.objective, &s, self.scores, j)
            self.done += 1

    cdef void _deal(self, int i, State* s) noexcept nogil:
        """A deal that leads lead i: the tiles before its tile in the lead order in the
        reserve, the rest shuffled and dealt seat by seat, then the reserve shuffled."""
        cdef uint8_t rest[N_TILES]
        cdef uint8_t reserve[N_TILES]
        cdef uint32_t hands[MAX_SEATS]
        cdef int j, k = 0, take, m, r
        memcpy(rest, self.rest[i], self.n_rest[i])
        shuffle(&self.rng[i], rest, self.n_rest[i])
        for j in range(self.rules.players):
            if j == self.seat:
                hands[j] = self.hand
                continue
            take = self.rules.hand_size - (j == self.leader[i])
            hands[j] = (<uint32_t>1) << self.tile[i] if j == self.leader[i] else 0
            for m in range(k, k + take):
                hands[j] |= (<uint32_t>1) << rest[m]
            k += take
        memcpy(reserve, self.before[i], self.n_before[i])
        r = self.n_before[i]
        for m in range(k, self.n_rest[i]):
            reserve[r] = rest[m]
            r += 1
        shuffle(&self.rng[i], reserve, r)
        state_init(s, &self.rules, hands, reserve, self.scores)
