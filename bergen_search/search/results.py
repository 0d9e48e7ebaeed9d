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
           "choices", "paired_stderr", "pool", "rank", "rows_from_stats"]


@dataclass(frozen=True)
class MoveValue:
    """One root move of a search and what the search found of it. The views write it
    (`views.move_text`, `views.move_rows`). `stderr` is a sampling error only (0: none, the
    value is exact or bounded); `bound` the exact endgame's, within which the value lies."""
    move: Move           # the action (`notation.Move`: a play, the draw or the pass)
    code: int            # move.code: tile * 2 + end, DRAW or PASS
    value: float
    stderr: float        # the value's standard error (inf: not measured)
    visits: int          # ISMCTS visits, or expectimax worlds
    twin: Move | None = None   # the move this one mirrors (the same choice), if any
    #: ISMCTS: the value each independent replicate gave it, in replicate order (`value` is
    #: their mean, `stderr` their standard error); the difference of two moves' samples,
    #: replicate by replicate, gives the honest error of a difference (`paired_stderr`).
    samples: tuple = ()
    share: float | None = None   # the exact endgame's equilibrium mix: this move's share
    #: A row of `choices()`: this move stands for itself and its mirror twin at the other end
    #: (one choice; written `a-b:L/R`).
    both_ends: bool = False
    #: Whether `value` was measured: an iteration (or a world) reached the move, or ISMCTS's
    #: final pass played it; if not, `value` is a placeholder, written null (`rank`).
    measured: bool = True
    #: The exact endgame's bound: the value is the equilibrium's within it (the hand's bound,
    #: or a refined deviation's own), a bound rather than a sampling error; 0 elsewhere.
    bound: float = 0.0

    @property
    def plus_minus(self) -> float:
        """What is written after the value's ± (FORMATS.md's `stderr`): its standard error
        plus its bound (one of them is 0: a sampled value's error, an exact value's bound)."""
        return self.stderr + self.bound


def paired_stderr(a: MoveValue, b: MoveValue) -> float:
    """The standard error of `a.value - b.value`: from their replicates' differences, replicate
    by replicate, when both have them (moves of one search share each replicate's worlds, so
    the difference is far less noisy than either value); else as if they were independent."""
    if a.move == b.move or a.code == b.code:
        return 0.0
    if len(a.samples) == len(b.samples) >= 2:
        d = [x - y for x, y in zip(a.samples, b.samples)]
        return spread(d)[1]
    return math.sqrt(a.stderr ** 2 + b.stderr ** 2)


def choices(moves) -> list:
    """The moves with each mirror twin folded into the move it mirrors (`both_ends` set on
    it: one choice, which the views write `a-b:L/R`), in their order: what `best` and
    `play`'s hints list."""
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
    """The exact endgame's bracket where it did not solve (`info["endgame"]["bracket"]`, from
    `endgame.Bracket`): the game with the seat's hand shown, move by move."""
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
    """The exact endgame's report (`info["endgame"]`): solved (the equilibrium's figures,
    `endgame.Solution`), or why not, with the bracket where it was tried."""
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
    """The keys of `SearchResult.info` (a dict at run time, as python-chess's `InfoDict` is;
    every key optional in the type, though a search that ran fills the first ones)."""
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


@dataclass(frozen=True)
class SearchResult:
    """What `search` found: `best` (a `notation.Move`), `moves` (`MoveValue`s, best first),
    the best move's `value` and `stderr`, `visits` (the root's visits, or the iterations),
    and `info`, a dict of what else the search reports (its keys: `SearchInfo`), as
    python-chess's `PlayResult.info` is (not an `InfoSet`, which the search's input is);
    `bound`: the exact endgame's bound on the values (the hand's), as `MoveValue.bound`.
    """
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
    """What one unit of a search found, as every engine's `Algorithm.worker` returns it and
    `workers.UnitPool` merges it (construct it with keywords):

    - `stats`: (move, n, reward sum, sum of squares) of every root move: its visits, and the
      search's own statistics (summed over the units when they are not replicates);
    - `done` (iterations or worlds), `interrupted`, `nodes`;
    - what a replicate gives the figures (an engine whose units are replicates): `values`
      {move: the unit's value of it} and `sides` {move: each side's expected outcome after
      it}, one sample each of what the pool averages; `worlds`, the worlds of the value pass
      that measured them apart from the search (0: they are the search's own means). Once a
      unit of a search has measured values, the figures are those units' alone;
    - `extra`: its engine's own, which only the engine reads (`Algorithm.fold`, `summary`)."""
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
    """What `Algorithm.exhaustive` found by solving every world: `rows` (move, worlds, value,
    stderr), the worlds `done`, and what the result's `info` gains."""
    rows: list
    done: int
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]


def rows_from_stats(moves, twins, merged: dict) -> list:
    """(move, visits, value, stderr) of every root move from the search's statistics `merged`
    {move: (n, sum, sum of squares)} (a mirror twin's are the move's it mirrors)."""
    rows = []
    for m in moves:
        n, s, sq = merged.get(twins.get(m, m), (0, 0.0, 0.0))[:3]
        rows.append((m, n) + mean_stderr(n, s, sq))
    return rows


def rank(rows, twins, by_visits: bool, lead: bool, *, samples=None, measured=()) -> list:
    """The rows (move, visits, value, stderr) as `MoveValue`s, best first: the most visited
    (the robust child) or the best value; a twin right after the move it mirrors. `samples`:
    {move: per-replicate values}. A move is measured when an iteration reached it, when a
    replicate valued it (ISMCTS's final pass plays every root move, visited or not) or when
    it is in `measured`; one that is not has no value, only a placeholder mean, and goes
    after every move that has one."""
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
    """Searches of one position with replicates (ISMCTS's trees) and one budget per
    replicate, pooled into one: their replicates taken together (independent trees
    estimating the same thing), so the value is the mean of all of them and the error
    shrinks with their number, the moves ranked by visits (`by_visits`) or by value. How
    `analyze` searches a close decision again without changing what is measured."""
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
