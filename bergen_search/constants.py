"""The numbers the compiled core and the pure-Python references share: seed streams (one
purpose's random numbers apart from another's under one seed: changing any changes every
seeded answer), the objectives' codes, the score key and the search trees' limits.

>>> objective_code("match"), objective_code(0)
(1, 0)
"""
from __future__ import annotations

from .errors import BergenError

#: XORed into a match's seed for the engines' choices, and into an expectimax search's seed
#: for its horizon playouts.
PLAY_STREAM = 0x5851F42D4C957F2D
#: XORed into a match's seed for its searches (decision k: `derive_seed(seed ^ SEARCH_STREAM, k)`).
SEARCH_STREAM = 0x2545F4914F6CDD1D
#: XORed into an expectimax search's seed for its match-equity playouts.
EQUITY_STREAM = 0x2545F4914F6CDD1D
#: The index of `derive_seed(seed, PASS_STREAM)`: the worlds of ISMCTS's final pass.
PASS_STREAM = 0xFA55
#: Added, times the replicate number, to a world's index for its later solves' playout seeds.
REPLICATE_STREAM = 1 << 40
#: An analysis's searches: decision k's is `derive_seed(seed, k)`, its recheck j's
#: `derive_seed(seed, RECHECK_STREAM * j + k)`, a draw turn's `derive_seed(seed, DRAW_STREAM + k)`.
RECHECK_STREAM = 20_000_000
DRAW_STREAM = 10_000_000
#: A seat's deal in round r: `derive_seed(seed, DEAL_STREAM + 4 * r + seat)`; the values
#: before round r's deal: `derive_seed(seed, DEAL_STREAM - 1 - r)`.
DEAL_STREAM = 30_000_000
#: The index of `derive_seed(seed, MIX_STREAM)`: a move drawn from the exact endgame's mix.
MIX_STREAM = 0xE9D6
#: Points rewards are divided by this inside a UCB rule, so that one exploration constant
#: serves both objectives.
POINTS_SCALE = 8.0
#: The edge key of the observer's own draw of tile t in an ISMCTS tree: OWN_DRAW + t.
OWN_DRAW = 64
#: The longest search a call may ask for, in seconds (a day).
MAX_SECONDS = 86400.0
#: The largest UCB exploration constant of an ISMCTS tree.
MAX_EXPLORATION = 100.0
#: The largest cap on an ISMCTS tree's node pools (bytes), and the most worlds of a final pass.
MAX_BYTES = 1 << 40
MAX_PASS_WORLDS = 10_000_000
#: The objectives of a search; an objective's code is its index here.
OBJECTIVES = ("points", "match")
#: Bits per side in the key of a score vector (targets are at most 10000 < 2**14).
SCORE_BITS = 14


def objective_code(objective) -> int:
    """The code of an objective given by name (`points`, `match`) or code (0, 1)."""
    if type(objective) is int and 0 <= objective < len(OBJECTIVES):
        return objective
    if objective not in OBJECTIVES:
        raise BergenError(f"objective must be one of {', '.join(OBJECTIVES)}, got "
                          f"{objective!r}", field="objective")
    return OBJECTIVES.index(objective)
