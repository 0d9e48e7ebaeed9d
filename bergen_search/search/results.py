"""What a search returns and what its parts hand each other, typed: `SearchResult` (with
`SearchInfo`, the keys of its `info`), `MoveValue`, and the units' `UnitOutput`; the rows of
root statistics ranked into `MoveValue`s; searches pooled.

>>> from bergen_search.formats.notation import Move
>>> r = SearchResult(Move.parse("0-3:R"), [], 0.4, 0.1, 100)
>>> eval(repr(r.best)) == r.best
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Optional, TypedDict

from ..errors import BergenError
from ..formats.notation import Move
from ..stats import mean_stderr, spread

__all__ = ["BracketReport", "EndgameReport", "Exhaustive", "MemoryInfo",
           "MoveValue", "SearchInfo", "SearchResult", "UnitOutput", "ValuesInfo",
           "choices", "paired", "paired_stderr", "pool", "rank", "rows_from_stats"]


@dataclass(frozen=True)
class MoveValue:
    """One root move of a search and what it found of it. `stderr`: a sampling error only (0: none);
    `bound`: the exact endgame's, within which the value lies."""
    move: Move           # the action (`notation.Move`: a play, the draw or the pass)
    code: int            # move.code: tile * 2 + end, DRAW or PASS
    value: float
    stderr: float        # the value's standard error (inf: not measured)
    visits: int          # ISMCTS visits, or expectimax worlds
    twin: Move | None = None   # the move this one mirrors (the same choice), if any
    #: ISMCTS: the value each replicate gave it, in replicate order (`paired_stderr` reads them).
    samples: tuple = ()
    share: float | None = None   # the exact endgame's equilibrium mix: this move's share
    #: A row of `choices()`: this move stands for itself and its mirror twin (`a-b:L/R`).
    both_ends: bool = False
    #: Whether `value` was measured; if not, it is a placeholder, written null (`rank`).
    measured: bool = True
    #: The exact endgame's bound on the value (0 elsewhere).
    bound: float = 0.0
    #: A value corrected for the budget (ISMCTS's `settle`): the search's own value, by which
    #: the move is chosen (None: `value` is it); the degrees of freedom of `stderr` (None: the
    #: replicates' less one); what a difference with another move adds to its variance, the
    #: square of the two drifts' difference and each one's drift_var.
    raw: float | None = None
    dof: float | None = None
    drift: float = 0.0
    drift_var: float = 0.0

    @property
    def plus_minus(self) -> float:
        """What is written after the value's ±: its standard error plus its bound (one of them is
        0)."""
        return self.stderr + self.bound


def paired(a: MoveValue, b: MoveValue) -> tuple:
    """(standard error, degrees of freedom) of `a.value - b.value`: from their replicates'
    differences when both have them (a move's replicates share worlds), with what their
    corrections add (`MoveValue.drift`) and the Welch-Satterthwaite degrees of freedom of
    that sum (the spread's on replicates - 1, the rest known); else as if independent (inf
    degrees of freedom)."""
    if a.move == b.move or a.code == b.code:
        return 0.0, math.inf
    if len(a.samples) == len(b.samples) >= 2:
        sp = spread([x - y for x, y in zip(a.samples, b.samples)])[1]
        se2 = sp * sp + a.drift_var + b.drift_var + (a.drift - b.drift) ** 2
        dof = (len(a.samples) - 1) * (se2 / (sp * sp)) ** 2 if sp > 0 else math.inf
        return math.sqrt(se2), min(dof, 1e6)
    return math.sqrt(a.stderr ** 2 + b.stderr ** 2), math.inf


def paired_stderr(a: MoveValue, b: MoveValue) -> float:
    """The standard error of `a.value - b.value` (`paired`)."""
    return paired(a, b)[0]


def choices(moves) -> list:
    """The moves with each mirror twin folded into the move it mirrors (`both_ends` set), in order."""
    twinned = {m.twin for m in moves if m.twin is not None}
    return [replace(m, both_ends=True) if m.move in twinned else m
            for m in moves if m.twin is None]


class ValuesInfo(TypedDict, total=False):
    """How a search's values were measured (`info["values"]`)."""
    method: str              # "search", "pass" (a value pass: ISMCTS's final pass) or "equilibrium"
    worlds: int              # the value pass's worlds
    replicates: int          # the replicates whose values are merged


class MemoryInfo(TypedDict):
    """The memory cap of an engine whose units grow with the budget (`info["memory"]`)."""
    cap_mb: int              # the cap, in MB
    full: int                # the units that reached it
    full_at: Optional[int]   # after how many iterations the first stopped growing


class BracketReport(TypedDict, total=False):
    """The exact endgame's bracket where it did not solve (`info["endgame"]["bracket"]`)."""
    shown: bool              # always True: the bound is of the shown game
    floor: dict              # {Move: what the move secures for this hand}
    ceiling: dict            # {Move: what the other side, seeing the hand, holds it to}
    horizon: dict            # {Move: {"floor": n, "ceiling": n}}: decisions below the cut
    deals: int
    iterations: int
    work: int
    seconds: float
    exploitability: float    # the largest of the moves' subgames'
    missing: list            # [Move]: legal moves the budget did not bracket


class EndgameReport(TypedDict, total=False):
    """The exact endgame's report (`info["endgame"]`): solved, or why not."""
    solved: bool
    why: Optional[str]       # why it did not solve (None: not at the endgame's stage)
    deals: int
    worlds: int              # the deals where the seat holds its own hand
    exploitability: float
    tolerance: float
    iterations: int
    nodes: int
    work: int
    game_value: float
    bounds: list             # [low, high]: the game's value lies between
    hand_gap: float
    hand_bound: float        # the bound printed with the hand's values
    mix: dict                # {Move: share} of the equilibrium played
    average: dict            # {Move: share} of the average strategy
    solve_seconds: float
    refined: dict            # {Move: bool}: a deviation valued against an answer, or not
    bracket: BracketReport
    bracket_why: str         # why no bracket could be had


class SearchInfo(TypedDict, total=False):
    """The keys of `SearchResult.info` (a dict at run time, as python-chess's `InfoDict`)."""
    algorithm: str           # the name asked for (a preset's name, too)
    objective: str           # "points" or "match"
    seed: int
    backend: str             # "core" or "reference"
    workers: int
    settings: dict           # the algorithm's full settings
    iterations: int          # iterations (or worlds) done
    seconds: float
    worlds_consistent: int   # histories consistent with what the seat knows
    exact: bool              # every value exact (expectimax's enumeration, the endgame)
    interrupted: bool        # Ctrl-C or a stop ended it early
    empty: bool              # nothing finished: the values are no answer
    values: ValuesInfo
    replicates: Optional[int]    # the replicated units merged (None when not replicated)
    nodes: int               # tree nodes or expectimax nodes
    memory: MemoryInfo       # ISMCTS's memory cap
    twins: dict              # {Move: the Move it mirrors}
    sides: dict              # {Move: each side's expected outcome after it}
    endgame: EndgameReport   # the exact endgame's report, or why it did not solve
    worlds: int              # expectimax's worlds solved when every world was enumerated
    all_worlds: bool         # every enumerated world solved
    pooled: int              # searches pooled into this one (`pool`)
    lines: dict              # {Move: [Move]}: the line of play expected after each move
    settled: bool            # ISMCTS's settle: more time would not re-rank the best move
    settle: dict             # {"horizon": doublings from the trees to the reference}


@dataclass(frozen=True)
class SearchResult:
    """What `search` found: `best` (a `notation.Move`), `moves` (`MoveValue`s, best first), the best
    move's `value` and `stderr`, `visits`, `info` (keys: `SearchInfo`) and `bound` (the exact
    endgame's)."""
    best: Move | None    # None: a position before the lead the seat may not lead (before_lead.py)
    moves: list          # MoveValue, best first
    value: float
    stderr: float
    visits: int
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]
    bound: float = 0.0

    @property
    def plus_minus(self) -> float:
        """The value's ± as written: `MoveValue.plus_minus`."""
        return self.stderr + self.bound


@dataclass
class UnitOutput:
    """What one unit of a search found (`Algorithm.worker` returns it, `workers.UnitPool` merges it;
    made with keywords): `stats` (move, n, reward sum, sum of squares) per root move; `done`,
    `interrupted`, `nodes`; a replicate's `values` {move: value} and `sides` {move: each side's
    expected outcome}, with `worlds` of the value pass that measured them (0: the search's own
    means); `extra`, its engine's own (`Algorithm.fold`)."""
    stats: list
    done: int
    interrupted: bool
    nodes: int = 0
    values: dict = field(default_factory=dict)
    sides: dict = field(default_factory=dict)
    worlds: int = 0
    extra: dict = field(default_factory=dict)


@dataclass
class Exhaustive:
    """What `Algorithm.exhaustive` found: `rows` (move, worlds, value, stderr), `done`, and `info`."""
    rows: list
    done: int
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]


def rows_from_stats(moves, twins, merged: dict) -> list:
    """(move, visits, value, stderr) of every root move from `merged` {move: (n, sum, sum of
    squares)} (a twin's are its move's)."""
    rows = []
    for m in moves:
        n, s, sq = merged.get(twins.get(m, m), (0, 0.0, 0.0))[:3]
        rows.append((m, n) + mean_stderr(n, s, sq))
    return rows


def rank(rows, twins, by_visits: bool, lead: bool, *, samples=None, measured=()) -> list:
    """The rows (move, visits, value, stderr) as `MoveValue`s, best first: the most visited or the
    best value; a twin right after its move. `samples`: {move: per-replicate values}. A move not
    measured (no iteration, replicate or `measured` entry) goes after every measured one."""
    samples = samples or {}
    known = {r[0] for r in rows if r[1] > 0 or samples.get(r[0]) or r[0] in measured}
    if by_visits:
        rows = sorted(rows, key=lambda r: (r[0] not in known, -r[1], -r[2],
                                           twins.get(r[0], r[0]), r[0]))
    else:
        rows = sorted(rows, key=lambda r: (r[0] not in known, -r[2], twins.get(r[0], r[0]),
                                           r[0]))
    return [MoveValue(Move.from_code(m, lead), m, v, se, n,
                      Move.from_code(twins[m], lead) if m in twins else None,
                      samples=tuple(samples.get(m, ())), measured=m in known)
            for m, n, v, se in rows]


def pool(results, *, by_visits: bool = False) -> SearchResult:
    """Searches of one position with replicates and one budget per replicate, pooled into one: the
    value the mean of all replicates, the moves ranked by visits (`by_visits`) or value."""
    first = results[0]
    if any(not m.samples for res in results for m in res.moves):
        raise BergenError("only searches with replicates can be pooled")
    by: dict = {}
    for res in results:
        for m in res.moves:
            by.setdefault(m.code, []).append(m)
    codes = {m.move: m.code for m in first.moves}
    rows = []
    for code, ms in by.items():
        samples = tuple(x for m in ms for x in m.samples)
        mean, se = spread(samples)
        rows.append(MoveValue(ms[0].move, code, mean, se, sum(m.visits for m in ms),
                              ms[0].twin, samples=samples))
    twin_of = lambda m: codes[m.twin] if m.twin is not None else m.code
    rows.sort(key=(lambda m: (-m.visits, -m.value, twin_of(m), m.code)) if by_visits else
              (lambda m: (-m.value, twin_of(m), m.code)))
    info = first.info.copy()
    n = [len(res.moves[0].samples) for res in results]
    for key in ("iterations", "seconds", "nodes"):
        info[key] = sum(res.info.get(key) or 0 for res in results)
    info["replicates"] = sum(n)
    info["interrupted"] = any(res.info.get("interrupted") for res in results)
    info["pooled"] = len(results)
    if all("sides" in res.info for res in results):
        info["sides"] = {m: [math.fsum(k * res.info["sides"][m][i] for k, res in zip(n, results))
                             / sum(n) for i in range(len(first.info["sides"][m]))]
                         for m in first.info["sides"]}
    return SearchResult(rows[0].move, rows, rows[0].value, rows[0].stderr,
                        sum(m.visits for m in rows if m.twin is None), info)
