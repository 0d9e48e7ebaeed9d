"""What the seat to move knows (`bergen show`): the hands' sizes, the voids each other seat
has proved and where, the tiles each may still hold (with its chance of holding each), the
lead's proof, and how many deals are consistent with all of it.

The voids come from the proofs the `Observer` keeps (a draw or a pass at ends (x, y): the
whole hand is free of x and y then, and stays so until the seat draws on a later turn); for a
position without history they are the ones it lists. The chances are over the consistent
histories, each equally likely under a uniform shuffle (what the sampler draws, before
inference weighs them).

>>> from bergen_search.viewpoint import load
>>> k = knowledge(load("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"))
>>> k.deals, [v.number for v in k.seats[0].voids], len(k.seats[0].may_hold)
(462, [1, 4], 11)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .infoset import RESERVE, _lead_forbidden
from .position_string import to_string
from .position import write_position
from .sampler import count_deals, count_worlds
from .tiles import format_mask, iter_mask, tile_str
from .viewpoint import Game


@dataclass(frozen=True)
class Void:
    """A number a seat holds none of: proven at `event` of `round` by a draw or a pass
    (`how`) at `ends`, or `how` "given" by a position."""
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
        return f"{self.number} ({verb} at ends {self.ends[0]} and {self.ends[1]}, event " \
               f"{self.event})"


@dataclass(frozen=True)
class Holder:
    """Another seat (or the reserve, seat None): its size, voids, and the chance of holding
    each tile it may hold."""
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
class Knowledge:
    game: Game
    seats: list          # Holder per other seat, in seat order
    reserve: Holder
    deals: int
    histories: int
    lead: tuple | None   # (seat, tile, mask of the unseen tiles it proved no hand was dealt)

    @property
    def string(self) -> str:
        return to_string(self.game.position)

    def to_json(self) -> dict:
        pos = self.game.position
        out = {"to_move": pos.to_move, "position": self.string,
               "position_json": write_position(pos), "scores": list(pos.scores),
               "hand": format_mask(pos.hand), "line": write_position(pos)["line"],
               "hand_sizes": list(pos.hand_sizes), "reserve_size": pos.reserve_size,
               "unseen": format_mask(self.game.info.unknown),
               "seats": [h.to_json() for h in self.seats], "reserve": self.reserve.to_json(),
               "deals": self.deals, "histories": self.histories,
               "history": self.game.record is not None}
        if self.lead is not None:
            seat, tile, ruled = self.lead
            out["lead"] = {"seat": seat, "tile": tile_str(tile), "ruled_out": format_mask(ruled)}
        return out

    def text(self) -> str:
        pos = self.game.position
        info = self.game.info
        out = [f"seat {pos.to_move} to move   scores {'-'.join(map(str, pos.scores))}   "
               f"reserve {pos.reserve_size}   hands {','.join(map(str, pos.hand_sizes))}",
               f"line  {write_position(pos)['line'] or '(empty)'}",
               f"hand  {' '.join(format_mask(pos.hand))}",
               f"position {self.string}", ""]
        for h in self.seats:
            out.append(f"seat {h.seat}: {h.size} tile{'s' if h.size != 1 else ''}")
            out.append("  voids     " + ("   ".join(v.text() for v in h.voids) or "none"))
            out.append(f"  may hold  {' '.join(tile_str(t) for t in h.may_hold)} "
                       f"({len(h.may_hold)})")
            sure = [t for t, p in sorted(h.chances.items()) if p >= 1.0]
            if sure:
                out.append(f"  holds     {' '.join(tile_str(t) for t in sure)} (in every deal)")
        out.append(f"reserve: {self.reserve.size} tiles, may hold "
                   f"{len(self.reserve.may_hold)} of the {len(list(iter_mask(info.unknown)))} "
                   f"unseen")
        if self.lead is not None:
            seat, tile, ruled = self.lead
            proved = f"no hand was dealt {' '.join(format_mask(ruled))}" if ruled else \
                "nothing about the unseen tiles"
            out.append(f"lead: {tile_str(tile)} by seat {seat}: {proved}")
        out.append("")
        out.append(f"deals consistent: {self.deals:,} (which tiles each other seat holds and "
                   f"which the reserve holds)")
        if self.game.record is not None:
            out.append(f"histories: {self.histories:,} (a deal and the turn each drawn tile "
                       f"came on; equally likely, the sampler's unit)")
        else:
            out.append("(a position without history: each deal is one history)")
        return "\n".join(out)


def knowledge(game: Game) -> Knowledge:
    """What the seat to move of `game` (a `viewpoint.Game`) knows."""
    info = game.info
    groups, free = info.groups, info.free
    histories = count_worlds(groups, free)
    deals = count_deals(info)
    round_index = None if game.record is None else len(game.record.rounds) - 1

    def chances(bits: int) -> dict:
        """tile -> the share of the histories in which it is in a group of mask `bits`."""
        out = {}
        for i, (t, allowed) in enumerate(free):
            if info.played_free >> t & 1 or not allowed & bits:
                continue
            only = free[:i] + ((t, allowed & bits),) + free[i + 1:]
            n = count_worlds(groups, only)
            if n:
                out[t] = n / histories
        return out

    holders = []
    for seat in sorted({g.owner for g in groups if g.owner != RESERVE}):
        bits = sum(1 << i for i, g in enumerate(groups) if g.owner == seat)
        if game.observer is not None:
            voids = [Void(v, round_index, ev, how, tuple(ends)) for v, (ev, ends, how)
                     in sorted(game.observer.proven_voids(seat).items())]
        else:
            voids = [Void(v, None, None, "given", None)
                     for v in sorted(game.position.voids.get(seat, ()))]
        holders.append(Holder(seat, info.hand_sizes[seat], voids, chances(bits)))
    reserve_bits = sum(1 << i for i, g in enumerate(groups) if g.owner == RESERVE)
    reserve = Holder(None, info.reserve_size, [], chances(reserve_bits))
    lead = None
    if game.observer is not None and game.observer.lead is not None:
        seat, tile = game.observer.lead
        lead = (seat, tile, _lead_forbidden(info.rules, tile) & info.unknown)
    return Knowledge(game, holders, reserve, deals, histories, lead)
