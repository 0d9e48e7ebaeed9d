"""Engines and the matches they play: `random`, `greedy`, and the searches `ismcts` (the
default engine), `classic` (ISMCTS as it was before issue 9: uniform worlds, random
playouts) and `expectimax`, with their settings (`ismcts:iterations=2000`,
`ismcts:time=0.1,inference=off`, `expectimax:worlds=64,depth=6`).

A search engine sees only its own information set (built by an `Observer` that reads the
public events and its own hand), never the other hands.

>>> parse_engine_spec("ismcts:iterations=500")
EngineSpec(name='ismcts', params={'iterations': 500})
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

from .errors import BergenError
from . import playout
from .playout import SIMPLE_ENGINES, MatchLog, choose, greedy_choice
from .rng import Rng, derive_seed
from .rules import Rules
from .state import State

def _engine_settings() -> dict:
    """name -> {setting: type or search.Setting} for every engine the program knows: the
    simple engines, and per search algorithm (and preset) its budget (`iterations`, or
    `worlds` for expectimax), `time`, `objective`, `workers` and the algorithm's settings."""
    from .search import ALGORITHM_NAMES, resolve
    out = {"random": {}, "greedy": {}}
    for name in ALGORITHM_NAMES:
        alg, _ = resolve(name, {})
        out[name] = {alg.unit: int, "time": float, "objective": str, "workers": int,
                     "memory": int, **alg.settings}
    return out


#: name -> {setting: type or search.Setting} for every engine the program knows.
ENGINE_SETTINGS = _engine_settings()


def _ranges() -> dict:
    from .search import MAX_ITERATIONS, MAX_MEMORY_MB, MAX_SECONDS
    return {"iterations": (1, MAX_ITERATIONS), "worlds": (1, MAX_ITERATIONS),
            "workers": (1, 64), "memory": (1, MAX_MEMORY_MB),
            "time": (math.ulp(0.0), MAX_SECONDS)}


#: The range of each budget setting of a search engine (time in seconds, memory in MB):
#: infinite, NaN, negative and oversized values are refused when the spec is read.
_RANGES = _ranges()


class EngineWarning(UserWarning):
    """An engine in a match did not play as specified (`Table.choose`): shown once per
    engine spec and process, as one line by the command line."""


#: XORed into a match's seed to seed its searches.
SEARCH_STREAM = 0x2545F4914F6CDD1D


@dataclass(frozen=True)
class EngineSpec:
    name: str
    params: dict = field(default_factory=dict)

    @property
    def simple_code(self):
        """The core's code for the engines that need no search, else None."""
        return SIMPLE_ENGINES.get(self.name)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        from .search import setting_text
        return self.name + ":" + ",".join(f"{k}={setting_text(v)}"
                                          for k, v in self.params.items())

    def search_args(self):
        """(Limits, keyword arguments) of `search.search` for a search engine."""
        from .search import Limits, resolve
        p = dict(self.params)
        alg = resolve(self.name, {})[0]
        unit = alg.unit
        budget = p.pop(unit, None)
        seconds = p.pop("time", None)
        memory = p.pop("memory", None)
        if budget is None and seconds is None:
            from .backend import SEARCH
            # The algorithm's budget for a match engine given neither a budget nor a time
            # (`Algorithm.match_budget`; without the compiled core, the fallback's share).
            budget = SEARCH.budget(alg.match_budget)
        return (Limits(iterations=budget, time=seconds, memory_mb=memory),
                dict(algorithm=self.name, **p))


def parse_engine_spec(text: str) -> EngineSpec:
    """Parse `name` or `name:key=value,key=value`."""
    from .search import Setting
    name, _, rest = text.strip().partition(":")
    if name not in ENGINE_SETTINGS:
        raise BergenError(f"unknown engine {name!r} (known: {', '.join(ENGINE_SETTINGS)})")
    settings = ENGINE_SETTINGS[name]
    params = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or key not in settings:
            known = ", ".join(settings) or "none"
            raise BergenError(f"engine {name!r}: bad setting {item!r} (settings: {known})")
        kind = settings[key]
        if isinstance(kind, Setting):
            try:
                params[key] = kind.parse(key, value)
            except BergenError as e:
                raise BergenError(f"engine {name!r}: {e.message}") from None
            continue
        try:
            params[key] = kind(value)
        except ValueError:
            raise BergenError(f"engine {name!r}: setting {key} needs a {kind.__name__}, "
                              f"got {value!r}") from None
        if key in _RANGES and not _RANGES[key][0] <= params[key] <= _RANGES[key][1]:
            low, high = _RANGES[key]
            bounds = (f"positive and at most {high:,.0f} seconds" if key == "time"
                      else f"at least {low} and at most {high:,}")
            raise BergenError(f"engine {name!r}: {key} must be {bounds}, got {value!r}")
        if key == "objective" and value not in ("points", "match"):
            raise BergenError(f"engine {name!r}: objective must be points or match")
    return EngineSpec(name, params)


def parse_engine_list(text: str, players: int) -> list:
    """`SPEC[,SPEC...]` one per seat, or one for all seats. Settings inside a spec are joined
    with ',' too, so specs are split where a new engine name starts."""
    parts, current = [], None
    for item in (p.strip() for p in text.split(",")):
        head = item.partition(":")[0]
        if current is None or head in ENGINE_SETTINGS:
            if current is not None:
                parts.append(current)
            current = item
        else:
            current += "," + item
    if current is not None:
        parts.append(current)
    specs = [parse_engine_spec(p) for p in parts]
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise BergenError(f"--engines gives {len(specs)} engines for {players} seats "
                          f"(give one for all seats or one per seat)")
    return specs


class Table:
    """The engines at a table during one match: each seat's choice, with a search seeing only
    its own seat's information (an `Observer` per search seat, fed every action). `specs[s]`
    None is a seat the table does not play (a person's). `rng` is the match's play stream
    (random and greedy moves); search seeds come from the match's seed and the decision's
    number. Drives `playout.play_match` and `interactive.PlaySession` alike."""

    def __init__(self, rules: Rules, specs, seed: int, rng: Rng, timing: dict | None = None):
        self.rules, self.specs, self.seed, self.rng = rules, list(specs), seed, rng
        self.codes = [None if s is None else s.simple_code for s in self.specs]
        self.decisions = 0
        self.observers = {}
        #: seat -> [searches, seconds]: the searched decisions and their time (the
        #: information set and the search), kept in `timing` if given.
        self.timing = {} if timing is None else timing

    def new_round(self, state: State) -> None:
        from .infoset import Observer
        self.observers = {s: Observer(self.rules, {s}, state)
                          for s, spec in enumerate(self.specs)
                          if spec is not None and spec.simple_code is None}

    def choose(self, state: State, moves: list) -> int:
        """The move of the seat to move (one of `moves`, its legal moves)."""
        seat = state.to_move
        if len(moves) == 1 or self.codes[seat] is not None:
            return choose(self.codes[seat] or 0, state, moves, self.rng)
        from .search import search
        start = time.perf_counter()
        limits, kwargs = self.specs[seat].search_args()
        info = self.observers[seat].infoset(seat)
        result = search(info, limits, seed=derive_seed(self.seed ^ SEARCH_STREAM, self.decisions),
                        values=False, **kwargs)
        if result.info.get("interrupted"):
            # A search keeps what it found on Ctrl-C; a match does not go on with it.
            raise KeyboardInterrupt
        self.decisions += 1
        spent = self.timing.setdefault(seat, [0, 0.0])
        spent[0] += 1
        spent[1] += time.perf_counter() - start
        if result.info.get("empty"):
            # Not one world (or iteration) in the time: no values to choose by. The move is
            # the greedy one, and a warning says so (once per engine and process).
            from .search import resolve
            unit = resolve(kwargs["algorithm"], {})[0].unit.rstrip("s")
            warnings.warn(EngineWarning(
                f"engine {self.specs[seat]} finished no {unit} within its time limit at a "
                f"move, and played the greedy move there (give it more time"
                + (", or less depth)" if unit == "world" else ")")), stacklevel=2)
            return greedy_choice(state, moves)
        return result.moves[0].code

    def observe(self, seat: int, move: int, after: State) -> None:
        for obs in self.observers.values():
            obs.step(seat, move, after)


def play_match(rules: Rules, specs, seed: int, start_scores=None, backend=None,
               timing: dict | None = None, max_rounds: int | None = None) -> MatchLog:
    """A whole match between engines. With only `random` and `greedy` it is the backend's
    `play_match` (the same match on both backends); with a search engine the reference's
    `play_match` drives a `Table`, with the same deals. `timing`, if given, gets
    seat -> [searches, seconds] (see `Table`)."""
    codes = [s.simple_code for s in specs]
    if all(c is not None for c in codes):
        if backend is None:
            from .backend import ACTIVE as backend
        return backend.play_match(rules, codes, seed, start_scores, max_rounds=max_rounds)
    return playout.play_match(rules, codes, seed, start_scores,
                              table=lambda rng: Table(rules, specs, seed, rng, timing),
                              max_rounds=max_rounds)


def _match_records(rules: Rules, specs, seed: int, start_scores, indices) -> list:
    """(record line, winner) of matches `indices` of a self-play run seeded `seed`."""
    from .record import dump_record, write_record
    out = []
    for i in indices:
        log = play_match(rules, specs, derive_seed(seed, i), start_scores)
        out.append((dump_record(write_record(log)), log.winner))
    return out


def selfplay(rules: Rules, specs, games: int, seed: int, start_scores=None, *, workers: int = 1,
             cluster=None, progress=None, done: dict | None = None, on_result=None) -> list:
    """[(record line, winner)] of `games` matches (match i seeded `derive_seed(seed, i)`), in
    order, however they were run: serially, on `workers` local processes, or on the Dask
    cluster `cluster` (`parallel.run_ordered`).

    `done` {match index: (record line, winner)}: matches already played (a resumed run),
    which are not played again; `on_result(i, row)` hears of each match as it finishes.
    Ctrl-C raises `errors.Interrupted` whose `partial` is the rows of the matches finished,
    in order, up to the first missing one."""
    from functools import partial

    from .errors import Interrupted
    from .parallel import batches, run_ordered
    rows = dict(done or {})
    simple = all(s.simple_code is not None for s in specs)
    task = partial(_match_records, rules, list(specs), seed, start_scores)
    todo = batches([i for i in range(games) if i not in rows], workers, simple, 500)

    def finished(k, batch_rows):
        for i, row in zip(todo[k], batch_rows):
            rows[i] = row
            if on_result is not None:
                on_result(i, row)

    if progress is not None and rows:
        progress(len(rows), games)
    try:
        run_ordered(task, todo, workers=workers, cluster=cluster, units=len,
                    progress=None if progress is None else
                    (lambda n, total: progress(len(rows), games)), on_result=finished)
    except KeyboardInterrupt:
        prefix = []
        while len(prefix) in rows:
            prefix.append(rows[len(prefix)])
        raise Interrupted(prefix, len(rows), games, "matches") from None
    return [rows[i] for i in range(games)]
