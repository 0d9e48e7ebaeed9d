"""What a search returns and what its parts hand each other, typed (`SearchResult`,
`SearchInfo`, `MoveValue`, `UnitOutput`); root statistics ranked; searches pooled."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Optional, TypedDict

from ..errors import BergenError
from ..formats.notation import Move
from ..stats import mean_stderr, spread


@dataclass(frozen=True)
class MoveValue:
    """One root move of a search and what it found of it."""
    move: Move           # a play, the draw or the pass
    code: int            # move.code: tile * 2 + end, DRAW or PASS
    value: float
    stderr: float        # a sampling error only (0: none; inf: not measured)
    visits: int          # ISMCTS visits, or expectimax worlds
    twin: Move | None = None   # the move this one mirrors (the same choice), if any
    samples: tuple = ()  # the value each replicate gave it, in replicate order
    share: float | None = None   # the exact endgame's equilibrium mix: this move's share
    both_ends: bool = False      # a row of `choices()`: the move and its mirror twin
    measured: bool = True        # False: `value` is a placeholder, written null
    bound: float = 0.0           # the exact endgame's bound on the value
    #: A value corrected for the budget (ISMCTS's `settle`): the search's own value, by which
    #: the move is chosen (None: `value`); the degrees of freedom of `stderr` (None: the
    #: replicates' less one); what a difference with another move adds to its variance, the
    #: square of the two drifts' difference and each one's drift_var.
    raw: float | None = None
    dof: float | None = None
    drift: float = 0.0
    drift_var: float = 0.0

    @property
    def plus_minus(self) -> float:
        """What is written after the value's ± (one of stderr and bound is 0)."""
        return self.stderr + self.bound


def paired(a: MoveValue, b: MoveValue) -> tuple:
    """(standard error, degrees of freedom) of `a.value - b.value`: from their replicates'
    differences and corrections when both have them, else as if independent."""
    if a.move == b.move or a.code == b.code:
        return 0.0, math.inf
    if len(a.samples) == len(b.samples) >= 2:
        sp = spread([x - y for x, y in zip(a.samples, b.samples)])[1]
        se2 = sp * sp + a.drift_var + b.drift_var + (a.drift - b.drift) ** 2
        dof = (len(a.samples) - 1) * (se2 / (sp * sp)) ** 2 if sp > 0 else math.inf
        return math.sqrt(se2), min(dof, 1e6)
    return math.sqrt(a.stderr ** 2 + b.stderr ** 2), math.inf


def paired_stderr(a: MoveValue, b: MoveValue) -> float:
    return paired(a, b)[0]


def choices(moves) -> list:
    """The moves with each mirror twin folded into the move it mirrors (`both_ends` set)."""
    twinned = {m.twin for m in moves if m.twin is not None}
    return [replace(m, both_ends=True) if m.move in twinned else m
            for m in moves if m.twin is None]


class ValuesInfo(TypedDict, total=False):
    """How a search's values were measured (`info["values"]`)."""
    method: str              # "search", "pass" (ISMCTS's final pass) or "equilibrium"
    worlds: int              # the value pass's worlds
    replicates: int          # the replicates whose values are merged


class MemoryInfo(TypedDict):
    """The memory cap of the units that grow with the budget (`info["memory"]`)."""
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
    """The keys of `SearchResult.info` (a dict at run time)."""
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
    """What `search` found; `bound`: the exact endgame's."""
    best: Move | None    # None: before a lead the seat may not make (before_lead.py)
    moves: list          # MoveValue, best first
    value: float
    stderr: float
    visits: int
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]
    bound: float = 0.0

    @property
    def plus_minus(self) -> float:
        return self.stderr + self.bound


@dataclass
class UnitOutput:
    """What one unit of a search found (made with keywords)."""
    stats: list          # (move, n, reward sum, sum of squares) per root move
    done: int
    interrupted: bool
    nodes: int = 0
    values: dict = field(default_factory=dict)   # {move: value}
    sides: dict = field(default_factory=dict)    # {move: each side's expected outcome}
    worlds: int = 0      # of the value pass that measured them (0: the search's own means)
    extra: dict = field(default_factory=dict)    # its engine's own (`Algorithm.fold`)


@dataclass
class Exhaustive:
    """What `Algorithm.exhaustive` found: `rows` (move, worlds, value, stderr)."""
    rows: list
    done: int
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]


def rows_from_stats(moves, twins, merged: dict) -> list:
    """(move, visits, value, stderr) of every root move from `merged` {move: (n, sum, sum of
    squares)} (a twin's are its move's)."""
    return [(m, n) + mean_stderr(n, s, sq) for m in moves
            for n, s, sq in [merged.get(twins.get(m, m), (0, 0.0, 0.0))[:3]]]


def rank(rows, twins, by_visits: bool, *, samples=None, measured=()) -> list:
    """The rows (move, visits, value, stderr) as `MoveValue`s, best first: the most visited or the
    best value, a twin right after its move, a move not measured last."""
    samples = samples or {}
    known = {r[0] for r in rows if r[1] > 0 or samples.get(r[0]) or r[0] in measured}
    rows = sorted(rows, key=lambda r: (r[0] not in known, -r[1] if by_visits else 0, -r[2],
                                       twins.get(r[0], r[0]), r[0]))
    return [MoveValue(Move.from_code(m), m, v, se, n,
                      Move.from_code(twins[m]) if m in twins else None,
                      samples=tuple(samples.get(m, ())), measured=m in known)
            for m, n, v, se in rows]


def pool(results, *, by_visits: bool = False) -> SearchResult:
    """Searches of one position with replicates of one budget, pooled into one: the value the
    mean of all replicates, the moves ranked by visits (`by_visits`) or value."""
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
    rows.sort(key=lambda m: (-m.visits if by_visits else 0, -m.value,
                             codes[m.twin] if m.twin is not None else m.code, m.code))
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
