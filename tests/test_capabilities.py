"""Engines declare what they can do: the generic code asks an engine's capabilities, never its
name or one engine's setting."""
from __future__ import annotations

import os
import re

import pytest

from bergen_search.errors import BergenError
from bergen_search.formats.game import load_game
from bergen_search.search import evaluate, registry
from bergen_search.search.engines.flat import Flat
from bergen_search.search.api import Limits, search
from bergen_search.search.results import SearchInfo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECISION = open(os.path.join(ROOT, "examples", "decision.json"), encoding="utf-8").read()


class Worlds(Flat):
    """A new engine counting worlds, with neither `depth` nor `choose`, `twins`, `bracket`."""
    name = "test-worlds"
    help = "a test engine"
    unit = "worlds"
    order = 999


@pytest.fixture
def new_engine(monkeypatch):
    registry._load()
    engine = Worlds()
    monkeypatch.setitem(registry._ALGORITHMS, engine.name, engine)
    return engine


def test_a_new_engine_without_the_others_settings_searches(new_engine):
    assert not {"depth", "choose", "twins", "bracket"} & set(new_engine.settings)
    info = load_game(DECISION)
    res = search(info, Limits(iterations=40), seed=1, algorithm=new_engine.name)
    assert res.info["algorithm"] == new_engine.name and res.moves
    assert res.info["twins"]               # folded, as the default capability says
    # a match's move (values=False) with no bracket setting to turn off
    search(info, Limits(iterations=40), seed=1, algorithm=new_engine.name, values=False)


def test_evaluate_says_what_to_do_for_any_engine(new_engine, monkeypatch):
    """A search that finished nothing: the advice comes from the engine, for any engine."""
    info = load_game(DECISION)
    real = evaluate.search

    def empty(*args, **kwargs):
        res = real(*args, **kwargs)
        res.info.update(empty=True, interrupted=False)
        return res
    monkeypatch.setattr(evaluate, "search", empty)
    # (expectimax's advice, and the interrupted search's: test_evaluate.py)
    with pytest.raises(BergenError, match=re.escape("finished no world within the time limit "
                                                    "of 0.5 s; give more --time")):
        evaluate.answer(info, registry.Settings.of(new_engine.name), "points",
                        Limits(time=0.5, iterations=20), 1, 1)


def test_replicates_are_grown_through_the_engine(new_engine):
    assert new_engine.with_replicates({"playout": "safe"}, 12) == {"playout": "safe",
                                                                    "replicates": 12}
    with pytest.raises(BergenError, match="expectimax has no replicates"):
        registry.algorithms()["expectimax"].with_replicates({}, 12)


#: The modules every engine goes through: they read capabilities, a `workers.Job` and a
#: `results.UnitOutput`, never one engine's name, setting or extras.
GENERIC = ("bergen_search/search/api.py", "bergen_search/search/evaluate.py",
           "bergen_search/analysis/review.py", "bergen_search/analysis/verdicts.py",
           "bergen_search/search/workers.py", "bergen_search/search/results.py",
           "bergen_search/search/registry.py", "bergen_search/search/endgame/step.py",
           "bergen_search/views/search.py", "bergen_search/views/evaluation.py")


def _code(path: str) -> str:
    """A module's code without its comments and docstrings."""
    code = "\n".join(line.split("#")[0] for line in
                     open(os.path.join(ROOT, path), encoding="utf-8").read().splitlines())
    return re.sub(r'"""[\s\S]*?"""', "", code)


def test_the_generic_code_names_no_engine_no_engines_setting_and_no_engines_extras():
    """The generic modules name no engine, no one engine's setting, no key of its extras."""
    one_engines = {"choose", "twins", "bracket", "depth", "playouts", "exploration",
                   "endgame", "tolerance", "hand_tolerance"}
    names = set(registry.algorithms())
    for path in GENERIC:
        code = _code(path)
        read = set(re.findall(r'''(?:settings|full)(?:\.get\(|\[)["'](\w+)["']''', code))
        assert not read & one_engines, (path, read & one_engines)
        if path.endswith("step.py"):        # the step two engines share: given, never read
            assert not read and "settings[" not in code, (path, read)
        # (`info["endgame"]` is the exact endgame's report, a key of every result's info)
        named = set(re.findall(r'''["'](\w+)["']''', code)) - set(SearchInfo.__annotations__)
        assert not named & names, (path, named & names)
        assert not re.search(r'''extra(?:\.get\(|\[|\.pop\(|\.setdefault\()''', code), path


def test_a_thread_asking_while_another_loads_the_engines_waits_for_all_of_them(monkeypatch):
    """Two threads at once (a Dask worker runs several): the one that did not begin loading the
    engines waits for it to end, and never reads the registry half full."""
    import threading
    import time
    full = registry.algorithms()
    loading, seen = threading.Event(), {}
    real_import = registry.importlib.import_module

    def slow_import(name, *args):       # the engines register themselves, the first slowly
        if not loading.is_set():
            loading.set()
            time.sleep(0.3)
        registry._ALGORITHMS.update(full)
        return real_import(name, *args)

    monkeypatch.setattr(registry, "_ALGORITHMS", {})
    monkeypatch.setattr(registry, "_LOADED", [False])
    monkeypatch.setattr(registry, "_READY", [False], raising=False)
    monkeypatch.setattr(registry, "importlib", type("Slow", (), {
        "import_module": staticmethod(slow_import)}))
    first = threading.Thread(target=lambda: seen.setdefault("first", registry.algorithms()))
    first.start()
    assert loading.wait(10)
    seen["second"] = registry.algorithms()
    first.join(10)
    assert list(seen["second"]) == list(seen["first"]) == list(full)
