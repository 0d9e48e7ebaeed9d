"""The compiled solver's module, asked for here by every module of the endgame (a test
replaces `compiled` once for all)."""
from __future__ import annotations

from .. import backend


def compiled():
    """The compiled solver's module, or None (the searches run on their pure-Python twins)."""
    return backend.SEARCH.module(f"{__package__}._endgame")
