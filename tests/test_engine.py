"""`bergen engine` through its own client (client.EngineProcess), and the search hooks it stands
on (`search(stop=, on_info=)`)."""
import json
import threading

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import FUZZ_EXAMPLES, console_script

from bergen_search import __version__
from bergen_search.cli import main
from bergen_search.formats.game import load_game
from bergen_search.formats.position import load_position
from bergen_search.formats.record_io import load_record
from bergen_search.protocol.client import (EngineError, EngineProcess, EngineTerminated,
    EngineTimeout, GameAnalysis, PlayResult)
from bergen_search.protocol.server import COMMANDS, PROTOCOL, EngineServer
from bergen_search.search.api import Limits, search
from bergen_search.search.limits import STOP_SLICE_SECONDS, Deadline
from bergen_search.search.workers import run_sliced

STRING = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"
DECISION = open("examples/decision.json", encoding="utf-8").read()
PARTIAL = open("examples/partial.json", encoding="utf-8").read()
POSITION = open("examples/position.json", encoding="utf-8").read()
MATCH = open("examples/match.json", encoding="utf-8").read()
#: Fields that differ between runs (wall time) or only exist on the wire.
VOLATILE = ("seconds", "type", "id", "stopped", "terminated", "version")


def best_json(game_text, *args):
    res = CliRunner().invoke(main, ["best", "-", "--json", *args], input=game_text,
                             prog_name="bergen")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def stable(doc):
    return {k: v for k, v in doc.items() if k not in VOLATILE}


@pytest.fixture(scope="module")
def engine():
    with EngineProcess.start(timeout=30) as eng:
        yield eng


def test_hello(engine):
    hello = engine.hello()
    assert hello["protocol"] == PROTOCOL and hello["version"] == __version__
    assert hello["commands"] == list(COMMANDS)
    from bergen_search.search import registry
    # Every registered algorithm and preset (the built-in ones at least), from the registry.
    assert list(hello["algorithms"]) == list(registry.names())
    assert {"ismcts", "expectimax", "endgame", "classic"} <= set(hello["algorithms"])
    assert hello["algorithms"]["ismcts"]["settings"]["playout"]["choices"] == \
        ["random", "scoring", "safe"]
    assert hello["algorithms"]["classic"]["settings"]["playout"]["default"] == "random"


@pytest.mark.parametrize("algorithm,settings,budget", [
    ("ismcts", {}, 3000), ("ismcts", {"playout": "random", "exploration": 1.0}, 2000),
    ("classic", {}, 2000), ("expectimax", {"depth": 3}, 40),
    pytest.param("expectimax", {}, 400, marks=pytest.mark.slow)])
def test_a_session_answers_as_best_does(engine, algorithm, settings, budget):
    """Several positions through one process: each answers as `bergen best --json`."""
    sets = [x for k, v in settings.items() for x in ("--set", f"{k}={v}")]
    games = [(STRING, STRING), (DECISION, json.loads(DECISION)), (PARTIAL, load_record(PARTIAL)),
             (POSITION, load_position(POSITION)), (POSITION, POSITION)]
    for seed, (text, given_as) in enumerate(games):
        want = best_json(text, "--iterations", str(budget), "--seed", str(seed),
                         "--algorithm", algorithm, *sets)
        got = engine.analyse(given_as, Limits(iterations=budget), seed=seed,
                             algorithm=algorithm, settings=settings)
        assert got["type"] == "bestmove" and got["stopped"] is False
        assert got["version"] == __version__
        assert stable(got) == stable(want), (seed, algorithm)


def test_play_returns_the_move(engine):
    result = engine.play(DECISION, Limits(iterations=2000), seed=5)
    assert isinstance(result, PlayResult)
    assert result.move == result.info["best"] == result.info["moves"][0]["move"]
    assert result.value == result.info["value"]


def test_partial_answers_while_searching(engine):
    """`on_partial` gets each partial (their fields: tests/test_protocol.py), then the answer."""
    seen = []
    doc = engine.analyse(STRING, Limits(iterations=30_000), seed=1, on_partial=seen.append,
                         report_every=0.01)
    assert seen, "no partial answer during a search of 30,000 iterations"
    assert {info["type"] for info in seen} == {"partial"}
    assert all(info["best"] == info["moves"][0]["move"] for info in seen)
    counts = [i["iterations"] for i in seen]
    assert 0 < counts[0] and counts == sorted(counts) and counts[-1] <= doc["iterations"]
    assert doc["iterations"] == 30_000


def test_stop_during_an_infinite_search(engine):
    """A stream stopped answers what it has; meanwhile the client refuses a second search."""
    with engine.analysis(STRING, report_every=0.01) as analysis:
        with pytest.raises(EngineError, match="still running"):
            engine.play(STRING, Limits(iterations=10))
        infos = []
        for info in analysis:
            infos.append(info)
            if len(infos) == 3:
                break
        best = analysis.stop()
    assert best["type"] == "bestmove" and best["stopped"] is True
    assert best["terminated"] is True           # the stream's stop terminates its query
    if best["interrupted"]:     # stopped before its first search (of the default 100,000)
        assert 0 < best["iterations"] < 100_000     # finished: that search's so far
    else:                       # (a loaded machine) after: the last finished search's
        assert best["iterations"] % 100_000 == 0 and best["iterations"] > 0
    assert best["best"] in [m["move"] for m in best["moves"]]
    assert best["moves"][0]["visits"] > 0
    engine.ping()                               # still running, ready for more
    assert engine.play(STRING, Limits(iterations=500)).move


def test_an_infinite_search_deepens_until_stop(engine):
    """An infinite search deepens (2000, 4000, ...); stopped, it is the last finished one's."""
    engine.position(STRING)
    ident = engine._send({"cmd": "go", "infinite": True, "iterations": 2000, "seed": 5,
                          "report_every": 0.01})
    got = engine._await(ident, "partial", timeout=60)
    while got.get("deepening", 0) < 8000:
        got = engine._await(ident, "partial", timeout=60)
    assert got["iterations"] >= 4000 and got["trees"] == 8 and "settled" in got
    engine._send({"cmd": "stop"})
    held = engine._await(ident, "bestmove")
    assert held["stopped"] is True and not held["interrupted"]
    n = held["iterations"]
    assert n >= 4000 and n % 2000 == 0
    same = best_json(STRING, "--iterations", str(n), "--seed", "5")
    assert held["moves"] == same["moves"] and held["settled"] == same["settled"]


def test_a_stop_is_heard_at_the_next_slice(monkeypatch):
    """A stop set during a slice ends the search before the next (slices STOP_SLICE_SECONDS)."""
    from bergen_search.search.engines import expectimax
    # Solving decision.json's 36 worlds takes about 10 ms on a quiet machine, the length of
    # a slice: reported after every world, the stop must be heard before the next one.
    monkeypatch.setattr(expectimax, "STOP_SLICE_SECONDS", 0.0)
    # ISMCTS, expectimax sampling worlds (partial.json: a million histories), and expectimax
    # solving every world (decision.json: 36), which hears the stop between worlds
    for game, algorithm, exact in ((STRING, "ismcts", False), (PARTIAL, "expectimax", False),
                                   (DECISION, "expectimax", True)):
        stop, calls = threading.Event(), []

        def on_info(progress):
            calls.append(progress["iterations"])
            stop.set()      # at the first report: no search here ends within one slice
        result = search(load_game(game), Limits(iterations=10 ** 8), seed=2,
                        algorithm=algorithm, stop=stop, on_info=on_info)
        assert len(calls) == 1 and result.info["interrupted"], (algorithm, calls)
        if not exact:
            assert result.info["iterations"] == calls[-1]
    asked = []

    def run(n, seconds):
        asked.append(seconds)
        return 100

    class Hooks:
        base = 0

        def stopped(self):
            return len(asked) >= 5

        def sliced(self, done, stats=None):
            pass
    done, interrupted = run_sliced(run, None, Deadline(None), Hooks())
    assert (done, interrupted) == (500, True)
    assert asked == [STOP_SLICE_SECONDS] * 5


def test_hooks_leave_the_answer_unchanged():
    info = load_game(DECISION)
    for algorithm, budget in (("ismcts", 5000), ("classic", 3000), ("expectimax", 30),
                              ("expectimax", 300)):
        plain = search(info, Limits(iterations=budget), seed=9, algorithm=algorithm)
        watched = search(info, Limits(iterations=budget), seed=9, algorithm=algorithm,
                         stop=threading.Event(), on_info=lambda d: None)
        assert plain.moves == watched.moves and plain.best == watched.best
        assert plain.info.get("endgame") == watched.info.get("endgame")
        assert plain.info["iterations"] == watched.info["iterations"]
    with pytest.raises(Exception, match="one worker"):
        search(info, Limits(iterations=100), workers=2, on_info=print)


def test_show_through_the_engine(engine):
    doc = engine.show(PARTIAL)
    assert engine.beliefs(PARTIAL).p_hold[1] == doc["seats"][0]["p_hold"]
    res = CliRunner().invoke(main, ["show", "-", "--json"], input=PARTIAL, prog_name="bergen")
    want = json.loads(res.stdout)
    assert {k: v for k, v in doc.items() if k not in VOLATILE} == \
        {k: v for k, v in want.items() if k not in VOLATILE}
    assert engine.position(STRING)["position"] == STRING


# ---- malformed lines ------------------------------------------------------------------------
def test_malformed_lines_get_an_error_and_the_engine_keeps_running(engine):
    """A refused line gets an error with its id; the client raises EngineError; it runs on."""
    engine.position(STRING)
    answer = engine.raw('{"cmd": "fly", "id": "x"}')
    assert answer["type"] == "error" and answer["id"] == "x"
    engine.ping()
    with pytest.raises(EngineError, match="position string"):
        engine.position("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-9/4,5/14")
    with engine.analysis("bergen1/x", report_every=0) as refused:
        pass                                    # a stream whose query was refused: closed
    assert refused.best == {}
    # before the lead: the hand's value, and its forced lead (it holds 0-0)
    lead = engine.analyse("bergen1/2/0,0/0/0-0,1-2,2-3,3-4,4-5,5-6/-", Limits(iterations=10))
    assert lead["best"] == "0-0" and lead["leads"][0]["chance"] == 1.0
    # a query whose id is already in flight
    with engine.analysis(STRING, report_every=0) as analysis:
        line = '{"cmd": "go", "id": "%s"}' % analysis.ident
        engine.process.stdin.write(line + "\n")
        engine.process.stdin.flush()
        best = analysis.stop()
    assert best["stopped"]
    engine.ping()


def test_the_client_lists_moves_and_streams_a_game_as_analyze(engine):
    """An unseen seat's moves, and a game analysed decision by decision as `analyze`."""
    match = json.loads(MATCH)
    first = match["rounds"][0]
    record = {**match, "rounds": [{**first, "hands": [first["hands"][0], None],
                                   "reserve": None, "events": first["events"][:1]}]}
    got = engine.moves(json.dumps(record))
    assert got["type"] == "moves" and got["to_move"] == 1 and got["seen"] is False
    assert first["events"][1]["play"] in got["moves"] and "draw" in got["moves"]
    assert not {m.split(":")[0] for m in got["moves"]} & set(first["hands"][0])
    stream = engine.analyze_game(match, Limits(iterations=100), seats=[1], seed=3)
    assert isinstance(stream, GameAnalysis)
    decisions = list(stream)
    res = CliRunner().invoke(main, ["analyze", "-", "--json", "--seat", "1", "--iterations",
                                    "100", "--seed", "3"], input=MATCH)
    want = json.loads(res.stdout)
    assert [d.doc for d in decisions] == want["decisions"]
    assert stream.analysis["summary"] == want["summary"]
    assert decisions[0].played == want["decisions"][0]["played"]


def _server():
    out = []
    return EngineServer(out.append), out


#: Examples: twice BERGEN_FUZZ_EXAMPLES (default 12; `.ci/run` runs 100), as tests/test_fuzz.py.
FUZZ = settings(max_examples=2 * FUZZ_EXAMPLES,
                deadline=20_000, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])
def _nested(kids):
    """Lists and objects of `kids`. A function, not a lambda: Hypothesis reads the source of
    `extend` to check that it recurses, and once warned that this one, a lambda over several
    lines, did not."""
    return st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3)


_json_values = st.recursive(st.none() | st.booleans() | st.integers(-10, 10 ** 7) |
                            st.floats(allow_nan=False) | st.text(max_size=10), _nested,
                            max_leaves=6)


@st.composite
def command_lines(draw):
    kind = draw(st.sampled_from(["command", "text"]))
    if kind == "text":
        return draw(st.text(max_size=40))
    cmd = {"cmd": draw(st.sampled_from([c for c in COMMANDS if c != "quit"] + ["fly"]))}
    for key in draw(st.lists(st.sampled_from(["game", "iterations", "time", "infinite", "seed",
                                              "algorithm", "objective", "settings",
                                              "report_every", "priority", "beliefs",
                                              "queries", "all", "record", "seats", "rounds",
                                              "weighting", "id", "x"]), max_size=4,
                             unique=True)):
        cmd[key] = draw(_json_values | st.sampled_from([STRING, 50, 0.05, "expectimax"]))
    return json.dumps(cmd)


@FUZZ
@given(lines=st.lists(command_lines(), min_size=1, max_size=5))
def test_fuzz_the_command_reader(lines):
    """Whatever the lines, the reader answers with JSON lines of known types, never raising."""
    server, out = _server()
    server.handle_line('{"cmd": "position", "game": "%s"}' % STRING)
    for line in lines:
        assert server.handle_line(line) in (True, False)
        server.handle_line('{"cmd": "terminate", "all": true}')
    server.close(wait=20)
    for line in out:
        doc = json.loads(line)
        assert doc["type"] in {"hello", "readyok", "position", "partial", "bestmove", "show",
                               "decision", "analysis", "terminated", "error"}
        if doc["type"] == "error":
            assert isinstance(doc["error"], str) and "\n" not in doc["error"]
            assert "internal error" not in doc["error"], doc["error"]


# ---- exits, timeouts, a dead engine ------------------------------------------------------------
def test_a_timeout_stops_the_search(engine):
    with pytest.raises(EngineTimeout):
        engine.analyse(STRING, Limits(iterations=10 ** 9), timeout=0.3)
    engine.ping()                                  # the search was stopped and answered


def test_the_installed_console_script_and_an_engine_that_exits():
    """The installed `bergen engine` answers; `quit` ends it with 0 and nothing on stderr;
    then, as for an engine that never starts, the client says it has exited."""
    exe = console_script()
    assert exe, "the console script `bergen` is not installed beside this Python nor on PATH"
    engine = EngineProcess.start([exe, "engine"])
    assert engine.hello()["version"] == __version__
    assert engine.play(STRING, Limits(iterations=1000), seed=1).info["moves"] == \
        best_json(STRING, "--iterations", "1000", "--seed", "1")["moves"]
    assert engine.quit() == 0 and engine.stderr == ""
    with pytest.raises(EngineTerminated, match="the engine has exited"):
        engine.ping()
    with pytest.raises(EngineTerminated):
        EngineProcess.start(["python3", "-c", "import sys; sys.exit(3)"])
