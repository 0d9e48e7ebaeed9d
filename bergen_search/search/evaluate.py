"""What `bergen best` and `bergen eval` ask of the search, decided here and not in the doors:
`answer()` is one search that must have finished something (a search that finished nothing
is no answer: `NothingFinished` when Ctrl-C cut it, a `BergenError` when its budget was too
small), and `evaluate()` is a position scored for every side, with the extra searches that
takes.

Each side's expected points and match chances come from the chosen algorithm when it reports
them for either objective (`Algorithm.sides`), else from the default engine (ISMCTS with its
default settings), with the same budget and seed, one search per objective; the chosen
objective's search is the one the value comes from, never searched twice. After Ctrl-C no
further search starts, and a figure not searched is None.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import BergenError
from .api import Limits, SearchResult, search
from .registry import Settings

#: The objectives every side's figures are given for, in the order they are searched.
SIDE_OBJECTIVES = ("points", "match")


class NothingFinished(Exception):
    """A search cut by Ctrl-C before it finished a single iteration (or world): no answer.
    `str(err)` is the line to print; the exit status is 130, as for any Ctrl-C."""

    def __init__(self, unit: str):
        super().__init__(f"interrupted before the search finished a single {unit}: no answer")
        self.unit = unit


def answer(info, settings: Settings, objective: str, limits: Limits, seed: int,
           workers: int) -> SearchResult:
    """The search of `best` and `eval`: `search()` with these arguments, refusing a result
    that finished nothing (`NothingFinished` when interrupted, else a `BergenError` saying
    what budget to give)."""
    result = search(info, limits, settings=settings, seed=seed, objective=objective,
                    workers=workers)
    if result.info.get("empty"):
        alg = settings.engine
        unit = "world" if alg.unit == "worlds" else "iteration"
        if result.info.get("interrupted"):
            raise NothingFinished(unit)
        hint = alg.empty_advice(dict(settings))
        limit = f"the time limit of {limits.time:g} s" if limits.time else "its budget"
        raise BergenError(f"the search finished no {unit} within {limit}{hint}", field="time")
    return result


@dataclass(frozen=True)
class SideFigures:
    """One side's figures: its expected points to the end of the round and its chance to win
    the match (None: not searched, or not reported)."""
    side: int
    expected_points: float | None
    p_win_match: float | None


@dataclass(frozen=True)
class Evaluation:
    """A position scored for every side (`evaluate`).

    `result`: the chosen algorithm's search with the chosen objective (the value, its
    stderr and the best move); `sides`: every side's figures; `side_algorithm`: the
    algorithm they came from; `searched`: the objectives whose search ran (fewer than both
    only after Ctrl-C); `interrupted`: Ctrl-C cut one of the searches."""
    result: SearchResult
    sides: tuple
    side_algorithm: str
    searched: tuple
    interrupted: bool


def side_settings(settings: Settings) -> Settings:
    """The algorithm and settings that give each side's figures: the chosen ones when the
    algorithm reports them (`Algorithm.sides`), else the default engine with its defaults."""
    return settings if settings.engine.sides else Settings.of()


def evaluate(info, settings: Settings | None, objective: str, limits: Limits, seed: int = 0,
             workers: int = 1) -> Evaluation:
    """Score the position of `info` for every side (see the module's doc) with the engine
    and settings of `settings` (None: the default engine's). Raises `NothingFinished` when
    Ctrl-C cut the chosen search before it found anything."""
    settings = Settings.of() if settings is None else settings
    result = answer(info, settings, objective, limits, seed, workers)
    sided = side_settings(settings)
    per_side = {}
    interrupted = bool(result.info.get("interrupted"))
    for obj in SIDE_OBJECTIVES:
        if interrupted and (sided, obj) != (settings, objective):
            continue                    # Ctrl-C: no more searches
        try:
            res = result if (sided, obj) == (settings, objective) else answer(
                info, sided, obj, limits, seed, workers)
        except NothingFinished:         # interrupted before it found anything
            interrupted = True
            continue
        interrupted = interrupted or bool(res.info.get("interrupted"))
        per_side[obj] = res.info.get("sides", {}).get(res.moves[0].move if res.moves
                                                      else res.best)
    n_sides = info.rules.n_sides
    na = [None] * n_sides
    sides = tuple(SideFigures(k, (per_side.get("points") or na)[k],
                              (per_side.get("match") or na)[k]) for k in range(n_sides))
    return Evaluation(result, sides, sided.algorithm, tuple(per_side), interrupted)
