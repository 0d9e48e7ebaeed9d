"""Engine specifications: `random`, `greedy` (and, later, the search engines with settings,
e.g. `ismcts:iterations=2000`).

>>> parse_engine_spec("greedy")
EngineSpec(name='greedy', params={})
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import BergenError
from .playout import SIMPLE_ENGINES

#: name -> {setting: type} for every engine the program knows.
ENGINE_SETTINGS = {"random": {}, "greedy": {}}


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
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())


def parse_engine_spec(text: str) -> EngineSpec:
    """Parse `name` or `name:key=value,key=value`."""
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
        try:
            params[key] = settings[key](value)
        except ValueError:
            raise BergenError(f"engine {name!r}: setting {key} needs a {settings[key].__name__}, "
                              f"got {value!r}") from None
    return EngineSpec(name, params)


def parse_engine_list(text: str, players: int) -> list:
    """`SPEC[,SPEC...]` one per seat, or one for all seats. Settings inside a spec are joined
    with ',' too, so specs are split where a new engine name starts."""
    parts, current = [], None
    for item in (p.strip() for p in text.split(",")):
        head = item.partition(":")[0]
        if current is None or (head in ENGINE_SETTINGS and "=" not in item):
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
