"""What a loss is called: the label thresholds, and the interval at CONFIDENCE a loss must
lie in, wholly within one label's band, before it is labelled (`verdict`). A play's loss is
the best play's value minus its own, each estimated: `loss_bounds` gives its interval from
the search's values, their paired errors (Student's t on the replicates, the normal quantile
without them) and their bounds (the exact endgame's, `MoveValue.bound`, as they are).
"""
from __future__ import annotations

import math

from ..errors import BergenError
from ..search.api import paired
from ..stats import interval_quantile, normal_quantile

#: Default thresholds on the loss, in points of the round (objective `points`). Chosen from the
#: loss distributions measured on self-play (docs/MEASUREMENTS.md, "Analysis").
THRESHOLDS = {"inaccuracy": 0.25, "mistake": 0.6, "blunder": 1.2}
LABELS = ("inaccuracy", "mistake", "blunder")
#: Default thresholds by objective: `points` in points of the round (THRESHOLDS), `match` in
#: the mover's chance to win the match.
DEFAULT_THRESHOLDS = {"points": THRESHOLDS,
                      "match": {"inaccuracy": 0.03, "mistake": 0.07, "blunder": 0.15}}
#: A loss is labelled only when its interval at this confidence lies within one label's band.
CONFIDENCE = 0.99
#: The interval's quantile where the error rests on no replicates (expectimax's error across
#: worlds): the normal one at CONFIDENCE, never another confidence's.
NORMAL_Q = normal_quantile(CONFIDENCE)


def label_thresholds(objective: str = "points", **given) -> dict:
    """The label thresholds for `objective`: its defaults (DEFAULT_THRESHOLDS), each one
    given (`inaccuracy=`, `mistake=`, `blunder=`; None: the default) in its place. A rule set
    whose thresholds are out of order (inaccuracy <= mistake <= blunder) is refused.

    >>> label_thresholds("match", blunder=0.2)
    {'inaccuracy': 0.03, 'mistake': 0.07, 'blunder': 0.2}
    """
    unknown = sorted(set(given) - set(LABELS))
    if unknown:
        raise TypeError(f"label_thresholds() got an unexpected threshold {unknown[0]!r}")
    defaults = DEFAULT_THRESHOLDS[objective]
    thresholds = {name: defaults[name] if given.get(name) is None else given[name]
                  for name in LABELS}
    if not thresholds["inaccuracy"] <= thresholds["mistake"] <= thresholds["blunder"]:
        raise BergenError("thresholds must satisfy inaccuracy <= mistake <= blunder")
    return thresholds


def label_for(loss: float, thresholds: dict):
    label = None
    for name in LABELS:
        if loss >= thresholds[name]:
            label = name
    return label


def loss_bounds(played, result) -> tuple:
    """(lo, hi, se): the interval at CONFIDENCE of the loss of the play `played` (a
    `MoveValue` of `result`), and the error of its nearest difference. The loss is the value
    of the best play minus the played one's, and the best play is not known, only estimated:
    the loss is at least the largest lower bound, and at most the largest upper bound, of the
    differences `v(m) - v(played)` over every other move m (each `loss_interval` of the
    difference, with its paired error and degrees of freedom: `results.paired`), and never below 0. So a played move that came out on
    top by less than the noise still has an interval reaching up to what the runner-up may be
    worth more: it is searched again, or marked borderline, instead of called the best play
    with no doubt (a 2,000-iteration search of examples/match.json's round 0, event 1 put
    2-6:L first by 0.05 +- 0.15, with the interval (0, 0); pooled rechecks of another seed put
    2-3:L above it by 0.43 +- 0.04). `se`: the ± of the difference to the best play (or, when
    the played move is the best, to the runner-up): its paired error plus the two values'
    bounds (each value within its bound: the hand's, or a refined deviation's own)."""
    lo = hi = 0.0
    se, nearest = 0.0, None
    for m in result.moves:
        if m.code == played.code or m.move == played.twin or m.twin == played.move:
            continue
        d = m.value - played.value
        (e, dof), bound = paired(m, played), m.bound + played.bound
        a, b = loss_interval(d, e, result, bound, dof=dof)
        lo, hi = max(lo, a), max(hi, b)
        if nearest is None or d > nearest:
            nearest, se = d, e + bound
    return lo, hi, se


def loss_interval(loss: float, se: float, result, bound: float = 0.0, *,
                  dof: float = math.inf) -> tuple:
    """The two-sided interval of a loss at CONFIDENCE: loss ± (t·se + bound), with Student's t
    for the replicates' degrees of freedom (ISMCTS: replicates - 1), else the normal
    quantile, and `bound` the two values' bounds (the exact endgame's: twice the hand's
    bound for a difference of two values), taken as they are; no width when both are 0 (a
    difference known exactly), unbounded when the error is unknown."""
    if not math.isfinite(se):
        return -math.inf, math.inf
    half = bound
    if se != 0:
        n = result.info.get("replicates") or 0
        dof = dof if math.isfinite(dof) else n - 1
        half = (interval_quantile(CONFIDENCE, dof) if n >= 2 else NORMAL_Q) * se + bound
    return loss - half, loss + half


def verdict(lo: float, hi: float, thresholds: dict) -> tuple:
    """(label, borderline) for a loss whose interval is [lo, hi]: the label when the whole
    interval lies in one label's band (None: below the inaccuracy threshold), else
    (None, True): the interval straddles a threshold, the search has not shown which."""
    a, b = label_for(lo, thresholds), label_for(hi, thresholds)
    return (a, False) if a == b else (None, True)
