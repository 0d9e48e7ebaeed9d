"""What a seat knows of the hidden tiles: each other seat's proven voids, each tile's chance
of being in each hand or the reserve (the marginals of the searches' table), the lead's proof
and the number of consistent deals.

>>> from bergen_search.formats.game import load
>>> game = load("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14")
>>> b = beliefs(game.info, voids=game.position.voids)
>>> b.deals, [v.number for v in b.seats[0].voids], len(b.seats[0].may_hold)
(462, [1, 4], 11)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..game.tiles import tile_str
from ..errors import BergenError
from .inference import world_table
from .infoset import RESERVE, InfoSet, Observer, lead_forbidden
from .sampler import count_deals

#: The chances weigh every consistent history alike, or by the model (`inference` off, on).
WEIGHTINGS = ("uniform", "inference")
_SETTING = {"uniform": "off", "inference": "on"}
#: A chance within this of 1 (of 0) is certain (impossible).
SURE = 1 - 1e-9


@dataclass(frozen=True)
class Void:
    """A number a seat holds none of, proven at `event` of `round` by a "draw" or a "pass"
    (`how`) at `ends`, or "given" by a position."""
    number: int
    round: int | None
    event: int | None
    how: str
    ends: tuple | None

    def to_json(self) -> dict:
        return {"number": self.number, "round": self.round, "event": self.event,
                "how": self.how, "ends": None if self.ends is None else list(self.ends)}

    def text(self) -> str:
        if self.how == "given":
            return f"{self.number} (given)"
        verb = "drew" if self.how == "draw" else "passed"
        assert self.ends is not None
        return f"{self.number} ({verb} at ends {self.ends[0]} and {self.ends[1]}, event " \
               f"{self.event})"


@dataclass(frozen=True)
class Holder:
    """Another seat (or the reserve, seat None): its size, voids and chance of each tile."""
    seat: int | None
    size: int
    voids: list = field(default_factory=list)
    chances: dict = field(default_factory=dict)     # tile -> probability, > 0

    @property
    def may_hold(self) -> list:
        return sorted(self.chances)

    def to_json(self) -> dict:
        held = {"may_hold": [tile_str(t) for t in self.may_hold],
                "p_hold": {tile_str(t): round(p, 6) for t, p in sorted(self.chances.items())}}
        if self.seat is None:
            return {"size": self.size, **held}
        return {"seat": self.seat, "hand_size": self.size,
                "voids": [v.to_json() for v in self.voids], **held}


@dataclass(frozen=True)
class Beliefs:
    """A `Holder` per other seat and the reserve's, the consistent deals and histories, and
    the lead's proof (seat, tile, mask of the unseen tiles no hand was dealt) if seen."""
    seats: list
    reserve: Holder
    deals: int
    histories: int
    lead: tuple | None
    weighting: str = "uniform"

    def to_json(self) -> dict:
        """The chances alone (the engine protocol's `beliefs`)."""
        return {"weighting": self.weighting, "deals": self.deals,
                "histories": self.histories,
                "seats": [{"seat": h.seat, "hand_size": h.size,
                           "p_hold": h.to_json()["p_hold"]} for h in self.seats],
                "reserve": {"size": self.reserve.size,
                            "p_hold": self.reserve.to_json()["p_hold"]}}


def beliefs(info: InfoSet, observer: Observer | None = None, voids: dict | None = None,
            round_index: int | None = None, weighting: str = "uniform") -> Beliefs:
    """What the seat of `info` knows, the voids from a record's `observer` or `voids`."""
    if weighting not in WEIGHTINGS:
        raise BergenError(f"the weighting must be one of {', '.join(WEIGHTINGS)}, got "
                          f"{weighting!r}")
    groups = info.groups
    deals = count_deals(info)
    table = world_table(info, _SETTING[weighting])
    histories = table.histories
    weighted = table.marginals()

    def chances(bits: int) -> dict:
        owners = {groups[i].owner for i in range(len(groups)) if bits >> i & 1}
        out = {}
        for t, by in weighted.items():
            p = sum(by.get(o, 0.0) for o in owners)
            if p > SURE:
                out[t] = 1.0
            elif p > 1 - SURE:
                out[t] = p
        return out

    holders = []
    for seat in sorted({g.owner for g in groups if g.owner != RESERVE}):
        bits = sum(1 << i for i, g in enumerate(groups) if g.owner == seat)
        if observer is not None:
            seat_voids = [Void(v, round_index, ev, how, tuple(ends)) for v, (ev, ends, how)
                          in sorted(observer.proven_voids(seat).items())]
        else:
            seat_voids = [Void(v, None, None, "given", None)
                          for v in sorted((voids or {}).get(seat, ()))]
        holders.append(Holder(seat, info.hand_sizes[seat], seat_voids, chances(bits)))
    reserve_bits = sum(1 << i for i, g in enumerate(groups) if g.owner == RESERVE)
    reserve = Holder(None, info.reserve_size, [], chances(reserve_bits))
    lead = None
    if observer is not None and observer.lead is not None:
        seat, tile = observer.lead
        lead = (seat, tile, lead_forbidden(info.rules, tile) & info.unknown)
    return Beliefs(holders, reserve, deals, histories, lead, weighting)
