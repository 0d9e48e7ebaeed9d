"""Engines in other processes (`--external NAME=COMMAND`): this build's `bergen engine` plays
there as here; an engine is sent its seat's view only (tests/fake_engine.py records it); each
error is one line, exit 2; the journal keeps the finished sets; no engine outlives the run."""
import json
import os
import shlex
import signal
import sys
import time

import pytest
import support

from bergen_search.constants import SEARCH_STREAM
from bergen_search.formats.game import load
from bergen_search.formats.record import parse_record
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.tiles import parse_tile
from bergen_search.play import external
from bergen_search.play.arena import run_arena
from bergen_search.play.engines import parse_engine_spec, parse_externals

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = [sys.executable, os.path.join(HERE, "fake_engine.py")]
ENGINE = [sys.executable, "-m", "bergen_search", "engine"]
#: The figures that are wall-clock, or that name the engines, left out of a comparison.
CLOCK = ("seconds", "seconds_per_search", "engines", "commands")
EXT = "ext=" + shlex.join(ENGINE)


def fake(*args) -> str:
    return shlex.join(FAKE + [str(a) for a in args])


def bergen(*args):
    """The command run here: (exit code, output with standard error); a crash raised."""
    res = support.bergen(*args)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.output


def figures(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in CLOCK}


def one_line_error(code, out, *parts):
    assert code == 2, out
    lines = out.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bergen: "), out
    for part in parts:
        assert part in lines[0], (part, out)
    return lines[0]


# ---- the same play as in this process -------------------------------------------------------
@pytest.mark.parametrize("table, workers", [
    ([], 1), *(pytest.param(t, 2, marks=pytest.mark.slow)
               for t in ([], ["--players", 3, "--round"],
                         ["--players", 4, "--partnerships", "--round"]))])
def test_the_engine_in_another_process_plays_as_the_one_here(tmp_path, table, workers):
    """`bergen engine` plays as `ismcts` here, seed for seed, here and in two worker processes
    (each with an engine of its own: test_the_engines_are_quit_at_the_end), with settings passed
    on (`inference=off`, `replicates=2`), at every table size: the same records and figures (not
    `choose=visits`: a tie in visits may go either way)."""
    spec = "iterations=60,inference=off,replicates=2"
    args = ["--games", 2, "--seed", 11, "--workers", workers, "--json", "--quiet", *table]
    code, out = bergen("arena", "ismcts:iterations=60", f"ismcts:{spec}", *args, "--out",
                       tmp_path / "here.jsonl")
    here = json.loads(out)
    code, out = bergen("arena", "ismcts:iterations=60", f"ext:{spec}", "--external", EXT, *args,
                       "--out", tmp_path / "there.jsonl")
    assert code == 0, out
    there = json.loads(out)
    assert there["workers"] == workers and there["searches"][1] > 0
    assert figures(there) == figures(here)
    assert there["engines"] == ["ismcts:iterations=60", f"ext:{spec}"]
    assert there["commands"] == [None, shlex.join(ENGINE)] and here["commands"] == [None, None]
    assert (tmp_path / "there.jsonl").read_bytes() == (tmp_path / "here.jsonl").read_bytes()
    assert external.engine_pids() == []       # quit at the run's end


# ---- what the engine sees ---------------------------------------------------------------------
def test_the_engine_is_sent_only_what_its_seat_sees(tmp_path):
    """Every `go` is the round as the seat sees it, with the seeds and hand of an engine here."""
    record = tmp_path / "sent.jsonl"
    rules = Rules(players=3)
    ext = parse_externals([f"fake={fake('--record', record)}"])
    result = run_arena(rules, "greedy", parse_engine_spec("fake:iterations=7,inference=off",
                                                          ext),
                       games=2, seed=4, keep_logs=True)
    gos = [json.loads(line) for line in record.read_text().splitlines()]
    gos = [g for g in gos if g["cmd"] == "go"]
    assert len(gos) == sum(result.searches) > 10
    for go in gos:
        assert go["iterations"] == 7 and go["settings"] == {"inference": "off"}
        assert go["algorithm"] == "ismcts" and go["objective"] == "points"
        game = go["game"]
        rec = parse_record(game)
        (rnd,) = rec.rounds
        seat = load(game).info.seat
        assert rnd.reserve is None
        assert [h is None for h in rnd.hands] == [s != seat for s in range(3)]
        known = rnd.hands[seat]
        for e in rnd.events:
            if e.kind == "draw":
                assert (e.tile is None) == (e.seat != seat)
                if e.tile is not None:
                    known |= 1 << e.tile
            elif e.kind == "play":
                known |= 1 << e.tile
        # Nothing in the game names a tile the seat has not seen.
        text = json.dumps(game)
        for a in range(7):
            for b in range(a, 7):
                if f'"{a}-{b}' in text:
                    assert known >> parse_tile(f"{a}-{b}") & 1, (f"{a}-{b}", game)
    # The seeds are those of an engine here: the match's, then the decision's number in it.
    matches = [derive_seed(4, i) for i in range(2) for _ in range(3)]
    m = k = 0
    for go in gos:
        while go["seed"] != derive_seed(matches[m] ^ SEARCH_STREAM, k):
            m, k = m + 1, 0                     # the next match (in set, seating order)
            assert m < len(matches), go["seed"]
        k += 1
    # The hands it was sent are the seats' true hands as dealt.
    dealt = {tuple(r.hands) for m in result.played for r in m.log.rounds}
    for go in gos:
        hand = parse_record(go["game"]).rounds[0].hands
        seat = next(s for s, h in enumerate(hand) if h is not None)
        assert any(d[seat] == hand[seat] for d in dealt)


# ---- errors -----------------------------------------------------------------------------------
AFTER_10 = fake("--mode", "after:10")
MUTE = shlex.join([sys.executable, "-c", "import time; time.sleep(600)"])     # never speaks


@pytest.mark.parametrize("args, parts", [
    *((["arena", "greedy", "ext", "--external", option, "--games", 1], [message])
      for option, message in [
          ("ext", "expected NAME=COMMAND"),
          ("greedy=" + shlex.join(ENGINE), "'greedy' is a built-in engine"),
          ("ismcts=" + shlex.join(ENGINE), "'ismcts' is a built-in engine"),
          ("ext=", "the command is empty"),
          ("ext=  ", "the command is empty"),
          ("ext=/no/such/program engine", "cannot run '/no/such/program': no such program"),
          ("ext='unclosed", "the command does not split"),
          ("9x=" + shlex.join(ENGINE), "the name must be a word")]),
    (["arena", "greedy", "ext", "--external", "ext=true", "--games", 1],       # no engine
     ["engine 'ext' (true)", "the engine has exited"]),
    (["arena", "greedy", "ext", "--external", EXT, "--external", EXT],
     ["--external ext: the name is registered twice"]),
    (["arena", "greedy", "other", "--external", EXT],
     ["unknown engine 'other'", "ext; or a NAME registered with --external"]),
    (["arena", "greedy", "ext:iterations=0", "--external", EXT], ["iterations must be at least 1"]),
    (["arena", "greedy", "ext:objective=fun", "--external", EXT],
     ["objective must be points or match"]),
    (["arena", "greedy", "ext:iterations=10,depth=3", "--external", EXT, "--games", 1, "--round"],
     ["engine 'ext'", "in set 0", "ismcts has no setting 'depth'"]),
    (["selfplay", "--engine", "ext", "--external", EXT, "--cluster", "tcp://127.0.0.1:9"],
     ["--cluster cannot play engines in other processes"]),
    *((["arena", "greedy", "fake", "--external", f"fake={fake('--mode', mode)}",
        "--external-timeout", 1, "--games", 2, "--round", "--quiet"],
       [f"engine 'fake' ({fake('--mode', mode)}) in set 0: ", message])
      for mode, message in [("illegal", "which is not legal there (legal: "),
                            ("die", "the engine has exited (status 3): fake engine: dying"),
                            ("refuse", "it refused the search: fake has no setting 'depth'"),
                            ("hang", "it did not answer a move within 1 s")]),
    (["arena", "greedy", "fake", "--external", f"fake={AFTER_10}", "--games", 4, "--round",
      "--workers", 2, "--quiet"], [f"engine 'fake' ({AFTER_10}) in set ", "which is not legal"]),
    (["selfplay", "--engine", "greedy,fake", "--external", f"fake={fake('--mode', 'after:3')}",
      "--games", 2], ["engine 'fake'", "in match 0", "which is not legal there"]),
])
def test_a_refused_engine_is_one_line_and_leaves_no_process(args, parts):
    """Bad options, engines that fail (in a worker process too)."""
    one_line_error(*bergen(*args), *parts)
    assert external.engine_pids() == []


def test_an_engine_that_never_speaks_is_given_up_on_at_its_timeout():
    """The start not answered within the timeout (--external-timeout's, at least 1 s there,
    0.2 s here): the error names the engine, which is left running nowhere. (A move not
    answered: the `hang` case above, whose engine must first start within the timeout.)"""
    engine = parse_engine_spec("mute", parse_externals([f"mute={MUTE}"], timeout=0.2))
    with pytest.raises(external.ExternalEngineError) as e:
        run_arena(Rules(), "greedy", engine, games=1, seed=1, single_round=True)
    assert str(e.value) == (f"engine 'mute' ({MUTE}): it did not answer isready within 0.2 s of "
                            f"starting (--external-timeout sets how long, up to 30 s)")
    assert external.engine_pids() == []


def test_cluster_is_refused_before_anything_runs(tmp_path):
    code, out = bergen("arena", "greedy", "ext", "--external", EXT, "--cluster",
                       "tcp://127.0.0.1:9", "--out", tmp_path / "a.jsonl")
    one_line_error(code, out, "--cluster cannot play engines in other processes")
    assert os.listdir(tmp_path) == []


def test_an_engine_that_measured_nothing_plays_the_greedy_move_and_says_so():
    """As an engine here whose time is too short: the greedy move, one warning."""
    code, out = bergen("arena", "greedy", "fake:time=0.001", "--external",
                       f"fake={fake('--mode', 'empty')}", "--games", 2, "--round", "--quiet",
                       "--json")
    assert code == 0, out
    warning = [line for line in out.splitlines() if line.startswith("bergen: warning: ")]
    assert warning == ["bergen: warning: engine fake:time=0.001 measured nothing within its "
                       "time limit at a move, and the greedy move was played there (give it "
                       "more time)"], out
    doc = json.loads(out[out.index("{"):])
    assert doc["margin_per_round"] == 0 and doc["searches"][1] > 0   # greedy against greedy


def test_the_journal_keeps_the_finished_sets_and_resume_goes_on(tmp_path):
    """An engine turning illegal after 30 moves stops the run naming the journal; fixed,
    --resume writes the uninterrupted file; another command is refused."""
    mode = tmp_path / "mode"
    mode.write_text("after:30")
    command = fake("--mode-file", mode)
    out_path = tmp_path / "a.jsonl"
    run = ["arena", "greedy", "fake", "--external", f"fake={command}", "--games", 6,
           "--round", "--seed", 1, "--quiet", "--json"]
    code, out = bergen(*run, "--out", out_path)
    line = one_line_error(code, out, "engine 'fake'", "which is not legal there",
                          f"the finished work is kept in {out_path}.journal", "--resume")
    assert "in set 0" not in line             # some sets were finished first
    assert not out_path.exists()
    mode.write_text("first")
    code, out = bergen(*run[:3], "--external", "fake=" + fake("--mode", "first"), *run[5:],
                       "--out", out_path, "--resume")
    assert code == 2 and "written with commands" in out, out     # part of the journal
    code, out = bergen(*run, "--out", out_path, "--resume")
    assert code == 0, out
    resumed = json.loads(out)
    code, out = bergen(*run, "--out", tmp_path / "b.jsonl")
    assert code == 0, out
    assert (tmp_path / "b.jsonl").read_bytes() == out_path.read_bytes()
    assert figures(json.loads(out)) == figures(resumed)


# ---- processes ----------------------------------------------------------------------------------
def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def all_gone(pids, within=10.0) -> list:
    """The pids still alive after waiting up to `within` seconds for them to go."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def start_arena(tmp_path, workers: int, *extra):
    """A real `bergen arena` against the slowed fake engine, in a process group of its own,
    once `workers` engines run for it (their pids in tmp_path/pids)."""
    pids = tmp_path / "pids"
    pids.mkdir()
    command = fake("--pid-dir", pids, "--delay", 0.05)
    proc = support.start(["arena", "greedy", "fake", "--external", f"fake={command}", "--games",
                          200, "--workers", workers, "--quiet", *extra], tmp_path,
                         start_new_session=True)
    deadline = time.monotonic() + 60
    # The check's engine in the arena, quit before the workers start theirs (workers > 1).
    expected = 1 if workers == 1 else 1 + workers
    while len(os.listdir(pids)) < expected or not any(alive(int(p)) for p in os.listdir(pids)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the engines did not start"
        time.sleep(0.05)
    time.sleep(0.2)                            # in the middle of the sets
    return proc, pids


def engines_of(pids_dir) -> list:
    return [int(p) for p in os.listdir(pids_dir)]


@pytest.mark.parametrize("sig, workers", [
    ("SIGINT", 1), ("SIGINT", 2),
    *(pytest.param(s, w, marks=pytest.mark.slow) for s in ("SIGTERM", "SIGKILL") for w in (1, 2))])
def test_a_stopped_run_leaves_no_engine(tmp_path, sig, workers):
    """Ctrl-C to the process group (130), SIGTERM (143), kill -9 (no goodbye: the kernel ends
    the engines): none outlives the run."""
    proc, pids = start_arena(tmp_path, workers)
    if sig == "SIGINT":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, getattr(signal, sig))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == {"SIGINT": 130, "SIGTERM": 143, "SIGKILL": -9}[sig], err
    assert sig != "SIGINT" or "interrupted after" in err
    assert all_gone(engines_of(pids)) == []


def test_the_engines_are_quit_at_the_end(tmp_path):
    pids = tmp_path / "pids"
    pids.mkdir()
    code, out = bergen("arena", "greedy", "fake", "--external",
                       f"fake={fake('--pid-dir', pids)}", "--games", 4, "--round",
                       "--workers", 2, "--quiet")
    assert code == 0, out
    assert "  engine fake: " + fake("--pid-dir", pids) in out.splitlines()[1]
    assert len(engines_of(pids)) == 3           # the check's, then one per worker
    assert all_gone(engines_of(pids)) == []
