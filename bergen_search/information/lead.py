"""Who leads, as one seat sees it before the lead. Seat j leads t exactly when j holds t and
every unseen tile before t in the lead order lies in the reserve: with R reserve places among
U unseen tiles, k of them before t, the chance is (n / U) * R!/(R-k)! / ((U-1)!/(U-1-k)!) for
another seat's t (n its hand size), R!/(R-k)! / (U!/(U-k)!) for the seat's own first tile;
under `redeal`, the chances of the deals kept.

>>> from bergen_search.game.rules import Rules
>>> from bergen_search.game.tiles import mask_of, parse_tile, tile_str
>>> hand = mask_of(parse_tile(x) for x in "0-0 1-2 3-4 5-6 0-5 4-6".split())
>>> [(seat, tile_str(t), p) for seat, t, p in leads(Rules(), 0, hand)]
[(0, '0-0', 1.0)]
>>> hand = mask_of(parse_tile(x) for x in "1-2 3-4 5-6 0-5 2-2 4-6".split())
>>> [(seat, tile_str(t), round(p, 3)) for seat, t, p in leads(Rules(), 0, hand)]
[(1, '0-0', 0.273), (1, '1-1', 0.208), (0, '2-2', 0.519)]
"""
from __future__ import annotations

from fractions import Fraction
from math import perm

from ..game.rules import Rules
from ..game.state import lead_rank
from ..game.tiles import DOUBLES, N_TILES, popcount

__all__ = ["leads"]


def leads(rules: Rules, seat: int, hand: int) -> list:
    """[(seat, tile, chance)] of every lead possible when `seat` was dealt `hand`, in order."""
    n = rules.hand_size
    if popcount(hand) != n:
        raise ValueError(f"a dealt hand holds {n} tiles, got {popcount(hand)}")
    unseen = N_TILES - n
    reserve = N_TILES - rules.players * n
    others = [j for j in range(rules.players) if j != seat]
    order = sorted(range(N_TILES), key=lambda t: lead_rank(rules, t))
    phases = [[t for t in order if DOUBLES >> t & 1]]
    if rules.no_double == "lowest-tile":
        phases.append([t for t in order if not DOUBLES >> t & 1])
    out: list = []
    before = 0                       # unseen tiles before this one in the order
    for phase in phases:
        for t in phase:
            if hand >> t & 1:       # (chance 0 when the tiles before it outnumber the reserve)
                mine = Fraction(perm(reserve, before), perm(unseen, before))
                return [(j, u, float(p)) for j, u, p in out + [(seat, t, mine)] if p]
            each = Fraction(n, unseen) * Fraction(perm(reserve, before), perm(unseen - 1, before))
            out += [(j, t, each) for j in others if each]
            before += 1
    # No hand holds a double: under redeal it is dealt again.
    total = sum(p for *_, p in out)
    return [(j, u, float(p / total)) for j, u, p in out]
