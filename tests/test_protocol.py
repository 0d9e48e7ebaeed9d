"""The engine protocol (docs/PROTOCOL.md, protocol/schema.py) through the real process, as a
client written from the docs meets it."""
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner
from support import sizes

from bergen_search import __version__
from bergen_search.cli import main
from bergen_search.protocol.schema import COMMANDS

STRING = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"
MATCH = json.load(open("examples/match.json", encoding="utf-8"))
DECISION = json.load(open("examples/decision.json", encoding="utf-8"))


class Wire:
    """The engine process spoken to line by line."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "bergen_search", "engine", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")

    def send(self, obj):
        line = obj if isinstance(obj, str) else json.dumps(obj)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self, timeout=60):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("the engine wrote nothing for a minute") from None
        assert line, f"the engine closed its output: {self.proc.stderr.read()}"
        return json.loads(line)

    def read_text(self, timeout=60):
        line = self.lines.get(timeout=timeout)
        assert line, "the engine closed its output"
        return line.strip()

    def ask(self, obj):
        self.send(obj)
        return self.read()

    def until(self, pred, limit=100000):
        """Lines until one satisfies pred (returned last)."""
        out = []
        for _ in range(limit):
            out.append(self.read())
            if pred(out[-1]):
                return out
        raise AssertionError("no such line")

    def close(self):
        if self.proc.poll() is None:
            self.send({"cmd": "quit"})
            self.proc.wait(30)
        return self.proc.returncode


@pytest.fixture(scope="module")
def wire():
    w = Wire()
    assert w.ask({"cmd": "position", "game": STRING})["type"] == "position"
    yield w
    assert w.close() == 0


# ---- every command answers, with its id ---------------------------------------------------
ANSWERS = [
    ({"cmd": "hello"}, "hello"),
    ({"cmd": "isready"}, "readyok"),
    ({"cmd": "position", "game": STRING}, "position"),
    ({"cmd": "position", "game": DECISION}, "position"),
    ({"cmd": "show"}, "show"),
    ({"cmd": "show", "game": STRING}, "show"),
    ({"cmd": "show", "game": STRING, "weighting": "inference"}, "show"),
    ({"cmd": "terminate", "queries": ["nobody"]}, "terminated"),
    ({"cmd": "terminate", "all": True}, "terminated"),
    ({"cmd": "go", "game": STRING, "iterations": 200}, "bestmove"),
    ({"cmd": "go", "iterations": 200, "algorithm": "expectimax", "settings": {"depth": 2}},
     "bestmove"),
    ({"cmd": "go", "iterations": 100, "objective": "match"}, "bestmove"),
    ({"cmd": "go", "iterations": 100, "algorithm": "flat"}, "bestmove"),
    ({"cmd": "go", "time": 0.05}, "bestmove"),
    ({"cmd": "go", "iterations": 100, "beliefs": "inference"}, "bestmove"),
    ({"cmd": "moves", "record": {**MATCH, "rounds": MATCH["rounds"][:1] and [
        {**MATCH["rounds"][0], "hands": [MATCH["rounds"][0]["hands"][0], None],
         "reserve": None, "events": MATCH["rounds"][0]["events"][:1]}]}}, "moves"),
    ({"cmd": "moves", "record": {**MATCH, "rounds": [
        {**MATCH["rounds"][0], "hands": [MATCH["rounds"][0]["hands"][0], None],
         "reserve": None, "events": []}]}}, "moves"),
]


def test_the_leads_of_a_round_not_led_and_a_forced_lead(wire):
    """`moves` before the lead lists the leads; `position` on a forced lead lists that one."""
    answer = wire.ask({"cmd": "moves", "id": 1, "record": {**MATCH, "rounds": [
        {**MATCH["rounds"][0], "hands": [MATCH["rounds"][0]["hands"][0], None],
         "reserve": None, "events": []}]}})
    assert answer["type"] == "moves" and answer["to_move"] is None and answer["moves"] == []
    assert answer["leads"] == [{"seat": 0, "play": "2-2"}, {"seat": 1, "play": "0-0"},
                               {"seat": 1, "play": "1-1"}]
    # a position on a forced lead: `legal` holds the one tile the lead rule picks
    game = {"format": "bergen-position/1", "rules": {"players": 2}, "to_move": 0,
            "hand": ["4-5", "1-1", "2-3", "0-6", "3-3", "5-6"], "line": "",
            "hand_sizes": [6, 6], "reserve_size": 16}
    assert wire.ask({"cmd": "position", "game": game, "id": "lead"})["legal"] == ["1-1"]
    assert wire.ask({"cmd": "position", "game": {**game, "rules": {
        "players": 2, "lead": "highest-double"}}, "id": "lead2"})["legal"] == ["3-3"]
    wire.ask({"cmd": "position", "game": STRING})


@pytest.mark.parametrize("ident", ["q-1", 7, 0, -3, ""])
@pytest.mark.parametrize("line,kind", ANSWERS, ids=[f"{c['cmd']}-{i}" for i, (c, _) in
                                                      enumerate(ANSWERS)])
def test_every_command_answers_with_its_id(wire, line, kind, ident):
    if line["cmd"] != "position":
        wire.ask({"cmd": "position", "game": STRING})
    answer = wire.ask({**line, "id": ident})
    assert answer["type"] == kind, answer
    assert answer["id"] == ident and type(answer["id"]) is type(ident)


# ---- every field refused when wrong (from the schema) --------------------------------------
BAD = {
    "integer": ["x", 1.5, True, [], -10 ** 30, 10 ** 30],
    "seconds": ["x", True, -1, 10 ** 9],
    "boolean": ["yes", 1, [True]],
    "choice": ["nope", 3, True],
    "name": [5, "", ["ismcts"]],
    "object": [[], "x", 3],
    "game": [5, [], "", True],
    "record": [5, [], "", True],
    "seats": [[], [5], [0, 0], "0", [True], [-1]],
    "rounds": [[], [-1], [0, 0], "1", [1.5]],
    "beliefs": ["sure", 3, []],
    "ids": ["x", [{}], [True], [1.5]],
}


def _bad_cases():
    for name, spec in COMMANDS.items():
        for f in spec.fields:
            if f.name == "id":
                continue
            for value in BAD[f.kind]:
                yield pytest.param(name, f.name, value, id=f"{name}-{f.name}-{value!r}")


@pytest.mark.parametrize("command,name,value", list(_bad_cases()))
def test_every_field_is_checked(wire, command, name, value):
    line = {"cmd": command, name: value, "id": "bad"}
    if command == "analyze" and name != "record":
        line["record"] = MATCH
    answer = wire.ask(line)
    assert answer["type"] == "error" and answer["id"] == "bad", answer
    assert answer["error"].startswith(f"{command}: '{name}' "), answer["error"]
    assert f"got {value!r}"[:40] in answer["error"] or len(repr(value)) > 50


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unknown_fields_are_refused_on_every_command(wire, command):
    answer = wire.ask({"cmd": command, "depth": 3, "id": 5})
    assert answer["type"] == "error" and answer["id"] == 5
    assert answer["error"].startswith(f"{command}: unknown field 'depth' (fields: ")
    wire.ask({"cmd": "isready"})


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "quit"])
@pytest.mark.parametrize("bad_id", [[1], {"a": 1}, True, 1.5, "x" * 201, 2 ** 63, -2 ** 63])
def test_an_id_that_is_not_a_string_or_an_integer_is_refused(wire, command, bad_id):
    answer = wire.ask({"cmd": command, "id": bad_id})
    assert answer == {"type": "error",
                      "error": "'id' must be a string of at most 200 characters or an "
                               "integer from -(2^63 - 1) to 2^63 - 1, got "
                               f"{(repr(bad_id) if len(repr(bad_id)) <= 60 else repr(bad_id)[:57] + '...')}"}


def test_an_error_about_the_line_itself_names_it():
    """Not an object, NaN, a key twice (PROTOCOL.md: such an error names the line by its place;
    these had not). An engine of its own: the lines are counted from its first."""
    wire = Wire()
    for n, (line, said) in enumerate((
            ("[1, 2]", 'input line 1 is not a command: a command is a JSON object with "cmd", '
                       'like {"cmd": "isready"}'),
            ('{"cmd": "go", "iterations": NaN}',
             "bad JSON in input line 2: NaN is not a JSON number"),
            ('{"cmd": "isready", "cmd": "go"}',
             "bad JSON in input line 3: duplicate key 'cmd' in a JSON object")), start=1):
        assert wire.ask(line) == {"type": "error", "error": said}, n
    assert wire.close() == 0


@pytest.mark.parametrize("line,message", [
    ("not json", "bad JSON in input line "),
    ('{"cmd": "go", "game": "examples/decision.json", "id": 3}',
     "'game' takes a document (a bergen-record/1 or bergen-position/1 object) or a position "
     "string, not a file name ('examples/decision.json'): the engine reads no files"),
    ('{"cmd": "analyze", "record": "examples/match.json", "id": 3}',
     "'record' takes a bergen-record/1 object, not a file name"),
    ("[1]", 'a JSON object with "cmd"'),
    ('{"id": 3}', 'a JSON object with "cmd"'),
    ('{"cmd": 5, "id": 3}', 'a JSON object with "cmd"'),
    ('{"cmd": "fly", "id": 3}', "unknown command 'fly' (commands: hello, isready, position, "
                                "go, analyze, stop, terminate, show, moves, quit)"),
    ('{"cmd": "isready", "cmd": "go"}', "duplicate key 'cmd'"),
    ('{"cmd": "go", "iterations": NaN}', "NaN is not a JSON number"),
    ('{"cmd": "position", "id": 3}', "position needs 'game'"),
    ('{"cmd": "analyze", "id": 3}', "analyze needs 'record'"),
    ('{"cmd": "terminate", "id": 3}', 'terminate takes "queries" (a list of ids) or "all"'),
    ('{"cmd": "terminate", "queries": [1], "all": true, "id": 3}', 'terminate takes'),
    ('{"cmd": "go", "infinite": true, "time": 1, "id": 3}', "takes no time limit"),
    ('{"cmd": "go", "algorithm": "alphabeta", "id": 3}', "algorithm must be one of"),
    ('{"cmd": "go", "settings": {"depth": 3}, "id": 3}', "ismcts has no setting 'depth'"),
    ('{"cmd": "go", "game": "bergen1/2/4,7/0/0-3", "id": 3}', "position string"),
    ('{"cmd": "analyze", "record": {"format": "bergen-record/1"}, "id": 3}', "'rounds'"),
    ('{"cmd": "analyze", "record": %s, "seats": [2], "id": 3}' % json.dumps(MATCH),
     "seat 2 does not exist with 2 players"),
    ('{"cmd": "analyze", "record": %s, "rounds": [9], "id": 3}' % json.dumps(MATCH),
     "rounds: index 9 is not a round of the record (round 10, counted from 1): it has 4 "
     "rounds, indexes 0..3"),
    ('{"cmd": "show", "game": "bergen1/x", "id": 3}', "position string"),
    ('{"cmd": "show", "game": "bergen1/2/0,0/0/0-0,1-3,2-6,3-3,4-5,5-6/-", "id": 3}',
     "the round has not been led: before the lead the seat to move knows its own hand only"),
    ('{"cmd": "position", "game": "bergen1/2/4,7/0/0-3", "id": 3}',
     "position string: it has 5 parts"),
    ('{"cmd": "position", "game": {"format": "bergen-record/1"}, "id": 3}',
     "no 'rounds' field"),
    ('{"cmd": "go", "settings": {"playout": "clever"}, "id": 3}', "playout must be one of"),
    ('{"cmd": "go", "seed": -1, "id": 3}', "'seed' must be an integer"),
])
def test_lines_that_break_the_rules(wire, line, message):
    answer = wire.ask(line)
    assert answer["type"] == "error" and message in answer["error"], answer
    assert answer.get("id") == (3 if '"id": 3' in line else None)
    assert "\n" not in answer["error"]


def test_odd_ids_and_lines(wire):
    """A stop with nothing running, a null id, the largest id, a line not UTF-8 (ids out of
    range: test_an_id_that_is_not_a_string_or_an_integer_is_refused)."""
    wire.send({"cmd": "stop", "id": 1})
    assert wire.ask({"cmd": "isready", "id": 2}) == {"type": "readyok", "id": 2}
    assert wire.ask({"cmd": "isready", "id": None}) == {"type": "readyok"}
    assert wire.ask({"cmd": "isready", "id": 2 ** 63 - 1})["id"] == 2 ** 63 - 1
    wire.proc.stdin.flush()
    wire.proc.stdin.buffer.write(b'\xff{"cmd": "isready"}\n')
    wire.proc.stdin.buffer.flush()
    assert "not UTF-8" in wire.read()["error"]


# ---- not allowed now ----------------------------------------------------------------------
def test_a_query_id_already_in_flight_and_terminate_all(wire):
    for i in range(3):
        wire.send({"cmd": "go", "infinite": True, "id": f"a{i}"})
    answer = wire.ask({"cmd": "go", "iterations": 10, "id": "a0"})
    assert answer["type"] == "error" and answer["in_flight"] is True
    assert "already in flight" in answer["error"]
    wire.send({"cmd": "terminate", "all": True, "id": "t"})
    left = {"a0", "a1", "a2"}
    lines = wire.until(lambda d: d["type"] == "bestmove" and (left.discard(d["id"]) or
                                                              not left))
    assert [d["type"] for d in lines] == ["terminated", "bestmove", "bestmove", "bestmove"]
    assert sorted(lines[0]["queries"]) == ["a0", "a1", "a2"], lines
    assert sorted(d["id"] for d in lines[1:]) == ["a0", "a1", "a2"]
    assert all(d["terminated"] is True for d in lines[1:])


# ---- queries -----------------------------------------------------------------------------
def test_twenty_queries_two_terminated_the_rest_in_order(wire):
    """Behind a search that holds the worker until `stop`, twenty queries wait; two of them are
    terminated before they start; the rest answer in the order they came."""
    wire.send({"cmd": "go", "infinite": True, "id": "hold"})        # keeps the worker busy
    for i in range(20):
        wire.send({"cmd": "go", "game": STRING, "iterations": 300, "seed": i, "id": i})
    wire.send({"cmd": "terminate", "queries": [7, 13], "id": "t"})
    wire.send({"cmd": "stop"})
    lines = wire.until(lambda d: d["type"] == "bestmove" and d["id"] == 19)
    finals = [d for d in lines if d["type"] == "bestmove" and d["id"] != "hold"]
    assert sorted(d["id"] for d in finals) == list(range(20))      # each exactly once
    ended = {d["id"] for d in finals if d["terminated"]}
    assert ended == {7, 13}
    answered = [d["id"] for d in finals if not d["terminated"]]
    assert answered == [i for i in range(20) if i not in (7, 13)]  # in the order they came
    ack = next(d for d in lines if d["type"] == "terminated")
    assert ack == {"type": "terminated", "queries": [7, 13], "unknown": [], "id": "t"}
    for d in finals:
        if d["terminated"]:                     # never started: nothing to answer with
            assert d["empty"] and d["best"] is None and d["value"] is None and d["moves"] == []
    wire.send({"cmd": "isready", "id": "after"})
    assert wire.until(lambda d: d["type"] == "readyok")[-1]["id"] == "after"


def test_priority_runs_first(wire):
    wire.send({"cmd": "go", "infinite": True, "id": "hold"})        # keeps the worker busy
    wire.send({"cmd": "go", "iterations": 100, "id": "low"})
    wire.send({"cmd": "go", "iterations": 100, "id": "high", "priority": 10})
    wire.send({"cmd": "stop"})
    lines = wire.until(lambda d: d["type"] == "bestmove" and d["id"] == "low")
    assert [d["id"] for d in lines if d["type"] == "bestmove"] == ["hold", "high", "low"]


def test_a_search_that_measured_nothing_is_empty_never_zero(wire):
    """A search stopped at once or out of time before a world: no unmeasured number."""
    wire.send({"cmd": "go", "game": STRING, "infinite": True, "id": "s"})
    wire.send({"cmd": "stop"})
    stopped = wire.until(lambda d: d["type"] == "bestmove")[-1]
    assert stopped["stopped"] is True and stopped["terminated"] is False
    answer = wire.ask({"cmd": "go", "game": DECISION, "time": 0.001, "algorithm": "expectimax",
                       "settings": {"depth": 10, "work": 0}, "id": "tiny"})
    assert answer["type"] == "bestmove" and answer["id"] == "tiny"
    if answer.get("empty"):
        assert answer["iterations"] == 0 and answer["best"] is None
        assert answer["value"] is None and answer["stderr"] is None
        assert all(m["value"] is None and m["stderr"] is None for m in answer["moves"])
    else:                                   # a fast machine finished a world: all measured
        assert answer["iterations"] > 0
    assert all(m["value"] != 0.0 or m["visits"] > 0 for m in answer["moves"])
    assert all((m["value"] is None) == (m["visits"] == 0) for m in stopped["moves"])


def test_partial_answers_then_one_final(wire):
    wire.send({"cmd": "go", "game": STRING, "iterations": 60000, "seed": 4,
               "report_every": 0.005, "id": "p"})
    lines = wire.until(lambda d: d["type"] == "bestmove")
    partials = [d for d in lines if d["type"] == "partial"]
    assert partials and all(d["id"] == "p" for d in partials)
    for d in partials:
        assert set(d) - {"settled"} == {"type", "iterations", "seconds", "best", "value",
                                        "stderr", "moves", "exact", "trees", "running",
                                        "finished", "id"}
        assert ("settled" in d) == (d["trees"] == 8)    # the answer's, once its trees are in
        assert d["finished"] is False
        for m in d["moves"]:
            assert (m["value"] is None) == (m["visits"] == 0)
    plain = wire.ask({"cmd": "go", "game": STRING, "iterations": 60000, "seed": 4})
    drop = ("seconds", "id", "type")
    assert {k: v for k, v in lines[-1].items() if k not in drop} == \
        {k: v for k, v in plain.items() if k not in drop}


def test_beliefs_with_a_go(wire):
    answer = wire.ask({"cmd": "go", "game": DECISION, "iterations": 100, "beliefs": True})
    show = wire.ask({"cmd": "show", "game": DECISION})
    assert answer["beliefs"]["weighting"] == "uniform"
    assert answer["beliefs"]["seats"][0]["p_hold"] == show["seats"][0]["p_hold"]
    assert answer["beliefs"]["reserve"]["p_hold"] == show["reserve"]["p_hold"]
    inferred = wire.ask({"cmd": "show", "game": DECISION, "weighting": "inference"})
    assert inferred["weighting"] == "inference"
    assert inferred["seats"][0]["p_hold"] != show["seats"][0]["p_hold"]


def test_two_workers_run_two_queries_at_once():
    w = Wire("--workers", "2")
    try:
        assert w.ask({"cmd": "hello"})["workers"] == 2
        for q in ("x", "y"):
            w.send({"cmd": "go", "game": STRING, "infinite": True, "report_every": 0.01,
                    "id": q})
        seen = set()
        for line in w.until(lambda d: d["type"] == "partial" and
                            seen.add(d["id"]) is None and seen == {"x", "y"}):
            assert line["type"] == "partial"       # both search before either answers
        w.send({"cmd": "stop"})
        lines = w.until(lambda d: d["type"] == "bestmove" and
                        (seen.discard(d["id"]) or not seen))
        assert {d["id"] for d in lines if d["type"] == "bestmove"} == {"x", "y"}
    finally:
        assert w.close() == 0


# ---- analyze -----------------------------------------------------------------------------
def test_analyze_equals_the_command_decision_for_decision(wire):
    r = CliRunner().invoke(main, ["analyze", "examples/match.json", "--json", "--iterations",
                                  "100", "--seed", "3"])
    assert r.exit_code == 0, r.output
    want = json.loads(r.stdout)
    wire.send({"cmd": "analyze", "record": MATCH, "iterations": 100, "seed": 3, "id": "an"})
    lines = wire.until(lambda d: d["type"] == "analysis")
    streamed = [d for d in lines if d["type"] == "decision"]
    final = lines[-1]
    assert final["id"] == "an" and final["stopped"] is False and final["terminated"] is False
    assert final["version"] == __version__
    assert final["decisions"] == want["decisions"]
    assert final["summary"] == want["summary"] and final["settings"] == want["settings"]
    assert [d["index"] for d in streamed] == list(range(len(want["decisions"])))
    assert [{k: v for k, v in d.items() if k not in ("type", "id", "index")}
            for d in streamed] == want["decisions"]


def test_analyze_of_some_rounds_and_seats_with_beliefs(wire):
    wire.send({"cmd": "analyze", "record": MATCH, "iterations": 200, "rounds": [1],
               "seats": [0], "beliefs": "inference", "id": "r"})
    lines = wire.until(lambda d: d["type"] == "analysis")
    decisions = [d for d in lines if d["type"] == "decision"]
    assert decisions and all(d["round"] == 1 and d["seat"] == 0 for d in decisions)
    for d in decisions:
        b = d["beliefs"]
        assert b["weighting"] == "inference" and b["seats"][0]["seat"] == 1
        assert sum(b["seats"][0]["p_hold"].values()) == pytest.approx(
            b["seats"][0]["hand_size"], abs=1e-4)


def test_analyze_stopped_part_way_keeps_the_decisions_judged_and_terminated_is_said(wire):
    """A stopped review keeps what it judged; one terminated while queued says so."""
    wire.send({"cmd": "analyze", "record": MATCH, "iterations": 400, "id": "cut"})
    first = wire.until(lambda d: d["type"] == "decision")[-1]
    assert first["index"] == 0
    wire.send({"cmd": "stop"})
    lines = wire.until(lambda d: d["type"] == "analysis")
    final = lines[-1]
    assert final["interrupted"] is True and final["stopped"] is True
    assert 1 <= final["decisions_done"] == len(final["decisions"]) < final["decisions_total"]
    assert final["terminated"] is False and final["version"] == __version__
    wire.send({"cmd": "go", "infinite": True, "id": "hold"})
    wire.send({"cmd": "analyze", "record": MATCH, "iterations": 20, "id": "never"})
    wire.send({"cmd": "terminate", "queries": ["never", "hold"], "id": "t"})
    answers, seen = {}, set()

    def done(m):        # the three answers come in any order (the stopped search's first)
        answers[m.get("id")] = m
        seen.add((m.get("id"), m["type"]))
        return {("hold", "bestmove"), ("never", "analysis"), ("t", "terminated")} <= seen
    wire.until(done)
    assert answers["never"]["version"] == __version__ and answers["never"]["terminated"]


# ---- endings -----------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["sigterm", "sighup"])
def test_an_ending_during_a_query_writes_nothing_more(how):
    """The signals stop the running query and write nothing more (quit: the end-of-input
    test)."""
    w = Wire()
    w.send({"cmd": "go", "game": STRING, "infinite": True, "report_every": 0.01, "id": "q"})
    w.until(lambda d: d["type"] == "partial")
    w.proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGHUP)
    assert w.proc.wait(30) == 0 and w.proc.stderr.read() == ""
    rest = []
    while (line := w.lines.get(timeout=30)) != "":
        rest.append(line)
    assert all(json.loads(x)["type"] == "partial" for x in rest if x.strip())


# ---- the docs ----------------------------------------------------------------------------
DOC = open("docs/PROTOCOL.md", encoding="utf-8").read()


def test_the_docs_name_every_command_and_field():
    table = {}
    for m in re.finditer(r"^\| `(\w+)` \| (.*?) \|", DOC, re.M):
        table[m.group(1)] = set(re.findall(r"`(\w+)`", m.group(2)))
    for name, spec in COMMANDS.items():
        assert name in table, f"PROTOCOL.md has no row for {name}"
        fields = {f.name for f in spec.fields} - {"id"}
        assert fields <= table[name], (name, fields - table[name])


def _documented_values(field: str) -> list:
    """The values PROTOCOL.md's fields table lists for `field` (before its default)."""
    row = re.search(rf"^\| `{field}` \| (.*?) \|", DOC, re.M).group(1)
    return [json.loads(v) if v in ("true", "false") or v.startswith('"') else v
            for v in re.findall(r"`([^`]+)`", row.split("(default")[0])]


def test_every_documented_weighting_is_accepted_and_no_other():
    """`beliefs` and `weighting` take exactly the values PROTOCOL.md lists."""
    from bergen_search.information.beliefs import WEIGHTINGS
    from bergen_search.protocol.schema import SchemaError, check
    beliefs, weightings = _documented_values("beliefs"), _documented_values("weighting")
    assert beliefs == [True, False, *weightings] and weightings == list(WEIGHTINGS)
    for value in beliefs:
        for cmd in ({"cmd": "go"}, {"cmd": "analyze", "record": "{}"}):
            assert check({**cmd, "beliefs": value}).fields["beliefs"] == \
                {True: "uniform", False: None}.get(value, value)
    for value in weightings:
        assert check({"cmd": "show", "weighting": value}).fields["weighting"] == value
    for value in ("Uniform", "hand-set", "on", 1, "learned", "action", "action-sir"):
        with pytest.raises(SchemaError):
            check({"cmd": "go", "beliefs": value})
        with pytest.raises(SchemaError):
            check({"cmd": "show", "weighting": value})


#: What PROTOCOL.md says every engine message of a type carries beyond its answer's template
#: in the commands table: a `bestmove` "with `"type": "bestmove"`, the `id`, `"stopped"` ...
#: and `"terminated"`", an `analysis` "with `version`, and `stopped` and `terminated`".
EVERY = {"bestmove": {"stopped", "terminated"},
         "analysis": {"version", "stopped", "terminated"}}


def _messages() -> tuple:
    """PROTOCOL.md's messages: ({type: fields every one carries}, [its JSON literals])."""
    carried = {t: set(f) for t, f in EVERY.items()}
    literals = [line[2:] for line in DOC.splitlines() if line.startswith("< {")]
    for m in re.finditer(r'`(\{"type": ?"(\w+)".*?)`', DOC, re.S):
        try:
            json.loads(m.group(1))
        except ValueError:
            body = re.sub(r"\[.*?\]", "", m.group(1)[m.end(2) - m.start(1) + 1:], flags=re.S)
            carried.setdefault(m.group(2), set()).update(
                name for name, optional in re.findall(r'"(\w+)"(\??)', body) if not optional)
            continue
        literals.append(m.group(1))
    return carried, literals


def test_every_engine_message_in_the_docs_has_the_fields_every_such_message_carries():
    """Each engine message in PROTOCOL.md has every field its type carries."""
    carried, literals = _messages()
    assert {"bestmove", "analysis", "partial", "moves", "position", "terminated"} <= set(carried)
    assert {"iterations", "moves", "finished"} <= carried["partial"]
    assert "trees" not in carried["partial"] and "queries" in carried["terminated"]
    checked = 0
    for text in literals:
        try:
            msg = json.loads(text)
        except ValueError:
            continue                # a line with text left out (`…`)
        missing = carried.get(msg["type"], set()) - set(msg) - {"id"}
        assert not missing, (text, missing)
        checked += 1
    assert checked >= 5


def _pattern(line: str) -> str:
    """A documented answer as a regular expression: `…` any text, timings any number."""
    parts = re.split(r'(?<="seconds":)[0-9.e-]+', line)
    return "[0-9.e-]+".join(re.escape(p).replace("…", ".*") for p in parts)


def test_the_session_in_the_docs_replays():
    """go and show before a position are refused; PROTOCOL.md's session replays line for line."""
    block = DOC.split("## A session", 1)[1].split("```", 2)[1]
    steps = []
    for line in block.splitlines():
        if line.startswith("> "):
            steps.append((line[2:], []))
        elif line.startswith("<* "):
            steps[-1][1].append(("many", _pattern(line[3:])))
        elif line.startswith("< "):
            steps[-1][1].append(("one", _pattern(line[2:])))
    assert len(steps) >= 12
    w = Wire()
    try:
        for cmd in ("go", "show"):          # before any position
            assert w.ask({"cmd": cmd, "id": cmd}) == {"type": "error", "id": cmd, "error":
                f"no position yet: send position first, or give {cmd} a game"}
        for sent, answers in steps:
            w.send(sent)
            pending = None
            for kind, pattern in answers:
                got = pending if pending is not None else w.read_text()
                pending = None
                if kind == "many":
                    while re.fullmatch(pattern, got):
                        got = w.read_text()
                    pending = got
                    continue
                assert re.fullmatch(pattern, got), (sent, pattern, got)
            assert pending is None, (sent, pending)
        assert w.proc.wait(30) == 0
        assert w.lines.get(timeout=10) == ""           # nothing after quit
    finally:
        w.close()


# ---- memory ------------------------------------------------------------------------------
def _rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.parametrize("queries", sizes(600, 10000))
def test_memory_stays_flat_over_many_queries(wire, queries):
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc here")

    def batch(n, start):
        """n queries, 100 in flight at a time (a long queue is not a leak)."""
        for first in range(start, start + n, 100):
            last = min(first + 100, start + n)
            for i in range(first, last):
                wire.send({"cmd": "go", "game": STRING, "iterations": 50, "seed": i, "id": i})
            wire.until(lambda d: d["type"] == "bestmove" and d["id"] == last - 1)

    batch(queries // 5, 0)
    before = _rss_mb(wire.proc.pid)
    batch(queries - queries // 5, queries)
    after = _rss_mb(wire.proc.pid)
    assert after - before < 8, (before, after)


# ---- the protocol's own words (issue 40) -----------------------------------------------------
@pytest.mark.parametrize("algorithm,setting", [("ismcts", "replicates"), ("flat", "replicates"),
                                               ("expectimax", "depth")])
def test_a_fractional_integer_setting_is_refused_not_truncated(wire, algorithm, setting):
    """2.5 for an integer setting is refused (as by `--set`); 2.0 is the integer 2."""
    answer = wire.ask({"cmd": "go", "algorithm": algorithm, "iterations": 20, "id": "f",
                       "settings": {setting: 2.5}})
    assert answer["type"] == "error" and answer["id"] == "f"
    assert answer["error"] == f"{setting} must be an integer, got 2.5"
    done = wire.ask({"cmd": "go", "algorithm": algorithm, "iterations": 20, "id": "g",
                     "settings": {setting: 2.0}})
    assert done["type"] == "bestmove" and done["settings"][setting] == 2
    cli = CliRunner().invoke(main, ["best", STRING, "--algorithm", algorithm, "--set",
                                    f"{setting}=2.5", "--iterations", "20"])
    assert cli.exit_code == 2


def test_go_before_the_lead_answers_the_hand_s_value(wire):
    """Before the lead `go` answers as `best --json`; infinite, its partials carry the value."""
    game = "bergen1/2/0,0/0/1-2,2-2,2-3,3-4,4-5,5-6/-"
    answer = wire.ask({"cmd": "go", "game": game, "iterations": 300, "seed": 2, "id": "b"})
    doc = json.loads(CliRunner().invoke(main, ["best", game, "--iterations", "300", "--seed",
                                               "2", "--json"]).stdout)
    volatile = ("seconds", "id", "type", "stopped", "terminated")
    assert {k: v for k, v in answer.items() if k not in volatile} == \
        {k: v for k, v in doc.items() if k not in volatile}
    assert answer["best"] is None and len(answer["leads"]) == 3
    none = wire.ask({"cmd": "position", "game": "bergen1/2/0,0/0/1-2,3-4,4-5,5-6,0-5,2-3/-"})
    assert none["legal"] == []
    wire.send({"cmd": "go", "game": game, "infinite": True, "report_every": 0.05, "id": "i"})
    partial = wire.until(lambda m: m.get("id") == "i" and m["type"] == "partial")[-1]
    assert partial["best"] is None and partial["value"] is not None and not partial["finished"]
    wire.send({"cmd": "stop"})
    best = wire.until(lambda m: m.get("id") == "i" and m["type"] == "bestmove")[-1]
    assert best["stopped"] and best["iterations"] >= partial["iterations"] and best["leads"]
    wire.ask({"cmd": "position", "game": STRING})


def _engine_with_input(text, *args):
    """`bergen engine ARGS` with `text` as its whole input: (exit status, lines written)."""
    result = CliRunner().invoke(main, ["engine", *args], input=text)
    assert result.stderr == ""
    return result.exit_code, [json.loads(x) for x in result.stdout.splitlines()]


def test_at_the_end_of_input_the_queries_in_flight_finish_and_answer():
    """At end of input the queries in flight answer; `--stop-at-eof` and `quit` stop at once."""
    text = (json.dumps({"cmd": "position", "game": STRING}) + "\n"
            + json.dumps({"cmd": "go", "iterations": 1000, "seed": 1, "id": 1}) + "\n"
            + json.dumps({"cmd": "go", "iterations": 1000, "seed": 2, "id": 2}) + "\n"
            + json.dumps({"cmd": "go", "infinite": True, "id": 3}) + "\n")
    status, lines = _engine_with_input(text)
    assert status == 0
    finals = {m["id"]: m for m in lines if m["type"] == "bestmove"}
    assert set(finals) == {1, 2, 3}
    assert finals[1]["iterations"] == finals[2]["iterations"] == 1000
    assert not finals[1]["stopped"] and finals[3]["stopped"]
    long = (json.dumps({"cmd": "position", "game": STRING}) + "\n"
            + json.dumps({"cmd": "go", "iterations": 50_000_000, "id": 1}) + "\n")
    status, lines = _engine_with_input(long, "--stop-at-eof")
    assert status == 0 and not [m for m in lines if m["type"] == "bestmove"]
    status, lines = _engine_with_input(long + '{"cmd": "quit"}\n')
    assert status == 0 and not [m for m in lines if m["type"] == "bestmove"]



def test_the_last_answer_before_the_end_of_input_is_written_before_the_engine_closes():
    """The end of input waits for the last query's answer to be written, not only for its worker
    to be freed: a write held up a moment (a slow pipe) still comes out."""
    from support import InProcessEngine
    engine = InProcessEngine()
    real_send = engine.server.send

    def slow_send(obj, line_id=None):
        if obj.get("type") == "bestmove":
            threading.Event().wait(0.2)
        real_send(obj, line_id)

    engine.server.send = slow_send
    engine.send({"cmd": "position", "game": STRING})
    engine.send({"cmd": "go", "iterations": 200, "seed": 1, "id": 1})
    engine.server.finish()
    engine.close()
    assert [m["id"] for m in engine.lines.queue if m["type"] == "bestmove"] == [1]

def test_bad_json_names_the_line_of_the_input_and_a_command_is_one_line():
    """Bad JSON names its line of the input; a pretty-printed command is refused line by line."""
    pretty = '{\n  "cmd": "isready"\n}\n'
    text = pretty + "\n".join(['{"cmd": "isready", "id": 1}', "", '{"cmd": bad}',
                               '{"cmd": "isready", "id": 2}', "  nope"]) + "\n"
    status, lines = _engine_with_input(text)
    assert status == 0
    errors = [m["error"] for m in lines[:3]]
    assert errors[0] == ("bad JSON: input line 1 ends inside a JSON value (expecting property "
                         "name enclosed in double quotes); a command is one JSON object on "
                         "one line: send a pretty-printed (multi-line) document on one line")
    assert errors[1] == ("bad JSON in input line 2, column 8: more after the first JSON "
                         "value; a command is one JSON object on one line: send a "
                         "pretty-printed (multi-line) document on one line")
    assert not any("jsonl" in e for e in errors)
    assert lines[3:] == [{"type": "readyok", "id": 1},
                         {"type": "error", "error": "bad JSON in input line 6, column 9: "
                                                   "expecting value"},
                         {"type": "readyok", "id": 2},
                         {"type": "error", "error": "bad JSON in input line 8, column 3: "
                                                   "expecting value"}]
