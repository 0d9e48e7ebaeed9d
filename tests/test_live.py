"""A live search streams ISMCTS's ranked moves while the exact endgame is attempted beside it
(`endgame.step.Beside`); watched or not, the same seed and budget give the same result."""
import json
import queue
import threading

import pytest
from support import InProcessEngine

from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, search
from bergen_search.search.endgame import step as exact

DECISION = json.load(open("examples/decision.json", encoding="utf-8"))
SMALL = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"
#: tests/test_endgame.py's known case: two seats, no draw left, solved at once.
KNOWN = ('{"format":"bergen-position/1","rules":{"players":2},"scores":[5,3],"to_move":1,'
         '"hand":["1-2","1-5"],"line":"6-4 4-0 0-1 1-3 3-2 2-4 4-4 4-3 3-3 3-6 6-5 5-0 0-6 '
         '6-6 6-2 2-5 5-5 5-4 4-1 1-1","hand_sizes":[4,2],"reserve_size":2,'
         '"voids":{"0":[4,6],"1":[3]}}')


def _core():
    pytest.importorskip("bergen_search.search.endgame._endgame")


@pytest.fixture
def held_attempt(monkeypatch):
    """The exact attempt held until ranked moves are reported (20 s at most); `events` logs."""
    real = exact.attempt
    seen = threading.Event()
    events = []

    def attempt(info, limits, run, **kwargs):
        events.append(("attempt held until a partial", seen.wait(20)))
        out = real(info, limits, run, **kwargs)
        events.append(("attempt ends", out.result is not None))
        return out

    monkeypatch.setattr(exact, "attempt", attempt)
    return seen, events


@pytest.fixture
def served():
    """An engine in this process (closed after the test)."""
    engine = InProcessEngine()
    yield engine
    engine.close()


def test_the_first_partial_of_an_infinite_go_comes_before_the_exact_attempt_ends(
        held_attempt, served):
    """The live search does not wait for the exact attempt; a stop ends both."""
    _core()
    seen, events = held_attempt
    served.send({"cmd": "position", "game": DECISION, "id": "p"})
    assert served.lines.get(timeout=10)["type"] == "position"
    served.send({"cmd": "go", "infinite": True, "report_every": 0.1, "id": "g"})
    first = served.lines.get(timeout=60)
    assert first["type"] == "partial" and first["best"] and not first["exact"]
    assert all(m["value"] is not None for m in first["moves"][:1])
    events.append(("first partial", True))
    seen.set()
    served.send({"cmd": "stop"})
    final = served.until("bestmove")[-1]
    assert final["type"] == "bestmove" and final["stopped"] and final["best"]
    assert not final["exact"]
    served.close()
    # held until the partial had been seen: the search did not wait for the attempt
    assert ("attempt held until a partial", True) in events
    names = [e for e, _ in events]
    assert names.index("first partial") < names.index("attempt ends")
    assert not [t for t in threading.enumerate() if t.name == "bergen-exact"]


def test_a_solved_attempt_is_the_result_and_the_last_report(held_attempt):
    _core()
    seen, events = held_attempt
    info = load_game(KNOWN)
    reports = []

    def on_info(progress):
        reports.append(progress)
        if "moves" in progress:
            seen.set()

    live = search(info, Limits(iterations=20000), seed=1, on_info=on_info)
    quiet = search(info, Limits(iterations=20000), seed=1)
    assert events[-1] == ("attempt ends", True)
    assert live.info["exact"] and live.info["endgame"]["solved"]
    assert live.moves == quiet.moves and live.best == quiet.best
    assert reports[-1]["exact"] and reports[-1]["best"] == live.best
    assert [r.get("exact", False) for r in reports].index(True) == len(reports) - 1
    assert any(not r.get("exact") for r in reports)        # ISMCTS streamed first


def test_an_infinite_go_that_solves_says_exact_and_finished_at_once(served):
    """Solved exactly, the partial that carries the answer says exact and finished at once;
    held until stop, which answers it (a fixed budget's last report: the search's test)."""
    _core()
    served.send({"cmd": "go", "game": json.loads(KNOWN), "id": 1, "infinite": True,
                 "report_every": 0.05})
    got = []
    while not got or not got[-1].get("finished"):
        got.append(served.lines.get(timeout=60))
        assert got[-1]["type"] == "partial"
    with pytest.raises(queue.Empty):
        served.lines.get(timeout=0.3)           # held until stop
    served.send({"cmd": "stop"})
    final = served.until("bestmove")[-1]
    last = got[-1]
    assert last["exact"] and last["finished"] and final["exact"]
    assert last["best"] == final["best"] and all(m["value"] is not None for m in last["moves"])
    assert [(m["move"], m["value"]) for m in last["moves"]] == \
        [(m["move"], m["value"]) for m in final["moves"]]
    assert not any(p["finished"] for p in got[:-1])


# ---- live figures that keep their promise (issue 41) ----------------------------------------

def test_the_reports_pool_the_replicates_finished_so_far():
    """settle=off: each report is the search of the t trees finished so far (`replicates=t`)."""
    info = load_game(json.dumps(DECISION))
    reports = []
    result = search(info, Limits(iterations=2400), seed=6, on_info=reports.append,
                    settle="off")
    pooled = {}
    done = [(r["trees"], r["running"]) for r in reports]
    assert done == sorted(set(done)) and done[-1] <= (8, 0)   # each report further on
    for r in reports:
        assert 0 <= r["trees"] <= 8 and 0 <= r["running"] <= 300     # 8 trees of 300
        values = [m.value for m in r["moves"] if m.visits]
        assert values == sorted(values, reverse=True)           # by value, measured first
        if r["trees"] < 8:
            assert all(m.stderr == float("inf") for m in r["moves"])
        if r["trees"] >= 2:
            pooled[r["trees"]] = r
    assert sorted(pooled) == list(range(2, 9))
    for t in (2, 5):
        alone = search(info, Limits(iterations=300 * t), seed=6, replicates=t, settle="off")
        want = {m.move: m.value for m in alone.moves}
        # (seeds: a search of t >= 2 replicates seeds the u-th as this one does)
        for m in pooled[t]["moves"]:
            assert m.value == pytest.approx(want[m.move], abs=1e-9)
    last = pooled[8]
    assert [(m.move, round(m.value, 9), round(m.stderr, 9)) for m in last["moves"]] == \
        [(m.move, round(m.value, 9), round(m.stderr, 9)) for m in result.moves]


def test_a_search_until_stopped_pools_every_tree_and_keeps_none():
    """settle=off, until_stopped: the answer is the finished trees' search; none kept."""
    _core()
    info = load_game(json.dumps(DECISION))
    stop = threading.Event()
    seen = []

    def on_info(progress):
        seen.append(progress.get("trees", 0))
        if progress.get("trees", 0) >= 12 and progress["running"] > 0:
            stop.set()
    res = search(info, Limits(iterations=1600), seed=2, stop=stop, on_info=on_info,
                 until_stopped=True, bracket=False, settle="off")
    k = res.info["replicates"]
    assert k >= 12 and res.info["interrupted"] and max(seen) == k
    same = search(info, Limits(iterations=200 * k), seed=2, replicates=k, bracket=False,
                  settle="off")
    assert res.moves == same.moves and res.visits == same.visits
    for key in ("iterations", "nodes", "values", "lines", "sides", "memory"):
        assert res.info[key] == same.info[key], key


def test_a_search_until_stopped_is_refused_where_it_cannot_be():
    from bergen_search.errors import BergenError
    info = load_game(json.dumps(DECISION))
    for kw in ({}, {"stop": threading.Event(), "algorithm": "expectimax"},
               {"stop": threading.Event(), "limits": Limits(time=1.0)}):
        kw.setdefault("limits", Limits(iterations=100))
        with pytest.raises(BergenError, match="until stopped"):
            search(info, until_stopped=True, **kw)


def test_an_infinite_go_attempts_the_endgame_with_one_batch_s_budget(monkeypatch, served):
    """An infinite `go` gives the exact attempt one batch's budget, and has no cap."""
    _core()
    real, budgets = exact.attempt, []

    def attempt(info, limits, run, **kwargs):
        budgets.append(limits.iterations)
        return real(info, limits, run, **kwargs)
    monkeypatch.setattr(exact, "attempt", attempt)
    served.send({"cmd": "go", "game": DECISION, "infinite": True, "report_every": 0.05,
                 "id": "g", "settings": {"settle": "off"}})
    while served.lines.get(timeout=60).get("trees", 0) < 9:
        pass
    served.send({"cmd": "stop"})
    final = served.until("bestmove")[-1]
    assert budgets == [None]        # the default budget's (100,000), not 5,000,000
    assert final["replicates"] >= 9 and final["stopped"]
    assert not final["endgame"]["solved"]


def test_an_infinite_go_at_its_most_trees_says_finished(monkeypatch, served):
    """settle=off: an infinite search ends by itself at MAX_REPLICATES trees, all pooled."""
    from bergen_search.search import api
    monkeypatch.setattr(api, "MAX_REPLICATES", 10)
    served.send({"cmd": "go", "game": SMALL, "infinite": True, "iterations": 800,
                 "report_every": 0.01, "id": 1, "settings": {"settle": "off"}})
    got = [served.lines.get(timeout=60)]
    while not got[-1].get("finished"):
        got.append(served.lines.get(timeout=60))
    served.send({"cmd": "stop"})
    final = served.until("bestmove")[-1]
    assert got[-1]["trees"] == 10 and got[-1]["stderr"] is not None
    assert final["replicates"] == 10 and not final["interrupted"]
    assert [m["value"] for m in got[-1]["moves"]] == [m["value"] for m in final["moves"]]


def test_a_partial_as_each_tree_of_the_budget_finishes(served):
    """A partial after the first slice, one as each tree finishes, then on the clock."""
    served.send({"cmd": "go", "game": SMALL, "id": 1, "seed": 3, "iterations": 160_000,
                 "report_every": 3600})
    got = served.until("bestmove")
    served.send({"cmd": "go", "game": SMALL, "id": 2, "seed": 3, "iterations": 8_000,
                 "infinite": True, "report_every": 3600, "settings": {"settle": "off"}})
    endless = [served.lines.get(timeout=60) for _ in range(9)]
    # (trees of 1,000 iterations: dozens a second, none of them said)
    with pytest.raises(queue.Empty):
        served.lines.get(timeout=0.5)
    served.send({"cmd": "stop"})
    final = served.until("bestmove")[-1]
    partials, best = got[:-1], got[-1]
    assert [p["trees"] for p in partials] == list(range(9))
    assert all(p["type"] == "partial" and p["running"] == 0 for p in partials[1:])
    assert best["type"] == "bestmove" and best["iterations"] == 160_000
    assert [(m["move"], m["value"], m["stderr"], m["visits"]) for m in partials[-1]["moves"]] \
        == [(m["move"], m["value"], m["stderr"], m["visits"]) for m in best["moves"]]
    assert [p["trees"] for p in endless] == list(range(9))
    assert final["replicates"] > 8 and final["stopped"]
