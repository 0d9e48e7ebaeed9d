"""Benchmarks of the core against the reference (pytest-benchmark, fixed seeds).

`pytest benchmarks/` collects the `bench_*.py` files here (pyproject's `python_files`); `--benchmark-disable` runs every
benchmark once, as a quick smoke test. The core is required, as in tests/conftest.py.
"""
import pytest

from bergen_search.backend import REFERENCE, load_core

CORE = load_core()


@pytest.fixture(scope="session")
def core():
    if CORE is None:
        pytest.fail("compiled core bergen_search._core is not built; run `pip install -e .`")
    return CORE


@pytest.fixture(scope="session")
def reference():
    return REFERENCE
