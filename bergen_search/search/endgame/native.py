"""The compiled solver's module, asked for here by every module of the endgame."""
from __future__ import annotations

from .. import backend


def compiled():
    """The compiled solver's module, or None."""
    return backend.SEARCH.module(f"{__package__}._endgame")
