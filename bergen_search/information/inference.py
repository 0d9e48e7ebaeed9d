"""Inference: what the other seats' plays say about their hands.

A seat's free choices hint at its hand: one that played something else where a tile would
have made a match probably lacked it. A world is weighted by how likely the observed plays
were in it (Rebstock et al. 2019; Buro et al. 2009), by a naive-Bayes model (`TileModel`):
a likelihood ratio per play and tile, so a world's weight factorises by tile and group and
the sampler draws from it exactly (`sampler.WorldTable(info, factors)`).

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
    """Likelihood ratios of a tile being in a seat's hand by its relation to a play the seat made
    (`relation`): `missed_match` (it would have made a match and the seat played another),
    `opened`, `opened_fitting` (it shows the number the play opened, not fitting / fitting),
    `fitting_double`, `fitting` (it fitted and the seat played another); else 1. `power`
    tempers the product over many plays."""
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
    """{tile: factor per group}: each free tile's product over the other seats' plays of the
    model's ratio, where the group's seat held it then. Tiles without evidence left out; no
    model: {}."""
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
    """The table of worlds a value of `inference` draws from, for the searches and the beliefs
    alike: "on", weighted by the hand-set model; "off", uniform."""
    if setting not in ("on", "off"):
        raise ValueError(f"inference is on or off, got {setting!r}")
    return WorldTable(info, tile_factors(info, TileModel()) if setting == "on" else None)
