"""The luck identity of an analysis for people (`analysis.luck`): each round's terms and each
seat's sums, in a table a reader can add up row by row."""
from __future__ import annotations

from ..analysis.luck import identity_sum, rounds_of
from .search import gap_text


def identity_table(summary, objective: str = "points", per_round: bool = False) -> list:
    """The luck identity of `summary` (an analysis's `SeatSummary`s) for a reader to add up:
    with `per_round`, each round's `RoundLuck` (an unfinished round's result and residual
    `n/a`); then each seat's sum over its finished rounds; nothing without luck."""
    rows = rounds_of(summary) if per_round else []
    sums = [(sm.seat, identity_sum(sm.rounds)) for sm in summary]
    if not rows and all(t is None for _, t in sums):
        return []

    def cell(x) -> str:
        return f"{'n/a' if x is None else gap_text(x, objective, 2, sign='+'):>8}"

    def line(where: str, x) -> str:
        return (f"  {where:<5} {x.seat:<4} {cell(x.result)} ={cell(x.start)} {cell(x.luck_deal)}"
                f" {cell(x.luck_draws)} {cell(0.0 - x.loss)} {cell(x.others)} {cell(x.residual)}")
    unit = ("the side's margin in points" if objective == "points"
            else "its chance to win at the next deal, in percentage points")
    out = ["", f"luck and play add up to the result ({unit}):",
           "  result = start + luck of the deal + of the draws - own losses + others' losses "
           "+ residual",
           f"  {'round':<5} {'seat':<4} {'result':>8}  {'start':>7} {'deal':>8} {'draws':>8} "
           f"{'-loss':>8} {'others':>8} {'residual':>8}"]
    out += [line(str(x.round + 1), x) for x in rows]
    out += [line("all", t) for _, t in sums if t is not None]
    return out
