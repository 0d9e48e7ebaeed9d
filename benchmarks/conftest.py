"""Benchmarks of the core against the reference (pytest-benchmark, fixed seeds).

`pytest benchmarks/` collects the `bench_*.py` files here (pyproject's `python_files`); `--benchmark-disable` runs every
benchmark once, as a quick smoke test. The core is required, as in tests/conftest.py.
"""
import pytest

from bergen_search.game.backend import REFERENCE, load_core

CORE = load_core()


@pytest.fixture(scope="session")
def core():
    if CORE is None:
        pytest.fail("compiled core bergen_search.game._core is not built; run `pip install -e .`")
    return CORE


@pytest.fixture(scope="session")
def reference():
    return REFERENCE


def pytest_xdist_auto_num_workers(config):
    """pyproject's `-n auto` runs the tests in one process per core; timed benchmarks run in
    one process (pytest-benchmark times nothing under xdist, and two processes would time each
    other). With `--benchmark-disable` (the smoke run) they go with the tests."""
    if not config.getoption("benchmark_disable", False):
        return 0
    return None
