"""The engines and their specs: `random`, `greedy`, and the searches `ismcts` (the
default engine), `classic` (ISMCTS as it was before issue 9: uniform worlds, random
playouts) and `expectimax`, with their settings (`ismcts:iterations=2000`,
`ismcts:time=0.1,inference=off`, `expectimax:worlds=64,depth=6`).

An `EngineSpec` is an engine's name and settings as parsed from the command line. The
engines play in their `seats.Seats` (a search engine sees only its own information set there,
never the other hands); a match is `match.Match`, self-play `selfplay.selfplay`.

>>> parse_engine_spec("ismcts:iterations=500")
EngineSpec(name='ismcts', params={'iterations': 500})
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..constants import OBJECTIVES
from ..errors import BergenError, a_kind
from ..game.match import SIMPLE_ENGINES


def _engine_settings() -> dict:
    """name -> {setting: type or search.Setting} for every engine the program knows: the
    simple engines, and per search algorithm (and preset) its budget (`iterations`, or
    `worlds` for expectimax), `time`, `objective`, `workers` and the algorithm's settings."""
    from ..search.registry import names, resolve
    out = {"random": {}, "greedy": {}}
    for name in names():
        alg, _ = resolve(name, {})
        out[name] = {alg.unit: int, "time": float, "objective": str, "workers": int,
                     "memory": int, **alg.settings}
    return out


#: name -> {setting: type or search.Setting} for every engine the program knows.
ENGINE_SETTINGS = _engine_settings()


def _ranges() -> dict:
    from ..search.api import MAX_ITERATIONS, MAX_MEMORY_MB, MAX_SECONDS
    return {"iterations": (1, MAX_ITERATIONS), "worlds": (1, MAX_ITERATIONS),
            "workers": (1, 64), "memory": (1, MAX_MEMORY_MB),
            "time": (math.ulp(0.0), MAX_SECONDS)}


#: The range of each budget setting of a search engine (time in seconds, memory in MB):
#: infinite, NaN, negative and oversized values are refused when the spec is read.
_RANGES = _ranges()


class EngineWarning(UserWarning):
    """An engine in a match did not play as specified (`Seats.choose`): shown once per
    engine spec and process, as one line by the command line."""


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
        from ..search.api import setting_text
        return self.name + ":" + ",".join(f"{k}={setting_text(v)}"
                                          for k, v in self.params.items())

    def search_args(self):
        """(Limits, keyword arguments) of `search.search` for a search engine."""
        from ..search.api import Limits, resolve
        p = dict(self.params)
        alg = resolve(self.name, {})[0]
        unit = alg.unit
        budget = p.pop(unit, None)
        seconds = p.pop("time", None)
        memory = p.pop("memory", None)
        if budget is None and seconds is None:
            from ..search.backend import SEARCH
            # The algorithm's budget for a match engine given neither a budget nor a time
            # (`Algorithm.match_budget`; without the compiled core, the fallback's share).
            budget = SEARCH.budget(alg.match_budget)
        return (Limits(iterations=budget, time=seconds, memory_mb=memory),
                dict(algorithm=self.name, **p))


def parse_engine_spec(text: str) -> EngineSpec:
    """Parse `name` or `name:key=value,key=value`."""
    from ..search.api import Setting
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
            raise BergenError(f"engine {name!r}: {key} must be {a_kind(kind)}, got "
                              f"{value!r}") from None
        if key in _RANGES and not _RANGES[key][0] <= params[key] <= _RANGES[key][1]:
            low, high = _RANGES[key]
            bounds = (f"positive and at most {high:,.0f} seconds" if key == "time"
                      else f"at least {low} and at most {high:,}")
            raise BergenError(f"engine {name!r}: {key} must be {bounds}, got {value!r}")
        if key == "objective" and value not in OBJECTIVES:
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
