"""Inference: what the other seats' plays say about their hands.

The information set (`infoset.py`) holds what is *proved* about the hidden tiles: the voids
shown by draws and passes, the lead. A seat's free choices say more, softly: a seat that
played something else where a tile of its hand would have made a match probably lacked that
tile. Following Rebstock, Solinas, Buro & Sturtevant 2019 ("Policy Based Inference in
Trick-Taking Card Games") and Buro, Long, Furtak & Sturtevant 2009 (Skat), a world is weighted
by how likely the seats' observed plays were in it under a model of those seats.

The model here is a naive-Bayes one: for each observed play and each tile the seat may have
held at that moment, a likelihood ratio by how the tile relates to the play (`TileModel`).
A world's weight is the product over its tiles of these ratios, so it factorises by tile and
by group (the seat's epoch that held the tile), and the sampler draws from the weighted
distribution exactly (`sampler.WorldTable(info, factors)`), with no rejection and no
particle degeneracy. The uniform sampler stays the base: `tile_factors` of no model is empty.

>>> from bergen_search.game.tiles import tile_str
>>> tile_str(scoring_tile(3, 5)), tile_str(scoring_tile(4, 4))
('3-5', '4-4')
"""
from __future__ import annotations

from dataclasses import dataclass

from ..game.tiles import DOUBLE_OF, DOUBLES, PIPS, TILES_WITH, tile_index
from .infoset import InfoSet, ObservedPlay
from .sampler import WorldTable


@dataclass(frozen=True)
class TileModel:
    """Likelihood ratios of a tile being in a seat's hand, by its relation to a play the seat
    made, relative to no evidence (`relation` gives a tile's one relation to a play):

    - `missed_match`: the tile would have made a match at the ends the seat played on (with
      different ends, the one tile showing both; with equal ends, the double), and the seat
      played another. A seat that never passes up a match gives 0, a random one 1;
    - `opened`, `opened_fitting`: the tile shows the number the seat's play opened (it keeps
      the number it holds open), and did not / did fit the ends;
    - `fitting_double`, `fitting`: the tile (a double, or not) fitted the ends and the seat
      played another;
    - anything else: 1.

    `power` tempers the product over many plays (evidence from one seat's plays is not
    independent): each ratio is raised to it.
    """
    missed_match: float = 0.03
    opened: float = 1.34
    opened_fitting: float = 1.15
    fitting_double: float = 0.6
    fitting: float = 0.78
    power: float = 1.0

    def __post_init__(self):
        for name in ("missed_match", "opened", "opened_fitting", "fitting_double", "fitting"):
            if not 0 < getattr(self, name) < float("inf"):
                raise ValueError("the model's ratios must be positive")
        if not 0 <= self.power <= 4:
            raise ValueError("the model's power must be in 0..4")

    def ratio(self, relation: str | None) -> float:
        return 1.0 if relation is None else getattr(self, relation) ** self.power

    def relation(self, d: ObservedPlay, t: int) -> str | None:
        """Tile t's relation to the play `d` as this model classes it (a subclass may class
        finer; `lab/belief/fit_inference.py` measures candidates)."""
        return relation(d, t)


def scoring_tile(left: int, right: int) -> int:
    """The one tile that makes a match at ends (left, right): the tile left-right, or the
    double when the ends are equal."""
    return DOUBLE_OF[left] if left == right else tile_index(left, right)


def relation(d: ObservedPlay, t: int) -> str | None:
    """How tile t (not the one played, not on the line) relates to the play `d` (see
    `TileModel`), or None."""
    u = d.move >> 1
    fits = (TILES_WITH[d.left] | TILES_WITH[d.right]) >> t & 1
    if t == scoring_tile(d.left, d.right):
        return "missed_match"
    opened = PIPS[u] - (d.right if d.move & 1 else d.left)
    if TILES_WITH[opened] >> t & 1:
        return "opened_fitting" if fits else "opened"
    if fits:
        return "fitting_double" if DOUBLES >> t & 1 else "fitting"
    return None


def tile_factors(info: InfoSet, model) -> dict:
    """{tile: factor per group of `info.groups`}: each free tile's likelihood ratio in each
    group, the product over the other seats' plays of the model's ratio when the group's seat
    held the tile at the play (the group opened before it, the tile not yet on the line).
    Tiles without evidence are left out. No model: {}."""
    if model is None or not info.decisions:
        return {}
    groups = info.groups
    out: dict[int, list[float]] = {}     # tile: its factor per group
    for d in info.decisions:
        if d.drew:
            continue   # the tile played was the one drawn: no choice, and the voids say the rest
        held = [g for g, grp in enumerate(groups) if grp.owner == d.seat and grp.opened < d.event]
        for t, _ in info.free:
            if d.line_mask >> t & 1 or t == d.move >> 1:
                continue
            r = model.ratio(model.relation(d, t))
            if r == 1.0:
                continue
            f = out.setdefault(t, [1.0] * len(groups))
            for g in held:
                f[g] *= r
    return {t: tuple(f) for t, f in out.items()}


def world_table(info: InfoSet, setting) -> WorldTable:
    """The table of worlds a value of the searches' `inference` setting draws from, in one
    place for the searches (`search.registry.Algorithm.table`) and the beliefs
    (`beliefs.beliefs`, `bergen show --weighting`), so that the chances shown are those the
    search draws by: "on", weighted by the hand-set model's factors; "off", uniform."""
    if setting not in ("on", "off"):
        raise ValueError(f"inference is on or off, got {setting!r}")
    return WorldTable(info, tile_factors(info, TileModel()) if setting == "on" else None)
