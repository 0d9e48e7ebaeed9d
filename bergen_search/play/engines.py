"""Engine specs: `random`, `greedy`, a search with its settings (`ismcts:iterations=2000`), or
an `ExternalEngine`, a program in another process registered under a name, which checks its
own settings.

>>> parse_engine_spec("ismcts:iterations=500")
EngineSpec(name='ismcts', params={'iterations': 500})
>>> old = parse_external("old=python -m bergen_search engine")
>>> spec = parse_engine_spec("old:time=0.1,inference=off", {"old": old})
>>> str(spec), spec.engine.command[-2:]
('old:time=0.1,inference=off', ('bergen_search', 'engine'))
"""
from __future__ import annotations

import math
import re
import shlex
import shutil
from dataclasses import dataclass, field

from ..constants import OBJECTIVES
from ..errors import BergenError, a_kind
from ..game.match import SIMPLE_ENGINES
from ..search import api as search_api
from ..search import backend as search_backend


def _engine_settings() -> dict:
    """name -> {setting: type or search.Setting} for every engine the program knows."""
    from ..search.registry import names, resolve
    out: dict[str, dict] = {"random": {}, "greedy": {}}
    for name in names():
        alg, _ = resolve(name, {})
        out[name] = {"iterations": int, "time": float, "objective": str, "workers": int,
                     "memory": int, **alg.settings}
    return out


ENGINE_SETTINGS = _engine_settings()
#: The range of each budget setting of a search engine (time in seconds, memory in MB).
_RANGES = {"iterations": (1, search_api.MAX_ITERATIONS), "workers": (1, 64),
           "memory": (1, search_api.MAX_MEMORY_MB),
           "time": (math.ulp(0.0), search_api.MAX_SECONDS)}


class EngineWarning(UserWarning):
    """An engine in a match did not play as specified (shown once per engine and process)."""


#: Seconds an engine in another process may take past its time limit to answer a move.
ENGINE_TIMEOUT = 60.0

#: An engine's name: a word, so that it reads back from a spec.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


@dataclass(frozen=True)
class ExternalEngine:
    """An engine in another process; `timeout`: seconds it may take past a move's limit."""
    name: str
    command: tuple
    timeout: float = ENGINE_TIMEOUT

    @property
    def command_text(self) -> str:
        return shlex.join(self.command)

    def __str__(self) -> str:
        return f"{self.name}={self.command_text}"


def parse_external(text: str, timeout: float = ENGINE_TIMEOUT) -> ExternalEngine:
    """`NAME=COMMAND` (`--external`): COMMAND split as a shell would, its program found.

    >>> parse_external("old=/no/such/bergen engine")
    Traceback (most recent call last):
    ...
    bergen_search.errors.BergenError: --external old: cannot run '/no/such/bergen': no such program
    """
    name, eq, command = text.partition("=")
    name = name.strip()
    if not eq:
        raise BergenError(f"--external {text!r}: expected NAME=COMMAND, like "
                          f"old='/venv-old/bin/bergen engine'")
    if not _NAME.match(name):
        raise BergenError(f"--external {text!r}: the name must be a word (letters, digits, "
                          f"_ . -, not starting with a digit), got {name!r}")
    if name in ENGINE_SETTINGS:
        raise BergenError(f"--external {name}: {name!r} is a built-in engine: register the "
                          f"command under another name")
    try:
        words = tuple(shlex.split(command))
    except ValueError as e:
        raise BergenError(f"--external {name}: the command does not split ({e})") from None
    if not words:
        raise BergenError(f"--external {name}: the command is empty")
    if shutil.which(words[0]) is None:
        raise BergenError(f"--external {name}: cannot run {words[0]!r}: no such program")
    return ExternalEngine(name, words, timeout)


def parse_externals(texts, timeout: float = ENGINE_TIMEOUT) -> dict:
    """name -> ExternalEngine of the repeated `--external NAME=COMMAND`s."""
    out = {}
    for text in texts:
        engine = parse_external(text, timeout)
        if engine.name in out:
            raise BergenError(f"--external {engine.name}: the name is registered twice")
        out[engine.name] = engine
    return out


@dataclass(frozen=True)
class EngineSpec:
    name: str
    params: dict = field(default_factory=dict)
    engine: ExternalEngine | None = field(default=None, repr=False)     # in another process

    @property
    def simple_code(self):
        """The core's code for the engines that need no search, else None."""
        return None if self.engine is not None else SIMPLE_ENGINES.get(self.name)

    def _budget(self, algorithm: str, p: dict) -> tuple:
        """(iterations, seconds, objective) popped from `p`; without a budget, the engine's
        match budget."""
        iterations, seconds = p.pop("iterations", None), p.pop("time", None)
        if iterations is None and seconds is None and algorithm in ENGINE_SETTINGS \
                and algorithm not in SIMPLE_ENGINES:
            alg = search_api.resolve(algorithm, {})[0]
            iterations = search_backend.SEARCH.budget(alg.match_budget)
        return iterations, seconds, p.pop("objective", "points")

    def query_args(self) -> tuple:
        """(Limits, algorithm, objective, settings) of an engine in another process (by default
        this program's match budget)."""
        p = dict(self.params)
        algorithm = p.pop("algorithm", "ismcts")
        iterations, seconds, objective = self._budget(algorithm, p)
        return search_api.Limits(iterations=iterations, time=seconds), algorithm, objective, p

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={search_api.setting_text(v)}"
                                          for k, v in self.params.items())

    def search_args(self) -> "SearchArgs":
        """What `search.search` is given for a search engine."""
        p = dict(self.params)
        memory, workers = p.pop("memory", None), p.pop("workers", 1)
        budget, seconds, objective = self._budget(self.name, p)
        return SearchArgs(search_api.Limits(iterations=budget, time=seconds, memory_mb=memory),
                          search_api.Settings.of(self.name, p), objective, workers)


@dataclass(frozen=True)
class SearchArgs:
    """What an engine spec gives `search.search` (`EngineSpec.search_args`)."""
    limits: search_api.Limits
    settings: search_api.Settings
    objective: str = "points"
    workers: int = 1

    def search(self, info, *, seed: int, values: bool = True) -> search_api.SearchResult:
        return search_api.search(info, self.limits, settings=self.settings, seed=seed,
                                 objective=self.objective, workers=self.workers, values=values)


#: The settings of an engine in another process that are read here (the rest it checks).
_EXTERNAL_SETTINGS = {"time": float, "iterations": int, "algorithm": str, "objective": str}


def _typed(name: str, key: str, kind, value: str):
    """A setting of a plain type (int, float, str) read from its text and checked."""
    try:
        out = kind(value)
    except ValueError:
        raise BergenError(f"engine {name!r}: {key} must be {a_kind(kind)}, got "
                          f"{value!r}") from None
    if key in _RANGES and not _RANGES[key][0] <= out <= _RANGES[key][1]:
        low, high = _RANGES[key]
        bounds = (f"positive and at most {high:,.0f} seconds" if key == "time"
                  else f"at least {low} and at most {high:,}")
        raise BergenError(f"engine {name!r}: {key} must be {bounds}, got {value!r}")
    if key == "objective" and value not in OBJECTIVES:
        raise BergenError(f"engine {name!r}: objective must be points or match")
    return out


def parse_engine_spec(text: str, externals: dict | None = None) -> EngineSpec:
    """Parse `name` or `name:key=value,key=value` (`externals`: name -> ExternalEngine)."""
    name, _, rest = text.strip().partition(":")
    engine = (externals or {}).get(name)
    if engine is None and name not in ENGINE_SETTINGS:
        known = ", ".join([*ENGINE_SETTINGS, *(externals or ())])
        more = "" if externals is None else "; or a NAME registered with --external NAME=COMMAND"
        raise BergenError(f"unknown engine {name!r} (known: {known}{more})")
    settings = ENGINE_SETTINGS.get(name, {}) if engine is None else _EXTERNAL_SETTINGS
    params = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if engine is not None:          # its own settings are its to check
            key, value = key.strip(), value.strip()
        kind = settings.get(key, None if engine is None else str)
        if not eq or not key or kind is None:
            raise BergenError(f"engine {name!r}: bad setting {item!r} " + (
                f"(settings: {', '.join(settings) or 'none'})" if engine is None else
                "(settings are KEY=VALUE: time, iterations, algorithm, objective, or a "
                "setting of its search)"))
        if key in params:
            raise BergenError(f"engine {name!r}: {key} is given twice: give it once")
        if isinstance(kind, search_api.Setting):
            try:
                params[key] = kind.parse(key, value)
            except BergenError as e:
                raise BergenError(f"engine {name!r}: {e.message}") from None
        else:
            params[key] = _typed(name, key, kind, value)
    return EngineSpec(name, params, engine)


def parse_engine_list(text: str, players: int, externals: dict | None = None) -> list:
    """`SPEC[,SPEC...]`, one per seat or one for all, split where a new engine name starts."""
    parts, current = [], None
    for item in (p.strip() for p in text.split(",")):
        head = item.partition(":")[0]
        if current is None or head in ENGINE_SETTINGS or head in (externals or ()):
            if current is not None:
                parts.append(current)
            current = item
        else:
            current += "," + item
    if current is not None:
        parts.append(current)
    specs = [parse_engine_spec(p, externals) for p in parts]
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise BergenError(f"--engine gives {len(specs)} engines for {players} seats "
                          f"(give one for all seats or one per seat)")
    return specs
