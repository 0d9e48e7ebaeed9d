"""The evaluation graph's placing, shared by the HTML report and the board's review: `place`
decides everything but pixels (the value domain and its ticks, the curves, the decisions'
dots, where each round begins, the luck lane).

>>> p = place([Column(0, 0, None, 1.2, 0), Column(1, 1, None, -2.6, 1, "mistake")], 2)
>>> (p.lo, p.hi), p.tick_texts, p.boundaries
((-3, 2), ('−3', '−2', '−1', '0', '+1', '+2'), ((0, 0), (1, 1)))
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Column:
    """One column: the side that moved, each side's `values` or the mover's `value`, the
    decision judged there and the luck credited there, if any."""
    round: int
    side: int
    values: tuple | None
    value: float | None
    decision: int | None = None
    label: str | None = None
    borderline: bool = False
    exact: bool = False
    luck: float | None = None
    luck_kind: str | None = None


@dataclass(frozen=True)
class Curve:
    """A side's values through the graph: (column, value) in column order."""
    side: int
    points: tuple


@dataclass(frozen=True)
class Dot:
    """A decision on its mover's curve; `mark` in the strip above: "marker", "borderline" or
    None."""
    column: int
    decision: int
    side: int
    value: float | None
    label: str | None
    borderline: bool
    exact: bool
    mark: str | None


@dataclass(frozen=True)
class Luck:
    """A bar of the luck lane (up good for `side`; `kind` the deal's or the draws')."""
    column: int
    side: int
    value: float
    kind: str | None


@dataclass(frozen=True)
class Placing:
    """Where everything of the graph goes, in columns and values (`place`)."""
    columns: int
    lo: float
    hi: float
    axis: float            # the value the axis marks: 0 points, or an even match (0.5)
    ticks: tuple
    tick_texts: tuple
    curves: tuple          # Curve per side that has a point, by side
    dots: tuple            # Dot per decision, by column
    boundaries: tuple      # (column, round): where each round begins
    luck: tuple = ()       # Luck per column with luck, by column
    luck_top: float = 1.0  # the luck at the lane's edge: the largest, 1 at least

    def to_json(self) -> dict:
        """The placing as the board's page reads it."""
        return {"columns": self.columns, "lo": self.lo, "hi": self.hi, "axis": self.axis,
                "ticks": [[t, s] for t, s in zip(self.ticks, self.tick_texts)],
                "curves": [{"side": c.side, "points": [list(p) for p in c.points]}
                           for c in self.curves],
                "dots": [asdict(d) for d in self.dots],
                "boundaries": [list(b) for b in self.boundaries],
                "luck": [asdict(b) for b in self.luck], "luck_top": self.luck_top}


def place(columns: list, n_sides: int, objective: str = "points") -> Placing:
    """The placing of `columns`: the domain 0..1 for the match objective, else whole points
    around every finite value, -1..+1 at least."""
    series: list[list] = [[] for _ in range(n_sides)]
    for i, c in enumerate(columns):
        if c.values is not None:
            for sd in range(n_sides):
                series[sd].append((i, c.values[sd]))
        else:
            series[c.side].append((i, c.value))
    values = [v for s in series for _, v in s if v is not None and math.isfinite(v)]
    if objective == "match":
        lo, hi = 0.0, 1.0
    else:
        lo, hi = math.floor(min(values + [-1.0])), math.ceil(max(values + [1.0]))
        if hi - lo < 2:
            hi, lo = hi + 1, lo - 1
    marks = ticks(lo, hi)
    first: dict = {}
    for i, c in enumerate(columns):
        first.setdefault(c.round, i)
    luck = tuple(Luck(i, c.side, c.luck, c.luck_kind) for i, c in enumerate(columns)
                 if c.luck is not None)
    return Placing(
        len(columns), lo, hi, 0.5 if objective == "match" else 0.0, tuple(marks),
        tuple(tick_text(t, objective) for t in marks),
        tuple(Curve(sd, tuple((i, v) for i, v in pts if v is not None))
              for sd, pts in enumerate(series) if pts),
        tuple(Dot(i, c.decision, c.side, c.value, c.label, c.borderline, c.exact,
                  "borderline" if c.borderline else "marker" if c.label else None)
              for i, c in enumerate(columns) if c.decision is not None),
        tuple((i, r) for r, i in sorted(first.items())),
        luck, max([abs(b.value) for b in luck] + [1.0]))


def ticks(lo: float, hi: float) -> list:
    """At most about 8 round ticks from `lo` to `hi`."""
    span = hi - lo
    for step in (0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50):
        if span / step <= 8:
            break
    start = math.ceil(lo / step) * step
    out, t = [], start
    while t <= hi + 1e-9:
        out.append(round(t, 6))
        t += step
    return out


def tick_text(t: float, objective: str) -> str:
    """A tick's text: a chance in percent, or signed points (a true minus sign)."""
    if objective == "match":
        return f"{100 * t:.0f}%"
    return format(t, "+g").replace("-", "−") if t else "0"
