"""Every module's docstring examples run, the compiled ones too (found by `pkgutil`). A module
needing a missing extra is skipped; `__main__` is left out."""
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
    """The compiled modules are listed beside the Python ones."""
    assert {"game._core", "search.engines.ismcts._ismcts", "search.engines.expectimax._expectimax",
            "search", "game.tiles", "search.engines.flat"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    """The examples pass, and a module whose source holds one has some found."""
    module = _import(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
    source = Path(module.__file__)
    if source.suffix == ".py" and ">>> " in source.read_text(encoding="utf-8"):
        assert result.attempted > 0
