"""What a loss is called: the label thresholds, and the interval at CONFIDENCE that must lie
wholly within one label's band before a loss is labelled (`verdict`).
"""
from __future__ import annotations

import math

from ..errors import BergenError
from ..search.api import paired
from ..stats import interval_quantile, normal_quantile

#: Default thresholds on the loss in points of the round (docs/MEASUREMENTS.md, "Analysis").
THRESHOLDS = {"inaccuracy": 0.25, "mistake": 0.6, "blunder": 1.2}
LABELS = ("inaccuracy", "mistake", "blunder")
#: Default thresholds by objective (`match`: in the mover's chance to win the match).
DEFAULT_THRESHOLDS = {"points": THRESHOLDS,
                      "match": {"inaccuracy": 0.03, "mistake": 0.07, "blunder": 0.15}}
CONFIDENCE = 0.99
#: The interval's quantile where the error rests on no replicates (expectimax's, across worlds).
NORMAL_Q = normal_quantile(CONFIDENCE)


def label_thresholds(objective: str = "points", **given) -> dict:
    """The label thresholds for `objective`: its defaults, or those given (None: the default).

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
    """The gravest label whose threshold `loss` reaches, or None."""
    return next((name for name in reversed(LABELS) if loss >= thresholds[name]), None)


def loss_bounds(played, result) -> tuple:
    """(lo, hi, se): the interval at CONFIDENCE of the loss of `played` (a `MoveValue` of
    `result`): the largest lower and upper bounds of v(m) - v(played) over the other moves m,
    never below 0 (the best play is only estimated); `se`: the paired error of the nearest
    difference, plus the two values' bounds."""
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
    """The interval of a loss at CONFIDENCE: loss ± (t·se + bound), t Student's at `dof`
    (default: the replicates less one; the normal quantile without replicates); unbounded when
    the error is unknown."""
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
    interval lies in one label's band (None: below every threshold), else (None, True)."""
    a, b = label_for(lo, thresholds), label_for(hi, thresholds)
    return (a, False) if a == b else (None, True)
