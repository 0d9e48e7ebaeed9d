"""Shared fixtures: `backend` runs a test on the reference and on the compiled core.

The core is required unless BERGEN_ALLOW_NO_CORE=1: a test run that silently skipped the core
would prove nothing about it.
"""
import os

import pytest

from bergen_search.backend import REFERENCE, load_core

CORE = load_core()

_COMPILED = ("_core", "_sampler", "_ismcts", "_expectimax", "_policy")


def pytest_configure(config):
    """Stop at once, with one clear message, when the compiled modules cannot be imported
    from the `bergen_search` the tests see: typically `pip install .` put them in
    site-packages while this checkout's bergen_search/ (source only) shadows that copy."""
    if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
        return
    import importlib

    import bergen_search
    missing = []
    for name in _COMPILED:
        try:
            importlib.import_module(f"bergen_search.{name}")
        except ImportError:
            missing.append(name)
    if missing:
        where = os.path.dirname(bergen_search.__file__)
        pytest.exit(f"the compiled modules {', '.join(missing)} are not built in {where}, the "
                    f"bergen_search these tests import. Build them in place with "
                    f"`pip install -e '.[test]'` (a plain `pip install .` puts them in "
                    f"site-packages, which the checkout's source folder shadows), or set "
                    f"BERGEN_ALLOW_NO_CORE=1 to run the pure-Python tests only.", returncode=2)


def require_compiled(module, name):
    """`module` if it was built; else fail (or skip, with BERGEN_ALLOW_NO_CORE=1)."""
    if module is None:
        if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
            pytest.skip(f"compiled {name} not built (BERGEN_ALLOW_NO_CORE=1)")
        pytest.fail(f"compiled {name} is not built; run `pip install -e .`")
    return module


@pytest.fixture(name="require_compiled")
def require_compiled_fixture():
    """`require_compiled` for test modules (conftest is not imported by name: the benchmarks
    have a conftest of their own)."""
    return require_compiled


def _core_or_fail():
    return require_compiled(CORE, "core bergen_search._core")


@pytest.fixture(params=["reference", "core"])
def backend(request):
    return REFERENCE if request.param == "reference" else _core_or_fail()


@pytest.fixture
def core():
    return _core_or_fail()
