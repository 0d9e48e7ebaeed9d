"""Sampling-importance-resampling behind the exact sampler (issue 43; the searches' setting
`inference=action-sir`), after Rebstock, Solinas, Buro & Sturtevant 2019 (policy-based
inference in Skat).

The action model (`action.py`: how likely a hand was to make the play it made, a
conditional logit over that hand's plays) does not factorise by tile, so the exact sampler
cannot draw from it. Here it weighs whole histories instead:

1. `POOL` candidate worlds are drawn exactly from the hand-set model's table (today's
   default, `WorldTable(info, tile_factors(info, TileModel()))`), each as the group (the
   seat's epoch, or the reserve) of every free tile: a history of deals and draws. Where
   the table merged epochs of one seat that a play falls between, the merged tiles are split
   among those epochs uniformly (every split is a history of the same weight).
2. Each is weighed by the product, over the other seats' plays made with a choice (not
   the one forced right after a draw), of the model's chance of that play given the hand
   that seat held then in that history: the tiles of its epochs opened before the play,
   less those it had played already. The weights are tempered (`TEMPER`), normalised, and
   mixed with the pool's own uniform share (`FLOOR`): a weight collapse falls back to the
   factorised draw.
3. The pool becomes a table (`PoolTable`: a trie over the worlds' groups, each leaf's
   weight its world's share) that the engines' samplers walk unchanged; its root also leads
   into the hand-set table's own programme, so a share `FRESH` of a search's draws are
   fresh worlds of that table (a search drawing ~100,000 worlds from a few hundred fits
   them: benchmarks/BELIEF.md) and the rest are the pool's, each in proportion to its
   weight, with a fresh reserve order.

The pool is drawn with a constant seed: a position gets the same table every time. Only
what the seat to move saw is read (the information set; its `decisions` are the other
seats' plays as everyone saw them).

>>> from bergen_search.formats.game import load_game
>>> info = load_game(open("examples/decision.json").read())
>>> table = pool_table(info)
>>> table.pool, 0 < table.effective <= table.pool
(256, True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import BergenError
from ..game.rng import Rng
from ..game.tiles import (
    DOUBLE_OF, DOUBLES, PIPS, TILE_HIGH, TILE_LOW, TILES_WITH, iter_mask, popcount)
from .action import FEATURES, ActionModel, action_model
from .inference import TileModel, scoring_tile, tile_factors
from .infoset import InfoSet, ObservedPlay
from .sampler import WorldTable

#: Candidate worlds a search weighs, the pool's uniform share in the resampling, the power
#: the likelihoods are raised to, and the seed of the pool's draw.
POOL = 256
FLOOR = 0.1
TEMPER = 1.0
#: The share of a search's draws that are fresh worlds of the hand-set model's table.
FRESH = 0.5
SEED = 0x51_2043
_F = {name: i for i, name in enumerate(FEATURES)}


class PlayRater:
    """One observed play, ready to rate hands: `log_chance(hand)` is the action model's log
    chance that a seat holding `hand` then made this play (`ActionModel.likelihood`, the
    same figure; -inf when `hand` could not make it). Every option's features that do not
    depend on the rest of the hand are summed once here."""
    __slots__ = ("options", "hand_weights", "cache")

    def __init__(self, model: ActionModel, d: ObservedPlay):
        w = model.weights
        self.hand_weights = (w[_F["keeps_fitting"]] / 3.0, w[_F["opened_held"]] / 3.0,
                             w[_F["covered_held"]] / 3.0, w[_F["gives_match"]],
                             w[_F["opens_double_held"]])
        mirrored = d.left == d.right and d.left_double == d.right_double
        move = d.move & ~1 if mirrored else d.move
        late = float(popcount(d.line_mask) >= 8)
        self.options = []       # (tile bit, constant, A, B, C, match bit, double bit, chosen)
        fits = (TILES_WITH[d.left] | TILES_WITH[d.right]) & ~d.line_mask
        for u in iter_mask(fits):
            bit = 1 << u
            for end in (0, 1):
                if not TILES_WITH[d.right if end else d.left] >> u & 1 or (end and mirrored):
                    continue
                covered = d.right if end else d.left
                opened = TILE_LOW[u] + TILE_HIGH[u] - covered
                new_left, new_right = (d.left, opened) if end else (opened, d.right)
                scores = new_left == new_right
                triple = scores and bool(DOUBLES >> u & 1 or (
                    d.left_double if end else d.right_double))
                match = scoring_tile(new_left, new_right)
                const = (w[_F["scores"]] * scores + w[_F["triple"]] * triple
                         + w[_F["pips"]] * PIPS[u] / 12.0 + w[_F["double"]] * (DOUBLES >> u & 1)
                         + w[_F["late"]] * late)
                match_bit = 0
                if not (d.line_mask | bit) >> match & 1:
                    const += w[_F["gives_match"]]       # unless the hand holds the match
                    match_bit = 1 << match
                self.options.append((
                    bit, const, (TILES_WITH[new_left] | TILES_WITH[new_right]) & ~bit,
                    TILES_WITH[opened] & ~bit, TILES_WITH[covered] & ~bit, match_bit,
                    (1 << DOUBLE_OF[opened]) & ~bit, u * 2 + end == move))
        self.cache: dict[int, float] = {}

    def log_chance(self, hand: int) -> float:
        got = self.cache.get(hand)
        if got is not None:
            return got
        w = self.hand_weights
        zs, mine = [], None
        for bit, const, a, b, c, match_bit, dbl, chosen in self.options:
            if not hand & bit:
                continue
            z = (const + w[0] * (hand & a).bit_count() + w[1] * (hand & b).bit_count()
                 + w[2] * (hand & c).bit_count())
            if hand & match_bit:
                z -= w[3]
            if hand & dbl:
                z += w[4]
            zs.append(z)
            if chosen:
                mine = z
        if mine is None:
            out = -math.inf
        elif len(zs) == 1:
            out = 0.0
        else:
            top = max(zs)
            out = mine - top - math.log(sum(math.exp(z - top) for z in zs))
        self.cache[hand] = out
        return out


class HistoryWeigher:
    """The other seats' plays of an information set, ready to weigh the histories of its
    table (`log_weight`): the hand each seat held at each of its plays with a choice is
    rebuilt from the history's groups."""

    def __init__(self, info: InfoSet, table: WorldTable, model: ActionModel):
        self.table = table
        groups = info.groups
        merged_of = table.merged_of
        members: dict[int, list[int]] = {}
        for g, m in enumerate(merged_of):
            members.setdefault(m, []).append(g)
        self.seats = []     # (group list, [(rater, groups opened before, played before)])
        splits = set()
        for j in range(info.rules.players):
            if j == info.seat:
                continue
            mine = [d for d in info.decisions if d.seat == j]
            rated = [d for d in mine if not d.drew]
            if not rated:
                continue
            own = [g for g, grp in enumerate(groups) if grp.owner == j]
            plays = []
            for d in rated:
                before = [g for g in own if groups[g].opened < d.event]
                played = 0
                for x in mine:
                    if x.event < d.event:
                        played |= 1 << (x.move >> 1)
                plays.append((PlayRater(model, d), before, played))
                for g in own:       # a merged group that this play falls between
                    if len({groups[k].opened < d.event for k in members[merged_of[g]]}) > 1:
                        splits.add(merged_of[g])
            self.seats.append((own, plays))
        self.members = members
        self.splits = sorted(splits)
        self.capacity = [grp.capacity for grp in groups]
        # per merged group: the group its tiles count in (its first member), -1 when no
        # rated play reads it (the reserve, a seat without one), -2 when split
        read = {g for own, _ in self.seats for g in own}
        self.target = [-2 if m in splits else members[m][0] if members[m][0] in read else -1
                       for m in range(len(members))]
        self.bits = [1 << t for t in table.tiles]
        self.seen: dict[tuple, float] = {}

    def group_masks(self, assignment, rng: Rng) -> list:
        """The tiles of each group of `info.groups` in the history `assignment` (the merged
        group of each free tile, `WorldTable.walk`); a merged group's tiles go to its first
        member unless a play falls between its members (then split uniformly, with `rng`)."""
        masks = [0] * len(self.capacity)
        target = self.target
        split_tiles: dict[int, list[int]] = {m: [] for m in self.splits}
        for t, bit, m in zip(self.table.tiles, self.bits, assignment):
            g = target[m]
            if g >= 0:
                masks[g] |= bit
            elif g == -2:
                split_tiles[m].append(t)
        for m, tiles in split_tiles.items():
            rng.shuffle(tiles)
            k = 0
            for g in self.members[m]:
                for t in tiles[k:k + self.capacity[g]]:
                    masks[g] |= 1 << t
                k += self.capacity[g]
        return masks

    def log_weight(self, assignment, rng: Rng) -> float:
        """The log of the action model's chance of every rated play in this history (a
        history drawn again, without a split to draw, is weighed once)."""
        if not self.splits:
            got = self.seen.get(assignment)
            if got is not None:
                return got
        masks = self.group_masks(assignment, rng)
        total = 0.0
        for _, plays in self.seats:
            for rater, before, played in plays:
                hand = 0
                for g in before:
                    hand |= masks[g]
                total += rater.log_chance(hand & ~played)
        if not self.splits:
            self.seen[assignment] = total
        return total


class PoolTable(WorldTable):
    """A world table that draws from a weighted pool of a base table's worlds: its programme
    is a trie over the worlds' groups (tile by tile, as the base table's), each option
    weighing the pool's share below it, so the samplers (`_sampler.CoreSampler`,
    `sampler.ReferenceSampler`) walk it unchanged. `enumerate` gives each distinct world its
    share; `marginals` are the pool's exact chances. With `fresh` > 0, the root also leads
    into the base table's own programme: that share of the draws are fresh worlds of the
    base table, the rest the pool's. `pool`, `effective` (the effective sample size of the
    normalised weights before the floor, 1 / sum of squares) and `distinct` describe the
    pool, and `resampled` says them in a search's info."""

    def __init__(self, base: WorldTable, assignments: list, shares: list, effective: float,
                 fresh: float = 0.0):
        # The base table's description of the tiles and groups, not its programme.
        for name in ("info", "factors", "merged_of", "owners", "tiles", "is_played", "total",
                     "histories", "reserve_group"):
            setattr(self, name, getattr(base, name))
        self.weight = None
        self.pool = len(assignments)
        self.effective = effective
        merged: dict[tuple, float] = {}
        for a, q in zip(assignments, shares):
            if q > 0:
                merged[a] = merged.get(a, 0.0) + q
        if not merged:
            raise BergenError("no world of the pool has a positive weight")
        self.shares = merged
        self.distinct = len(merged)
        self.base, self.fresh = base, fresh
        self.samplers: dict = {}        # built for it, one a class (`registry.sampler`)
        self._build(sorted(merged))
        if fresh > 0 and self.tiles:
            self._mix(base, fresh)
        # what a search reports of the pool: its info's `resampled`
        self.resampled = {"pool": self.pool, "distinct": self.distinct,
                          "effective": round(self.effective, 1)}

    def _build(self, worlds: list) -> None:
        """The trie, depth first (a child's index above its parent's, as the samplers need):
        a node is a run of `worlds` (sorted) sharing a prefix; a world alone below a node is
        a chain of one-option nodes, written at once."""
        m = len(self.tiles)
        self.opt_start, self.opt_group, self.opt_child, self.opt_cum = [], [], [], []
        self.n_nodes = 0
        self._node(worlds, 0, len(worlds), 0, m)
        self.opt_start.append(len(self.opt_group))

    def _node(self, worlds: list, lo: int, hi: int, i: int, m: int) -> None:
        """Write the node of worlds[lo:hi] at tile i, and everything below it."""
        starts, groups, children, cums = (self.opt_start, self.opt_group, self.opt_child,
                                          self.opt_cum)
        v = self.n_nodes
        if hi - lo == 1:                    # a chain: tiles i.. of one world, then its leaf
            n = m - i
            starts.extend(range(len(groups), len(groups) + n))
            groups.extend(worlds[lo][i:])
            children.extend(range(v + 1, v + n + 1))
            cums.extend([self.shares[worlds[lo]]] * n)
            starts.append(len(groups))
            self.n_nodes = v + n + 1
            return
        starts.append(len(groups))
        self.n_nodes = v + 1
        if i == m:
            return
        runs, j, cum = [], lo, 0.0
        while j < hi:
            g, start = worlds[j][i], j
            while j < hi and worlds[j][i] == g:
                cum += self.shares[worlds[j]]
                j += 1
            runs.append((start, j, len(groups)))
            groups.append(g)
            children.append(-1)             # known once the child is written
            cums.append(cum)
        for start, stop, option in runs:
            children[option] = self.n_nodes
            self._node(worlds, start, stop, i + 1, m)

    def __getstate__(self):
        """Pickled (to the search's processes) without its samplers: each builds its own."""
        return {**self.__dict__, "samplers": {}}

    def _mix(self, base: WorldTable, fresh: float) -> None:
        """One root over the base table's programme (its share `fresh`) and the trie (the
        rest): the base's nodes keep their numbers, the trie's follow them."""
        t_start, t_group, t_child, t_cum = (self.opt_start, self.opt_group, self.opt_child,
                                            self.opt_cum)
        b_start = base.opt_start
        shift = base.n_nodes - 1                  # the trie's node v > 0 is v + shift
        t_total, b_total = t_cum[t_start[1] - 1], base.opt_cum[b_start[1] - 1]
        k = t_start[1] - t_start[0]               # the root's options from the trie
        n_b = len(base.opt_group)
        root_b = range(b_start[0], b_start[1])
        self.opt_group = ([base.opt_group[j] for j in root_b] + [t_group[j] for j in range(k)]
                          + base.opt_group[b_start[1]:] + t_group[k:])
        self.opt_child = ([base.opt_child[j] for j in root_b]
                          + [t_child[j] + shift for j in range(k)] + base.opt_child[b_start[1]:]
                          + [c + shift for c in t_child[k:]])
        self.opt_cum = ([fresh * base.opt_cum[j] / b_total for j in root_b]
                        + [fresh + (1 - fresh) * t_cum[j] / t_total for j in range(k)]
                        + base.opt_cum[b_start[1]:] + t_cum[k:])
        # the root's options first, then the base's nodes, then the trie's (its root gone)
        self.opt_start = ([0] + [x + k for x in b_start[1:-1]]
                          + [x - k + n_b + k for x in t_start[1:]])
        self.n_nodes = base.n_nodes + self.n_nodes - 1

    def enumerate(self):
        """Every distinct world (hands and reserve contents) with its chance: its share of
        the pool, and with `fresh`, plus that share of its chance in the base table."""
        found: dict = {}
        for a, q in self.shares.items():
            w = self._world(a, None)
            key = (w.hands, tuple(sorted(w.reserve)))
            found[key] = found.get(key, 0.0) + (1 - self.fresh) * q
        if self.fresh > 0:
            worlds = self.base.enumerate()
            total = sum(worlds.values())
            for key, q in worlds.items():
                found[key] = found.get(key, 0.0) + self.fresh * q / total
        return found



@dataclass(frozen=True)
class Resampling:
    """The resampling's settings: candidate worlds, the uniform share, the likelihoods'
    power, the seed of the draw."""
    pool: int = POOL
    floor: float = FLOOR
    temper: float = TEMPER
    seed: int = SEED
    fresh: float = FRESH

    def __post_init__(self):
        if type(self.pool) is not int or not 1 <= self.pool <= 100_000:
            raise BergenError(f"the pool must be 1..100000 worlds, got {self.pool!r}",
                              field="pool")
        if not 0 < self.floor <= 1:
            raise BergenError(f"the floor must be in (0, 1], got {self.floor!r}", field="floor")
        if not 0 <= self.fresh < 1:
            raise BergenError(f"the fresh share must be in [0, 1), got {self.fresh!r}",
                              field="fresh")
        if not 0 <= self.temper <= 4:
            raise BergenError(f"the temper must be in 0..4, got {self.temper!r}",
                              field="temper")


def walks(base: WorldTable, rng: Rng, n: int) -> list:
    """n histories of `base` drawn with `rng` (each the merged group of every free tile, as
    `WorldTable.walk`): in C when the core is built (`CoreSampler.walks`, the same draws bit
    for bit), else in Python."""
    core = _core_sampler()
    if core is not None:
        m = len(base.tiles)
        flat = core(base.info, base).walks(rng, n)
        return [tuple(flat[i * m:(i + 1) * m]) for i in range(n)]
    return [tuple(base.walk(rng)) for _ in range(n)]


def _core_sampler():
    """The compiled sampler's class, or None (not built, or `BERGEN_PURE_PYTHON=1`)."""
    from ..game.backend import PURE
    if PURE:
        return None
    try:
        from ._sampler import CoreSampler  # here: optional, as the searches' backend
    except ImportError:
        return None
    return CoreSampler


def pool_weights(info: InfoSet, base: WorldTable, model: ActionModel, how: Resampling):
    """(histories, their log weights): `how.pool` draws of `base`, seeded by `how.seed` (a
    second stream, `how.seed + 1`, splits merged epochs)."""
    assignments = walks(base, Rng(how.seed), how.pool)
    weigher = HistoryWeigher(info, base, model)
    if not weigher.seats:
        return assignments, [0.0] * len(assignments)
    rng = Rng(how.seed + 1)
    return assignments, [weigher.log_weight(a, rng) for a in assignments]


def shares_of(logs: list, how: Resampling) -> tuple:
    """(the resampling share of each world, the effective sample size of the weights):
    the tempered weights normalised, mixed with the uniform share `how.floor`."""
    n = len(logs)
    top = max(logs)
    if top == -math.inf:
        return [1.0 / n] * n, float(n)
    ws = [math.exp(how.temper * (x - top)) if x > -math.inf else 0.0 for x in logs]
    total = sum(ws)
    p = [x / total for x in ws]
    effective = 1.0 / sum(x * x for x in p)
    return [(1 - how.floor) * x + how.floor / n for x in p], effective


def pool_table(info: InfoSet, model: ActionModel | None = None,
               how: Resampling = Resampling(), factors: dict | None = None) -> PoolTable:
    """The pool table of `info`: `how.pool` histories of the hand-set model's table (or of
    `factors`, {} for the uniform one) weighed by `model` (the shipped action model) and
    resampled (module doc)."""
    model = action_model() if model is None else model
    if factors is None:
        factors = tile_factors(info, TileModel())
    base = WorldTable(info, factors)
    assignments, logs = pool_weights(info, base, model, how)
    shares, effective = shares_of(logs, how)
    return PoolTable(base, assignments, shares, effective, how.fresh)
