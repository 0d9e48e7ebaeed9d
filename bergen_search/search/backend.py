"""The searches' backend (`SEARCH`): the compiled modules, or, with `BERGEN_PURE_PYTHON=1` or
without them, their pure-Python twins, which give the same answers for the same seed and budget
100 to 400 times more slowly (the default budgets divided by FALLBACK_DIVISOR)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..game.backend import PURE
from ..information.sampler import ReferenceSampler

#: docs/GUIDE.md, "Without a compiler".
FALLBACK_DIVISOR = 20


@dataclass(frozen=True)
class SearchBackend:
    """The modules the searches run on; an engine finds its own class with `pick`."""
    name: str                # "core" or "reference"
    sampler: type            # the world sampler class (of an InfoSet and its WorldTable)
    why: str = ""            # why the reference runs

    def pick(self, compiled: str, reference=None):
        """An engine's class: on the core the compiled one (`compiled`, its dotted path), else
        `reference`, its pure-Python twin."""
        if self.name != "core":
            return reference
        module, _, name = compiled.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def module(self, name: str):
        return importlib.import_module(name) if self.name == "core" else None

    def budget(self, default: int) -> int:
        return default if self.name == "core" else max(1, default // FALLBACK_DIVISOR)

    @property
    def note(self) -> str:
        if self.name == "core":
            return ""
        return (f"searching in pure Python ({self.why}): the same answers as the compiled "
                f"core for the same seed and budget, 100 to 400 times more slowly; default "
                f"budgets are 1/{FALLBACK_DIVISOR} of the core's")


def reference_search(why: str) -> SearchBackend:
    return SearchBackend("reference", ReferenceSampler, why)


def load_search(pure: bool = False) -> SearchBackend:
    """The compiled searches when built and not switched off (`pure`), else the reference."""
    if pure:
        return reference_search("BERGEN_PURE_PYTHON=1")
    try:
        # here: optional. The engines' own classes are picked when a search runs: importing
        # them here would import the search API, which imports this module.
        from ..information._sampler import CoreSampler
    except ImportError as e:
        return reference_search(f"the compiled core is not built: {e}")
    return SearchBackend("core", CoreSampler)


#: Read as `backend.SEARCH` at the time of use, so that tests can swap it.
SEARCH = load_search(PURE)
