"""Inference: a world weighted by how likely the other seats' plays were in it (Rebstock et
al. 2019; Buro et al. 2009), by a naive-Bayes likelihood ratio per play and tile
(`TileModel`), so that the weight factorises by tile and group for the sampler.

>>> from bergen_search.game.tiles import tile_str
>>> tile_str(scoring_tile(3, 5)), tile_str(scoring_tile(4, 4))
('3-5', '4-4')
"""
from __future__ import annotations

from dataclasses import dataclass

from ..game.policy import match_tile as scoring_tile
from ..game.tiles import DOUBLES, PIPS, TILES_WITH
from .infoset import InfoSet, ObservedPlay
from .sampler import WorldTable


@dataclass(frozen=True)
class TileModel:
    """Likelihood ratios of a tile being in a seat's hand by its `relation` to a play the seat
    made; `power` tempers the product over many plays."""
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
        """Tile t's relation to the play `d` as this model classes it."""
        return relation(d, t)


def relation(d: ObservedPlay, t: int) -> str | None:
    """How tile t (not played, not on the line) relates to the play `d`: `missed_match` (it
    would have made a match), `opened` / `opened_fitting` (it shows the number the play
    opened), `fitting_double` / `fitting` (it fitted too); or None."""
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
    """{tile: factor per group}: the product of the model's ratios over the plays of the
    group's seat while the group was held; tiles without evidence left out."""
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
    """The table of worlds `inference` "on" (weighted by the model) or "off" draws from."""
    if setting not in ("on", "off"):
        raise ValueError(f"inference is on or off, got {setting!r}")
    return WorldTable(info, tile_factors(info, TileModel()) if setting == "on" else None)
