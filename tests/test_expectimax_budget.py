"""Expectimax on rounds dealt few tiles: a world longer than a slice is finished, not started
afresh at every slice, and one world's work is bounded (`max_work`, iterative deepening)."""
import json
import os
import threading

import pytest
from support import bergen as run

from bergen_search.errors import BergenError
from bergen_search.formats.game import load_game
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW
from bergen_search.information.infoset import from_state_and_events
from bergen_search.search.api import Limits, search

try:
    from bergen_search.search.engines.expectimax._expectimax import (DEFAULT_MAX_WORK,
                                                                     ExpectimaxSearch)
    from bergen_search.information._sampler import CoreSampler
except ImportError:
    if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
        pytest.skip("compiled core not built (BERGEN_ALLOW_NO_CORE=1)", allow_module_level=True)
    raise

from test_expectimax import walk

#: Three tiles a hand; seat 1 led 6-6 and seat 0 must draw: at depth 6 one world is one to two
#: hundred thousand nodes and some two million playout actions (tens of milliseconds), where
#: the examples, dealt six tiles a hand, take a few thousand nodes.
X3 = json.dumps({"format": "bergen-record/1", "rules": {"hand_size": 3}, "rounds": [
    {"hands": [["0-3", "1-3", "4-5"], None], "events": [{"seat": 1, "play": "6-6"}]}]})
SMALL = Rules(players=2, hand_size=3, no_double="lowest-tile")
#: The virtual clock's step: a slice (STOP_SLICE_SECONDS, 0.01 s) is over at the first look
#: at the clock inside a world (every 4096 nodes), as a slice on a real machine is over long
#: before a world of these rounds is.
STEP = 1 / 256


def small_hand_decisions(seed, wanted):
    """The seat to move's InfoSets at the decisions (two moves or more) of seeded random rounds
    dealt three tiles a hand, as `bergen analyze` judges them."""
    out, i = [], 0
    while len(out) < wanted:
        for st, hands, events in walk(SMALL, Rng(derive_seed(seed, i))):
            if st.line and len(st.legal_moves()) >= 2 and len(out) < wanted:
                out.append(from_state_and_events(SMALL, st.to_move, hands[st.to_move], None,
                                                 list(events)))
        i += 1
    return out


def test_a_world_longer_than_a_slice_is_finished(tmp_path, virtual_clock):
    """`bergen best` (its search heard Ctrl-C in slices): the world is searched to its end
    within the slices, where it used to be dropped and started afresh at every one, for ever
    (the time limit here only bounds the failure)."""
    virtual_clock(STEP)
    path = tmp_path / "x3.json"
    path.write_text(X3)
    res = run("best", str(path), "--algorithm", "expectimax", "--iterations", "1",
              "--time", "10", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["iterations"] == 1 and not out["interrupted"] and out["best"] == "draw"
    # between the worst and the best a draw can come to (2 to 6 points lost, 2 to 6 won)
    assert -6 <= out["value"] <= 6


def test_small_hands_are_judged_with_the_slices_and_a_stop(virtual_clock):
    """As `analyze` searches (a stop and progress reports, so in slices): each of six decisions
    in rounds dealt three tiles answers with its three worlds, each within its work budget."""
    virtual_clock(STEP)
    decisions = small_hand_decisions(3, 6)
    for info in decisions:
        reports = []
        res = search(info, Limits(iterations=3, time=10), algorithm="expectimax", seed=1,
                     stop=threading.Event(), on_info=reports.append)
        assert res.info["iterations"] == 3 and not res.info.get("empty"), res.info
        assert not res.info["interrupted"] and reports
        assert res.info["nodes"] <= 3 * 2 * DEFAULT_MAX_WORK
        assert res.best is not None


def test_one_world_is_bounded_by_its_work_budget():
    """At depth 6 the small-hand worlds pass the default budget: each is then valued by
    iterative deepening at a smaller depth, its work within twice the budget (and its first
    depth), where without a budget it costs several times more."""
    info = load_game(X3)
    free = ExpectimaxSearch(CoreSampler(info), 6, 1, max_work=0)
    bounded = ExpectimaxSearch(CoreSampler(info), 6, 1)
    worst = 0
    for _ in range(6):
        before, unbounded = bounded.work, free.work
        assert bounded.run_worlds(1, 0) == free.run_worlds(1, 0) == 1
        worst = max(worst, free.work - unbounded)
        assert bounded.work - before <= 2 * DEFAULT_MAX_WORK + 1000
    assert bounded.cut >= 1 and free.cut == 0 and worst > 2 * DEFAULT_MAX_WORK
    assert bounded.moves == [DRAW]
    (_, n, total, _), = bounded.root_stats()
    assert n == 6 and -6 <= total / n <= 6


def test_a_cut_world_is_valued_at_the_deepest_depth_that_fits():
    """A world over budget at its depth takes the values of the deepest depth whose iterative
    deepening (from depth 1, on the same playout stream) fits in the budget, exactly."""
    info = load_game(X3)
    hands, reserve = CoreSampler(info).sample(Rng(5))
    values, work = {}, {}
    for depth in range(1, 6):
        plain = ExpectimaxSearch(CoreSampler(info), depth, 1, max_work=0)
        values[depth] = plain.run_world(hands, reserve, seed=11)
        work[depth] = plain.work
    assert work[5] > 2 * sum(work[d] for d in range(1, 4))
    # depths 1 to 3 fit, the fourth does not; the search at depth 5 is over budget too
    budget = sum(work[d] for d in range(1, 4)) + work[4] // 2
    cut = ExpectimaxSearch(CoreSampler(info), 5, 1, max_work=budget)
    assert cut.run_world(hands, reserve, seed=11) == values[3] and cut.cut == 1
    within = ExpectimaxSearch(CoreSampler(info), 5, 1, max_work=work[5] + 1)
    assert within.run_world(hands, reserve, seed=11) == values[5] and within.cut == 0


def test_the_budget_leaves_a_world_within_it_unchanged():
    """Six tiles a hand, depth 6: every world within the budget, the same values and nodes as
    without one; an exact solve (no horizon met) is never cut, whatever its size."""
    info = load_game(open(os.path.join(os.path.dirname(__file__), "..", "examples",
                                       "decision.json")).read())
    runs = []
    for max_work in (DEFAULT_MAX_WORK, 0):
        engine = ExpectimaxSearch(CoreSampler(info), 6, 4, max_work=max_work)
        engine.run_worlds(20, 0)
        runs.append((engine.root_stats(), engine.nodes, engine.work, engine.cut))
    assert runs[0] == runs[1] and runs[0][3] == 0
    exact = ExpectimaxSearch(CoreSampler(info), 60, 4, max_work=1000)
    free = ExpectimaxSearch(CoreSampler(info), 60, 4, max_work=0)
    assert exact.run_worlds(3, 0) == free.run_worlds(3, 0) == 3
    assert exact.root_stats() == free.root_stats() and exact.horizons == 0 == exact.cut
    assert exact.work > 3 * 1000


def test_a_stop_is_heard_inside_a_cut_world():
    """A stop during the search again by iterative deepening abandons the world (None), as at
    full depth: nothing of it is kept. Never said, the world is valued and counted as cut."""
    info = load_game(X3)
    hands, reserve = CoreSampler(info).sample(Rng(2))
    engine = ExpectimaxSearch(CoreSampler(info), 8, 1)
    heard = []

    def stop():
        heard.append(engine.work)
        return engine.work > DEFAULT_MAX_WORK      # past the full depth's cut
    engine.stop = stop
    assert engine.run_world(hands, reserve) is None
    assert heard[-1] > DEFAULT_MAX_WORK and engine.nodes == engine.work == engine.cut == 0
    engine.stop = lambda: False
    assert len(engine.run_world(hands, reserve)) == 1 and engine.cut == 1


def test_the_new_limits_are_checked():
    """`max_work` and `world_seconds` out of range are refused, as every limit is."""
    sampler = CoreSampler(load_game(X3))
    for bad in (-1, 1.5, "many", True, 1 << 63):
        with pytest.raises(BergenError):
            ExpectimaxSearch(sampler, 2, 1, max_work=bad)
    engine = ExpectimaxSearch(sampler, 2, 1)
    for bad in (-1, float("nan"), float("inf"), "1", True):
        with pytest.raises(BergenError):
            engine.run_worlds(1, 0, world_seconds=bad)
    assert engine.run_worlds(2, 0, world_seconds=0) == 2 and engine.cut == 0


def test_the_setting_s_default_is_the_core_s():
    """`work`'s default (the search's settings) and the compiled search's own are one number."""
    from bergen_search.search.engines.expectimax import DEFAULT_WORK, Expectimax
    assert DEFAULT_WORK == DEFAULT_MAX_WORK == Expectimax.settings["work"].default


def test_work_0_searches_every_world_to_its_depth():
    """The `work` setting is the budget: 0, a world is searched to `depth` (none cut), where at
    the default budget the same world is cut."""
    from bergen_search.search.engines.expectimax import Expectimax
    from bergen_search.search.registry import Settings
    info = load_game(X3)
    counts = {}
    for given in ({}, {"work": "0"}):
        engine = Expectimax().engine(CoreSampler(info), 0, 1,
                                     dict(Settings.of("expectimax", given)), None)
        engine.run_worlds(1, 0)
        counts[bool(given)] = engine.cut
    assert counts == {False: 1, True: 0}, counts


def test_the_answer_says_how_many_worlds_were_valued_shallower(tmp_path):
    """Cut worlds are counted in the answer (`worlds_shallower`, and a line of the text); with
    work=0 none is, and the field is absent, as it is wherever nothing was cut."""
    path = tmp_path / "x3.json"
    path.write_text(X3)
    doc = json.loads(run("best", str(path), "--algorithm", "expectimax", "--iterations", "2",
                         "--json").stdout)
    assert doc["worlds_shallower"] == 2
    text = run("best", str(path), "--algorithm", "expectimax", "--iterations", "2").stdout
    assert ("depth: 2 worlds valued shallower than 6, the search past one world's work budget "
            "(--set work=0 searches every world to depth 6, however long)") in text
    given = json.loads(run("best", str(path), "--algorithm", "expectimax", "--iterations", "1",
                           "--set", "work=0", "--json").stdout)
    assert "worlds_shallower" not in given
