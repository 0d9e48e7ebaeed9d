"""The registry of search algorithms: each module of `search/engines/` defines an `Algorithm`,
calls `register(TheAlgorithm())` (and `preset(...)`), and is imported when the registry is
first read; callers hold no per-algorithm branch.

>>> [a.name for a in algorithms().values()][:3]
['ismcts', 'expectimax', 'endgame']
>>> resolve("classic", {})[1]["playout"]
'random'
"""
from __future__ import annotations

import importlib
import math
import pkgutil
import threading
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
    if isinstance(value, str):
        low = value.strip().lower()
        return ("on" if low in ("on", "yes", "true", "1") else
                "off" if low in ("off", "no", "false", "0") else None)
    if isinstance(value, bool) or value in (0, 1):
        return "on" if value else "off"
    return None


@dataclass(frozen=True)
class Setting:
    """A setting of an algorithm. Booleans (and settings of the choices `SWITCH`) read on/off,
    yes/no, true/false, 1/0."""
    type: type
    default: object
    help: str
    choices: tuple = ()
    minimum: float = 0
    maximum: float = math.inf

    def parse(self, name: str, value):
        """The value checked (and converted from text, as engine specs give it)."""
        if self.type is bool or self.choices == SWITCH:
            switched = _switched(value)
            if switched is None:
                raise BergenError(f"{name} must be on or off, got {value!r}", field=name)
            return switched == "on" if self.type is bool else switched
        wrong = BergenError(f"{name} must be {a_kind(self.type)}, got {value!r}", field=name)
        # 2.5 is not truncated to 2 (as the command line's --set refuses it too)
        if (isinstance(value, bool) or not isinstance(value, (str, int, float))
                or self.type is int and isinstance(value, float) and not value.is_integer()):
            raise wrong
        try:
            out = self.type(value)
        except (ValueError, OverflowError):
            raise wrong from None
        if self.choices and out not in self.choices:
            raise BergenError(f"{name} must be one of {', '.join(self.choices)}, got {value!r}",
                              field=name)
        if self.type in (int, float):
            problem = ("be a finite number >= 0" if not (out >= 0 and math.isfinite(out)) else
                       f"be at least {self.minimum}" if out < self.minimum else
                       f"be at most {self.maximum:,}" if out > self.maximum else None)
            if problem:
                raise BergenError(f"{name} must {problem}, got {value!r}", field=name)
        return out


def inference_setting(default) -> Setting:
    """The `inference` setting of the engines that sample worlds."""
    return Setting(str, default, "weigh the worlds by what the other seats' plays say about "
                   "their hands (the hand-set model, inference.py); off: uniform", SWITCH)


def setting_text(value) -> str:
    """A setting's value as an engine spec writes it."""
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


class Algorithm:
    """One search algorithm behind `search()`: `check`, `solve`, `table`, `exhaustive`, else
    `units` of work (each a `sampler` and a `worker`), `fold`, `summary`, `finish`."""
    name = ""
    help = ""                    # one line for `--help` and `bergen engine`'s hello
    order = 100                  # where it is listed: the first listed is the default engine
    unit = "iterations"          # what Limits.iterations counts
    default_budget = 0           # the budget of a search given neither iterations nor time
    match_budget = 0             # the budget of a match engine given neither
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
        """Whether its final move is read from a value pass after the search."""
        return False

    def folds_twins(self, settings: dict) -> bool:
        """Whether plays that mirror each other are searched as one choice."""
        return True

    def with_replicates(self, settings: dict, n: int) -> dict:
        """These settings with `n` independent replicates."""
        if not self.replicated:
            raise BergenError(f"{self.name} has no replicates", field="replicates")
        return {**settings, "replicates": n}

    def deepens(self, settings: dict) -> bool:
        """Whether a closer look searches a bigger budget rather than pooling more replicates."""
        return False

    def empty_advice(self, settings: dict) -> str:
        """What to say after "the search finished no <unit> within its time limit"."""
        return "; give more --time"

    def for_review(self, settings: "Settings") -> "Settings":
        """The settings a review searches with, given those asked for."""
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
        """The whole search in one step before any table is built (`run`: a `SearchRun`)."""
        return Solved(limits=limits)

    def table(self, info, settings: dict):
        """The world table searched, weighted by inference when `inference` is on."""
        return world_table(info, settings.get("inference", "off"))

    def exhaustive(self, info, table, budget, seconds, run, hooks):
        """Every consistent world solved instead of sampling (a `results.Exhaustive`), or None."""
        return None

    def units(self, settings: dict, workers: int) -> int:
        """How many units of work the search is cut into."""
        return settings["replicates"] if self.replicated else workers

    def sampler(self, info, table):
        """The worlds a unit draws from."""
        return backend.SEARCH.sampler(info, table)

    def worker(self, job, sampler, budget, seed: int, deadline, *, hooks=None, account=None):
        """One unit of `job` searched with `budget` (None: the deadline's) and `seed` on
        `sampler`'s worlds until `deadline`: a `results.UnitOutput`."""
        raise NotImplementedError

    def memory_account(self):
        """A new count of the memory one process's units hold (None: a fixed size)."""
        return None

    def fold(self, into: dict, extra: dict) -> None:
        """Fold one unit's `UnitOutput.extra` into `into`, in unit order, for `summary`."""

    def summary(self, folded: dict, limits) -> SearchInfo:
        """What the result's info gains from the folded extras."""
        return {}

    def finish(self, moves: list, folded: dict, settings: dict) -> tuple:
        """(moves, what the info gains): the engine's last word on its ranked `MoveValue`s."""
        return moves, {}


@dataclass
class Solved:
    """What `Algorithm.solve` returns: the result if it solved the search, else the limits left,
    the info to add and `later`, an answer still to come."""
    result: SearchResult | None = None
    limits: Limits | None = None
    interrupted: bool = False
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]
    later: "Later | None" = None


class Later(Protocol):
    """An answer still to come (`endgame.step.Beside`); `finish(stopped)` waits for it."""
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
    stop: Any = None             # anything with is_set() and wait()
    on_info: Callable[[dict], None] | None = None
    started: float = 0.0
    backend: Any = None          # backend.SEARCH
    values: bool = True          # the caller reads the values, not only the move


_ALGORITHMS: dict = {}
_PRESETS: dict = {}
#: The engines' modules: loading begun (in the thread that holds `_LOCK`, which a module's
#: import may re-enter) and done. Another thread waits for done, never reads a half registry
#: (a Dask worker runs several threads).
_LOADED = [False]
_READY = [False]
_LOCK = threading.RLock()


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
    if _READY[0]:
        return
    with _LOCK:
        if _LOADED[0]:
            return
        _LOADED[0] = True
        # The engines' package is read by name: it imports this module, and the search
        # package's attribute of that name is not always the subpackage while it loads.
        package = importlib.import_module(f"{__package__}.engines")
        for mod in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            importlib.import_module(f"{package.__name__}.{mod.name}")
        _READY[0] = True


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
    """An engine's settings, checked once (`Settings.of`): `algorithm`, the name asked for;
    `given`, the settings as given; `full`, every setting. A hashable Mapping of `full`.

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
    given: tuple = field(compare=False, repr=False)   # "2" and 2 search alike
    full: tuple = ()

    @classmethod
    def of(cls, algorithm: str | None = None, given: Mapping | None = None) -> "Settings":
        """The settings of `algorithm` (None: the default engine) with `given` over its
        defaults, checked."""
        algorithm = default_engine() if algorithm is None else algorithm
        given = dict(given or {})
        _, full = resolve(algorithm, given)
        return cls(algorithm, tuple(given.items()), tuple(full.items()))

    @property
    def engine(self) -> Algorithm:
        return resolve(self.algorithm, {})[0]

    def replace(self, **values) -> "Settings":
        return Settings.of(self.algorithm, {**dict(self.given), **values})

    def __getitem__(self, name: str):
        return dict(self.full)[name]

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.full)

    def __len__(self) -> int:
        return len(self.full)


def resolve(algorithm: str, settings: Mapping) -> tuple:
    """(Algorithm, its full settings) for an algorithm or preset name."""
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
