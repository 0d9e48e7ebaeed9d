"""Every module's docstring examples run, the compiled ones too: the modules are found by
listing the package (`pkgutil`), so that a new module's examples are collected without
anyone adding it here.

A module whose import needs an optional extra that is not installed is skipped, saying which;
a compiled module that is not built follows the conftest policy (fail, or skip with
BERGEN_ALLOW_NO_CORE=1). `__main__` is left out: importing it runs the command line.
"""
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest
from support import require_compiled

import bergen_search

#: Top-level modules of the optional extras (pyproject's `cluster`): a module needing one of
#: them is skipped without it.
OPTIONAL = ("dask", "distributed")
MODULES = sorted(m.name.removeprefix("bergen_search.")
                 for m in pkgutil.walk_packages(bergen_search.__path__, "bergen_search.")
                 if m.name != "bergen_search.__main__")


def _import(name):
    try:
        return importlib.import_module(f"bergen_search.{name}")
    except ModuleNotFoundError as e:
        missing = (e.name or "").split(".")[0]
        if missing in OPTIONAL:
            pytest.skip(f"bergen_search.{name} needs {missing} (pip install -e '.[cluster]')")
        if name.rsplit(".", 1)[-1].startswith("_") and missing == "bergen_search":
            return require_compiled(None, f"bergen_search.{name}")
        raise


def test_the_package_is_listed():
    """The compiled modules are listed beside the Python ones (a listing that missed them
    would leave their examples out silently)."""
    assert {"game._core", "search.engines.ismcts._ismcts", "search.engines.expectimax._expectimax",
            "search", "game.tiles", "search.engines.flat"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    """The examples pass; and a Python module whose source holds an example has some found
    (a finder that found none would pass)."""
    module = _import(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
    source = Path(module.__file__)
    if source.suffix == ".py" and ">>> " in source.read_text(encoding="utf-8"):
        assert result.attempted > 0
