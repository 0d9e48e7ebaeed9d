"""Every stop obeyed, no work lost: SIGINT to the installed command gives exit 130, one line on
standard error, what it finished on standard output and a readable journal; `kill -9` then
`--resume` writes the uninterrupted file (selfplay's signals: test_runs.py). One case of each
behaviour by default, the rest (and the exit within BERGEN_STOP_WITHIN) behind slow."""
import json
import os
import select
import signal
import subprocess
import time

import pytest
from support import bergen, entries, run_here, start, wait_for

from bergen_search.runs.journal import Journal

SLOW = pytest.mark.slow
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECISION = os.path.join(ROOT, "examples", "decision.json")
MATCH = os.path.join(ROOT, "examples", "match.json")
#: The first decision after the lead: expectimax at depth 10 spends seconds in one world.
FIRST = "bergen1/2/0,0/0/0-1,0-2,1-3,2-4,3-5,4-6/1-1/6,5/16"
ARENA = ["arena", "ismcts:iterations=300", "classic:iterations=300", "--games", "40",
         "--seed", "3"]
SELFPLAY = ["selfplay", "--games", "8", "--seed", "5", "--engine", "ismcts:iterations=1000"]


def settled(proc, seconds=0.3):
    """Wait until the command has loaded the core and it and its descendants have worked
    `seconds` more of processor time: inside its search, whatever the machine's load."""
    wait_for(lambda: _loaded(proc, "bergen_search/game/_core"), proc, timeout=30)
    start = _cpu_seconds(proc)
    wait_for(lambda: _cpu_seconds(proc) >= start + seconds, proc)


def _cpu_seconds(proc) -> float:
    """The processor time (from /proc) of the process and its living descendants."""
    stats = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue            # gone meanwhile
        stats[int(name)] = int(fields[1]), int(fields[11]) + int(fields[12])
    family, grew = {proc.pid}, True
    while grew:
        grew = {pid for pid, (parent, _) in stats.items() if parent in family} - family
        family |= grew
    return sum(stats[p][1] for p in family if p in stats) / os.sysconf("SC_CLK_TCK")


def interrupt(proc, sig=signal.SIGINT):
    """`sig`, then (status, stdout, stderr, seconds until it exited)."""
    t0 = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    return proc.returncode, out, err, time.monotonic() - t0


def wait_for_output(proc, text, timeout=60) -> str:
    """Read the process's standard output (the pipe itself) until `text` has appeared."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text.encode() not in seen:
        assert proc.poll() is None, (seen, proc.communicate())
        assert time.monotonic() < deadline, f"{text!r} never came: {seen!r}"
        if select.select([proc.stdout], [], [], 0.05)[0]:
            seen += os.read(proc.stdout.fileno(), 65536)
    return seen.decode()


# ---- Ctrl-C ----------------------------------------------------------------------------------
@pytest.mark.parametrize("workers, after", [
    ("2", 1), *(pytest.param(w, a, marks=SLOW) for w, a in
                [("1", 0), ("1", 1), ("1", 3), ("2", 0), ("2", 3)])])
def test_arena_stops_at_once_and_keeps_the_finished_sets(tmp_path, workers, after,
                                                          stopped_promptly):
    """SIGINT after `after` sets: 130, their figures, the journal whole, the old output kept."""
    out = tmp_path / "a.jsonl"
    out.write_text("the old results\n")
    proc = start(ARENA + ["--out", str(out), "--force", "--workers", workers, "--json"],
                 tmp_path)
    journal = str(out) + ".journal"
    wait_for(lambda: os.path.exists(journal) and entries(journal) >= after, proc)
    status, stdout, stderr, seconds = interrupt(proc)
    assert status == 130, stderr
    stopped_promptly(seconds)
    assert stderr.startswith("bergen: interrupted after ") and "--resume" in stderr
    assert len(stderr.splitlines()) == 1, stderr
    doc = json.loads(stdout)
    assert doc["interrupted"] is True and doc["total"] == 40 and doc["done"] == entries(journal)
    assert doc["done"] >= after and doc.get("sets", 0) == doc["done"]
    assert out.read_text() == "the old results\n"


@pytest.mark.parametrize("args, sig, status", [
    (["best", DECISION, "--time", "30", "--json"], signal.SIGINT, 130),
    (["best", DECISION, "--time", "30", "--workers", "2", "--json"], signal.SIGTERM, 143),
    (["best", DECISION, "--time", "0.1", "--workers", "2", "--json"], None, 0),   # its end
    *(pytest.param(args, signal.SIGINT, 130, marks=SLOW) for args in [
        ["best", DECISION, "--time", "30", "--workers", "2", "--json"],
        ["best", FIRST, "--algorithm", "expectimax", "--iterations", "50", "--set", "depth=10",
         "--set", "work=0", "--json"],
        ["best", DECISION, "--time", "30"], ["eval", DECISION, "--time", "30", "--json"]])])
def test_best_and_eval_stop_at_once_with_their_answer_so_far(tmp_path, args, sig, status,
                                                             stopped_promptly):
    """Inside a search (ISMCTS, two processes, an expectimax world in C): the answer so far;
    the pool of a `--workers 2` search, ended with SIGTERM at its end, prints nothing. Tried
    again should the signal come while the program still starts (its own one line: the test
    beside on the startup), as a loaded machine can make it."""
    for _ in range(5):
        proc = start(args, tmp_path)
        if sig is not None:
            settled(proc)
            t0 = time.monotonic()
            proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
        if stdout or stderr.strip() != "bergen: interrupted":
            break
    if sig is None:
        assert proc.returncode == 0 and stderr == "" and json.loads(stdout)["best"]
        return
    stopped_promptly(time.monotonic() - t0)
    assert "Traceback" not in stderr, stderr
    if args[2] == "--algorithm" and proc.returncode == 130 and not stdout:
        # No world finished yet: said so, no answer.
        assert "interrupted before the search finished a single world" in stderr
        return
    assert proc.returncode == status, stderr
    if "--json" not in args:
        assert stdout.startswith("best: ") and "; interrupted)" in stdout.splitlines()[0]
        assert "bergen: interrupted (Ctrl-C) after" in stderr
        return
    doc = json.loads(stdout)
    assert doc["interrupted"] is True and doc["best"]
    if args[0] == "eval":
        assert all(s["p_win_match"] is None for s in doc["sides"])   # not searched: n/a
    else:
        assert doc["iterations"] > 0 and doc["best"] == doc["moves"][0]["move"]


def test_best_and_eval_say_on_standard_error_that_they_were_interrupted(monkeypatch):
    """Standard error says it was interrupted and how far it got; the answer's first line too."""
    import dataclasses

    from bergen_search.cli import best as best_command, best as eval_command
    real_answer, real_evaluate = best_command.answer, eval_command.evaluate

    def cut(*args):
        result = real_answer(*args)
        result.info["interrupted"] = True
        return result
    monkeypatch.setattr(best_command, "answer", cut)
    monkeypatch.setattr(eval_command, "evaluate", lambda *a: dataclasses.replace(
        real_evaluate(*a), interrupted=True, searched=("points",)))
    for command, note in (("best", "bergen: interrupted (Ctrl-C) after 500 iterations: the "
                                   "values are the search's so far\n"),
                          ("eval", "bergen: interrupted (Ctrl-C): the figures are the "
                                   "searches' so far; n/a: not searched\n")):
        res = bergen(command, DECISION, "--iterations", "500")
        assert res.exit_code == 130, res.output
        assert "; interrupted)" in res.stdout.splitlines()[0]
        assert "interrupted (Ctrl-C)" not in res.stdout
        assert res.stderr == note


@SLOW
@pytest.mark.parametrize("args", [
    ["selfplay", "--games", "200", "--seed", "5", "--engine", "ismcts:iterations=1500"],
    ["analyze", MATCH, "--iterations", "20000", "--quiet", "--out", "an.json"],
    ["engine"], ["bench"]])
def test_selfplay_analyze_engine_and_bench_stop_at_once(tmp_path, args, stopped_promptly):
    """130; selfplay to standard output prints the finished matches; analyze keeps the finished
    decisions in its journal and says so."""
    journal = tmp_path / "an.json.journal"
    proc = start(args, tmp_path, stdin=subprocess.PIPE)
    if args[0] == "analyze":
        wait_for(lambda: entries(journal) >= 3, proc)
    else:
        time.sleep(3.0 if args[0] == "selfplay" else 1.5)
    status, stdout, stderr, seconds = interrupt(proc)
    assert status == 130, stderr
    stopped_promptly(seconds)
    if args[0] == "selfplay":
        lines = stdout.splitlines()
        assert f"(the first {len(lines)} printed)" in stderr or not lines
        assert all(json.loads(line)["format"] == "bergen-record/1" for line in lines)
    elif args[0] == "analyze":
        assert "interrupted after" in stderr and "decisions" in stderr
        assert "interrupted after" in stdout and "decisions: the listing and the totals" in stdout
        assert entries(journal) >= 3 and not (tmp_path / "an.json").exists()


@pytest.mark.parametrize("during", ["prompt", pytest.param("search", marks=SLOW)])
def test_play_saves_the_game_and_exits_130(tmp_path, during, stopped_promptly):
    """At the prompt, and while the engine thinks (inside an expectimax world): saved, 130."""
    proc = start(["play", "--engine", "expectimax:iterations=50,depth=8,work=0", "--seed", "3",
                  "--you", "1", "--out", "g.json"], tmp_path, stdin=subprocess.PIPE)
    seen = ""
    if during == "search":
        proc.stdin.write("hint\n")       # the opponent's search, for the person
        proc.stdin.flush()
        settled(proc)
    else:
        seen = wait_for_output(proc, "your move> ")     # at the prompt, waiting for the person
    status, stdout, stderr, seconds = interrupt(proc)
    stdout = seen + stdout
    assert status == 130
    stopped_promptly(seconds)
    assert "bergen: interrupted" in stderr and "game saved to g.json" in stdout
    assert "interrupted" not in stdout
    saved = json.loads((tmp_path / "g.json").read_text())
    assert saved["format"] == "bergen-record/1"


def _loaded(proc, name) -> bool:
    """Whether the process has mapped a shared object whose path holds `name`."""
    try:
        with open(f"/proc/{proc.pid}/maps") as f:
            return name in f.read()
    except OSError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux's /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_stop_while_the_program_starts_is_one_line(tmp_path, sig):
    """While the program still imports its modules (the core loaded): 128 + the signal's
    number, one line. (SIGTERM and SIGHUP there killed it without a word.) Tried again should
    the signal find it gone on to its search (the imports take a few tenths of a second)."""
    for _ in range(5):
        proc = start(["best", DECISION, "--time", "5"], tmp_path)
        wait_for(lambda: _loaded(proc, "bergen_search/game/_core"), proc, timeout=30)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=30)
        if not stderr.startswith("bergen: interrupted (Ctrl-C) after"):
            break
    assert proc.returncode == 128 + sig and "Traceback" not in stderr, stderr
    assert stderr.strip() == "bergen: interrupted", stderr


# ---- kill -9 and --resume --------------------------------------------------------------------
@pytest.mark.parametrize("command, args, unit", [
    pytest.param("arena", ARENA + ["--workers", "2"], 2, marks=SLOW),
    pytest.param("selfplay", SELFPLAY + ["--workers", "2"], 2, marks=SLOW),
    pytest.param("analyze", ["analyze", MATCH, "--iterations", "4000", "--quiet"], 6,
                 marks=SLOW),
])
def test_kill_minus_9_then_resume_writes_the_uninterrupted_file(tmp_path, command, args, unit):
    """kill -9 mid-run and a torn last line, then --resume: the uninterrupted file (the default
    run's case: test_runs.py's resumes of a killed selfplay)."""
    ref = tmp_path / "ref"
    assert run_here(args + ["--out", str(ref)], tmp_path).exit_code == 0
    out = tmp_path / "out"
    proc = start(args + ["--out", str(out)], tmp_path)
    journal = str(out) + ".journal"
    wait_for(lambda: entries(journal) >= unit, proc)
    proc.kill()
    proc.communicate()
    kept = entries(journal)
    assert kept >= unit and not out.exists()
    with open(journal, "rb") as f:
        last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[1]
    with open(journal, "ab") as f:           # a power cut in the middle of an append
        f.write(last[: len(last) // 2])
    assert entries(journal) == kept
    again = run_here(args + ["--out", str(out), "--resume"], tmp_path)
    assert again.exit_code == 0, again.stderr
    assert out.read_bytes() == ref.read_bytes()
    assert not os.path.exists(journal)


def test_analyze_resumes_inside_a_match_from_its_searches(tmp_path, monkeypatch):
    """Ctrl-C after six searches: --resume reads them back, writes the uninterrupted files."""
    args = ["analyze", MATCH, "--iterations", "200", "--quiet"]
    ref = run_here(args + ["--out", "ref.json", "--html", "ref.html"], tmp_path)
    assert ref.exit_code == 0
    add = Journal.add

    def add_then_ctrl_c(journal, key, result):
        add(journal, key, result)
        if len(journal.done) == 6:
            raise KeyboardInterrupt
    monkeypatch.setattr(Journal, "add", add_then_ctrl_c)
    cut = run_here(args + ["--out", "an.json", "--html", "an.html"], tmp_path)
    assert cut.exit_code == 130 and entries(tmp_path / "an.json.journal") == 6, cut.output
    monkeypatch.undo()
    again = run_here(args + ["--out", "an.json", "--html", "an.html", "--resume"], tmp_path)
    assert again.exit_code == 0, again.stderr
    assert (tmp_path / "an.json").read_bytes() == (tmp_path / "ref.json").read_bytes()
    assert (tmp_path / "an.html").read_bytes() == (tmp_path / "ref.html").read_bytes()
    doc = json.loads((tmp_path / "an.json").read_text())
    assert "seconds" not in doc and doc["version"] and doc["decisions"]


# ---- the stop signals reach the main thread: every helper thread blocks them -------------------

_STOPS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def test_a_quiet_thread_blocks_the_stop_signals_and_every_thread_started_is_quiet():
    """The main thread does not block them; no module starts a plain `threading.Thread`."""
    import pathlib

    import bergen_search
    from bergen_search.runs.threads import QuietThread
    seen = {}
    t = QuietThread(target=lambda: seen.update(mask=signal.pthread_sigmask(signal.SIG_BLOCK, [])))
    t.start()
    t.join()
    assert t.daemon
    assert _STOPS <= set(seen["mask"])
    assert not _STOPS & set(signal.pthread_sigmask(signal.SIG_BLOCK, []))
    root = pathlib.Path(bergen_search.__file__).parent
    plain = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if p.name != "threads.py" and "threading.Thread(" in p.read_text(encoding="utf-8")]
    assert plain == []


def _blocked(pid: int, tid: str) -> set:
    for line in open(f"/proc/{pid}/task/{tid}/status", encoding="ascii"):
        if line.startswith("SigBlk:"):
            bits = int(line.split()[1], 16)
            return {s for s in _STOPS if bits >> (s - 1) & 1}
    raise AssertionError("no SigBlk")


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux's /proc")
def test_the_engine_searching_leaves_the_stop_signals_to_its_main_thread():
    from bergen_search.protocol.client import EngineProcess
    decision = open("examples/decision.json", encoding="utf-8").read()
    with EngineProcess.start() as engine:
        analysis = engine.analysis(decision, report_every=0.01)
        assert analysis.next() is not None             # its worker thread is searching
        pid = engine.process.pid
        tasks = sorted(os.listdir(f"/proc/{pid}/task"), key=int)
        assert len(tasks) >= 2
        assert _blocked(pid, str(pid)) == set()        # the main thread takes them
        assert all(_blocked(pid, t) == _STOPS for t in tasks if t != str(pid))
        analysis.stop()


def test_ctrl_c_in_the_final_pass_keeps_the_trees_means_and_ends_a_match(monkeypatch):
    """Ctrl-C in the final pass: the answer from the trees' means, marked interrupted; a match
    engine whose search was interrupted does not play on."""
    from bergen_search.formats.game import load_game
    from bergen_search.game.rules import Rules
    from bergen_search.play.engines import parse_engine_list
    from bergen_search.play.seats import play_engines
    from bergen_search.search.api import Limits, search
    from bergen_search.search.engines.ismcts.settle import Checkpoints

    def cut(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(Checkpoints, "final", cut)
    res = search(load_game(open(DECISION, encoding="utf-8").read()), Limits(iterations=2000),
                 seed=1)
    # the first tree's share (the others are not started), its moves valued without a pass
    assert res.info["interrupted"] and res.info["iterations"] == 2000 // 8
    assert res.moves and all(m.raw is None for m in res.moves)
    with pytest.raises(KeyboardInterrupt):
        play_engines(Rules(), parse_engine_list("ismcts:iterations=2000,greedy", 2), 3)
