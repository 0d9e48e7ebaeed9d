"""The compiled solver's module, when it is there: every module of the endgame asks `compiled`
here, so that a test replaces it once (`endgame.native.compiled`) for all of them."""
from __future__ import annotations

import os


def compiled():
    """The compiled solver's module, or None (not built, or BERGEN_PURE_PYTHON=1)."""
    if os.environ.get("BERGEN_PURE_PYTHON") == "1":
        return None
    try:
        from . import _endgame  # here: the compiled module is optional (None without it)
    except ImportError:
        return None
    return _endgame
