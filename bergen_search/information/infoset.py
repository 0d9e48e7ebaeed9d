"""What one seat knows (RULES.md, "Decisions and chance"): an `InfoSet` holds what it sees and
the proofs about the hidden tiles: the free tiles, the groups they may come from (per other
seat one per epoch: its deal, then each turn it drew; and the reserve), and for each free tile
the groups it may belong to. `Observer` builds it from a round's events."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from functools import reduce
from operator import or_

from ..errors import BergenError
from ..game.rules import Rules
from ..game.state import DRAW, PASS, State, lead_rank
from ..game.tiles import (
    ALL_TILES,
    N_TILES,
    TILES_WITH,
    LineEnds,
    iter_mask,
    popcount,
    tile_index,
    tile_str,
)

RESERVE = -1


def numbers_mask(numbers) -> int:
    """Mask of the tiles showing any of the numbers."""
    return reduce(or_, (TILES_WITH[v] for v in numbers), 0)


@dataclass(frozen=True)
class Group:
    owner: int       # seat, or RESERVE
    epoch: int       # 0 the deal, k the k-th turn on which the owner drew; -1 for the reserve
    capacity: int    # tiles it holds, played ones included
    opened: int = -1 # the event of the round that opened it (its first draw); -1 the deal


@dataclass(frozen=True)
class ObservedPlay:
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
    decisions: tuple = ()     # ObservedPlay: the other seats' plays this round (the lead excepted)
    public: "PublicView | None" = None   # what every seat knows of every hand (the endgame's deals)

    @property
    def unknown(self) -> int:
        """Tiles in other hands or the reserve, from this seat's view."""
        return sum(1 << t for t, _ in self.free) & ~self.played_free

    def key(self) -> tuple:
        """Everything that defines the set: equal keys, equal information."""
        return tuple(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class PublicView:
    """What every seat knows about every hand, as in `InfoSet` but for every seat (the groups
    of every seat's epochs): the exact endgame's chance."""
    groups: tuple
    free: tuple
    played_free: int
    decisions: tuple = ()


#: The most groups a set may have (the core's sampler keeps a group's owner in 64 slots).
MAX_GROUPS = 64
#: The most events a round has (a bound; the core's passes fit a byte).
MAX_EVENTS = 255


def _int(v) -> bool:
    return type(v) is int


def check_infoset(info, public: bool = False) -> InfoSet:
    """`info` if a search can start from it, else BergenError; `public`: the exact endgame's
    public view (no hand)."""
    if not isinstance(info, InfoSet):
        raise BergenError(f"expected an information set (infoset.InfoSet), got "
                          f"{type(info).__name__}", field="info")
    rules = info.rules
    if not isinstance(rules, Rules):
        raise BergenError(f"expected a bergen_search.game.rules.Rules, got {type(rules).__name__}",
                          field="rules")
    n = rules.players
    if not _int(info.seat) or not 0 <= info.seat < n:
        raise BergenError(f"the seat to move must be 0..{n - 1}, got {info.seat!r}", field="seat")
    line_mask = _check_line(info.line)
    _check_counts(info, line_mask, public)
    _check_groups(info, line_mask, public)
    return info


def _check_line(line) -> int:
    if not isinstance(line, tuple) or not line:
        raise BergenError("the line is empty: the round has not been led, and the lead is "
                          "forced, so there is no decision to search", field="line")
    line_mask = 0
    for i, pair in enumerate(line):
        if (not isinstance(pair, tuple) or len(pair) != 2 or not all(_int(x) and 0 <= x <= 6
                                                                     for x in pair)):
            raise BergenError(f"line tile {i} must be a pair of numbers 0..6, got {pair!r}",
                              field="line")
        if i and line[i - 1][1] != pair[0]:
            raise BergenError(f"line tile {i} ({pair[0]}-{pair[1]}) does not join the one "
                              f"before it", field="line")
        bit = 1 << tile_index(*pair)
        if line_mask & bit:
            raise BergenError(f"tile {pair[0]}-{pair[1]} is twice on the line", field="line")
        line_mask |= bit
    return line_mask


def _check_counts(info: InfoSet, line_mask: int, public: bool) -> None:
    rules, n, line = info.rules, info.rules.players, info.line
    if public:
        if info.hand != 0:
            raise BergenError(f"the public view holds no hand, got {info.hand!r}", field="hand")
    elif not _int(info.hand) or not 0 < info.hand <= ALL_TILES:
        raise BergenError(f"the hand must be a non-empty 28-bit mask, got {info.hand!r} (an "
                          f"empty hand means the round is over)", field="hand")
    if info.hand & line_mask:
        raise BergenError("a tile is both in the hand and on the line", field="hand")
    sizes = info.hand_sizes
    if not isinstance(sizes, tuple) or len(sizes) != n or not all(_int(k) for k in sizes):
        raise BergenError(f"hand_sizes must be {n} integers, got {sizes!r}", field="hand_sizes")
    for j, k in enumerate(sizes):
        if not 1 <= k <= N_TILES:
            raise BergenError(f"seat {j} holds {k} tiles: "
                              + ("with none the round is over" if k < 1 else "more than 28"),
                              field=f"hand_sizes[{j}]")
    if not public and sizes[info.seat] != popcount(info.hand):
        raise BergenError(f"hand_sizes[{info.seat}] is {sizes[info.seat]}, but the hand holds "
                          f"{popcount(info.hand)} tiles", field=f"hand_sizes[{info.seat}]")
    start = rules.reserve_start
    if not _int(info.reserve_size) or not rules.reserve_kept <= info.reserve_size <= start:
        raise BergenError(f"the reserve holds {rules.reserve_kept}..{start} tiles with these "
                          f"rules (it starts with {start} and never falls below the "
                          f"{rules.reserve_kept} kept), got {info.reserve_size!r}",
                          field="reserve_size")
    scores = info.scores
    if (not isinstance(scores, tuple) or len(scores) != rules.n_sides
            or not all(_int(x) for x in scores)):
        raise BergenError(f"scores must be {rules.n_sides} integers, got {scores!r}",
                          field="scores")
    for side, x in enumerate(scores):
        if not 0 <= x < rules.target:
            raise BergenError(f"side {side} has {x} points: scores run from 0 to below the "
                              f"target {rules.target} (at the target the match is over)",
                              field="scores")
    if not _int(info.passes) or not 0 <= info.passes <= MAX_EVENTS:
        raise BergenError(f"passes in a row must be 0..{MAX_EVENTS}, got {info.passes!r}",
                          field="passes")
    if (info.passes >= n and not rules.drawable(info.reserve_size)
            and not info.draws_this_turn):
        raise BergenError(f"{info.passes} passes in a row with the reserve at "
                          f"{info.reserve_size}: the round is blocked, so over", field="passes")
    drawn = start - info.reserve_size
    if not _int(info.draws_this_turn) or not 0 <= info.draws_this_turn <= drawn:
        raise BergenError(f"draws this turn must be 0..{drawn}, got {info.draws_this_turn!r}",
                          field="draws_this_turn")
    if not _int(info.last_drawn) or not -1 <= info.last_drawn < N_TILES:
        raise BergenError(f"last_drawn must be a tile or -1, got {info.last_drawn!r}",
                          field="last_drawn")
    total = sum(sizes) + len(line) + info.reserve_size
    if total != N_TILES:
        raise BergenError(f"the tiles add up to {total}, not 28 (hands, line and reserve)",
                          field="hand_sizes")


def _check_groups(info: InfoSet, line_mask: int, public: bool) -> None:
    n, sizes, groups = info.rules.players, info.hand_sizes, info.groups
    if (not isinstance(groups, tuple) or not 1 <= len(groups) <= MAX_GROUPS
            or not all(isinstance(g, Group) for g in groups)):
        raise BergenError(f"groups must be 1..{MAX_GROUPS} Group objects", field="groups")
    for g in groups[:-1]:
        if not _int(g.owner) or not 0 <= g.owner < n or (g.owner == info.seat and not public):
            raise BergenError(f"a group's owner must be another seat, got {g.owner!r}",
                              field="groups")
    if groups[-1].owner != RESERVE or groups[-1].capacity != info.reserve_size:
        raise BergenError("the last group must be the reserve, holding reserve_size tiles",
                          field="groups")
    if not all(_int(g.capacity) and 0 <= g.capacity <= N_TILES for g in groups):
        raise BergenError("a group holds 0..28 tiles", field="groups")
    free = info.free
    if not isinstance(free, tuple):
        raise BergenError("free must be a tuple of (tile, allowed groups)", field="free")
    tiles, previous = 0, -1
    for item in free:
        if (not isinstance(item, tuple) or len(item) != 2 or not _int(item[0])
                or not _int(item[1]) or not previous < item[0] < N_TILES
                or not 0 <= item[1] < 1 << len(groups)):
            raise BergenError(f"a free tile must be (tile 0..27, ascending, allowed-groups "
                              f"mask), got {item!r}", field="free")
        previous = item[0]
        tiles |= 1 << item[0]
    played = info.played_free
    if not _int(played) or played & ~(tiles & line_mask):
        raise BergenError("played_free must be free tiles that are on the line",
                          field="played_free")
    if tiles & ~played != ALL_TILES & ~info.hand & ~line_mask:
        raise BergenError("the free tiles must be every tile neither in the hand nor on the "
                          "line (and played tiles of uncertain origin)", field="free")
    # Each other seat's groups hold its hand plus the tiles it played from them. (A played
    # tile that no group may hold leaves no world: the world table says so.)
    placed = all(a for t, a in free if played >> t & 1)
    for j in range(n if placed else 0):
        if j == info.seat and not public:
            continue
        mine = sum(1 << i for i, g in enumerate(groups) if g.owner == j)
        kept = sum(g.capacity for g in groups if g.owner == j) - sum(
            1 for t, a in free if played >> t & 1 and a and not a & ~mine)
        if kept != sizes[j]:
            raise BergenError(f"seat {j}'s groups hold {kept} tiles in hand, not its size "
                              f"{sizes[j]}", field="groups")


class _SeatHistory:
    """One hidden seat's epochs, proofs and plays, as everyone saw them."""

    def __init__(self, hand_size: int):
        self.epochs = [[-1, hand_size]]     # [event that opened it, tiles acquired]
        # (event, mask of the tiles it rules out, ends)
        self.voids: list[tuple[int, int, tuple[int, int]]] = []
        # (event, tile, epoch it surely came from or None)
        self.plays: list[tuple[int, int, int | None]] = []
        self.turn_draws = 0         # draws in the turn in progress
        self.turn_start = -1        # event of the first draw of that turn


class Observer:
    """Follows a round and keeps the proofs about the hidden tiles, seeing the `known` hands."""

    def __init__(self, rules: Rules, known, state: State):
        self.rules, self.known, self.state, self.n_events = rules, frozenset(known), state, 0
        # Every seat's epochs and proofs, the known seats' too (for the public view).
        self.histories = {j: _SeatHistory(rules.hand_size) for j in range(rules.players)}
        self.lead: tuple[int, int] | None = None     # (seat, tile) once led
        self.decisions: list[ObservedPlay] = []      # every seat's plays after the lead

    @property
    def hist(self) -> dict:
        return {j: h for j, h in self.histories.items() if j not in self.known}

    def step(self, seat: int, action: int, after: State):
        """Record the event `seat` took (`action`: a play, DRAW or PASS) leading to `after`."""
        i, before = self.n_events, self.state
        ends = (before.left, before.right)
        self.n_events, self.state = i + 1, after
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
                self.decisions.append(ObservedPlay(
                    i, seat, before.left, before.right, bool(before.left_double),
                    bool(before.right_double), before.line_mask(), action, bool(h.turn_draws)))
        h.turn_draws, h.turn_start = 0, -1

    def constraints(self, public: bool = False) -> tuple[
            tuple[Group, ...], tuple[tuple[int, int], ...], int]:
        """(groups, ((tile, allowed-groups mask), ...), played_free mask) of the hidden tiles;
        `public`: of every tile off the line, as an observer who sees no hand."""
        rules, state = self.rules, self.state
        line_mask = state.line_mask()
        hidden = self.histories if public else self.hist
        own = 0 if public else sum(state.hands[j] for j in self.known)
        forbidden = lead_forbidden(rules, self.lead[1]) if self.lead else 0
        unknown = ALL_TILES & ~own & ~line_mask
        allowed = {t: 0 for t in iter_mask(unknown)}
        groups: list[Group] = []
        fixed_count: dict[int, int] = {}     # group: tiles played from it for sure
        for j in sorted(hidden):
            h = hidden[j]
            if j == state.to_move and h.turn_draws:
                # In the middle of a draw turn (a record's unseen seat, the endgame's public
                # view): what it drew so far already proves its hand free of both ends.
                h = self._turn_so_far(h)
            first = len(groups)
            for k, (start, cap) in enumerate(h.epochs):
                groups.append(Group(j, k, cap, start))
                # A tile still held, from epoch k: no number of a proof since it opened.
                for t in iter_mask(unknown & ~_banned(h, k, forbidden, start)):
                    allowed[t] |= 1 << (first + k)
            for ev_play, t, fixed in h.plays:
                if fixed is not None:
                    fixed_count[first + fixed] = fixed_count.get(first + fixed, 0) + 1
                    continue
                # A tile played: from an epoch opened before, with no proof against it while held.
                allowed[t] = sum(1 << (first + k) for k, (start, _) in enumerate(h.epochs)
                                 if start < ev_play
                                 and not _banned(h, k, forbidden, start, ev_play) >> t & 1)
        reserve_index = len(groups)
        groups.append(Group(RESERVE, -1, state.reserve_size))
        for t in iter_mask(unknown):
            allowed[t] |= 1 << reserve_index
        held = tuple(Group(g.owner, g.epoch, g.capacity - fixed_count.get(i, 0), g.opened)
                     for i, g in enumerate(groups))
        played_free = sum(1 << t for t in allowed if line_mask >> t & 1)
        return held, tuple(sorted(allowed.items())), played_free

    def _turn_so_far(self, h: "_SeatHistory") -> "_SeatHistory":
        """The seat to move's history in the middle of a draw turn: its hand and every tile
        drawn but the last show neither end."""
        state = self.state
        ends = (state.left, state.right)
        view = _SeatHistory(0)
        start, cap = h.epochs[-1]
        view.epochs = [list(e) for e in h.epochs[:-1]] + [[start, cap - 1],
                                                           [self.n_events, 1]]
        view.voids = list(h.voids) + [(h.turn_start, numbers_mask(ends), ends)]
        view.plays = h.plays
        return view

    def proven_voids(self, seat: int) -> dict:
        """{number: (event, ends, how)}: the numbers the hidden `seat` is proven to hold none of
        now, each with its first proof since the latest draw turn that left it a tile (`how`
        "draw" or "pass")."""
        h = self.hist[seat]
        played = Counter(epoch for _, _, epoch in h.plays if epoch is not None)   # for sure
        live = [k for k, (_, got) in enumerate(h.epochs) if got > played[k]]
        start = h.epochs[live[-1] if live else -1][0]
        draw_turns = {opened for opened, _ in h.epochs[1:]}
        out: dict[int, tuple[int, tuple[int, int], str]] = {}
        for ev, _, ends in h.voids:
            if ev >= start:
                for v in sorted(set(ends)):
                    out.setdefault(v, (ev, ends, "draw" if ev in draw_turns else "pass"))
        return out

    def why_not(self, seat: int, tile: int) -> str:
        """Why the hidden `seat` cannot hold `tile` now (for error messages)."""
        h = self.histories[seat]
        start = h.epochs[-1][0]
        for ev, nums, ends in h.voids:
            if ev >= start and nums >> tile & 1:
                shown = " or ".join(str(v) for v in sorted(set(ends))
                                    if TILES_WITH[v] >> tile & 1)
                return (f"its draw or pass at event {ev} (ends {ends[0]} and {ends[1]}) proved "
                        f"it held no {shown}, and it has drawn nothing since")
        return (f"the lead proved no hand was dealt {tile_str(tile)}, and seat {seat} has not "
                f"drawn since")

    def infoset(self, seat: int) -> InfoSet:
        """The information set of `seat`, the one known seat, which must be to move."""
        state = self.state
        if self.known != {seat}:
            raise ValueError("an information set is built for one known seat")
        if state.ended is not None:
            raise BergenError("the round is over: there is no decision to search")
        if state.to_move != seat:
            raise BergenError(f"seat {state.to_move} is to move, not seat {seat}")
        groups, free, played_free = self.constraints()
        public = PublicView(*self.constraints(public=True), tuple(self.decisions))
        hidden_decisions = tuple(d for d in self.decisions if d.seat not in self.known)
        return InfoSet(
            rules=self.rules, seat=seat, scores=state.scores, hand=state.hands[seat],
            line=state.line,
            hand_sizes=tuple(state.hand_size(j) for j in range(self.rules.players)),
            reserve_size=state.reserve_size, passes=state.passes,
            draws_this_turn=state.draws_this_turn, last_drawn=state.last_drawn,
            groups=groups, free=free, played_free=played_free, decisions=hidden_decisions,
            public=public)


def _banned(h: _SeatHistory, k: int, forbidden: int, start: int, until: int | None = None):
    """The tiles the lead and the proofs before `until` rule out of epoch k (opened at `start`)."""
    banned = forbidden if k == 0 else 0
    for ev, nums, _ in h.voids:
        if start <= ev and (until is None or ev < until):
            banned |= nums
    return banned


def from_state_and_events(rules: Rules, seat: int, hand: int, start_scores, events) -> InfoSet:
    """`seat`'s information set from its dealt `hand` and the events `(seat, action, tile)`."""
    hands: list[int | None] = [None] * rules.players
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


def lead_forbidden(rules: Rules, lead_tile: int) -> int:
    """Tiles no dealt hand can have held, given the lead tile (itself excepted)."""
    rank = lead_rank(rules, lead_tile)
    return sum(1 << t for t in range(N_TILES) if t != lead_tile and lead_rank(rules, t) < rank)


def _position_constraints(pos, seats, unknown) -> tuple[
        tuple[Group, ...], tuple[tuple[int, int], ...]]:
    """(groups, free) of the tiles `unknown` among `seats` (barred from voids) and the reserve."""
    groups: list[Group] = []
    allowed = {t: 0 for t in iter_mask(unknown)}
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
    rules, seat, line_mask = pos.rules, pos.to_move, pos.line_mask
    others = [j for j in range(rules.players) if j != seat]
    groups, free = _position_constraints(pos, others, ALL_TILES & ~pos.hand & ~line_mask)
    public = PublicView(*_position_constraints(pos, range(rules.players),
                                               ALL_TILES & ~line_mask), 0)
    return InfoSet(
        rules=rules, seat=seat, scores=tuple(pos.scores), hand=pos.hand, line=tuple(pos.line),
        hand_sizes=tuple(pos.hand_sizes), reserve_size=pos.reserve_size, passes=0,
        draws_this_turn=0, last_drawn=-1, groups=groups, free=free, played_free=0,
        public=public)
