"""Shared fixtures: `backend` runs a test on the reference and on the compiled core.

The core is required unless BERGEN_ALLOW_NO_CORE=1: a test run that silently skipped the core
would prove nothing about it.
"""
import os

import pytest

from bergen_search.backend import REFERENCE, load_core

CORE = load_core()


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
