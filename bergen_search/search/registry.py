"""The registry of search algorithms: one module per engine, registering itself.

An engine is a module in `search/engines/` that defines an `Algorithm` subclass and calls
`register(TheAlgorithm())` (and `preset(...)` for named settings of it). The package is
imported the first time the registry is read, so adding an engine is adding a file: every
caller reads the registry and holds no per-algorithm branch.

>>> [a.name for a in algorithms().values()][:3]
['ismcts', 'expectimax', 'endgame']
>>> resolve("classic", {})[1]["playout"]
'random'
"""
from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import BergenError, a_kind
from ..information.inference import world_table
from . import backend
from .limits import Limits
from .results import SearchInfo, SearchResult


#: The choices of a switch: a string setting of these reads every word a boolean reads.
SWITCH = ("on", "off")


def _switched(value) -> str | None:
    """"on" or "off" for a word or value a boolean setting reads, else None."""
    if isinstance(value, str):
        low = value.strip().lower()
        return ("on" if low in ("on", "yes", "true", "1") else
                "off" if low in ("off", "no", "false", "0") else None)
    if isinstance(value, bool) or value in (0, 1):
        return "on" if value else "off"
    return None


@dataclass(frozen=True)
class Setting:
    """A setting of an algorithm: its type, default and what it does. `choices` limits a string;
    booleans (and string settings of the choices `SWITCH`) read on/off, yes/no, true/false, 1/0."""
    type: type
    default: object
    help: str
    choices: tuple = ()
    minimum: float = 0       # the least value a number may take
    maximum: float = math.inf   # the most

    def parse(self, name: str, value):
        """The value checked (and converted from text, as engine specs give it)."""
        if self.type is bool or self.choices == SWITCH:
            switched = _switched(value)
            if switched is None:
                raise BergenError(f"{name} must be on or off, got {value!r}", field=name)
            return switched == "on" if self.type is bool else switched
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise BergenError(f"{name} must be {a_kind(self.type)}, got {value!r}", field=name)
        if self.type is int and isinstance(value, float) and not value.is_integer():
            # 2.5 is not truncated to 2 (as the command line's --set refuses it too)
            raise BergenError(f"{name} must be {a_kind(self.type)}, got {value!r}", field=name)
        try:
            out = self.type(value)
        except (ValueError, OverflowError):
            raise BergenError(f"{name} must be {a_kind(self.type)}, got {value!r}",
                              field=name) from None
        if self.choices and out not in self.choices:
            raise BergenError(f"{name} must be one of {', '.join(self.choices)}, got {value!r}",
                              field=name)
        if self.type in (int, float) and not (out >= 0 and math.isfinite(out)):
            raise BergenError(f"{name} must be a finite number >= 0, got {value!r}", field=name)
        if self.type in (int, float) and out < self.minimum:
            raise BergenError(f"{name} must be at least {self.minimum}, got {value!r}",
                              field=name)
        if self.type in (int, float) and out > self.maximum:
            raise BergenError(f"{name} must be at most {self.maximum:,}, got {value!r}",
                              field=name)
        return out


def inference_setting(default) -> Setting:
    """The `inference` setting of the engines that sample worlds: "on" (the hand-set `TileModel`)
    or "off" (uniform over the consistent histories)."""
    return Setting(str, default, "weigh the worlds by what the other seats' plays say about "
                   "their hands (the hand-set model, inference.py); off: uniform", SWITCH)


def setting_text(value) -> str:
    """A setting's value as a person (and an engine spec) writes it: booleans as on/off."""
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


class Algorithm:
    """One search algorithm behind `search()`. Class attributes describe it; `search()` calls, in
    order: `check`, `solve`, `table`, `exhaustive`, else `units` of work, each a `sampler` and a
    `worker` (a `workers.Job` in, a `results.UnitOutput` out), their `extra`s merged by `fold`,
    then `summary`."""
    name = ""
    #: One line for `--help` and `bergen engine`'s hello.
    help = ""
    #: Where it is listed (lowest first; the first listed is the default engine).
    order = 100
    unit = "iterations"          # what Limits.iterations counts
    default_budget = 0           # the budget of a search given neither iterations nor time
    match_budget = 0             # the budget of a match engine given neither (`engines.py`)
    settings: dict = {}          # name -> Setting
    by_visits = False            # the final move: most visited (else the best value)
    needs_core = False           # no pure-Python twin: refused without the compiled core
    replicated = False           # its units are independent replicates: values with errors
    sides = False                # reports each side's outcome per move (`info["sides"]`)
    #: What a move's value is, and what its replicated units are called, for the views.
    value_meaning = "the search's value of the move"
    replicate_noun = "units"

    # ---- what the generic code asks of an engine's settings (never an engine's name).
    def value_pass(self, settings: dict) -> bool:
        """Whether, with these settings, its final move is read from a value pass after the search."""
        return False

    def folds_twins(self, settings: dict) -> bool:
        """Whether plays that mirror each other are searched as one choice."""
        return True

    def with_replicates(self, settings: dict, n: int) -> dict:
        """These settings with `n` independent replicates (the review's recheck grows them)."""
        if not self.replicated:
            raise BergenError(f"{self.name} has no replicates", field="replicates")
        return {**settings, "replicates": n}

    def deepens(self, settings: dict) -> bool:
        """Whether a closer look searches it deeper (a bigger budget, judged alone) rather than
        pooling more replicates of the same budget: its values correct for the budget, which
        pooled small searches would not deepen (ISMCTS's `settle`). Default: no."""
        return False

    def empty_advice(self, settings: dict) -> str:
        """What to say after "the search finished no <unit> within its time limit"."""
        return "; give more --time"

    def for_review(self, settings: "Settings") -> "Settings":
        """The settings a review searches with, given those asked for (ISMCTS leaves out the
        endgame's
        bracket unless asked). Default: as asked."""
        return settings

    def check(self, settings: dict) -> dict:
        """Every setting, with its default where not given; unknown ones are an error."""
        for key in settings:
            if key not in self.settings:
                known = ", ".join(self.settings) or "none"
                raise BergenError(f"{self.name} has no setting {key!r} (settings: {known})",
                                  field=key)
        return {k: s.parse(k, settings[k]) if k in settings else s.default
                for k, s in self.settings.items()}

    def solve(self, info, limits, run) -> "Solved":
        """The whole search in one step, before any table is built: `Solved(result)` ends it; else
        search() goes on with `Solved.limits` and `Solved.info`, and waits for `Solved.later` after
        the units. `run`: a `SearchRun`. Default: nothing solved."""
        return Solved(limits=limits)

    def table(self, info, settings: dict):
        """The world table searched, weighted by inference when `inference` is on."""
        return world_table(info, settings.get("inference", "off"))

    def exhaustive(self, info, table, budget, seconds, run, hooks):
        """Every consistent world solved instead of sampling: None (the default), or a
        `results.Exhaustive`."""
        return None

    def units(self, settings: dict, workers: int) -> int:
        """How many units of work the search is cut into: `replicates` for a replicated engine, else
        one per worker."""
        return settings["replicates"] if self.replicated else workers

    def sampler(self, info, table):
        """The worlds a unit draws from: the backend's sampler."""
        return backend.SEARCH.sampler(info, table)

    def worker(self, job, sampler, budget, seed: int, deadline, *, hooks=None, account=None):
        """Search one unit of `job` (a `workers.Job`) with `budget` (None: the deadline's) and
        `seed`
        on `sampler`'s worlds until `deadline`: a `results.UnitOutput`. `hooks`: run the work
        through
        `workers.run_sliced`'s; `account`: the process's `memory_account`, against `job.memory`."""
        raise NotImplementedError

    def memory_account(self):
        """A new count of the memory one process's units hold, bounded by the memory cap; None (the
        default): its units hold a fixed size."""
        return None

    def fold(self, into: dict, extra: dict) -> None:
        """Fold one unit's `UnitOutput.extra` into `into`, in unit order, for `summary`. Default:
        nothing."""

    def summary(self, folded: dict, limits) -> SearchInfo:
        """What to add to the result's info from the folded extras (default: nothing)."""
        return {}

    def finish(self, moves: list, folded: dict, settings: dict) -> tuple:
        """(moves, what the result's info gains): the engine's last word on its ranked
        `MoveValue`s from the folded extras (ISMCTS: the errors of the values corrected for
        the budget, the moves ranked by their raw values, whether the answer has settled).
        Default: as ranked, nothing."""
        return moves, {}


@dataclass
class Solved:
    """What `Algorithm.solve` returns: the result if it solved the search (else None), the limits
    left, whether it was interrupted, the info to add, and `later`, an answer still to come."""
    result: SearchResult | None = None
    limits: Limits | None = None
    interrupted: bool = False
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]
    later: "Later | None" = None


class Later(Protocol):
    """An answer still to come (`endgame.step.Beside`): a solve on a thread beside the units;
    `finish(stopped)` waits for it (stopping it first if `stopped`) and gives its `Solved`."""
    stop: Any

    def on_info(self, progress: dict) -> None: ...

    def finish(self, stopped: bool) -> Solved: ...


@dataclass
class SearchRun:
    """One call of `search()`, as an algorithm's `solve` sees it (made with keywords)."""
    algorithm: str               # the name asked for (a preset's name, too)
    seed: int
    objective: str
    settings: dict
    workers: int
    stop: Any = None             # a threading.Event, or anything with is_set() and wait()
    on_info: Callable[[dict], None] | None = None
    started: float = 0.0
    backend: Any = None          # backend.SEARCH: the core's, or the pure-Python one
    values: bool = True          # the caller reads the values, not only the move (a match's)


_ALGORITHMS: dict = {}
_PRESETS: dict = {}
_LOADED = [False]


def register(algorithm: Algorithm) -> Algorithm:
    """Add an algorithm (an instance) under its name; a name is registered once."""
    name = algorithm.name
    if not name or name in _ALGORITHMS or name in _PRESETS:
        raise ValueError(f"an algorithm needs a new name, got {name!r}")
    _ALGORITHMS[name] = algorithm
    return algorithm


def preset(name: str, base: str, settings: dict, help: str = "") -> None:
    """A named set of settings of the algorithm `base`."""
    if name in _ALGORITHMS or name in _PRESETS:
        raise ValueError(f"a preset needs a new name, got {name!r}")
    _PRESETS[name] = (base, dict(settings), help)


def _load() -> None:
    if _LOADED[0]:
        return
    _LOADED[0] = True
    # The engines' package is read by name: it imports this module, and the search package's
    # attribute of that name is not always the subpackage while it loads.
    package = importlib.import_module(f"{__package__}.engines")
    for mod in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        importlib.import_module(f"{package.__name__}.{mod.name}")


def algorithms() -> dict:
    """{name: Algorithm}, in their listing order."""
    _load()
    return dict(sorted(_ALGORITHMS.items(), key=lambda kv: (kv[1].order, kv[0])))


def presets() -> dict:
    """{name: (base algorithm, settings)}."""
    _load()
    return {name: (base, dict(s)) for name, (base, s, _) in _PRESETS.items()}


def preset_help(name: str) -> str:
    _load()
    return _PRESETS[name][2]


def names() -> tuple:
    """Every name `search(algorithm=...)` takes: the algorithms, then the presets."""
    return tuple(algorithms()) + tuple(presets())


def default_engine() -> str:
    """The name of the default engine: the first listed (`Algorithm.order`)."""
    return next(iter(algorithms()))


def default_iterations() -> dict:
    """{name: its default budget} for every algorithm and preset."""
    algs, pre = algorithms(), presets()
    return {name: algs[pre[name][0] if name in pre else name].default_budget
            for name in names()}


@dataclass(frozen=True)
class Settings(Mapping):
    """An engine's settings, validated once (`Settings.of`) and passed whole through the layers.
    `algorithm`: the name asked for (engine or preset); `given`: the settings as given, in
    order; `full`: every setting, checked, defaults filled. A hashable Mapping of `full`, equal
    (and with the same `repr`) when they search alike.

    >>> s = Settings.of("classic", {"exploration": "0.5"})
    >>> s["exploration"], s["playout"], s.engine.name
    (0.5, 'random', 'ismcts')
    >>> s.replace(replicates=4).given
    (('exploration', '0.5'), ('replicates', 4))
    >>> Settings.of("ismcts", {"depth": 2})
    Traceback (most recent call last):
    ...
    bergen_search.errors.BergenError: ismcts has no setting 'depth' (settings: ...)
    """
    algorithm: str
    given: tuple = field(compare=False, repr=False)   # as written: "2" and 2 search alike
    full: tuple = ()

    @classmethod
    def of(cls, algorithm: str | None = None, given: Mapping | None = None) -> "Settings":
        """The settings of `algorithm` (engine or preset; None: the default engine) with `given`
        over
        its defaults, every value checked."""
        algorithm = default_engine() if algorithm is None else algorithm
        given = dict(given or {})
        _, full = resolve(algorithm, given)
        return cls(algorithm, tuple(given.items()), tuple(full.items()))

    @property
    def engine(self) -> Algorithm:
        """The engine behind the name (a preset's base)."""
        return resolve(self.algorithm, {})[0]

    def replace(self, **values) -> "Settings":
        """These settings with `values` given too (checked again)."""
        return Settings.of(self.algorithm, {**dict(self.given), **values})

    def __getitem__(self, name: str):
        for k, v in self.full:
            if k == name:
                return v
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.full)

    def __len__(self) -> int:
        return len(self.full)


def resolve(algorithm: str, settings: Mapping) -> tuple:
    """(Algorithm, its full settings) for an algorithm or preset name and settings."""
    algs, pre = algorithms(), presets()
    if algorithm in pre:
        base, fixed = pre[algorithm]
        settings = {**fixed, **settings}
        algorithm = base
    if algorithm not in algs:
        raise BergenError(f"algorithm must be one of {', '.join(names())}, got "
                          f"{algorithm!r}", field="algorithm")
    alg = algs[algorithm]
    return alg, alg.check(settings)
