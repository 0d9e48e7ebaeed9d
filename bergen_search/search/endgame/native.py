"""The compiled solver's module, when the searches run on the core (`search.backend`, the one
place that decides): every module of the endgame asks `compiled` here, so that a test replaces
it once (`endgame.native.compiled`) for all of them."""
from __future__ import annotations

from .. import backend


def compiled():
    """The compiled solver's module, or None (the searches run on their pure-Python twins)."""
    return backend.SEARCH.module(f"{__package__}._endgame")
