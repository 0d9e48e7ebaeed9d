"""The exact endgame's budget: tolerances, costs (measured: docs/MEASUREMENTS.md), caps, and
`allowance`. Read when used, so that a test may change them (`PREDICT_WALKS = 0`: none)."""
from __future__ import annotations

#: The exploitability the solver stops at, in points...
TOLERANCE = 0.01
#: ... once the bound on the seat's hand's values (`Solution.hand_bound`) is within this too.
HAND_TOLERANCE = 0.05
#: A solution still above this exploitability when the budget runs out is not used.
ACCEPT = 0.25
#: When the exploitability is measured: after these iterations, then every CHECK_EVERY.
CHECK_AT = (4, 8, 12, 16, 24, 32, 48, 64)
CHECK_EVERY = 32
#: The solver stops after this many iterations whatever the exploitability (it reports it).
MAX_ITERATIONS = 2000
#: Solver work (nodes, entries and terminal deals touched) one search iteration buys...
WORK_PER_ITERATION = 600
#: ... and the work per second, to size the tree under a time limit.
WORK_PER_SECOND = 60e6
#: The least DCFR iterations a tree must afford to be attempted; a bracket's (`bracket`).
MIN_ITERATIONS = 24
BRACKET_MIN_ITERATIONS = 8
#: Depth-limited brackets: a play-out's state counted as this much work, the deepest
#: horizon, the bounds on how a level's cost grows, the play-out tables' size (2^bits
#: entries of 24 bytes), the trees' tolerance and the floor's fixed policies tried.
PLAYOUT_WORK = 2
MAX_HORIZON = 24
GROW_LOW, GROW_HIGH = 1.5, 3.0
PLAYOUT_TABLE_BITS = 19
LIMITED_TOLERANCE = 0.05
FLOOR_POLICIES = 2
#: Under a time limit: the share finding the deals and building the tree may take, and the
#: share the solve leaves unspent for the engine it falls back to.
BUILD_SHARE = 0.25
SEARCH_SHARE = 0.25
#: Moves of the average strategy below this share are not played.
MIN_SHARE = 0.01
#: Trees beyond this work are never built, whatever the budget (about 400 MB).
MAX_WORK = 8_000_000
#: The size prediction (`predict`, Knuth's estimator): walks and steps at most, the work per
#: predicted terminal deal, the walks before it may decline, its fixed seed.
PREDICT_WALKS = 256
PREDICT_STEPS = 10_000
PREDICT_WORK_PER_PAIR = 2.5
PREDICT_MIN_WALKS = 32
PREDICT_SEED = 0x5EED_E11D_6A3E
#: The solver's memory per unit of work, at most (the cap of search.Limits.memory_mb holds).
BYTES_PER_WORK = 56


def budget_work(iterations: int) -> int:
    return iterations * WORK_PER_ITERATION


def allowance(max_work: int | None, seconds: float | None, memory_bytes: int | None = None,
              min_iterations: int = MIN_ITERATIONS):
    """(the solver work a budget allows or None, the largest tree it may build): one that
    affords `min_iterations` iterations and its checks, and fits in `memory_bytes`."""
    allowed = max_work
    if seconds is not None:
        by_time = int(seconds * WORK_PER_SECOND)
        allowed = by_time if allowed is None else min(allowed, by_time)
    cap = MAX_WORK if allowed is None else min(MAX_WORK, allowed // (2 * min_iterations + 8))
    if memory_bytes is not None:
        cap = min(cap, memory_bytes // BYTES_PER_WORK)
    return allowed, cap


#: DCFR's discounting (Brown & Sandholm 2019's alpha and beta; the average weighs iteration t
#: by t^GAMMA): the compiled solver is given them (`solving.build`), its oracle reads them here.
ALPHA, BETA, GAMMA = 1.5, 0.0, 6.0
