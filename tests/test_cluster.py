"""`--cluster` (a `LocalCluster` of two worker processes): arena, selfplay and analyze give what
`--workers 1` gives; a killed worker loses no result; Ctrl-C cancels and keeps the journal; a
lost scheduler, a bad address and a missing extra are one line, exit 2."""
import builtins
import json
import os
import threading
import time

import pytest
from support import bergen as run, entries, start, wait_for

distributed = pytest.importorskip(
    "distributed", reason="the cluster extra is not installed: pip install -e '.[test,cluster]'")

from bergen_search.game.rules import Rules  # noqa: E402
from bergen_search.play.arena import run_arena  # noqa: E402
from bergen_search.runs.parallel import run_ordered  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=40) as c:
        yield c


def _without_times(out: dict) -> dict:
    return {k: v for k, v in out.items() if k not in ("seconds", "seconds_per_search")}


@pytest.mark.parametrize("engines, games, mode", [
    (["greedy", "random"], "8", ["--round"]),
    (["ismcts:iterations=60", "classic:iterations=60"], "2", [])], ids=["round", "match"])
def test_arena_on_the_cluster_equals_one_worker(cluster, tmp_path, engines, games, mode):
    """Single rounds of cheap engines and whole matches of searching ones: the same figures and
    the same file."""
    args = ["arena", *engines, *mode, "--games", games, "--seed", "3", "--json", "--force"]
    one = run(*args, "--out", str(tmp_path / "one.jsonl"))
    many = run(*args, "--cluster", cluster.scheduler_address, "--out",
               str(tmp_path / "many.jsonl"))
    assert one.exit_code == 0 and many.exit_code == 0, many.output
    assert _without_times(json.loads(one.stdout)) == _without_times(json.loads(many.stdout))
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "many.jsonl").read_bytes()


def test_selfplay_on_the_cluster_equals_one_worker(cluster, tmp_path):
    """(And on two local workers: test_runs.py's stalled cluster, resumed on them.)"""
    address = cluster.scheduler_address
    for engines in ("greedy,random", "ismcts:iterations=40"):
        games = "10" if "greedy" in engines else "2"
        one = run("selfplay", "--games", games, "--seed", "8", "--engine", engines)
        many = run("selfplay", "--games", games, "--seed", "8", "--engine", engines,
                   "--cluster", address, "--out", str(tmp_path / "m.jsonl"), "--force")
        assert one.exit_code == 0 and many.exit_code == 0, many.output
        assert (tmp_path / "m.jsonl").read_text() == one.stdout


@pytest.mark.slow
def test_analyze_on_the_cluster_equals_one_worker(cluster, tmp_path):
    path = tmp_path / "games.jsonl"
    assert run("selfplay", "--games", "3", "--seed", "4", "--engine", "greedy,random",
               "--out", str(path)).exit_code == 0
    args = ["analyze", str(path), "--iterations", "200", "--json", "--quiet"]
    one = run(*args, "--html", str(tmp_path / "one.html"))
    many = run(*args, "--cluster", cluster.scheduler_address, "--html", str(tmp_path / "many.html"))
    assert one.exit_code == 0 and many.exit_code == 0, many.output
    assert _without_times(json.loads(one.stdout)) == _without_times(json.loads(many.stdout))
    # the HTML report too, byte for byte
    assert (tmp_path / "one.html").read_bytes() == (tmp_path / "many.html").read_bytes()
    # A bad record is named by its place, as without the cluster.
    bad = tmp_path / "bad.jsonl"
    lines = path.read_text().splitlines()
    rec = json.loads(lines[1])
    ev = rec["rounds"][0]["events"]
    ev[2] = {"seat": ev[2]["seat"], "play": "6-6:L"}
    bad.write_text("\n".join([lines[0], json.dumps(rec), lines[2]]) + "\n")
    a = run("analyze", str(bad), "--iterations", "50", "--quiet")
    b = run("analyze", str(bad), "--iterations", "50", "--quiet", "--cluster",
            cluster.scheduler_address)
    assert a.exit_code == b.exit_code == 2
    assert a.stderr == b.stderr
    assert a.stderr.startswith(f"bergen: {bad}: record 2: round 1, event 2")


@pytest.mark.slow
def test_a_worker_dies_and_no_result_is_lost(cluster):
    """A worker process killed mid-arena: its sets run again elsewhere, the same result."""
    from distributed import Client
    rules = Rules()
    args = (rules, "ismcts:iterations=300", "classic:iterations=300")
    want = run_arena(*args, games=12, seed=5)
    started = threading.Event()
    killed = []

    def progress(done, total):
        started.set()

    def killer():
        started.wait(60)
        nanny = next(iter(cluster.workers.values()))
        os.kill(nanny.process.process.pid, 9)
        killed.append(time.perf_counter())

    with Client(cluster.scheduler_address) as client:
        t = threading.Thread(target=killer)
        t.start()
        got = run_arena(*args, games=12, seed=5, cluster=client, progress=progress)
        finished = time.perf_counter()
        t.join()
    assert killed and killed[0] < finished      # the worker died while the run went on
    assert [s for s in got.set_scores] == [s for s in want.set_scores]
    assert (got.points, got.wins, got.rounds) == (want.points, want.wins, want.rounds)
    # The nanny restarts its worker: the cluster is whole again for the next tests.
    deadline = time.time() + 30
    with Client(cluster.scheduler_address) as client:
        while len(client.scheduler_info()["workers"]) < 2 and time.time() < deadline:
            time.sleep(0.2)


def test_ctrl_c_cancels_and_writes_nothing(cluster, tmp_path, monkeypatch):
    """Ctrl-C cancels the tasks; only the journal, with the finished match, is left."""
    from distributed import Client
    calls = []

    def interrupting(what, unit, quiet):
        def progress(done, total):
            calls.append(done)
            raise KeyboardInterrupt
        return progress

    monkeypatch.setattr("bergen_search.cli.output.progress_bar", interrupting)
    out = tmp_path / "never.jsonl"
    res = run("selfplay", "--games", "6", "--engine", "ismcts:iterations=500", "--cluster",
              cluster.scheduler_address, "--out", str(out))
    assert res.exit_code == 130 and calls == [1]
    assert not out.exists() and os.listdir(tmp_path) == ["never.jsonl.journal"]
    assert entries(tmp_path / "never.jsonl.journal") == 1
    with Client(cluster.scheduler_address) as client:
        deadline = time.time() + 20
        while any(client.processing().values()) and time.time() < deadline:
            time.sleep(0.1)
        assert not any(client.processing().values())


def test_run_ordered_keeps_the_order(cluster):
    from distributed import Client
    with Client(cluster.scheduler_address) as client:
        assert run_ordered(_slow_square, [3, 1, 2, 0], cluster=client) == [9, 1, 4, 0]


def _slow_square(x):
    time.sleep(0.02 * x)
    return x * x


def test_missing_extra_is_a_clear_error(monkeypatch):
    real = builtins.__import__

    def no_dask(name, *args, **kw):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("no distributed")
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    for args in (["arena", "greedy", "random", "--cluster", "tcp://127.0.0.1:8786"],
                 ["selfplay", "--cluster", "tcp://127.0.0.1:8786"],
                 ["analyze", "examples/match.json", "--cluster", "tcp://127.0.0.1:8786"]):
        res = run(*args)
        assert res.exit_code == 2, res.output
        assert "pip install 'bergen_search[cluster]'" in res.stderr
        assert len(res.stderr.splitlines()) == 1


# ---- Ctrl-C, a lost scheduler and --resume on a cluster ----------------------------------
ARENA = ["arena", "ismcts:iterations=1500", "classic:iterations=1500", "--games", "16",
         "--seed", "12"]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["ctrl-c", "lost"])
def test_a_run_stopped_on_the_cluster_or_losing_it_resumes(cluster, tmp_path, how,
                                                           stopped_promptly):
    """SIGINT to the real command on the cluster: exit 130 at once, the journal kept, --resume
    on the cluster; or the scheduler dies mid-run: one line saying where the finished sets are,
    --resume on local workers. Either writes the file one worker writes."""
    import signal

    from distributed import LocalCluster
    ref = tmp_path / "ref.jsonl"
    assert run(*ARENA, "--out", str(ref)).exit_code == 0
    out = tmp_path / "c.jsonl"
    lost = how == "lost" and LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                          dashboard_address=None, silence_logs=50)
    address = (lost or cluster).scheduler_address
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
    proc = start(ARENA + ["--cluster", address, "--out", out], tmp_path, env=env)
    try:
        wait_for(lambda: entries(f"{out}.journal") >= 2, proc, timeout=120)
    finally:
        if lost:
            lost.close()
    t0 = time.monotonic()
    if not lost:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if not lost:
        stopped_promptly(time.monotonic() - t0)
    assert proc.returncode == (2 if lost else 130), err
    last = err.strip().splitlines()[-1]
    assert last.startswith("bergen: --cluster: lost the Dask scheduler" if lost
                           else "bergen: interrupted after"), err
    assert "kept in" in last and "--resume" in last and "Traceback" not in err
    assert entries(f"{out}.journal") >= 2 and not out.exists()
    again = run(*ARENA, *(["--workers", "2"] if lost else ["--cluster", address]), "--out",
                str(out), "--resume")
    assert again.exit_code == 0, again.output
    assert out.read_bytes() == ref.read_bytes()


@pytest.mark.parametrize("address, words", [
    ("notanaddress", "is not a scheduler address like tcp://HOST:8786"),
    ("foo://bar", "is not a scheduler address like tcp://HOST:8786 (unknown scheme 'foo')")])
def test_a_bad_address_is_one_line_at_once(address, words):
    """Refused before Dask is asked anything, so with no log of its own (an address nobody
    answers: test_runs.py's failed start; selfplay's whole line: test_messages.py)."""
    res = run("arena", "greedy", "random", "--games", "2", "--cluster", address)
    assert res.exit_code == 2 and words in res.stderr, res.output
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
