"""The game's backend: the compiled core (`game._core`), unless `BERGEN_PURE_PYTHON=1` or it
is not built, else the pure-Python reference. Both offer, with identical results per seed:

- `play_match(rules, engines, seed, start_scores=None, max_rounds=None) -> MatchLog`
- `random_rounds(rules, n, seed) -> int` (actions taken: a checksum)
- `new_state(rules, hands, reserve, scores=None)`: a fully known round about to be led, with
  `legal_moves()`, `apply(move)` and the attributes `scores`, `to_move`, `ended`, `winner`,
  `left`, `right`, `left_double`, `right_double`, `hands`, `reserve_size`, `passes`,
  `last_points`.
"""
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
    """The compiled core's backend, or None when it is not built (whatever the environment)."""
    try:
        from . import _core  # here: the compiled module is optional
    except ImportError:
        return None
    return _core.Backend()


#: Set to 1 in the environment: the pure-Python reference, whether the core is built or not.
PURE = os.environ.get("BERGEN_PURE_PYTHON") == "1"
#: The backend in use: the core when available and not switched off, else the reference.
ACTIVE = (None if PURE else load_core()) or REFERENCE

