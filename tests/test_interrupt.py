"""Every stop obeyed, no work lost: SIGINT to the installed command gives exit 130, one line on
standard error, what it finished on standard output and a readable journal; `kill -9` then
`--resume` writes the uninterrupted file byte for byte; a journal of another run is refused.
One case of each behaviour by default, the rest (and the exit within STOP_WITHIN) behind slow."""
import json
import os
import select
import signal
import subprocess
import sys
import time
import zlib

import pytest
from click.testing import CliRunner
from support import console_script

from bergen_search.cli import main
from bergen_search.runs.journal import FORMAT, _read

STOP_WITHIN = float(os.environ.get("BERGEN_STOP_WITHIN", "3.0"))
SLOW = pytest.mark.slow
EXE = console_script()
CMD = [EXE] if EXE else [sys.executable, "-m", "bergen_search"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECISION = os.path.join(ROOT, "examples", "decision.json")
#: The first decision after the lead: expectimax at depth 10 spends seconds in one world.
FIRST = "bergen1/2/0,0/0/0-1,0-2,1-3,2-4,3-5,4-6/1-1/6,5/16"
ARENA = ["arena", "ismcts:iterations=1500", "classic:iterations=1500", "--games", "40",
         "--seed", "3"]
SELFPLAY = ["selfplay", "--games", "8", "--seed", "5", "--engine", "ismcts:iterations=1000"]


def start(args, cwd, stdin=None):
    return subprocess.Popen(CMD + args, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(predicate, proc, timeout=60):
    """Poll until `predicate()` (the run has got somewhere), failing if it ends first."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.02)


def settled(proc, seconds=0.5):
    """Wait until the command has loaded the core, then until it and its descendants (a
    `--workers 2` search runs in them) have worked `seconds` more of processor time: the moment
    to signal it inside its search, whatever the machine's load."""
    wait_for(lambda: _loaded(proc, "bergen_search/game/_core"), proc, timeout=30)
    start = _cpu_seconds(proc)
    wait_for(lambda: _cpu_seconds(proc) >= start + seconds, proc)


def _stat(pid: int) -> list:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def _cpu_seconds(proc) -> float:
    """The processor time (user and system, from /proc) of the process and of its living
    descendants."""
    parents, ticks = {proc.pid}, 0
    try:
        fields = _stat(proc.pid)
    except OSError:
        return 0.0
    ticks += int(fields[11]) + int(fields[12])
    children: dict = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                f = _stat(int(name))
            except OSError:
                continue            # gone meanwhile
            children.setdefault(int(f[1]), []).append((int(name), f))
    todo = [proc.pid]
    while todo:
        for pid, f in children.get(todo.pop(), ()):
            if pid not in parents:
                parents.add(pid)
                ticks += int(f[11]) + int(f[12])
                todo.append(pid)
    return ticks / os.sysconf("SC_CLK_TCK")


def interrupt(proc):
    """SIGINT, then (status, stdout, stderr, seconds until it exited)."""
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    return proc.returncode, out, err, time.monotonic() - t0


@pytest.fixture
def stopped_promptly(request):
    """check(seconds): in a test marked slow, the exit came within STOP_WITHIN of the signal; in
    the default run nothing (no default test asserts on the wall clock)."""
    timed = request.node.get_closest_marker("slow") is not None

    def check(seconds):
        if timed:
            assert seconds < STOP_WITHIN, f"exited {seconds:.2f} s after SIGINT"
    return check


def entries(path) -> int:
    """Finished tasks in a journal (0 when it does not exist yet)."""
    if not os.path.exists(path):
        return 0
    return len(_read(path)[1])


def run_here(args, cwd):
    """`bergen args` in this process (CliRunner) in the folder `cwd`, for the runs that are
    not about the process (a reference file, a resume, a refusal)."""
    before = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, prog_name="bergen")
    finally:
        os.chdir(before)


def wait_for_output(proc, text, timeout=60) -> str:
    """Read the process's standard output (the pipe itself, which `communicate` goes on
    reading) until `text` has appeared; what was read."""
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
    """SIGINT after `after` sets are journalled (0: during the first), one worker or two: exit
    130, the finished sets' figures printed and stated, the journal whole, and the output given
    with --force left as it was."""
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
    header, done = _read(journal)[:2]
    assert header["command"] == "arena" and header["seed"] == 3
    assert doc["interrupted"] is True and doc["total"] == 40 and doc["done"] == len(done)
    assert doc["done"] >= after and doc.get("sets", 0) == doc["done"]
    assert out.read_text() == "the old results\n"


@pytest.mark.parametrize("args, sig, status", [
    (["best", DECISION, "--time", "30", "--json"], signal.SIGINT, 130),
    (["best", DECISION, "--time", "30", "--workers", "2", "--json"], signal.SIGTERM, 143),
    pytest.param(["best", DECISION, "--time", "30", "--workers", "2", "--json"],
                 signal.SIGINT, 130, marks=SLOW),
    pytest.param(["best", FIRST, "--algorithm", "expectimax", "--iterations", "50", "--set",
                  "depth=10", "--json"], signal.SIGINT, 130, marks=SLOW),
])
def test_best_stops_at_once_with_its_answer_so_far(tmp_path, args, sig, status,
                                                   stopped_promptly):
    """Inside a search (ISMCTS, in two processes, an expectimax world in C), SIGINT or SIGTERM:
    the answer so far, marked interrupted, exit 130 (143), no traceback."""
    proc = start(args, tmp_path)
    settled(proc)
    t0 = time.monotonic()
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=30)
    stopped_promptly(time.monotonic() - t0)
    assert "Traceback" not in stderr, stderr
    if args[2] == "--algorithm" and proc.returncode == 130 and not stdout:
        # No world finished yet: said so, no answer.
        assert "interrupted before the search finished a single world" in stderr
        return
    assert proc.returncode == status, stderr
    doc = json.loads(stdout)
    assert doc["interrupted"] is True and doc["iterations"] > 0
    assert doc["best"] == doc["moves"][0]["move"]


def test_best_and_eval_say_on_standard_error_that_they_were_interrupted(monkeypatch):
    """GUIDE.md: the command says on standard error that it was interrupted and how far it got;
    the answer on standard output says so in its first line."""
    import dataclasses

    from bergen_search.cli import best as best_command, eval as eval_command
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
        res = CliRunner().invoke(main, [command, DECISION, "--iterations", "500"],
                                 prog_name="bergen")
        assert res.exit_code == 130, res.output
        assert "; interrupted)" in res.stdout.splitlines()[0]
        assert "interrupted (Ctrl-C)" not in res.stdout
        assert res.stderr == note


@SLOW
def test_best_text_and_eval_stop_at_once(tmp_path, stopped_promptly):
    proc = start(["best", DECISION, "--time", "30"], tmp_path)
    time.sleep(2.0)
    status, stdout, stderr, _ = interrupt(proc)
    assert status == 130
    assert stdout.startswith("best: ") and "; interrupted)" in stdout.splitlines()[0]
    assert "bergen: interrupted (Ctrl-C) after" in stderr
    proc = start(["eval", DECISION, "--time", "30", "--json"], tmp_path)
    time.sleep(2.0)
    status, stdout, stderr, seconds = interrupt(proc)
    assert status == 130, stderr
    stopped_promptly(seconds)
    doc = json.loads(stdout)
    assert doc["interrupted"] is True and doc["best"]
    assert all(s["p_win_match"] is None for s in doc["sides"])   # not searched: n/a


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=SLOW)])
def test_selfplay_stops_at_once_and_keeps_the_finished_matches(tmp_path, workers,
                                                               stopped_promptly):
    out = tmp_path / "g.jsonl"
    proc = start(SELFPLAY + ["--out", str(out), "--workers", workers], tmp_path)
    journal = str(out) + ".journal"
    wait_for(lambda: entries(journal) >= 1, proc)
    status, stdout, stderr, seconds = interrupt(proc)
    assert status == 130, stderr
    stopped_promptly(seconds)
    assert "interrupted after" in stderr and "of 8 matches" in stderr and "--resume" in stderr
    assert entries(journal) >= 1 and not out.exists()


@SLOW
def test_selfplay_to_standard_output_prints_the_finished_matches(tmp_path, stopped_promptly):
    proc = start(["selfplay", "--games", "200", "--seed", "5", "--engine",
                  "ismcts:iterations=1500"], tmp_path)
    time.sleep(3.0)
    status, stdout, stderr, seconds = interrupt(proc)
    assert status == 130
    stopped_promptly(seconds)
    lines = stdout.splitlines()
    assert f"(the first {len(lines)} printed)" in stderr or not lines
    for line in lines:
        assert json.loads(line)["format"] == "bergen-record/1"


@SLOW
def test_analyze_stops_at_once_and_keeps_the_finished_decisions(tmp_path, stopped_promptly):
    """It stops, lists the decisions analysed, says how many of how many, exits 130."""
    out = tmp_path / "an.json"
    proc = start(["analyze", os.path.join(ROOT, "examples", "match.json"), "--iterations",
                  "20000", "--quiet", "--out", str(out)], tmp_path)
    journal = str(out) + ".journal"
    wait_for(lambda: entries(journal) >= 3, proc)
    status, stdout, stderr, seconds = interrupt(proc)
    assert status == 130, stderr
    stopped_promptly(seconds)
    assert "interrupted after" in stderr and "decisions" in stderr
    assert "interrupted after" in stdout and "decisions: the listing and the totals" in stdout
    assert entries(journal) >= 3 and not out.exists()


@pytest.mark.parametrize("during", ["prompt", pytest.param("search", marks=SLOW)])
def test_play_saves_the_game_and_exits_130(tmp_path, during, stopped_promptly):
    """At the prompt, and while the engine thinks (expectimax at depth 8, inside a world in
    C): saved, exit 130."""
    proc = start(["play", "--engine", "expectimax:iterations=50,depth=8", "--seed", "3",
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


@SLOW
def test_engine_and_bench_exit_130(tmp_path, stopped_promptly):
    for args in (["engine"], ["bench"]):
        proc = start(args, tmp_path, stdin=subprocess.PIPE)
        time.sleep(1.5)
        status, _, _, seconds = interrupt(proc)
        assert status == 130, args
        stopped_promptly(seconds)


def _loaded(proc, name) -> bool:
    """Whether the process has mapped a shared object whose path holds `name`."""
    try:
        with open(f"/proc/{proc.pid}/maps") as f:
            return name in f.read()
    except OSError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux's /proc")
def test_ctrl_c_while_the_program_starts_is_one_line(tmp_path):
    """While the program is still importing its modules, before the command line is read
    (the moment the compiled core is loaded): exit 130 and one line, no traceback."""
    for _ in range(3):
        proc = start(["best", DECISION, "--time", "5"], tmp_path)
        wait_for(lambda: _loaded(proc, "bergen_search/game/_core"), proc, timeout=30)
        status, _, stderr, _ = interrupt(proc)
        assert status == 130 and "Traceback" not in stderr, stderr
        assert stderr.strip() == "bergen: interrupted", stderr


# ---- kill -9 and --resume --------------------------------------------------------------------
@pytest.mark.parametrize("command, args, unit", [
    pytest.param("arena", ARENA + ["--workers", "2"], 2, marks=SLOW),
    pytest.param("selfplay", SELFPLAY + ["--workers", "2"], 2, marks=SLOW),
    pytest.param("analyze", ["analyze", os.path.join(ROOT, "examples", "match.json"),
                             "--iterations", "4000", "--quiet"], 6, marks=SLOW),
])
def test_kill_minus_9_then_resume_writes_the_uninterrupted_file(tmp_path, command, args, unit):
    """kill -9 mid-run (and a power cut tearing the journal's last line), then --resume: the
    uninterrupted run's file, the journal gone (the default run's case: test_runs.py's resumes
    of a killed selfplay)."""
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


@pytest.fixture(scope="module")
def stopped_selfplay(tmp_path_factory):
    """The bytes of SELFPLAY's journal after Ctrl-C past two matches, played once for the tests
    that damage or misuse it (a copy elsewhere is the same journal)."""
    out = tmp_path_factory.mktemp("stopped") / "out.jsonl"
    proc = start(SELFPLAY + ["--out", str(out)], out.parent)
    journal = str(out) + ".journal"
    wait_for(lambda: entries(journal) >= 2, proc)
    assert interrupt(proc)[0] == 130
    with open(journal, "rb") as f:
        return f.read()


def _copy_of_the_journal(tmp_path, data):
    """(output, journal): `data` as the journal of tmp_path/out.jsonl."""
    out = tmp_path / "out.jsonl"
    journal = str(out) + ".journal"
    with open(journal, "wb") as f:
        f.write(data)
    return out, journal


def test_a_damaged_line_before_the_last_is_refused(tmp_path, stopped_selfplay):
    out, journal = _copy_of_the_journal(tmp_path, stopped_selfplay)
    lines = open(journal, "rb").read().split(b"\n")
    lines[1] = lines[1][:20] + b"X" + lines[1][21:]
    open(journal, "wb").write(b"\n".join(lines))
    res = run_here(SELFPLAY + ["--out", str(out), "--resume"], tmp_path)
    assert res.exit_code == 2 and "line 2 is damaged" in res.stderr
    assert len(res.stderr.splitlines()) == 1


def _rewrite_header(journal, **change):
    lines = open(journal, "rb").read().split(b"\n")
    text = lines[0].decode().split(" ", 2)[2]
    header = {**json.loads(text), **change}
    body = json.dumps(header, separators=(",", ":"), sort_keys=True)
    lines[0] = f"{FORMAT} {zlib.crc32(body.encode()):08x} {body}".encode()
    open(journal, "wb").write(b"\n".join(lines))


def test_a_journal_of_another_command_seed_version_or_arguments_is_refused(tmp_path,
                                                                          stopped_selfplay):
    out, journal = _copy_of_the_journal(tmp_path, stopped_selfplay)
    cases = [
        (["arena", "greedy", "random", "--out", str(out), "--resume"],
         "it is the journal of `bergen selfplay`, not `bergen arena`"),
        (["selfplay", "--games", "8", "--seed", "6", "--engine", "ismcts:iterations=1000",
          "--out", str(out), "--resume"], "written with --seed 5, not 6"),
        (["selfplay", "--games", "9", "--seed", "5", "--engine", "ismcts:iterations=1000",
          "--out", str(out), "--resume"], "written with games 8, not 9"),
        (SELFPLAY + ["--out", str(out)], "add --resume to go on with it"),
    ]
    for args, words in cases:
        res = run_here(args, tmp_path)
        assert res.exit_code == 2 and words in res.stderr, (args, res.stderr)
        assert len(res.stderr.splitlines()) == 1
    _rewrite_header(journal, version="0.0.1")
    rewritten = open(journal, "rb").read()
    res = run_here(SELFPLAY + ["--out", str(out), "--resume"], tmp_path)
    assert res.exit_code == 2 and "written by bergen 0.0.1" in res.stderr
    # Refused (the header is checked before the lines, whose chained checksums the
    # rewritten header no longer starts), and left as it was.
    assert open(journal, "rb").read() == rewritten


def test_resume_needs_an_output_and_starts_afresh_without_a_journal(tmp_path):
    res = run_here(["arena", "greedy", "random", "--games", "2", "--resume"], tmp_path)
    assert res.exit_code == 2 and "--resume needs --out" in res.stderr
    res = run_here(["selfplay", "--games", "3", "--out", "x.jsonl", "--resume"], tmp_path)
    assert res.exit_code == 0 and len((tmp_path / "x.jsonl").read_text().splitlines()) == 3


def test_analyze_resumes_inside_a_match_from_its_searches(tmp_path):
    """One match, interrupted after some of its decisions: the resumed run answers those
    searches from the journal and writes the same JSON and HTML as an uninterrupted run."""
    match = os.path.join(ROOT, "examples", "match.json")
    args = ["analyze", match, "--iterations", "800", "--quiet"]
    ref = run_here(args + ["--out", "ref.json", "--html", "ref.html"], tmp_path)
    assert ref.exit_code == 0
    proc = start(args + ["--out", "an.json", "--html", "an.html"], tmp_path)
    wait_for(lambda: entries(str(tmp_path / "an.json.journal")) >= 6, proc)
    assert interrupt(proc)[0] == 130
    again = run_here(args + ["--out", "an.json", "--html", "an.html", "--resume"], tmp_path)
    assert again.exit_code == 0, again.stderr
    assert (tmp_path / "an.json").read_bytes() == (tmp_path / "ref.json").read_bytes()
    assert (tmp_path / "an.html").read_bytes() == (tmp_path / "ref.html").read_bytes()
    doc = json.loads((tmp_path / "an.json").read_text())
    assert "seconds" not in doc and doc["version"] and doc["decisions"]


def test_a_search_in_two_processes_ends_without_a_word_on_stderr(tmp_path):
    """The pool of a `--workers 2` search, ended with SIGTERM at its end, prints nothing (its
    processes had inherited the command's handler and printed tracebacks)."""
    proc = start(["best", DECISION, "--time", "0.3", "--workers", "2", "--json"], tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err == ""
    assert json.loads(out)["best"]


# ---- the stop signals reach the main thread: every helper thread blocks them -------------------

_STOPS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def test_a_quiet_thread_blocks_the_stop_signals_and_every_thread_started_is_quiet():
    """The main thread does not block them; no module starts a plain `threading.Thread` (it
    would take a stop signal and lose it)."""
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
    """Ctrl-C while the final pass runs: the search answers from its trees' means, marked
    interrupted; a match engine whose search was interrupted does not play on."""
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
