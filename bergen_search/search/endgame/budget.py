"""The exact endgame's budget: what it stops at, what its work costs, how big a tree it builds
(the figures measured on this project's machine, each with where it was measured), and
`allowance`, the work a search's budget buys and the largest tree it may build.

`prediction.predict` reads PREDICT_WALKS and PREDICT_STEPS from here when it runs, so that a
benchmark or a test may change them (`budget.PREDICT_WALKS = 0`: no prediction).
"""
from __future__ import annotations

#: The exploitability the solver stops at, in points (the unit of the values)...
TOLERANCE = 0.01
#: ... once the bound on the seat's hand's values (the exploitability over the hand's share
#: of the deals' weight, `Solution.hand_bound`) is within this too. At 0.01, as the game's,
#: the solves of hands holding a small share of the deals ran to the budget: over the stage
#: of `lab/endgame/endgame_stage.py`'s corpus the share answered within 1 s fell from 67.6% to
#: 61.1% and the median went from 0.029 s to 0.076 s.
HAND_TOLERANCE = 0.05
#: A solution whose exploitability is still above this when the budget runs out is not
#: used (the search falls back to today's engine).
ACCEPT = 0.25
#: When the exploitability is measured: after these iterations, then every CHECK_EVERY.
CHECK_AT = (4, 8, 12, 16, 24, 32, 48, 64)
CHECK_EVERY = 32
#: The solver stops after this many iterations whatever the exploitability (it reports it).
MAX_ITERATIONS = 2000
#: Solver work is counted in nodes, entries (hand, legal action) and terminal deals
#: touched: a DCFR iteration touches its tree's twice, an exploitability check twice.
#: A search's iteration budget (the default engine's iterations) buys this much work each:
#: the default 100,000 iterations buy about a second of solving on this project's machine.
WORK_PER_ITERATION = 600
#: Work per second, to size the tree under a time limit before it is built (measured on
#: this project's machine, one core, `python benchmarks/bench_endgame.py`).
WORK_PER_SECOND = 60e6
#: The least DCFR iterations a tree must afford within the budget to be attempted.
MIN_ITERATIONS = 24
#: ... and a bracket's (`bracket`): its floors and ceilings are exact best responses after
#: any number of iterations (only their gap narrows with more), so it takes trees three
#: times larger than a solve, at 8 iterations: on the stage corpora, 10 more positions of
#: 143 declined were bracketed (a shown game is often just past the solve's line).
BRACKET_MIN_ITERATIONS = 8
#: A move whose shown subgame is too big for its share even so is bracketed depth-limited
#: (`_limited`): the subgame cut HORIZON decisions below the move, each deal at a leaf played
#: out with both hands in view; the horizon is deepened one decision at a time while the
#: next one is predicted to fit (its cost grows by the last step's ratio), up to
#: MAX_HORIZON. A play-out's state is counted as this much solver work (33 ns on this
#: project's machine) in the budget; single builds take 0.6-2.2 times that
#: (lab/endgame/BRACKET.md, "The cost model").
PLAYOUT_WORK = 2
MAX_HORIZON = 24
GROW_LOW, GROW_HIGH = 1.5, 3.0
#: The play-outs' tables (one for the floors, one for the ceilings) hold 2^this entries of 24
#: bytes each (12.6 MB), fewer under a small memory cap (`bracket`).
PLAYOUT_TABLE_BITS = 19
#: A depth-limited tree's DCFR stops at this exploitability (or the solve's tolerance, if
#: larger): its bounds are exact best responses whatever it reaches, and the gap its
#: horizon leaves (points, not hundredths) is what a deeper horizon narrows; on
#: examples/decision.json the floors' DCFR had spent more than their builds at 0.01.
LIMITED_TOLERANCE = 0.05
#: Below a floor's horizon the seat plays one of the first this many fixed policies, the
#: one best over each leaf's deals (`endgame_ref.floor_choice`: greedy; doubles first;
#: keeping tiles that fit the ends). Over the depth-limited brackets of the two stage
#: corpora tuned on (34 and 23 decisions), the widest ceiling - floor of a decision, on
#: average: greedy alone 1.368 and 0.905, two policies 1.130 and 0.899 (each policy is
#: played out: three cost a horizon's depth; on examples/decision.json the best move's floor
#: was +2.781 with one, +3.157 with two, +2.524 with three).
FLOOR_POLICIES = 2
#: Under a time limit, the share of it that finding the deals and building the tree may
#: take (past it the attempt stops, and today's engine has the rest).
BUILD_SHARE = 0.25
#: Under a time limit, the share of it the solve leaves unspent, so that when it fails (the
#: budget ran out before ACCEPT) today's engine still has time for a search: without it, a
#: solve that ran to the limit left ISMCTS no iteration and the move was the greedy one
#: (the arena of seed 2111 warned of it from both of its processes, lab/strength/STRENGTH.md).
SEARCH_SHARE = 0.25
#: Moves of the average strategy below this share are not played (CFR's average keeps a
#: trace of every action it tried on the way).
MIN_SHARE = 0.01
#: Trees beyond this work (nodes, entries and terminal deals: 35-50 bytes each) are never
#: built, whatever the budget: at most about 400 MB, and a few seconds an iteration.
MAX_WORK = 8_000_000
#: Before anything is built, the size of the public tree is predicted (`predict`: Knuth's
#: estimator over random deals and play-outs, from what every seat saw; a few milliseconds):
#: a position whose predicted terminal deals (a lower bound of the solver's work) exceed what
#: the budget affords is declined at once. PREDICT_WALKS random paths at most (0: no
#: prediction), PREDICT_STEPS steps at most (about 0.3 microseconds each), and the walks stop
#: once PREDICT_MIN_WALKS of them put the estimate over the budget; the seed is fixed, so the
#: same position is predicted alike every time.
PREDICT_WALKS = 256
PREDICT_STEPS = 10_000
#: The solver's work per terminal deal of its tree, at least, on trees of 100,000 work and
#: more (2.86 at least, 3.7 at the median, over the 491 stage decisions of
#: `python lab/endgame/endgame_stage.py`'s corpus): a position is declined when its predicted
#: terminal deals times this exceed the work the budget affords a tree.
PREDICT_WORK_PER_PAIR = 2.5
PREDICT_MIN_WALKS = 32
PREDICT_SEED = 0x5EED_E11D_6A3E
#: The memory of the solver per unit of its work (a node, an entry or a terminal deal), at
#: most (measured: at most 49.9 on the 13 trees of 0.1-6.9 million work among the stage
#: decisions of `python lab/endgame/solver_study.py --memory --rounds 80 --seed 5`), so that
#: the cap of search.Limits.memory_mb holds (the default 256 MB: trees up to 4.8 million).
BYTES_PER_WORK = 56


def budget_work(iterations: int) -> int:
    """The solver work an iteration budget buys."""
    return iterations * WORK_PER_ITERATION


def allowance(max_work: int | None, seconds: float | None, memory_bytes: int | None = None,
              min_iterations: int = MIN_ITERATIONS):
    """(the solver work a budget allows or None, the largest tree it may build): the tree
    must afford `min_iterations` iterations and its checks, and fit in `memory_bytes` (at
    BYTES_PER_WORK a unit of its work)."""
    allowed = max_work
    if seconds is not None:
        by_time = int(seconds * WORK_PER_SECOND)
        allowed = by_time if allowed is None else min(allowed, by_time)
    cap = MAX_WORK if allowed is None else min(MAX_WORK, allowed // (2 * min_iterations + 8))
    if memory_bytes is not None:
        cap = min(cap, memory_bytes // BYTES_PER_WORK)
    return allowed, cap

#: DCFR's discounting: Brown & Sandholm 2019's alpha and beta; the average strategy weighs
#: iteration t by t^GAMMA, 6 rather than their 2: it reaches an exploitability of 0.01 in
#: about half the iterations, and 1e-4 in a fraction. The compiled solver is given them
#: (`solvers.build`), and its oracle reads them here.
ALPHA, BETA, GAMMA = 1.5, 0.0, 6.0
