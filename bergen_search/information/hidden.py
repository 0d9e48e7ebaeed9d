"""The hidden-information check of a replay, after each event of a seat whose hand is hidden."""
from __future__ import annotations

from ..errors import BergenError
from ..game.state import DRAW
from ..game.tiles import tile_str
from .infoset import Observer
from .sampler import count_worlds


def check_hidden(observer: Observer, seat: int, action: int):
    """BergenError unless what a hidden seat did fits some deal of the hidden tiles that fits
    the proofs so far (RULES.md, "Decisions and chance")."""
    groups, free, _ = observer.constraints()
    if action < DRAW:
        t = action >> 1
        if dict(free).get(t, 1) == 0:
            raise BergenError(f"seat {seat} cannot hold {tile_str(t)}: "
                              f"{observer.why_not(seat, t)}", field="play")
    try:
        n = count_worlds(groups, free)
    except BergenError:
        return      # too unconstrained to tabulate: nothing provable is broken
    if n == 0:
        raise BergenError(f"no deal of the hidden tiles fits the events so far: seat {seat}'s "
                          f"draws, passes and plays contradict each other")

