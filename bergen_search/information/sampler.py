"""The world sampler: a programme over the free tiles (state: each group's capacity left)
counts the worlds, and a walk down it draws one, in the core (`_sampler`) or here.

Three tiles are unseen (0-0, 1-1, 5-5): one is the other hand, two the reserve:

>>> from bergen_search.information.infoset import from_position
>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.game.rng import Rng
>>> from bergen_search.game.tiles import format_mask
>>> pos = position_from_flags(hand="2-4", hand_sizes="1,1", line="2-2 2-6 6-0 0-1 1-4 4-4 "
...     "4-5 5-3 3-4 4-0 0-2 2-1 1-3 3-0 0-5 5-1 1-6 6-6 6-3 3-3 3-2 2-5 5-6 6-4")
>>> table = WorldTable(from_position(pos))
>>> table.total, sorted(format_mask(hands[1])[0] for hands, _ in table.enumerate())
(3, ['0-0', '1-1', '5-5'])
>>> format_mask(table.sample(Rng(1)).hands[1])
['5-5']
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import BergenError
from ..game.rng import Rng
from ..game.state import NO_TILE, State
from ..game.tiles import ALL_TILES, N_TILES, mask_of, popcount
from .infoset import RESERVE, InfoSet, check_infoset

#: Programmes larger than this many nodes are refused (real play stays far below).
MAX_NODES = 400_000


@dataclass
class World:
    hands: tuple      # mask per seat, the viewpoint's own included
    reserve: list     # tiles in draw order


def merge_groups(groups, free, factors=None):
    """Merge one owner's groups that every free tile may enter alike (same factors): (merged
    [(owner, capacity)], allowed merged mask per free tile, merged group of each group)."""
    columns = {}
    merged_of = []
    merged = []   # [owner, capacity]
    for g, grp in enumerate(groups):
        col = tuple(bool(a >> g & 1) for _, a in free)
        if factors:
            col += tuple(factors[t][g] if t in factors else 1.0 for t, _ in free)
        key = (grp.owner, col)
        if key in columns and grp.owner != RESERVE:
            idx = columns[key]
            merged[idx][1] += grp.capacity
        else:
            idx = len(merged)
            columns[key] = idx
            merged.append([grp.owner, grp.capacity])
        merged_of.append(idx)
    allowed = [mask_of(merged_of[g] for g in range(len(groups)) if a >> g & 1) for _, a in free]
    return [tuple(x) for x in merged], allowed, merged_of


def _split_ways(groups, merged_of) -> int:
    """The histories behind each world of merged groups (a multinomial per merged group)."""
    members: dict[int, list[int]] = {}     # merged group: its groups' capacities
    for g, m in enumerate(merged_of):
        members.setdefault(m, []).append(groups[g].capacity)
    return math.prod(math.factorial(sum(caps)) // math.prod(map(math.factorial, caps))
                     for caps in members.values())


#: A programme state packs the capacity left in each group, this many bits a group.
_BITS = 5
_CAP_MASK = (1 << _BITS) - 1


def _pack(caps) -> int:
    return sum(c << (_BITS * g) for g, c in enumerate(caps))


def _steps(a: int, n_groups: int) -> list:
    return [(g, 1 << (_BITS * g), _BITS * g) for g in range(n_groups) if a >> g & 1]


def _programme(caps, allowed, weight=None):
    """counts[i][state]: the ways (weighed by `weight[i][g]` if given) to place tiles i.. into
    the groups with the capacities left in `state`."""
    m, G = len(allowed), len(caps)
    if max(caps, default=0) > _CAP_MASK:
        raise BergenError(f"a group holds more than {_CAP_MASK} tiles")
    levels = [{_pack(caps)}]
    nodes = 1
    for i in range(m):
        nxt = set()
        steps = _steps(allowed[i], G)
        for st in levels[-1]:
            for _, unit, shift in steps:
                if st >> shift & _CAP_MASK:
                    nxt.add(st - unit)
        levels.append(nxt)
        nodes += len(nxt)
        if nodes > MAX_NODES:
            raise BergenError("the position leaves too many hidden possibilities to tabulate")
    counts = [None] * (m + 1)
    counts[m] = {st: 1 if st == 0 else 0 for st in levels[m]}
    for i in range(m - 1, -1, -1):
        steps = _steps(allowed[i], G)
        below, here = counts[i + 1], {}
        w = None if weight is None else weight[i]
        for st in levels[i]:
            c = 0 if w is None else 0.0
            for g, unit, shift in steps:
                if st >> shift & _CAP_MASK:
                    c += below[st - unit] if w is None else w[g] * below[st - unit]
            here[st] = c
        counts[i] = here
    return counts


def count_worlds(groups, free) -> int:
    """The number of ways to deal the free tiles into the groups, epochs told apart (0: none)."""
    merged, allowed, merged_of = merge_groups(groups, free)
    caps = [c for _, c in merged]
    if sum(caps) != len(free) or min(caps, default=0) < 0:
        return 0
    return _programme(caps, allowed)[0][_pack(caps)] * _split_ways(groups, merged_of)


class WorldTable:
    """The counting programme of an information set, flattened for the walk: node `v` has
    options `opt_start[v] .. opt_start[v+1]-1` (a group, a child, a cumulative weight).
    `total`: the worlds (merged groups one); `histories`: the histories behind them; `factors`
    {tile: factor per group} weighs them; `public`: `info` is the endgame's public view."""

    def __init__(self, info: InfoSet, factors: dict | None = None, public: bool = False):
        self.info = check_infoset(info, public)
        factors = {t: f for t, f in (factors or {}).items() if any(x != 1.0 for x in f)}
        for t, f in factors.items():
            if len(f) != len(info.groups) or not all(x > 0 and x < float("inf") for x in f):
                raise BergenError(f"tile {t}: factors must be positive, one per group")
        self.factors = factors
        groups, allowed, self.merged_of = merge_groups(info.groups, info.free, factors)
        self.owners = [o for o, _ in groups]
        caps = [c for _, c in groups]
        self.tiles = [t for t, _ in info.free]
        self.is_played = [bool(info.played_free >> t & 1) for t in self.tiles]
        m = len(self.tiles)
        if sum(caps) != m or min(caps, default=0) < 0:
            raise BergenError(f"impossible position: {m} hidden tiles for {sum(caps)} places")
        G = len(groups)
        counts = _programme(caps, allowed)
        root = (0, _pack(caps))
        self.total = counts[0][root[1]]
        self.histories = self.total * _split_ways(info.groups, self.merged_of)
        if self.total == 0:
            raise BergenError("impossible position: no deal of the hidden tiles is consistent "
                              "with everything this seat has seen")
        self.weight = None
        if factors:
            self.weight = [[1.0] * G for _ in self.tiles]
            for g, mg in enumerate(self.merged_of):
                for i, t in enumerate(self.tiles):
                    if t in factors:
                        self.weight[i][mg] = factors[t][g]
            counts = _programme(caps, allowed, self.weight)
        # The nodes with a non-zero count, breadth first from the root.
        index, order = {root: 0}, [root]
        self.opt_start: list[int] = []
        self.opt_group: list[int] = []
        self.opt_child: list[int] = []
        self.opt_cum: list[float] = []
        steps = [_steps(a, G) for a in allowed] + [[]]      # the last level has no options
        for i, st in order:                 # the list grows as the walk finds nodes
            self.opt_start.append(len(self.opt_group))
            cum = 0.0
            for g, unit, shift in steps[i]:
                if not st >> shift & _CAP_MASK or counts[i + 1][st - unit] == 0:
                    continue
                c = counts[i + 1][st - unit]
                if self.weight is not None:
                    c *= self.weight[i][g]
                child = (i + 1, st - unit)
                if child not in index:
                    index[child] = len(order)
                    order.append(child)
                cum += float(c)
                self.opt_group.append(g)
                self.opt_child.append(index[child])
                self.opt_cum.append(cum)
        self.opt_start.append(len(self.opt_group))
        self.n_nodes = len(order)
        self.reserve_group = self.owners.index(RESERVE)
        self.built = self.structure()

    def structure(self) -> int:
        """A fingerprint of the programme, which the compiled sampler checks before a walk."""
        return hash((self.n_nodes, tuple(self.tiles), tuple(self.is_played), tuple(self.owners),
                     tuple(self.opt_start), tuple(self.opt_group), tuple(self.opt_child)))

    def _world(self, assignment, rng: Rng | None) -> World:
        info = self.info
        hands = [0] * info.rules.players
        hands[info.seat] = info.hand
        reserve = []
        for tile, g, played in zip(self.tiles, assignment, self.is_played):
            if played:
                continue
            owner = self.owners[g]
            if owner == RESERVE:
                reserve.append(tile)
            else:
                hands[owner] |= 1 << tile
        if rng is not None:
            rng.shuffle(reserve)
        return World(tuple(hands), reserve)

    def walk(self, rng: Rng) -> list:
        """The group of each free tile in one uniformly drawn world."""
        node, out = 0, []
        for _ in self.tiles:
            lo, hi = self.opt_start[node], self.opt_start[node + 1]
            u = (rng.next64() >> 11) * (1.0 / 9007199254740992.0) * self.opt_cum[hi - 1]
            j = lo
            while j < hi - 1 and u >= self.opt_cum[j]:
                j += 1
            out.append(self.opt_group[j])
            node = self.opt_child[j]
        return out

    def sample(self, rng: Rng) -> World:
        """One world, uniformly among the consistent ones, with a uniform reserve order."""
        return self._world(self.walk(rng), rng)

    def marginals(self) -> dict:
        """{tile: {owner: probability}} for every free tile not played: the exact chance the walk
        puts it with each owner (a seat, or `RESERVE`)."""
        reach = [0.0] * self.n_nodes
        reach[0] = 1.0
        found: list[dict[int, float]] = [dict() for _ in self.tiles]   # owner: chance
        level_of = [0] * self.n_nodes
        for node in range(self.n_nodes):
            lo, hi = self.opt_start[node], self.opt_start[node + 1]
            if lo == hi or reach[node] == 0.0:
                continue
            i = level_of[node]
            total, prev = self.opt_cum[hi - 1], 0.0
            here = found[i]
            for j in range(lo, hi):
                p = reach[node] * (self.opt_cum[j] - prev) / total
                prev = self.opt_cum[j]
                child = self.opt_child[j]
                reach[child] += p
                level_of[child] = i + 1
                owner = self.owners[self.opt_group[j]]
                here[owner] = here.get(owner, 0.0) + p
        return {t: found[i] for i, t in enumerate(self.tiles) if not self.is_played[i]}

    def enumerate(self):
        """{(hands, sorted reserve): weight} of every distinct world."""
        found = {}
        path = []

        def rec(node, i):
            lo, hi = self.opt_start[node], self.opt_start[node + 1]
            if i == len(self.tiles):
                w = self._world(path, None)
                key = (w.hands, tuple(sorted(w.reserve)))
                weight = 1 if self.weight is None else math.prod(
                    self.weight[k][g] for k, g in enumerate(path))
                found[key] = found.get(key, 0) + weight
                return
            for j in range(lo, hi):
                path.append(self.opt_group[j])
                rec(self.opt_child[j], i + 1)
                path.pop()

        rec(0, 0)
        return found


def check_world(info: InfoSet, hands, reserve) -> tuple:
    """`(hands, reserve)` as tuples if they are a world of `info`, else `BergenError`."""
    rules, hands, reserve = info.rules, tuple(hands), tuple(reserve)
    if len(hands) != rules.players:
        raise BergenError(f"expected {rules.players} hands, got {len(hands)}", field="hands")
    if hands[info.seat] != info.hand:
        raise BergenError(f"seat {info.seat}'s hand differs from the information set's",
                          field="hands")
    seen = info.line_mask
    for seat, h in enumerate(hands):
        if not isinstance(h, int) or not 0 <= h <= ALL_TILES:
            raise BergenError(f"seat {seat}'s hand is not a set of the 28 tiles", field="hands")
        if popcount(h) != info.hand_sizes[seat]:
            raise BergenError(f"seat {seat} holds {popcount(h)} tiles, the information set says "
                              f"{info.hand_sizes[seat]}", field="hands")
        if h & seen:
            raise BergenError("a tile is in two places", field="hands")
        seen |= h
    if len(reserve) != info.reserve_size:
        raise BergenError(f"the reserve holds {len(reserve)} tiles, the information set says "
                          f"{info.reserve_size}", field="reserve")
    for t in reserve:
        if not isinstance(t, int) or not 0 <= t < N_TILES:
            raise BergenError(f"reserve tile {t!r} is not a tile", field="reserve")
        if seen >> t & 1:
            raise BergenError("a tile is in two places", field="reserve")
        seen |= 1 << t
    return hands, reserve


def world_state(info: InfoSet, hands, reserve) -> State:
    """The full-information State of a world of `info`, unchecked."""
    reserve = tuple(reserve)
    return State.of(info.rules, hands, info.line, info.scores, reserve=reserve,
                    reserve_size=len(reserve), to_move=info.seat, passes=info.passes,
                    draws_this_turn=info.draws_this_turn,
                    last_drawn=info.last_drawn if info.draws_this_turn else NO_TILE)


class ReferenceSampler:
    """The pure-Python twin of `_sampler.CoreSampler`: a WorldTable's worlds as the core draws
    them."""

    def __init__(self, info: InfoSet, table: WorldTable | None = None):
        self.info, self.seat = info, info.seat
        self.table = WorldTable(info) if table is None else table
        hands = [0] * info.rules.players
        hands[info.seat] = info.hand
        self.base = world_state(info, hands, ())
        self.base.reserve_size = info.reserve_size

    @property
    def total(self) -> int:
        return self.table.total

    def sample(self, rng: Rng) -> tuple:
        """(hands by seat, reserve in draw order) of one world drawn with `rng`."""
        world = self.table.sample(rng)
        return world.hands, world.reserve

    def sample_many(self, n: int, seed: int) -> int:
        """Draw n worlds on one stream; the core's checksum (`CoreSampler.sample_many`)."""
        rng, check = Rng(seed), 0
        for _ in range(n):
            hands, reserve = self.sample(rng)
            check ^= hands[0] ^ (hands[1] << 28) ^ (reserve[0] if reserve else 0)
        return check

    def world(self, rng: Rng) -> State:
        """One world drawn with `rng`, as a full-information State."""
        world = self.table.sample(rng)
        s = self.base._copy()
        s.hands = world.hands
        s.reserve = tuple(world.reserve)
        return s


def count_deals(info: InfoSet, limit: int = MAX_NODES) -> int:
    """The distinct deals (which tiles each other seat and the reserve hold) consistent with
    `info`: a programme over the tiles by class, Hall's condition on each seat's epochs."""
    groups = info.groups
    seats = sorted({g.owner for g in groups if g.owner != RESERVE})
    group_bits = {s: sum(1 << i for i, g in enumerate(groups) if g.owner == s) for s in seats}
    reserve_bit = 1 << next(i for i, g in enumerate(groups) if g.owner == RESERVE)
    played: dict[int, list[int]] = {s: [] for s in seats}    # allowed masks of its played tiles
    classes: dict[int, list[int]] = {s: [] for s in seats}   # its classes' masks
    tiles = []              # per unplayed tile: [(option, seat index or -1, class index)]
    for t, allowed in info.free:
        if info.played_free >> t & 1:
            owner = [s for s in seats if allowed & group_bits[s]]
            if len(owner) != 1:
                return 0       # a played tile no epoch of its player can have held
            played[owner[0]].append(allowed & group_bits[owner[0]])
            continue
        options = [(-1, 0)] if allowed & reserve_bit else []
        for k, s in enumerate(seats):
            c = allowed & group_bits[s]
            if c:
                if c not in classes[s]:
                    classes[s].append(c)
                options.append((k, classes[s].index(c)))
        if not options:
            return 0
        tiles.append(options)
    sizes = [info.hand_sizes[s] for s in seats]
    width = [len(classes[s]) for s in seats]
    # A programme state: the reserve's count, then each seat's class counts.
    start: tuple[Any, ...] = (0,) + tuple((0,) * w for w in width)
    states = {start: 1}
    for options in tiles:
        nxt: dict[tuple[Any, ...], int] = {}
        for st, ways in states.items():
            for k, c in options:
                if k < 0:
                    if st[0] == info.reserve_size:
                        continue
                    new = (st[0] + 1,) + st[1:]
                else:
                    counts = st[1 + k]
                    if sum(counts) == sizes[k]:
                        continue
                    counts = counts[:c] + (counts[c] + 1,) + counts[c + 1:]
                    new = st[:1 + k] + (counts,) + st[2 + k:]
                nxt[new] = nxt.get(new, 0) + ways
        states = nxt
        if len(states) > limit:
            raise BergenError("the position leaves too many hidden possibilities to count the "
                              "deals")
    @cache
    def fills(k: int, counts: tuple) -> bool:
        """Whether seat index k's class counts fill its epochs."""
        s = seats[k]
        return _fills_epochs(groups, group_bits[s], classes[s], counts, played[s])

    return sum(ways for st, ways in states.items() if st[0] == info.reserve_size
               and all(sum(st[1 + k]) == sizes[k] and fills(k, st[1 + k])
                       for k in range(len(seats))))


def _fills_epochs(groups, bits: int, classes: list, counts: tuple, played: list) -> bool:
    """Whether the classes' tiles and the played ones fill the groups `bits` (Hall's condition)."""
    idx = [i for i in range(len(groups)) if bits >> i & 1]
    supply = list(zip(classes, counts)) + [(m, 1) for m in played]
    if sum(n for _, n in supply) != sum(groups[i].capacity for i in idx):
        return False
    for r in range(1, 1 << len(idx)):
        subset = sum(1 << idx[j] for j in range(len(idx)) if r >> j & 1)
        need = sum(groups[idx[j]].capacity for j in range(len(idx)) if r >> j & 1)
        if need > sum(n for m, n in supply if m & subset):
            return False
    return True
