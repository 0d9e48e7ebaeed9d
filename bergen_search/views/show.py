"""`bergen show` and the engine's `show`: what the seat to move knows, as a document and as
text.

>>> from bergen_search.formats.game import load
>>> knowledge(load("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14")).deals
462
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import BergenError
from ..formats.game import Game
from ..formats.position import write_position
from ..formats.position_string import to_string
from ..game.tiles import format_mask, iter_mask, tile_str
from ..information.beliefs import Beliefs, beliefs
from .search import scores_text


@dataclass(frozen=True)
class Knowledge(Beliefs):
    """`bergen show`'s document and text: the `Beliefs` of a `Game`'s seat to move, with the
    game."""
    game: Game = field(kw_only=True)

    @property
    def beliefs(self) -> Beliefs:
        """The beliefs alone (their `to_json` is the chances the engine protocol sends)."""
        return Beliefs(self.seats, self.reserve, self.deals, self.histories, self.lead,
                       self.weighting)

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
               "weighting": self.weighting,
               "history": self.game.record is not None}
        if self.lead is not None:
            seat, tile, ruled = self.lead
            out["lead"] = {"seat": seat, "tile": tile_str(tile), "ruled_out": format_mask(ruled)}
        return out

    def text(self) -> str:
        pos = self.game.position
        info = self.game.info
        out = [f"seat {pos.to_move} to move   scores {scores_text(pos.scores)}   "
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
        out += ["", *self.grid(), ""]
        out.append(f"deals consistent: {self.deals:,} (which tiles each other seat holds and "
                   f"which the reserve holds)")
        if self.game.record is not None:
            out.append(f"histories: {self.histories:,} (a deal and the turn each drawn tile "
                       f"came on; equally likely, the sampler's unit)")
        else:
            out.append("(a position without history: each deal is one history)")
        return "\n".join(out)

    def grid(self) -> list:
        """Where the hidden tiles are: a row per tile, a column per holder, chances in percent."""
        holders = list(self.seats) + [self.reserve]
        heads = [f"seat {h.seat}" for h in self.seats] + ["reserve"]
        tiles = sorted({t for h in holders for t in h.chances})
        how = ("weighted by what the other seats' plays say (inference)"
               if self.weighting == "inference" else "every consistent history alike")
        out = [f"where the hidden tiles are (% chance; {how})",
               "tile  " + "".join(f"{x:>9}" for x in heads)]

        def cell(p):
            if p <= 0:
                return "."
            if p >= 1:
                return "100"
            pct = 100 * p
            return "<1" if pct < 0.5 else ">99" if pct >= 99.5 else f"{pct:.0f}"

        for t in tiles:
            out.append(f"{tile_str(t):<6}" + "".join(f"{cell(h.chances.get(t, 0.0)):>9}"
                                                     for h in holders))
        return out


def knowledge(game: Game, weighting: str = "uniform") -> Knowledge:
    """What the seat to move of `game` knows (`weighting`: one of `beliefs.WEIGHTINGS`); a
    round not led yet is refused (the seat knows its own hand only)."""
    if not game.info.line:
        raise BergenError("the round has not been led: before the lead the seat to move knows "
                          "its own hand only, every other tile as likely anywhere (bergen best "
                          "and eval value the hand before the lead)")
    round_index = None if game.record is None else len(game.record.rounds) - 1
    b = beliefs(game.info, game.observer, game.position.voids, round_index, weighting)
    return Knowledge(b.seats, b.reserve, b.deals, b.histories, b.lead, b.weighting, game=game)
