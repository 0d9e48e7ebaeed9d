"""The endgame as a game: whether it applies, its deals as everyone saw them, `game`, what the
solver takes (`Endgame`), its size predicted before anything is built (`predict`), and the
compiled solver's module (`compiled`), asked for here by every module of the endgame."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...errors import BergenError, NotApplicable, TooBig
from ...game.state import PASS, State, may_take
from ...game.tiles import popcount
from ...information.inference import TileModel, tile_factors
from ...information.infoset import InfoSet
from ...information.sampler import WorldTable, merge_groups
from .. import backend
from . import budget, public


def compiled():
    """The compiled solver's module, or None."""
    return backend.SEARCH.module(f"{__package__}._endgame")


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
    """The endgame as the solver takes it: every possible hand of each seat (masks, ascending),
    the deals (hand index of seat 0, of seat 1, weight), the seat to move and its hand's index."""
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
        return tuple(popcount(self.hands[q][self.deals[0][q]]) for q in range(2))

    @property
    def hand_weight(self) -> float:
        return sum(d[2] for d in self.deals if d[self.seat] == self.hand_index)

    def gained(self, scores) -> float:
        """The seat's margin gained from the root to `scores`, in points."""
        margin = (scores[0] - self.root.scores[0]) - (scores[1] - self.root.scores[1])
        return float(margin if self.seat == 0 else -margin)

    def state(self, deal) -> State:
        """The root's reference State with the hands of `deal`."""
        return public.state_of(self.rules, self.root, [self.hands[q][deal[q]] for q in range(2)])

    def ended_value(self, move: int) -> float:
        """The seat's margin gained by a root move that ends the round."""
        total = 0.0
        for d in self.deals:
            total += d[2] * self.gained(self.state(d).apply(move).scores)
        return total / self.weight

    def own_may_take(self, move: int) -> bool:
        return may_take(self.hands[self.seat][self.hand_index], move, self.root.left,
                        self.root.right)


def shown_free(info: InfoSet) -> tuple:
    """The public view's free tiles with the seat's own hand shown (its tiles only in its
    groups, the other tiles off the line in none of them)."""
    pub = info.public
    assert pub is not None
    mine = sum(1 << g for g, grp in enumerate(pub.groups) if grp.owner == info.seat)
    return tuple((t, a if pub.played_free >> t & 1 else a & mine if info.hand >> t & 1
                  else a & ~mine) for t, a in pub.free)


def public_table(info: InfoSet, inference: bool = False, shown: bool = False) -> WorldTable:
    """The world table of every deal consistent with what every seat saw."""
    pub = info.public
    assert pub is not None
    view = dataclasses.replace(info, groups=pub.groups,
                               free=shown_free(info) if shown else pub.free,
                               played_free=pub.played_free, hand=0, decisions=pub.decisions)
    return WorldTable(view, tile_factors(view, TileModel()) if inference else None, public=True)


def game(info: InfoSet, inference: bool = False, max_deals: int = 0,
         seconds: float = 0.0, shown: bool = False, stop=None) -> Endgame:
    """The endgame of `info`. `TooBig` past `max_deals` deals or `seconds` of finding them (0:
    no limit); `stop`: heard while the core finds the deals."""
    why = applicable(info)
    if why is not None:
        raise NotApplicable(why)
    try:
        table = public_table(info, inference, shown)
    except BergenError as e:
        raise TooBig(f"its deals are too many to tabulate ({e.message})") from None
    core = compiled()
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
    return Endgame(info.rules, public.root_of(info, seat), hands, deals, seat,
                   index[seat][info.hand], inference)


@dataclass(frozen=True)
class Prediction:
    """An endgame's predicted size (`pairs`: the terminal deals of its public tree)."""
    deals: float
    pairs: float
    steps: int
    walks: int


def predict(info: InfoSet, stop_above: float = 0.0, shown: bool = False,
            move: int | None = None) -> Prediction | None:
    """The size of the endgame of `info` by Knuth's estimator on its public view (`stop_above`:
    stop once past it); None without the compiled core or with too many groups. `shown`: the
    seat's own hand shown; `move` (with `shown`): the subgame after that move."""
    core = compiled()
    if core is None or budget.PREDICT_WALKS <= 0:
        return None
    pub = info.public
    assert pub is not None
    free = shown_free(info) if shown else pub.free
    merged, allowed, _ = merge_groups(pub.groups, free)
    kept = [g for g, (_, c) in enumerate(merged) if c > 0]
    if len(kept) > core.PREDICT_MAX_GROUPS:
        return None
    allowed = [sum(1 << k for k, g in enumerate(kept) if a >> g & 1) for a in allowed]
    merged = [merged[g] for g in kept]
    tiles = [t for t, _ in free]
    root = public.root_of(info, info.seat)
    on_line = pub.played_free
    if move is not None:
        hands = [info.hand if q == info.seat else 0 for q in range(2)]
        root = public.root_of(public.state_of(info.rules, root, hands).apply(move))
        if move != PASS:
            on_line |= 1 << (move >> 1)
    deals, pairs, steps, walks = core.predict(
        info.rules, root, owners=[o for o, _ in merged], caps=[c for _, c in merged],
        tiles=tiles, allowed=allowed, played=[bool(on_line >> t & 1) for t in tiles],
        walks=budget.PREDICT_WALKS, seed=budget.PREDICT_SEED, max_steps=budget.PREDICT_STEPS,
        stop_above=stop_above, min_walks=budget.PREDICT_MIN_WALKS)
    return Prediction(deals, pairs, steps, walks)


def round_figure(x: float) -> str:
    """A large estimate to two significant figures, in words past a million."""
    for size, name in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if x >= size:
            return f"{float(f'{x / size:.2g}'):g} {name}"
    return f"{float(f'{x:.2g}'):,.0f}"
