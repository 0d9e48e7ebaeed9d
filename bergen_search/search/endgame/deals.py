"""The endgame as a game: whether it applies (`applicable`, `at_stage`), its deals as everyone
saw them (`public_table`, `shown_free`: the seat's own hand shown), and `game`, the deals and
hands the solver takes (`Endgame`)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...errors import BergenError, NotApplicable, TooBig
from ...game.state import may_take
from ...game.tiles import popcount
from ...information.inference import TileModel, tile_factors
from ...information.infoset import InfoSet
from ...information.sampler import WorldTable
from . import public
from . import native


def applicable(info: InfoSet, objective: str = "points") -> str | None:
    """None when the exact endgame applies to `info`, else why not (a sentence)."""
    rules = info.rules
    if rules.players != 2:
        return (f"the exact endgame is for two players: with {rules.players} players "
                + ("the round is a team game" if rules.partnerships else
                   "the round is not a zero-sum game"))
    if not info.line:
        return "the lead is forced"
    if rules.drawable(info.reserve_size):
        return (f"draws can still happen (the reserve holds {info.reserve_size}, "
                f"{rules.reserve_kept} kept)")
    if objective != "points":
        return "the exact endgame solves the points objective (the round's margin) only"
    if info.public is None:
        return "the information set does not say what every seat has seen"
    return None


def at_stage(info: InfoSet) -> bool:
    """No draw can happen again: the reserve is down to the tiles it keeps."""
    return bool(info.line) and not info.rules.drawable(info.reserve_size)


@dataclass(frozen=True)
class Endgame:
    """The endgame as the solver takes it: the root's public state, every possible hand of
    each seat (masks, ascending), the deals (hand index of seat 0, of seat 1, weight), and
    the seat to move with its own hand's index."""
    rules: object
    root: public.Root
    hands: tuple
    deals: list
    seat: int
    hand_index: int
    inference: bool = False

    @property
    def weight(self) -> float:
        return sum(w for _, _, w in self.deals)

    @property
    def root_sizes(self) -> tuple:
        """Both hands' sizes at the root."""
        return tuple(popcount(self.hands[q][self.deals[0][q]]) for q in range(2))

    @property
    def hand_weight(self) -> float:
        """The chance weight of the seat's own hand: the sum over its worlds."""
        return sum(d[2] for d in self.deals if d[self.seat] == self.hand_index)

    def gained(self, scores) -> float:
        """The seat's margin gained from the root to `scores`, in points."""
        margin = (scores[0] - self.root.scores[0]) - (scores[1] - self.root.scores[1])
        return float(margin if self.seat == 0 else -margin)

    def ended_value(self, move: int) -> float:
        """The seat's margin gained by a root move that ends the round, over the deals."""
        total = 0.0
        for d in self.deals:
            s = public.state_of(self.rules, self.root, [self.hands[q][d[q]] for q in range(2)])
            total += d[2] * self.gained(s.apply(move).scores)
        return total / self.weight

    def own_may_take(self, move: int) -> bool:
        """The seat's own hand may take `move` (a root action of the public tree)."""
        return may_take(self.hands[self.seat][self.hand_index], move, self.root.left,
                        self.root.right)


def shown_free(info: InfoSet) -> tuple:
    """The public view's free tiles with the seat's own hand shown: its tiles may enter only
    the seat's groups, the other tiles off the line none of them (a played tile keeps its
    groups)."""
    pub = info.public
    assert pub is not None
    mine = sum(1 << g for g, grp in enumerate(pub.groups) if grp.owner == info.seat)
    return tuple((t, a if pub.played_free >> t & 1 else a & mine if info.hand >> t & 1
                  else a & ~mine) for t, a in pub.free)


def public_table(info: InfoSet, inference: bool = False, shown: bool = False) -> WorldTable:
    """The world table of the public view: every deal of both hands (and the kept tiles)
    consistent with what every seat saw, weighted by histories (and inference factors).
    `shown`: only the deals where the seat holds its own hand (`shown_free`)."""
    pub = info.public
    assert pub is not None
    view = dataclasses.replace(info, groups=pub.groups,
                               free=shown_free(info) if shown else pub.free,
                               played_free=pub.played_free, hand=0, decisions=pub.decisions)
    if inference:
        return WorldTable(view, tile_factors(view, TileModel()), public=True)
    return WorldTable(view, public=True)


def game(info: InfoSet, inference: bool = False, max_deals: int = 0,
         seconds: float = 0.0, shown: bool = False, stop=None) -> Endgame:
    """The endgame of `info` (which `applicable` accepts). `TooBig` past `max_deals` deals
    or `seconds` of finding them (0: no limit). `shown`: only the deals where the seat holds
    its own hand; `stop` (an Event): heard while the core finds the deals."""
    why = applicable(info)
    if why is not None:
        raise NotApplicable(why)
    try:
        table = public_table(info, inference, shown)
    except BergenError as e:
        raise TooBig(f"its deals are too many to tabulate ({e.message})") from None
    core = native.compiled()
    if core is not None:
        try:
            h0, h1, w = core.enumerate_deals(table, max_deals, seconds,
                                             None if stop is None else stop.is_set)
        except BergenError as e:
            raise TooBig(f"its public tree is too big for the budget ({e.message})") from None
    else:
        found = sorted((hands[0], hands[1], float(wt))
                       for (hands, _), wt in table.enumerate().items())
        if max_deals and len(found) > max_deals:
            raise TooBig("its public tree is too big for the budget (too many deals)")
        h0, h1, w = [d[0] for d in found], [d[1] for d in found], [d[2] for d in found]
    hands = (sorted(set(h0)), sorted(set(h1)))
    index = [{h: i for i, h in enumerate(hs)} for hs in hands]
    deals = [(index[0][a], index[1][b], x) for a, b, x in zip(h0, h1, w)]
    seat = info.seat
    if info.hand not in index[seat]:
        raise BergenError("the seat's own hand is not among the deals of what everyone saw")
    root = public.Root(info.left, info.right, bool(info.left_double),
                            bool(info.right_double), tuple(info.scores), seat, info.passes,
                            info.reserve_size, tuple(info.line))
    return Endgame(info.rules, root, hands, deals, seat, index[seat][info.hand], inference)

