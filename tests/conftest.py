"""Shared fixtures: `backend` runs a test on the reference and on the compiled core, which is
required unless BERGEN_ALLOW_NO_CORE=1 (a run that skipped it would prove nothing about it)."""
import os

import pytest
from support import COMPILED, require_compiled

from bergen_search.game.backend import REFERENCE, load_core

CORE = load_core()


def pytest_configure(config):
    """Stop at once, saying why, when the compiled modules cannot be imported from the
    `bergen_search` the tests see."""
    if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
        return
    import importlib

    import bergen_search
    if not COMPILED:
        pytest.exit("no src_cython/bergen_search/**/*.pyx beside tests/: the tests cannot tell "
                    "which compiled modules to require", returncode=2)
    missing = []
    for name in COMPILED:
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


@pytest.fixture(name="require_compiled")
def require_compiled_fixture():
    """`support.require_compiled` as a fixture."""
    return require_compiled


def _core_or_fail():
    return require_compiled(CORE, "core bergen_search.game._core")


@pytest.fixture(params=["reference", "core"])
def backend(request):
    return REFERENCE if request.param == "reference" else _core_or_fail()


@pytest.fixture
def core():
    return _core_or_fail()


@pytest.fixture
def virtual_clock(monkeypatch):
    """set(step): every clock a time limit reads (the compiled searches', `search.limits`'s,
    `ismcts_ref`'s) advances by `step` seconds at each reading, until the test ends."""
    from bergen_search.search.engines.ismcts import reference as ismcts_ref
    from bergen_search.search import limits
    _core_or_fail()
    from bergen_search.game import _core

    def set_step(step):
        _core.set_test_clock(step)
        monkeypatch.setattr(limits, "clock", _core.clock_reading)
        monkeypatch.setattr(ismcts_ref, "clock", _core.clock_reading)
    yield set_step
    _core.set_test_clock(0)


@pytest.fixture
def quick_bench(monkeypatch):
    """`bergen bench`'s endgame figure over 3 rounds (benchmarks/ measures the distribution)."""
    from bergen_search.play import bench
    times = bench.endgame_times
    monkeypatch.setattr(bench, "endgame_times", lambda rounds, **kw: times(3, **kw))


@pytest.fixture
def one_search(monkeypatch):
    """`bergen best` and `analyze` search once for two commands: the second is given the first's
    result; a third searches again."""
    from bergen_search.cli import analyze, best
    for module, name in ((best, "answer"), (analyze, "analyze_all")):
        real, kept = getattr(module, name), []
        monkeypatch.setattr(module, name, lambda *a, real=real, kept=kept, **k: kept.pop()
                            if kept else kept.append(real(*a, **k)) or kept[0])


@pytest.fixture
def stopped_promptly(request):
    """check(seconds): in a test marked slow, the exit came within BERGEN_STOP_WITHIN (3 s) of
    the signal; in the default run nothing (no default test asserts on the wall clock)."""
    timed = request.node.get_closest_marker("slow") is not None
    within = float(os.environ.get("BERGEN_STOP_WITHIN", "3.0"))

    def check(seconds):
        if timed:
            assert seconds < within, f"exited {seconds:.2f} s after the signal"
    return check
