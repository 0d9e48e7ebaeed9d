"""The registry of search algorithms: one module per engine, registering itself.

An engine is a module in `bergen_search/search/engines/` that defines an `Algorithm` subclass
(its name, settings with their types and defaults, budget unit and default budgets, what it
reports) and calls `register(TheAlgorithm())` (and `preset(...)` for named settings of it).
Every module of that package is imported the first time the registry is read, so adding an
engine is adding a file: `search()`, the command line's `--algorithm` choices, help and
defaults, match engine specs (`engines.py`), `analyze` and `bergen engine`'s hello read the
registry and hold no per-algorithm branch.

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


#: The choices of a switch: a string setting of these two (`inference`) reads every word a
#: boolean reads, as the string it means.
SWITCH = ("on", "off")


def _switched(value) -> str | None:
    """"on" or "off" for a word a boolean setting reads (on/off, yes/no, true/false, 1/0, in
    any case) or a boolean (or 0 or 1, as JSON may give it), else None."""
    if isinstance(value, str):
        low = value.strip().lower()
        return ("on" if low in ("on", "yes", "true", "1") else
                "off" if low in ("off", "no", "false", "0") else None)
    if isinstance(value, bool) or value in (0, 1):
        return "on" if value else "off"
    return None


@dataclass(frozen=True)
class Setting:
    """A setting of an algorithm: its type, default and what it does. `choices` limits a
    string; booleans read on/off, yes/no, true/false, 1/0, and so does a string setting of
    the choices `SWITCH` (on, off), as those strings."""
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
    """The `inference` setting the engines that sample worlds share (`default` "on" or
    "off"): on (the hand-set `TileModel`) or off (uniform over the consistent histories)."""
    return Setting(str, default, "weigh the worlds by what the other seats' plays say about "
                   "their hands (the hand-set model, inference.py); off: uniform", SWITCH)


def setting_text(value) -> str:
    """A setting's value as a person (and an engine spec) writes it: booleans as on/off."""
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


class Algorithm:
    """One search algorithm behind `search()` (the protocol an engine module implements; see
    the module doc). Class attributes describe it; the methods are called by `search()` in
    this order: `check` the settings, `solve` (the whole search, or nothing), `table`,
    `exhaustive` (every world solved, or nothing), else `units` of work spread over the
    processes, each a `sampler` and a `worker` (a `workers.Job` in, a `results.UnitOutput`
    out), merged (their `extra`s by `fold`), and `summary`."""
    name = ""
    #: One line for `--help` and `bergen engine`'s hello.
    help = ""
    #: Where it is listed among the algorithms (lowest first; the first listed is the default
    #: engine, which `search()` and `Settings.of()` run when none is named).
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

    # ---- what the generic code asks of an engine's settings (its capabilities): `search()`,
    # the review and `evaluate` ask these, never an engine's name or one engine's setting.
    def value_pass(self, settings: dict) -> bool:
        """Whether, with these settings, its final move is read from a value pass it runs
        after the search (then the search measures values even for a match's move)."""
        return False

    def folds_twins(self, settings: dict) -> bool:
        """Whether plays that mirror each other are searched as one choice."""
        return True

    def with_replicates(self, settings: dict, n: int) -> dict:
        """These settings with `n` independent replicates (the review's recheck grows
        them). An engine with replicates (`replicated`) counts them in its setting
        `replicates`."""
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
        """The settings a review searches with, given those asked for: a review charges
        losses from values, and what the engine would spend on anything else (ISMCTS: the
        exact endgame's bracket) it spends only when asked. Default: as asked."""
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
        """The whole search in one step, before any table is built: `Solved(result)` ends
        it; otherwise search() goes on with `Solved.limits`, adding `Solved.info` to its
        result's info, or, when the answer is still to come (`Solved.later`: a solve running
        beside the search), with its stop and reports, and waits for it after the units.
        `run` (a `SearchRun`): the seed, objective, settings, stop and on_info hooks, start
        time, backend and whether the caller reads values. Default: nothing solved."""
        return Solved(limits=limits)

    def table(self, info, settings: dict):
        """The world table searched: weighted by inference when `inference` is on (the
        hand-set `TileModel`)."""
        return world_table(info, settings.get("inference", "off"))

    def exhaustive(self, info, table, budget, seconds, run, hooks):
        """Every consistent world solved instead of units of sampling: None (the default),
        or a `results.Exhaustive` (rows (move, n, value, stderr), done, info to add to the
        result's)."""
        return None

    def units(self, settings: dict, workers: int) -> int:
        """How many units of work the search is cut into (each its own seed and share of the
        budget; the processes take them round robin): an engine with replicates
        (`replicated`), its setting `replicates`; else one per worker."""
        return settings["replicates"] if self.replicated else workers

    def sampler(self, info, table):
        """The worlds a unit draws from: the backend's sampler (the core's, or the
        pure-Python one without it)."""
        return backend.SEARCH.sampler(info, table)

    def worker(self, job, sampler, budget, seed: int, deadline, *, hooks=None, account=None):
        """Search one unit of `job` (a `workers.Job`: the position and its table, the
        objective, the settings, whether the caller reads values, the focus, the memory cap)
        with `budget` (None: the deadline's) and `seed`, on `sampler`'s worlds, until
        `deadline` (a `limits.Deadline`): a `results.UnitOutput`. `hooks`:
        `workers.run_sliced`'s (run the unit's work through it, so that budgets, the clock,
        Ctrl-C and a stop are heard); `account`: the process's `memory_account`, on which the
        unit counts what it keeps alive against `job.memory`."""
        raise NotImplementedError

    def memory_account(self):
        """A new count of the memory its units hold, which the memory cap bounds: one for
        each process's share of a search, given to each of its units (`worker(account=)`),
        so that no other search's units count against this one's cap. None (the default):
        its units hold a fixed size (they neither stop at the cap nor report it)."""
        return None

    def fold(self, into: dict, extra: dict) -> None:
        """Fold one unit's `UnitOutput.extra` into `into` (the search's, empty at first), in
        unit order: what `summary` reads (ISMCTS: the memory cap's figures, the expected
        lines' beams summed). Default: nothing kept."""

    def summary(self, folded: dict, limits) -> SearchInfo:
        """What to add to the result's info from the units' extras as `fold` merged them
        (default: nothing)."""
        return {}

    def finish(self, moves: list, folded: dict, settings: dict) -> tuple:
        """(moves, what the result's info gains): the engine's last word on its ranked
        `MoveValue`s from the folded extras (ISMCTS: the errors of the values corrected for
        the budget, the moves ranked by their raw values, whether the answer has settled).
        Default: as ranked, nothing."""
        return moves, {}


@dataclass
class Solved:
    """What `Algorithm.solve` returns: the result when it solved the search (else None), the
    limits the rest of the search keeps, whether it was interrupted, what the result's info
    gains, and the answer still to come (`later`: a solve running beside the search)."""
    result: SearchResult | None = None
    limits: Limits | None = None
    interrupted: bool = False
    info: SearchInfo = field(default_factory=dict)  # type: ignore[assignment]
    later: "Later | None" = None


class Later(Protocol):
    """An answer still to come (`Solved.later`, e.g. `endgame.step.Beside`): a solve on a
    thread beside the search's units, which hear `stop` (the caller's, or it answered) and
    report through `on_info` (until it answered); `finish(stopped)` waits for it once the
    units are done (stopping it first when they were `stopped`), and is its `Solved`."""
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
    """A named set of settings of the algorithm `base` (`classic`: ISMCTS as it was)."""
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
    """An engine's settings, validated once (`Settings.of`), and then passed whole through the
    layers (the command line, the protocol, the review, `search()`) instead of keyword
    arguments that could meet another parameter's name. `algorithm`: the name asked for (an
    engine or a preset); `given`: the settings as the caller gave them (a value as written:
    the review and the journals say them so), in the order given; `full`: every setting of
    the engine, checked, with its default where not given, in the engine's order. A Mapping
    of `full` (`settings["exploration"]`), hashable, and equal when they search alike (the
    name and `full`); its `repr` says only those too, so that a journal's fingerprint of a
    search (`analysis.journal`) is the same for equal settings in any process.

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
        """The settings of `algorithm` (an engine or a preset; None: the default engine) with
        `given` over its defaults (a preset's first): every value checked (BergenError
        naming the setting)."""
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
    """(Algorithm, its full settings) for an algorithm or preset name and explicit settings
    (which override a preset's)."""
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
