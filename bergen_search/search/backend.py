"""The searches' backend: the compiled modules, or their pure-Python twins.

As the game's backend (`game.backend`), the searches use the compiled modules unless the
environment sets `BERGEN_PURE_PYTHON=1` or they cannot be imported (`SEARCH`, a
`SearchBackend`): the compiled `_ismcts.IsmctsTree` and `_sampler.CoreSampler`, or their
pure-Python twins `ismcts_ref.IsmctsTree` and `sampler.ReferenceSampler`, which give the
same trees and answers for the same seed and budget, 100 to 400 times more slowly; so on that backend the default
budgets are divided by FALLBACK_DIVISOR (`SearchBackend.budget`), and the commands say so.
Expectimax has no pure-Python twin of its depth-limited search: it needs the core.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..game.backend import PURE
from ..information.sampler import ReferenceSampler

#: Without the compiled search the default budgets are divided by this (the pure-Python
#: tree runs 100 to 400 times slower: docs/GUIDE.md, "Without a compiler").
FALLBACK_DIVISOR = 20


@dataclass(frozen=True)
class SearchBackend:
    """The modules the searches run on. `name`: "core" or "reference"; `sampler`: the world
    sampler class (built from an InfoSet and its WorldTable); `why`: why the reference runs
    (empty on the core). An engine finds its own class with `pick` (no field per engine)."""
    name: str
    sampler: type
    why: str = ""

    def pick(self, compiled: str, reference=None):
        """An engine's class on this backend: on the core, the compiled one (`compiled`, the
        dotted path of a class of a compiled module, e.g. "bergen_search.search.engines.ismcts.
        _ismcts.IsmctsTree"); else `reference`, its pure-Python twin (None when the engine
        needs the core)."""
        if self.name != "core":
            return reference
        module, _, name = compiled.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def module(self, name: str):
        """A compiled module by its dotted name on the core, else None."""
        return importlib.import_module(name) if self.name == "core" else None

    def budget(self, default: int) -> int:
        """A default search budget on this backend: the core's, or a FALLBACK_DIVISOR-th."""
        return default if self.name == "core" else max(1, default // FALLBACK_DIVISOR)

    @property
    def note(self) -> str:
        """One line for the user when the searches run in pure Python (else empty)."""
        if self.name == "core":
            return ""
        return (f"searching in pure Python ({self.why}): the same answers as the compiled "
                f"core for the same seed and budget, 100 to 400 times more slowly; default "
                f"budgets are 1/{FALLBACK_DIVISOR} of the core's")


def reference_search(why: str) -> SearchBackend:
    """The pure-Python searches (`sampler.ReferenceSampler`; each engine's own twin)."""
    return SearchBackend("reference", ReferenceSampler, why)


def load_search(pure: bool = False) -> SearchBackend:
    """The compiled searches when built and not switched off (`pure`), else the reference."""
    if pure:
        return reference_search("BERGEN_PURE_PYTHON=1")
    try:
        # here: the compiled modules are optional (the reference without them). The engines'
        # own compiled classes are picked when a search runs (`pick`): importing them here
        # would import their engines, which import the search API that imports this module.
        from ..information._sampler import CoreSampler
    except ImportError as e:
        return reference_search(f"the compiled core is not built: {e}")
    return SearchBackend("core", CoreSampler)


#: The searches' backend (read it as `backend.SEARCH` at the time of use, so that tests can
#: swap it).
SEARCH = load_search(PURE)
