"""Searches share nothing: each owns its stop and its memory account."""
import json
import random
import threading
import time

import pytest
from support import InProcessEngine, sizes

from bergen_search.formats.game import load_game
from bergen_search.game.backend import REFERENCE
from bergen_search.search import backend as search_backend
from bergen_search.search.api import Limits, search

DECISION = json.load(open("examples/decision.json", encoding="utf-8"))
SMALL = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"


def _timeless(doc):
    """A document without its wall times (`seconds`, at any depth)."""
    if isinstance(doc, dict):
        return {k: _timeless(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [_timeless(v) for v in doc]
    return doc


def _finals(workers, queries, events=()):
    """The final answers (`bestmove` or error) written, by the time it closed, by an engine in
    this process sent `queries` and then `events` ((seconds after the last query, command))."""
    engine = InProcessEngine(workers)
    got = []
    try:
        for q in queries:
            engine.send(q)
        at = 0.0
        for when, cmd in events:
            time.sleep(when - at)
            at = when
            engine.send(cmd)
        for _ in queries:
            got += engine.until("bestmove", timeout=300)
    finally:
        engine.close()
    return [d for d in got + list(engine.lines.queue) if d["type"] in ("bestmove", "error")]


def _schedule(rng, round_):
    """A round's queries, and when after the last `go` some are terminated or all stopped."""
    queries = []
    for i in range(rng.choice((3, 4))):
        game = DECISION if rng.random() < 0.75 else SMALL
        cmd = {"cmd": "go", "id": f"{round_}-{i}", "game": game, "seed": rng.randrange(100),
               "iterations": rng.choice((20_000, 30_000))}
        if rng.random() < 0.3:
            cmd["report_every"] = 0.05      # a live query: the attempt runs beside it
        queries.append(cmd)
    events = [(rng.uniform(0.02, 0.4), {"cmd": "terminate", "queries": [q["id"]]})
              for q in rng.sample(queries, rng.choice((1, 2)))]
    if rng.random() < 0.4:
        events.append((rng.uniform(0.05, 0.6), {"cmd": "stop"}))
    return rng.choice((2, 3)), queries, sorted(events, key=lambda e: e[0])


@pytest.mark.parametrize("rounds", sizes(3, 10))
def test_queries_stopped_and_terminated_beside_others_leave_their_answers_alone(rounds):
    """Queries not stopped beside terminated ones answer as alone, each exactly once."""
    pytest.importorskip("bergen_search.search.endgame._endgame")
    rng = random.Random(48)
    alone = {}
    for r in range(rounds):
        workers, queries, events = _schedule(rng, r)
        answers = _finals(workers, queries, events)
        finals = {d["id"]: d for d in answers}
        assert sorted(finals) == sorted(q["id"] for q in queries)
        assert len(answers) == len(queries)            # exactly one each
        for q in queries:
            got = finals[q["id"]]
            assert got["type"] == "bestmove", got
            if got["stopped"]:
                continue
            key = json.dumps({k: v for k, v in q.items() if k != "id"}, sort_keys=True)
            if key not in alone:
                alone[key] = _finals(1, [q])[0]
            assert _timeless({**got, "id": None}) == _timeless({**alone[key], "id": None}), \
                (r, q["id"], events)


# ---- memory ----------------------------------------------------------------------------------
@pytest.fixture
def searches(backend, monkeypatch):
    """The searches on the `backend` fixture's backend (compiled, or the pure-Python twins)."""
    if backend is REFERENCE:
        monkeypatch.setattr(search_backend, "SEARCH", search_backend.reference_search("test"))
    return search_backend.SEARCH


def test_each_account_has_its_cap_and_trees_elsewhere_leave_a_capped_search_alone(searches):
    """One account's trees share its cap, another has its own, frees go home; a search
    capped at 1 MB answers the same with other trees alive in the process."""
    from bergen_search.information.sampler import WorldTable
    from bergen_search.search.engines.ismcts import reference
    info = load_game(SMALL)
    tree = searches.pick("bergen_search.search.engines.ismcts._ismcts.IsmctsTree",
                         reference.IsmctsTree)
    account = searches.pick("bergen_search.search.engines.ismcts._ismcts.MemoryAccount",
                            reference.MemoryAccount)
    limits = Limits(iterations=2_000, memory_mb=1)
    alone = search(info, limits, seed=3, replicates=1)
    first_pool = 4096 * 40             # a first pool of 4,096 nodes of 40 bytes
    cap = first_pool * 3 // 2
    shared, own = account(), account()
    trees = [tree(searches.sampler(info, WorldTable(info)), seed, max_bytes=cap, account=a)
             for seed, a in ((1, shared), (2, shared), (3, own))]
    trees += [tree(searches.sampler(info, WorldTable(info)), s, max_bytes=0) for s in range(6)]
    assert shared.bytes == cap and own.bytes == first_pool
    beside = search(info, limits, seed=3, replicates=1)
    assert beside.info["memory"] == alone.info["memory"] == {"cap_mb": 1, "full": 0,
                                                             "full_at": None}
    assert beside.info["nodes"] == alone.info["nodes"] and beside.moves == alone.moves
    del trees[0]
    assert shared.bytes == cap - first_pool and own.bytes == first_pool
    del trees[:]
    assert shared.bytes == own.bytes == 0


# ---- a search's processes --------------------------------------------------------------------
def test_a_search_s_processes_hear_its_own_stop_only(monkeypatch):
    """A `workers=2` search's processes hear its own stop, not one another search left."""
    from contextlib import contextmanager

    from bergen_search.runs import parallel
    info = load_game(SMALL)
    limits = Limits(iterations=4_000)
    alone = search(info, limits, seed=2, workers=2)
    others = threading.Event()
    others.set()
    real = parallel.deferred_ctrl_c

    @contextmanager
    def forking():
        # what another search, forking its own pool meanwhile, would leave in the parent
        monkeypatch.setattr(parallel, "_STOP", others)
        with real():
            yield
    monkeypatch.setattr(parallel, "deferred_ctrl_c", forking)
    beside = search(info, limits, seed=2, workers=2)
    assert not beside.info["interrupted"] and beside.info["iterations"] == 4_000
    assert beside.moves == alone.moves
