"""Every limit held, every input refused that must be (one line, exit 2)."""
import json
import math
import os
import subprocess
import sys
import textwrap

import pytest
from support import bergen as run

from bergen_search.errors import BergenError
from bergen_search.formats.game import load_game
from bergen_search.search.api import MAX_ITERATIONS, MAX_SECONDS, Limits, search

DECISION = "examples/decision.json"
MATCH = "examples/match.json"
POSITION = "examples/position.json"
#: The first decision after the lead (seat 1 led 1-1): expectimax at depth 10 with no work
#: budget (work=0) takes seconds for one world here.
FIRST = "bergen1/2/0,0/0/0-1,0-2,1-3,2-4,3-5,4-6/1-1/6,5/16"
HUGE = "1" + "0" * 30


def refused(res, *words):
    """Exit 2, one line on standard error holding `words`, no traceback."""
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    for w in words:
        assert w in res.stderr, (w, res.stderr)


# ---- budgets at the edge ---------------------------------------------------------------------
D, M = DECISION, MATCH
#: Each engine spec through one of the three commands that take specs (each command in turn).
SPEC_COMMANDS = ("arena {} random --games 1", "selfplay --engine {}", "play --engine {} --seed 1")
SPECS = [f"ismcts:iterations={HUGE}", "ismcts:time=inf", "ismcts:time=nan", "ismcts:time=-1",
         "ismcts:time=1e300", "expectimax:iterations=0", f"classic:iterations={HUGE}",
         "ismcts:memory=0", "ismcts:replicates=" + HUGE, "ismcts:exploration=inf",
         "expectimax:depth=100000", "expectimax:playouts=" + HUGE, "ismcts:workers=1000"]


@pytest.mark.parametrize("line, words", [
    *((line, "Invalid value for") for line in (
        f"best {D} --iterations {HUGE}", f"eval {D} --iterations {HUGE}",
        f"analyze {M} --iterations {HUGE}", f"best {D} --iterations -5", f"best {D} --time inf",
        f"best {D} --time nan", f"best {D} --time -1", f"best {D} --time 1e300",
        f"eval {D} --time inf", f"analyze {M} --time inf", f"analyze {M} --time nan",
        f"best {D} --memory 0", f"best {D} --memory {HUGE}", f"analyze {M} --inaccuracy nan",
        "bench --seconds inf", f"arena greedy random --games {HUGE}",
        f"selfplay --games {HUGE}")),
    (f"best {D} --iterations 0", "Invalid value for '--iterations'"),
    *((SPEC_COMMANDS[i % 3].format(spec), f"engine {spec.split(':')[0]!r}")
      for i, spec in enumerate(SPECS)),
    *((f"best {D} --algorithm {alg} --set {setting}", setting.split("=")[0] + " must be")
      for alg, setting in (("ismcts", "replicates=" + HUGE), ("ismcts", "exploration=inf"),
                           ("ismcts", "exploration=nan"), ("expectimax", "depth=1000"),
                           ("expectimax", "playouts=" + HUGE))),
    ("best", "GAME"),       # more, exact: test_messages.py
    (f"best {D} --algorithm expectimax --set exploration=1",
     "expectimax has no setting 'exploration'"),
    (f"analyze {M} --set nonsense=1", "no setting"),
    ("arena greedy random --round --start-scores 15,0", "target"),
    (f"eval {D} --objective money", "money"),
    (f"analyze {M} --iterations 1000000 --recheck 100 --max-rechecks 5",     # refused at once
     "--recheck 100 with --max-rechecks 5 would search a decision with"),
])
def test_budgets_settings_and_inputs_out_of_range_are_one_line(line, words):
    refused(run(*line.split()), words)


@pytest.mark.parametrize("kw", [
    dict(iterations=10 ** 30), dict(iterations=0), dict(iterations=True),
    dict(iterations=2.5), dict(time=math.inf), dict(time=math.nan), dict(time=-1.0),
    dict(time=0), dict(time=MAX_SECONDS * 2), dict(memory_mb=0), dict(memory_mb=10 ** 30)])
def test_limits_refuse_what_cannot_be_a_budget(kw):
    with pytest.raises(BergenError):
        Limits(**kw)
    assert Limits(iterations=MAX_ITERATIONS, time=MAX_SECONDS).time == MAX_SECONDS


def test_the_engine_protocol_refuses_an_oversized_go():
    from bergen_search.protocol.server import EngineServer
    lines = []
    server = EngineServer(lines.append)
    server.handle_line('{"cmd": "position", "game": "%s"}' % FIRST)
    server.handle_line('{"cmd": "go", "iterations": %s}' % HUGE)
    server.handle_line('{"cmd": "go", "time": 1e300}')
    errors = [json.loads(x) for x in lines if json.loads(x)["type"] == "error"]
    assert len(errors) == 2 and "from 1 to 1,000,000,000" in errors[0]["error"]
    assert "at most 86,400" in errors[1]["error"]
    server.close()


# ---- time held, nothing found said -------------------------------------------------------------
def test_a_search_that_finished_no_world_says_so_and_the_clock_is_heard_inside_one(
        virtual_clock):
    """Expectimax with no world finished in time says so (exit 2); the clock is heard in a world."""
    from bergen_search.game.rng import Rng
    from bergen_search.information._sampler import CoreSampler
    from bergen_search.search.engines.expectimax._expectimax import ExpectimaxSearch
    virtual_clock(1 / 64)
    for command in ("best", "eval"):
        for extra in ([], ["--json"]):
            res = run(command, FIRST, "--algorithm", "expectimax", "--set", "depth=10", "--set",
                      "work=0", "--time", "0.05", *extra)
            refused(res, "the search finished no world within the time limit of 0.05 s",
                    "smaller --depth")
            assert res.stdout == ""
    info = load_game(FIRST)
    result = search(info, Limits(time=0.05), algorithm="expectimax", depth=10, work=0)
    assert result.info["empty"] and result.info["iterations"] == 0
    sampler = CoreSampler(info)
    engine = ExpectimaxSearch(sampler, 10, 1, max_work=0)
    hands, reserve = sampler.sample(Rng(3))
    assert engine.run_world(hands, reserve, seconds=0.05) is None
    assert engine.run_worlds(0, 0.05) == 0 and engine.worlds == 0
    result = search(info, Limits(iterations=50, time=0.5), algorithm="expectimax", depth=9,
                    work=0)
    assert result.info["iterations"] < 50


def test_a_match_engine_that_finds_nothing_plays_greedy_and_says_so():
    res = run("selfplay", "--games", "2", "--seed", "3", "--engine",
              "expectimax:time=0.001,depth=10,work=0,greedy")
    assert res.exit_code == 0, res.output
    warnings = [x for x in res.stderr.splitlines() if x.startswith("bergen: warning:")]
    assert len(warnings) == 1, res.stderr
    assert "finished no world within its time limit" in warnings[0]
    assert "played the greedy move there" in warnings[0]
    assert run("replay", "-", input=res.stdout).exit_code == 0


# ---- memory ----------------------------------------------------------------------------------
def test_best_says_when_the_memory_cap_stopped_the_tree(one_search):
    """The text and the JSON of one search whose trees reached a 1 MB cap (the bracket off: it
    holds no tree, and it would be most of the work)."""
    res = run("best", DECISION, "--iterations", "250000", "--memory", "1", "--set", "bracket=off")
    assert res.exit_code == 0
    assert "reached the cap of 1 MB" in res.output and "went on sampling" in res.output
    doc = json.loads(run("best", DECISION, "--iterations", "250000", "--memory", "1", "--set",
                         "bracket=off", "--json").stdout)
    assert doc["memory"]["cap_mb"] == 1 and doc["memory"]["full"] > 0
    assert doc["memory"]["full_at"] < 250000 // 8 and doc["iterations"] == 250000
    # the default cap (at a small budget: the cap does not depend on it)
    default = json.loads(run("best", DECISION, "--iterations", "2000", "--json").stdout)
    assert default["memory"] == {"cap_mb": 256, "full": 0, "full_at": None}


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_no_memory_error_when_the_machine_refuses_memory():
    """Under an address-space limit the tree stops and the search answers; no MemoryError."""
    code = textwrap.dedent(f"""
        import resource, json
        from bergen_search.search.api import Limits, search
        from bergen_search.formats.game import load_game
        info = load_game({FIRST!r})
        vm = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmSize'))
        limit = (vm << 10) + (40 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        r = search(info, Limits(iterations=250_000, memory_mb=100_000), seed=1, replicates=1)
        print(json.dumps({{"best": str(r.best), "memory": r.info["memory"],
                          "iterations": r.info["iterations"]}}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["memory"]["full"] == 1 and doc["iterations"] == 250_000 and doc["best"]


# ---- play's file -----------------------------------------------------------------------------
def test_play_checks_its_file_first_and_never_overwrites_a_game_unasked(tmp_path, monkeypatch):
    """`play` refuses an unwritable file first and overwrites a game only with --force."""
    res = run("play", "--engine", "greedy", "--seed", "3", "--out",
              str(tmp_path / "no" / "g.json"), input="quit\n")
    refused(res, "no folder")
    assert "Bergen against" not in res.stdout
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bergen-game-3.json").write_text("an old game\n")
    res = run("play", "--engine", "greedy", "--seed", "3", "--you", "1", input="quit\n")
    assert res.exit_code == 0 and "game saved to bergen-game-3-2.json" in res.output
    assert "you are seat 1" in res.stdout
    assert (tmp_path / "bergen-game-3.json").read_text() == "an old game\n"
    assert json.loads((tmp_path / "bergen-game-3-2.json").read_text())["format"]
    refused(run("play", "--engine", "greedy", "--seed", "3", "--out", "bergen-game-3.json",
                input="quit\n"), "exists", "--force")
    res = run("play", "--engine", "greedy", "--seed", "3", "--out", "bergen-game-3.json",
              "--force", input="quit\n")
    assert res.exit_code == 0 and "game saved to bergen-game-3.json" in res.output
    assert json.loads((tmp_path / "bergen-game-3.json").read_text())["format"]


def test_play_writes_its_file_atomically(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "g.json"
    target.write_text("old\n")

    def broken(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    res = run("play", "--engine", "greedy", "--seed", "3", "--out", "g.json", "--force",
              input="quit\n")
    # A write error: exit 74 (errors.WriteFailed), one line naming the file.
    assert res.exit_code == 74 and "bergen: cannot write g.json: No space left" in res.output
    assert target.read_text() == "old\n" and sorted(os.listdir(tmp_path)) == ["g.json"]


# ---- inputs that cannot be --------------------------------------------------------------------
@pytest.mark.parametrize("reserve", ["0", "1"])
def test_a_reserve_below_what_is_kept_is_refused(reserve):
    """From flags, JSON and a position string alike."""
    refused(run("best", "--hand", "0-3 1-2 2-5 5-6", "--line", "1-1 1-4 4-4 4-6 6-3",
                "--reserve-size", reserve), "fewer than the 2 the rules keep")
    doc = json.load(open(POSITION))
    doc["reserve_size"], doc["hand_sizes"] = int(reserve), [4, 19 - int(reserve)]
    refused(run("best", "-", input=json.dumps(doc)), "fewer than the 2 the rules keep")
    refused(run("best", f"bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,{19 - int(reserve)}/"
                        f"{reserve}"), "fewer than the 2 the rules keep")


@pytest.mark.parametrize("sizes, words", [
    ("5,6", "seat 0 has had 0 turns, so it holds at least 6 of its 6 tiles, not 5"),
    ("6,6", "seat 1 has had 1 turn (the lead among them), no turn to draw on, so it holds "
            "exactly 5 of its 6 tiles, not 6"),
    ("7,5", None)])
def test_hand_sizes_the_turn_order_rules_out_are_refused(sizes, words):
    """Hand sizes the turn order rules out are refused, saying why."""
    hand = " ".join(["0-1", "0-2", "1-3", "2-4", "3-5", "4-6", "0-0"][:int(sizes[0])])
    res = run("best", "--hand", hand, "--line", "1-1", "--hand-sizes", sizes,
              "--iterations", "100")
    if words is None:
        assert res.exit_code == 0, res.output     # seat 0 drew one in this turn: possible
    else:
        refused(res, "do not fit the turn order", words)


@pytest.mark.parametrize("command", ["analyze", "replay"])
def test_a_position_where_a_record_is_needed_says_so(command):
    refused(run(command, POSITION), "this is a bergen-position/1",
            f"{command} needs a record")
    refused(run(command, "-", input="bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14\n"),
            "this is a position string", f"{command} needs a record")


# ---- every reader caps its input ---------------------------------------------------------
@pytest.mark.parametrize("command, cap, path", [
    ("best", 16, "/dev/zero"), ("replay", 256, "/dev/zero"),    # a game's reader, the records'
    ("best", 16, "-"),                                          # standard input (`< /dev/zero`)
    *(pytest.param(c, n, "/dev/zero", marks=pytest.mark.slow)  # (the others': slow)
      for c, n in (("eval", 16), ("show", 16), ("analyze", 256)))])
def test_an_endless_input_is_refused_at_its_cap(command, cap, path):
    """Every reader stops at its cap and says so, exit 2."""
    with open("/dev/zero", "rb") as endless:
        res = run(command, path, input=endless)
    name = "standard input" if path == "-" else path
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr == (f"bergen: {name} is larger than {cap} MB: no record or "
                          f"position is that large (is it the right file?)\n")


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A sparse file over the cap is refused without a read."""
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(300 << 20)
    res = run("analyze", str(big))
    assert res.exit_code == 2
    assert f"{big} is larger than 256 MB" in res.stderr
    from bergen_search.formats import jsondoc
    monkeypatch.setattr(jsondoc, "READ_CHUNK", None)     # any read() would now raise
    res = run("replay", str(big))
    assert res.exit_code == 2 and "larger than 256 MB" in res.stderr


def test_the_engine_refuses_a_line_over_the_cap_and_goes_on():
    """The engine refuses a line over the cap and names the later lines by their place."""
    line = json.dumps({"cmd": "isready", "pad": "x" * (17 << 20)})
    res = run("engine", input=(line + "\n" + '{"cmd": "isready", "id": 2}\n').encode() + b"\xff\n")
    assert res.exit_code == 0
    assert [json.loads(x) for x in res.stdout.splitlines()] == [
        {"type": "error", "error": "input line 1 is larger than 16 MB: no command is that long "
         "(its record may be at most that)"},
        {"type": "readyok", "id": 2},
        {"type": "error", "error": "input line 3 is not UTF-8 text (byte 0)"}]
