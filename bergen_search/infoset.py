"""What one seat knows: the information set behind every search (RULES.md, "Decisions and
chance").

An `InfoSet` holds the seat's own hand, the line, hand sizes, the reserve size, the scores,
and every proof about the hidden tiles, in the form the world sampler needs:

- the *free tiles*: every tile whose place the seat does not know, plus the tiles other seats
  played whose origin (dealt, or drawn on which turn) is not certain;
- the *groups*: where those tiles can have come from. Each other seat has one group per
  epoch: epoch 0 is its dealt hand, and each turn on which it drew opens an epoch holding the
  tiles drawn then. The reserve is one more group. Each group has a capacity;
- for each free tile, the groups it may belong to: a tile held by seat j through a draw or a
  pass at ends (x, y) shows neither x nor y; a tile in a dealt hand is no double that would
  have led before the lead; a tile that j played came from an epoch opened before the play,
  and avoided the numbers of every draw or pass of j while j held it.

A world is an assignment of the free tiles to groups, filling each to capacity; the worlds
consistent with everything the seat saw are exactly these assignments, each one a distinct
history of deals and draws. The sampler (`sampler.py`) draws them uniformly.

An information set is built only from what the seat could see: `from_record` ignores the
other hands, the reserve and the other seats' drawn tiles even when the record gives them.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import BergenError
from .rules import Rules
from .state import DRAW, PASS, State, _rank_of
from .tiles import (ALL_TILES, DOUBLES, N_TILES, TILES_WITH, LineEnds, iter_mask, popcount,
                    tile_str)

RESERVE = -1


def numbers_mask(numbers) -> int:
    """Mask of the tiles showing any of the numbers."""
    m = 0
    for v in numbers:
        m |= TILES_WITH[v]
    return m


@dataclass(frozen=True)
class Group:
    owner: int       # seat, or RESERVE
    epoch: int       # 0 the deal, k the k-th turn on which the owner drew; -1 for the reserve
    capacity: int    # tiles it holds, played ones included
    opened: int = -1 # the event of the round that opened it (its first draw); -1 the deal


@dataclass(frozen=True)
class Decision:
    """A play another seat made, as everyone saw it: what inference (`inference.py`) reads.
    `drew`: the seat drew in that turn first, so the tile played was the one it drew."""
    event: int       # its index among the round's events
    seat: int
    left: int        # the ends before the play, as in State
    right: int
    left_double: bool
    right_double: bool
    line_mask: int   # the tiles on the line before the play
    move: int        # tile * 2 + end
    drew: bool


@dataclass(frozen=True)
class InfoSet(LineEnds):
    rules: Rules
    seat: int                 # the viewpoint: the seat to move
    scores: tuple             # by side
    hand: int                 # the seat's own hand (mask)
    line: tuple               # oriented pairs, left to right
    hand_sizes: tuple         # by seat
    reserve_size: int
    passes: int               # consecutive passes just before now
    draws_this_turn: int      # draws the seat made in the current turn
    last_drawn: int           # the tile it drew last in this turn, or -1
    groups: tuple             # Group, the reserve last
    free: tuple               # (tile, allowed-groups bitmask), ascending tiles
    played_free: int          # mask of free tiles that are already on the line
    decisions: tuple = ()     # Decision: the other seats' plays this round (the lead excepted)
    public: "PublicView | None" = None   # what every seat knows of every hand (the endgame's deals)

    @property
    def unknown(self) -> int:
        """Tiles in other hands or the reserve, from this seat's view."""
        return sum(1 << t for t, _ in self.free) & ~self.played_free

    def key(self) -> tuple:
        """Everything that defines the set: equal keys, equal information."""
        return (self.rules, self.seat, self.scores, self.hand, self.line, self.hand_sizes,
                self.reserve_size, self.passes, self.draws_this_turn, self.last_drawn,
                self.groups, self.free, self.played_free, self.decisions, self.public)


@dataclass(frozen=True)
class PublicView:
    """What every seat knows about every hand, the seat to move's own included: the proofs
    of an observer who sees no hand at all. `groups` holds every seat's epochs and the
    reserve (last), `free` every tile off the line and every played tile of uncertain origin
    with the groups it may belong to, as in `InfoSet`; `decisions` every seat's plays after
    the lead. Its worlds are the deals of both hands that the game itself deals among (the
    other seat does not know the seat to move's hand either): the exact endgame's chance
    (`endgame.py`)."""
    groups: tuple
    free: tuple
    played_free: int
    decisions: tuple = ()


class _SeatHistory:
    """One hidden seat's epochs, proofs and plays, as everyone saw them."""

    def __init__(self, hand_size: int):
        self.epochs = [[-1, hand_size]]     # [event that opened it, tiles acquired]
        self.voids = []                      # (event, mask of the tiles it rules out, ends)
        self.plays = []                      # (event, tile, epoch it surely came from or None)
        self.turn_draws = 0                  # draws in the turn in progress
        self.turn_start = None               # event of the first draw of that turn


class Observer:
    """Follows a round event by event and keeps the proofs about the hidden seats' tiles.

    It reads only what every seat sees (the line, who played what, who drew how many, who
    passed, the sizes) plus the hands of the `known` seats, so feeding it a complete record
    gives the same information as feeding it the record with the other hands nulled.
    """

    def __init__(self, rules: Rules, known, state: State):
        self.rules = rules
        self.known = frozenset(known)
        # Every seat's epochs and proofs, the known seats' too (for the public view).
        self.histories = {j: _SeatHistory(rules.hand_size) for j in range(rules.players)}
        self.lead = None
        self.state = state
        self.n_events = 0
        self.decisions = []      # Decision: every seat's plays after the lead

    @property
    def hist(self) -> dict:
        """The hidden seats' histories."""
        return {j: h for j, h in self.histories.items() if j not in self.known}

    def step(self, seat: int, action: int, after: State):
        """Record the event `seat` took (`action`: a play, DRAW or PASS) leading to `after`."""
        i = self.n_events
        before = self.state
        ends = (before.left, before.right)
        self.n_events += 1
        self.state = after
        if self.lead is None and action < DRAW:
            self.lead = (seat, action >> 1)
        h = self.histories[seat]
        if action == DRAW:
            if h.turn_draws == 0:
                h.epochs.append([i, 0])
                h.turn_start = i
            h.epochs[-1][1] += 1
            h.turn_draws += 1
            return
        if action == PASS:
            h.voids.append((h.turn_start if h.turn_draws else i, numbers_mask(ends), ends))
        else:
            t = action >> 1
            fixed = None
            if h.turn_draws:
                # It drew until a tile fitted: that tile is the one played, the others drawn
                # in this turn, and the whole hand, show neither end.
                h.voids.append((h.turn_start, numbers_mask(ends), ends))
                fixed = len(h.epochs) - 1
            elif self.lead == (seat, t) and len(after.line) == 1:
                fixed = 0   # the lead comes from the dealt hand
            h.plays.append((i, t, fixed))
            if before.led:
                self.decisions.append(Decision(
                    i, seat, before.left, before.right, bool(before.left_double),
                    bool(before.right_double), before.line_mask(), action, bool(h.turn_draws)))
        h.turn_draws = 0
        h.turn_start = None

    # ---- the proofs as groups ------------------------------------------------------------
    def constraints(self, public: bool = False):
        """(groups, {tile: allowed-groups mask}, played_free mask) for the hidden tiles; with
        `public`, for every tile off the line as an observer who sees no hand knows them
        (every seat's epochs, the known seats' included)."""
        rules, state = self.rules, self.state
        line_mask = state.line_mask()
        hidden = self.histories if public else self.hist
        own = 0
        if not public:
            for j in self.known:
                own |= state.hands[j]
        lead_forbidden = _lead_forbidden(rules, self.lead[1]) if self.lead else 0
        unknown = ALL_TILES & ~own & ~line_mask
        allowed = {t: 0 for t in iter_mask(unknown)}
        groups, fixed_count = [], {}
        for j in sorted(hidden):
            h = hidden[j]
            if public and j == state.to_move and h.turn_draws:
                h = self._turn_so_far(h)
            first = len(groups)
            for k, (start, cap) in enumerate(h.epochs):
                groups.append(Group(j, k, cap, start))
                # A tile still held, from epoch k: no number of a proof since it opened.
                banned = lead_forbidden if k == 0 else 0
                for ev, nums, _ in h.voids:
                    if ev >= start:
                        banned |= nums
                for t in iter_mask(unknown & ~banned):
                    allowed[t] |= 1 << (first + k)
            for ev_play, t, fixed in h.plays:
                if fixed is not None:
                    fixed_count[first + fixed] = fixed_count.get(first + fixed, 0) + 1
                    continue
                # A tile played: from an epoch opened before, with no proof against it while held.
                mask = 0
                for k, (start, _) in enumerate(h.epochs):
                    if start >= ev_play:
                        continue
                    banned = lead_forbidden if k == 0 else 0
                    for ev, nums, _ in h.voids:
                        if start <= ev < ev_play:
                            banned |= nums
                    if not banned >> t & 1:
                        mask |= 1 << (first + k)
                allowed[t] = mask
        reserve_index = len(groups)
        groups.append(Group(RESERVE, -1, state.reserve_size))
        for t in iter_mask(unknown):
            allowed[t] |= 1 << reserve_index
        groups = tuple(Group(g.owner, g.epoch, g.capacity - fixed_count.get(i, 0), g.opened)
                       for i, g in enumerate(groups))
        played_free = sum(1 << t for t in allowed if line_mask >> t & 1)
        return groups, tuple(sorted(allowed.items())), played_free

    def _turn_so_far(self, h: "_SeatHistory") -> "_SeatHistory":
        """The history of the seat to move in the middle of a draw turn, with what everyone
        knows already: it drew because nothing fitted, so its hand, and every tile drawn
        this turn but the last, shows neither end (the last one, drawn just now, may fit)."""
        state = self.state
        ends = (state.left, state.right)
        view = _SeatHistory(0)
        start, cap = h.epochs[-1]
        view.epochs = [list(e) for e in h.epochs[:-1]] + [[start, cap - 1],
                                                           [self.n_events, 1]]
        view.voids = list(h.voids) + [(h.turn_start, numbers_mask(ends), ends)]
        view.plays = h.plays
        return view

    def why_not(self, seat: int, tile: int) -> str:
        """Why the hidden `seat` cannot hold `tile` now: the proof against its latest chance
        to have got it (for error messages)."""
        h = self.histories[seat]
        start = h.epochs[-1][0]
        for ev, nums, ends in h.voids:
            if ev >= start and nums >> tile & 1:
                shown = " or ".join(str(v) for v in sorted(set(ends)) if TILES_WITH[v] >> tile & 1)
                return (f"its draw or pass at event {ev} (ends {ends[0]} and {ends[1]}) proved it "
                        f"held no {shown}, and it has drawn nothing since")
        return f"the lead proved no hand was dealt {tile_str(tile)}, and seat {seat} has not drawn since"

    def infoset(self, seat: int) -> InfoSet:
        """The information set of `seat` (one of the known seats), which must be to move."""
        state = self.state
        if self.known != {seat}:
            raise ValueError("an information set is built for one known seat")
        if state.ended is not None:
            raise BergenError("the round is over: there is no decision to search")
        if not state.led:
            raise BergenError("the round stops before the lead, which is forced: nothing to search")
        if state.to_move != seat:
            raise BergenError(f"seat {state.to_move} is to move, not seat {seat}")
        groups, free, played_free = self.constraints()
        public = PublicView(*self.constraints(public=True), tuple(self.decisions))
        hidden_decisions = tuple(d for d in self.decisions if d.seat not in self.known)
        return InfoSet(
            rules=self.rules, seat=seat, scores=state.scores, hand=state.hands[seat],
            line=state.line, hand_sizes=tuple(state.hand_size(j) for j in range(self.rules.players)),
            reserve_size=state.reserve_size, passes=state.passes,
            draws_this_turn=state.draws_this_turn, last_drawn=state.last_drawn,
            groups=groups, free=free, played_free=played_free, decisions=hidden_decisions,
            public=public)


def from_state_and_events(rules: Rules, seat: int, hand: int, start_scores, events) -> InfoSet:
    """Seat's information set for a round from its dealt hand and the public events
    `(seat, action, tile)` (action a move int, DRAW or PASS; `tile` is read only for the
    seat's own draws, and must be given for them). Every other hand is hidden, so an illegal
    history raises BergenError located at its event."""
    hands = [None] * rules.players
    hands[seat] = hand
    state = State.deal(rules, hands, None, start_scores)
    obs = Observer(rules, {seat}, state)
    for i, (who, action, tile) in enumerate(events):
        try:
            if action == DRAW and who == seat and (tile is None or tile < 0):
                raise BergenError(f"seat {seat}'s own draw must name its tile", field="draw")
            state = state.apply(action, who, tile if (action == DRAW and who == seat) else None)
        except BergenError as e:
            raise e.located(event=i) from None
        obs.step(who, action, state)
    return obs.infoset(seat)


def _lead_forbidden(rules: Rules, lead_tile: int) -> int:
    """Tiles no dealt hand can have held, given the lead tile (the lead itself excepted)."""
    rank = _rank_of(rules, lead_tile)
    return sum(1 << t for t in range(N_TILES) if t != lead_tile and _rank_of(rules, t) < rank)


def _position_constraints(pos, seats, unknown):
    """(groups, free) of a position's hidden tiles `unknown` dealt among `seats` (one group
    each, its hand, barred from its voids) and the reserve."""
    groups, allowed = [], {t: 0 for t in iter_mask(unknown)}
    for j in seats:
        banned = numbers_mask(pos.voids.get(j, ()))
        for t in allowed:
            if not banned >> t & 1:
                allowed[t] |= 1 << len(groups)
        groups.append(Group(j, 0, pos.hand_sizes[j]))
    for t in allowed:
        allowed[t] |= 1 << len(groups)
    groups.append(Group(RESERVE, -1, pos.reserve_size))
    return tuple(groups), tuple(sorted(allowed.items()))


def from_position(pos) -> InfoSet:
    """The information set of a `bergen-position/1` (no history: its voids are the proofs)."""
    rules = pos.rules
    seat = pos.to_move
    line_mask = 0
    from .tiles import tile_index
    for a, b in pos.line:
        line_mask |= 1 << tile_index(a, b)
    others = [j for j in range(rules.players) if j != seat]
    groups, free = _position_constraints(pos, others, ALL_TILES & ~pos.hand & ~line_mask)
    public = PublicView(*_position_constraints(pos, range(rules.players),
                                               ALL_TILES & ~line_mask), 0)
    return InfoSet(
        rules=rules, seat=seat, scores=tuple(pos.scores), hand=pos.hand, line=tuple(pos.line),
        hand_sizes=tuple(pos.hand_sizes), reserve_size=pos.reserve_size, passes=0,
        draws_this_turn=0, last_drawn=-1, groups=groups, free=free, played_free=0,
        public=public)
