"""The game's backend: the compiled core (`game._core`) unless `BERGEN_PURE_PYTHON=1` or it
is not built, else the reference; both offer `play_match`, `random_rounds` and `new_state`
(a fully known round about to be led), with identical results per seed."""
from __future__ import annotations

import os

from . import match as _reference_match
from .state import State


class _Reference:
    name = "reference"
    play_match = staticmethod(_reference_match.play_match)
    random_rounds = staticmethod(_reference_match.random_rounds)

    @staticmethod
    def new_state(rules, hands, reserve, scores=None):
        return State.deal(rules, hands, reserve, scores)


REFERENCE = _Reference()


def load_core():
    """The compiled core's backend, or None when it is not built."""
    try:
        from . import _core  # here: the compiled module is optional
    except ImportError:
        return None
    return _core.Backend()


PURE = os.environ.get("BERGEN_PURE_PYTHON") == "1"
ACTIVE = (None if PURE else load_core()) or REFERENCE
