"""Long runs that nothing corrupts, with real processes: one writer per journal, write errors
as exit 74 with the journal whole, journals tied to their run, the stop signals, outputs a
careless user gives, and a Dask cluster that stalls and says so (a real scheduler, SIGSTOP)."""
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zlib

import pytest
from support import CMD, bergen, entries, run_here, sizes, start, wait_for

from bergen_search.errors import BergenError, WriteFailed
from bergen_search.runs import journal as journal_module
from bergen_search.runs.files import write_atomic
from bergen_search.runs.journal import FORMAT, Journal, _read

SLOW = pytest.mark.slow
SELFPLAY = ["selfplay", "--games", "6", "--seed", "5", "--engine", "ismcts:iterations=300"]
#: A selfplay whose matches cost a few milliseconds: where the test is not about a search.
CHEAP = ["selfplay", "--games", "300", "--seed", "5", "--engine", "greedy,random"]


# ---- one writer -----------------------------------------------------------------------------
HOLD = ("import sys, time\n"
        "from bergen_search.runs.files import OutputLock\n"
        "lock = OutputLock(sys.argv[1]).acquire()\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n")


def test_a_second_writer_is_refused_naming_the_process(tmp_path):
    """Another process holds the output: refused at once naming its pid; kill -9 frees it, its
    pid left in the lock file not named; in one process the holder is this one."""
    from bergen_search.runs import files
    out = str(tmp_path / "g.jsonl")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, out], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for resume in (False, True):
            with pytest.raises(BergenError, match=f"process {holder.pid}"):
                Journal.start(out, "selfplay", 1, {}, resume=resume)
        res = run_here(SELFPLAY + ["--out", out, "--resume"], tmp_path)
        assert res.exit_code == 2, res.output
        assert f"being written by another bergen run (process {holder.pid})" in res.stderr
        assert len(res.stderr.splitlines()) == 1
    finally:
        holder.kill()
        holder.wait()
    fd = os.open(out + ".lock", os.O_RDWR)
    try:
        assert os.pread(fd, 32, 0).decode().strip() == str(holder.pid)
        assert files._holder(fd) is None
    finally:
        os.close(fd)
    j = Journal.start(out, "selfplay", 1, {}, resume=False)
    with pytest.raises(BergenError, match=f"process {os.getpid()}"):    # in one process too
        Journal.start(out, "selfplay", 1, {}, resume=True)
    j.close()
    Journal.start(out, "selfplay", 1, {}, resume=True).finish()         # given back by close
    assert not os.path.exists(out + ".lock") and not os.path.exists(out + ".journal")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """SELFPLAY's output, and the journal of a run of it killed with -9 after two matches (or
    more, should the kill come late: `kept`)."""
    folder = tmp_path_factory.mktemp("reference")
    assert run_here(SELFPLAY + ["--out", "ref.jsonl"], folder).exit_code == 0
    proc = start(SELFPLAY + ["--out", "k.jsonl"], folder)
    wait_for(lambda: entries(folder / "k.jsonl.journal") >= 2, proc)
    proc.kill()
    proc.communicate()
    return {"ref": (folder / "ref.jsonl").read_bytes(),
            "journal": (folder / "k.jsonl.journal").read_bytes(),
            "kept": entries(folder / "k.jsonl.journal")}


def _resume_folder(folder, reference):
    """A folder holding the killed run's journal and the lock file it left behind."""
    folder.mkdir()
    (folder / "o.jsonl.journal").write_bytes(reference["journal"])
    (folder / "o.jsonl.lock").write_text("999999\n")         # left by the killed run
    return folder


RESUME = SELFPLAY + ["--out", "o.jsonl", "--resume"]


def test_a_resume_beside_a_running_resume_is_refused_naming_it(tmp_path, reference):
    """A `--resume` while another holds the output (stopped with SIGSTOP once its pid is in the
    lock file, so the two surely overlap): refused in one line naming it; the first, let go,
    writes the very file an uninterrupted run writes. Tried again should the first finish
    before it is seen holding the lock."""
    for attempt in range(5):
        folder = _resume_folder(tmp_path / str(attempt), reference)
        a = start(RESUME, folder)
        lock = folder / "o.jsonl.lock"
        while a.poll() is None and lock.exists() and lock.read_text().strip() != str(a.pid):
            time.sleep(0.005)
        if a.poll() is not None:                # finished before it was seen: again
            assert a.wait() == 0, a.communicate()
            continue
        os.kill(a.pid, signal.SIGSTOP)
        try:
            b = start(RESUME + ["--workers", "2"], folder)
            _, refused = b.communicate(timeout=120)
        finally:
            os.kill(a.pid, signal.SIGCONT)
        out, err = a.communicate(timeout=300)
        assert b.returncode == 2, refused
        assert refused.startswith("bergen: ") and len(refused.splitlines()) == 1, refused
        assert f"being written by another bergen run (process {a.pid})" in refused
        assert a.returncode == 0, (out, err)
        assert f"{reference['kept']} of them from the journal" in err, err
        assert (folder / "o.jsonl").read_bytes() == reference["ref"]
        assert sorted(os.listdir(folder)) == ["o.jsonl"]
        return
    pytest.fail("the resumed run always finished before it was seen holding the lock")


@pytest.mark.parametrize("tries", sizes(1, 20))
def test_two_concurrent_resumes_never_write_together(tmp_path, reference, tries):
    """Two `--resume` of a killed run started together, racing for the lock the killed run
    left: either one is refused naming the other and one completes, or (the first done before
    the second looked) the second, seeing the finished output and no journal, is refused as
    having nothing to resume, the first from the journal. Either way the output is the very
    file an uninterrupted run writes, and nothing is left beside."""
    for n in range(tries):
        folder = _resume_folder(tmp_path / str(n), reference)
        a = start(RESUME, folder)
        b = start(RESUME + ["--workers", "2"], folder)
        results = []
        for proc in (a, b):
            _, err = proc.communicate(timeout=300)
            results.append((proc.returncode, err, proc.pid))
        codes = sorted(r[0] for r in results)
        assert codes == [0, 2], results
        (_, refused, _), = [r for r in results if r[0] == 2]
        (_, done, winner), = [r for r in results if r[0] == 0]
        assert refused.startswith("bergen: ") and len(refused.splitlines()) == 1, refused
        assert (f"being written by another bergen run (process {winner})" in refused
                or refused == ("bergen: o.jsonl exists and no journal of a run is beside it "
                               "(o.jsonl.journal): nothing to resume; --force runs it "
                               "again\n")), refused
        assert f"{reference['kept']} of them from the journal" in done, done
        assert (folder / "o.jsonl").read_bytes() == reference["ref"]
        assert sorted(os.listdir(folder)) == ["o.jsonl"]


# ---- write errors ---------------------------------------------------------------------------
def _failing_journal_writes(monkeypatch, after: int, code=errno.ENOSPC):
    """Appends to a journal after the `after`-th line fail with `code`, the first half-written."""
    real = os.write
    count = {"lines": 0, "half": False}

    def write(fd, data):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target.endswith(".journal"):
            count["lines"] += 1
            if count["lines"] > after:
                if not count["half"]:
                    count["half"] = True
                    return real(fd, bytes(data)[: len(data) // 2])
                raise OSError(code, os.strerror(code))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.fixture(scope="module")
def cheap():
    """CHEAP's output (in this process: a few milliseconds a match)."""
    return bergen(*CHEAP).stdout.encode()


def _failing_output(monkeypatch):
    """Putting g.jsonl in place fails with ENOSPC."""
    real = os.replace

    def full(src, dst):
        if str(dst).endswith("g.jsonl"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(src, dst)
    monkeypatch.setattr(os, "replace", full)


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs Linux's /proc")
@pytest.mark.parametrize("target, code, kept", [
    ("g.jsonl.journal", errno.ENOSPC, 2), ("g.jsonl", errno.ENOSPC, 300),
    *(pytest.param("g.jsonl.journal", c, 2, marks=SLOW) for c in (errno.EIO, errno.EROFS))])
def test_a_write_error_is_one_line_exit_74_and_resume_finishes(tmp_path, monkeypatch, cheap,
                                                               target, code, kept):
    """The journal fails mid-line (it stays whole), or the output cannot be put in place: exit
    74, one line with the remedy; --resume writes the whole file from the journal."""
    if target.endswith(".journal"):
        _failing_journal_writes(monkeypatch, after=2, code=code)
    else:
        _failing_output(monkeypatch)
    res = run_here(CHEAP + ["--out", "g.jsonl"], tmp_path)
    assert res.exit_code == 74, res.output
    remedy = {errno.ENOSPC: "free some space", errno.EIO: "check the disk",
              errno.EROFS: "make the file system writable"}[code]
    assert res.stderr == (f"bergen: cannot write {target}: {os.strerror(code)}; {remedy}, then "
                          f"run the same command with --resume\n")
    journal = tmp_path / "g.jsonl.journal"
    assert journal.read_bytes().endswith(b"\n") and len(_read(str(journal)).done) == kept
    assert os.listdir(tmp_path) == ["g.jsonl.journal"]       # no output, lock or temporary
    monkeypatch.undo()
    again = run_here(CHEAP + ["--out", "g.jsonl", "--resume"], tmp_path)
    assert again.exit_code == 0 and f"{kept} of them from the journal" in again.stderr
    assert (tmp_path / "g.jsonl").read_bytes() == cheap


def _tmpfs(where, options: str):
    """A tmpfs mounted at `where` with `options` (skipped where mounting is not allowed)."""
    where.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        pytest.skip("cannot mount a tmpfs here")
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=10)


@pytest.fixture
def tiny_disk(tmp_path):
    yield from _tmpfs(tmp_path / "tiny", "size=64k")


@pytest.fixture
def read_only_disk(tmp_path):
    yield from _tmpfs(tmp_path / "ro", "ro")


def test_a_full_tmpfs_is_exit_74_for_the_real_command(tiny_disk, tmp_path, cheap):
    """A real 64 KB disk filled: exit 74, the journal whole; elsewhere --resume finishes it."""
    res = run_here(CHEAP + ["--out", "g.jsonl"], tiny_disk)
    assert res.exit_code == 74, res.stderr
    assert len(res.stderr.splitlines()) == 1 and "No space left on device" in res.stderr
    assert "then run the same command with --resume" in res.stderr
    journal = tiny_disk / "g.jsonl.journal"
    assert journal.read_bytes().endswith(b"\n") and len(_read(str(journal)).done) >= 1
    room = tmp_path / "room"
    room.mkdir()
    shutil.copy(journal, room / "g.jsonl.journal")
    again = run_here(CHEAP + ["--out", "g.jsonl", "--resume"], room)
    assert again.exit_code == 0, again.stderr
    assert (room / "g.jsonl").read_bytes() == cheap


def test_write_atomic_names_the_file_and_leaves_the_old_one(tmp_path, monkeypatch):
    path = tmp_path / "r.html"
    path.write_text("old")
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(
        OSError(errno.EIO, os.strerror(errno.EIO))))
    with pytest.raises(WriteFailed) as e:
        write_atomic(str(path), "new")
    assert e.value.exit_status == 74 and str(path) in str(e.value)
    assert "check the disk, then run the same command again" in str(e.value)
    assert os.listdir(tmp_path) == ["r.html"] and path.read_text() == "old"


# ---- a journal knows its run ----------------------------------------------------------------
def _journal(tmp_path, name, seed, n, args=None):
    out = str(tmp_path / name)
    j = Journal.start(out, "selfplay", seed, args or {"games": 9}, resume=False)
    for k in range(n):
        j.add(k, f"result {k} of seed {seed}")
    j.close()
    return out, out + ".journal"


def test_a_line_of_another_run_is_refused_and_a_torn_last_line_dropped(tmp_path):
    """A whole line of another run of the same command, at the end or inside: refused, the lock
    given back; a kill mid-append: the torn bytes cut off, and the journal goes on."""
    out, path = _journal(tmp_path, "a.jsonl", 1, 3)
    _, other = _journal(tmp_path, "b.jsonl", 1, 3)
    mine, theirs = open(path, "rb").read(), open(other, "rb").read().splitlines(True)
    for data, n in ((mine + theirs[2], 5),
                    (b"".join(mine.splitlines(True)[:2] + [theirs[2]]), 3)):
        open(path, "wb").write(data)
        with pytest.raises(BergenError, match=f"line {n} is damaged or comes from another "
                                              f"run"):
            Journal.start(out, "selfplay", 1, {"games": 9}, resume=True)
        assert not os.path.exists(out + ".lock")
    open(path, "wb").write(mine + mine.splitlines(True)[-1][:30])
    j = Journal.start(out, "selfplay", 1, {"games": 9}, resume=True)
    assert sorted(j.done) == [0, 1, 2] and open(path, "rb").read() == mine
    j.add(3, "result 3")
    j.close()
    assert sorted(_read(path).done) == [0, 1, 2, 3]


def test_a_journal_with_no_finished_task_is_replaced(tmp_path):
    """A start that failed before its first task blocks no plain retry."""
    out = str(tmp_path / "g.jsonl")
    Journal.start(out, "selfplay", 1, {"games": 9}, resume=False).close()
    j = Journal.start(out, "selfplay", 2, {"games": 5}, resume=False)    # any arguments
    assert j.done == {} and j.header["seed"] == 2
    j.add(0, "x")
    j.close()
    with pytest.raises(BergenError, match="add --resume"):
        Journal.start(out, "selfplay", 2, {"games": 5}, resume=False)


def test_a_failed_start_of_the_command_blocks_no_retry(tmp_path, monkeypatch):
    """--cluster at an address nobody answers with --out, then the plain retry."""
    pytest.importorskip("distributed")
    monkeypatch.setattr("bergen_search.runs.parallel.CONNECT_TIMEOUT", 1)
    args = ["selfplay", "--games", "3", "--engine", "greedy,random", "--out", "g.jsonl"]
    res = run_here(args + ["--cluster", "tcp://127.0.0.1:9"], tmp_path)
    assert res.exit_code == 2 and "no Dask scheduler answers" in res.stderr
    assert len(res.stderr.splitlines()) == 1
    again = run_here(args, tmp_path)
    assert again.exit_code == 0, again.output
    assert sorted(os.listdir(tmp_path)) == ["g.jsonl"]


def test_a_journal_of_the_first_format_is_refused_saying_so(tmp_path):
    out = str(tmp_path / "g.jsonl")
    with open(out + ".journal", "w") as f:
        f.write('bergen-journal/1 00000000 {"format":"bergen-journal/1"}\n'
                '00000000 {"key":0,"data":""}\n')
    for resume in (True, False):
        with pytest.raises(BergenError) as e:
            Journal.start(out, "selfplay", 1, {}, resume=resume)
        assert ("journal of an older bergen (bergen-journal/1)" in str(e.value)
                or "add --resume" in str(e.value))


def _rewrite_header(journal, **change):
    lines = journal.read_bytes().split(b"\n")
    header = {**json.loads(lines[0].decode().split(" ", 2)[2]), **change}
    body = json.dumps(header, separators=(",", ":"), sort_keys=True)
    lines[0] = f"{FORMAT} {zlib.crc32(body.encode()):08x} {body}".encode()
    journal.write_bytes(b"\n".join(lines))


def test_the_command_refuses_a_journal_of_another_run_or_a_damaged_one(tmp_path, reference):
    """Another command, seed, arguments or version, or a damaged line: one line, exit 2."""
    journal = tmp_path / "o.jsonl.journal"
    journal.write_bytes(reference["journal"])
    more = ["--engine", "ismcts:iterations=300", "--out", "o.jsonl", "--resume"]
    cases = [(["arena", "greedy", "random", "--out", "o.jsonl", "--resume"],
              "it is the journal of `bergen selfplay`, not `bergen arena`"),
             (["selfplay", "--games", "6", "--seed", "6", *more], "written with --seed 5, not 6"),
             (["selfplay", "--games", "7", "--seed", "5", *more], "written with games 6, not 7"),
             (SELFPLAY + ["--out", "o.jsonl", "--resume"], "written by bergen 0.0.1"),
             (SELFPLAY + ["--out", "o.jsonl", "--resume"], "line 2 is damaged")]
    for args, words in cases:
        if "0.0.1" in words:
            _rewrite_header(journal, version="0.0.1")   # checked before the chained lines
        elif "damaged" in words:
            lines = reference["journal"].split(b"\n")
            lines[1] = lines[1][:20] + b"X" + lines[1][21:]
            journal.write_bytes(b"\n".join(lines))
        kept = journal.read_bytes()
        res = run_here(args, tmp_path)
        assert res.exit_code == 2 and words in res.stderr, (args, res.stderr)
        assert len(res.stderr.splitlines()) == 1 and journal.read_bytes() == kept


def test_syncs_are_batched(tmp_path, monkeypatch):
    """A handful of syncs for a thousand lines, not one per line; every line synced by close."""
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd)))
    out = str(tmp_path / "g.jsonl")
    j = Journal.start(out, "selfplay", 1, {}, resume=False)
    before = len(calls)
    t0 = time.monotonic()
    for k in range(1000):
        j.add(k, k)
    seconds = time.monotonic() - t0
    during = len(calls) - before
    j.close()
    assert during <= 1000 // journal_module.SYNC_LINES + seconds / journal_module.SYNC_SECONDS + 1
    assert len(calls) == before + during + 1
    assert len(_read(out + ".journal").done) == 1000
    assert open(out + ".journal").readline().startswith(FORMAT + " ")


def test_a_failed_sync_is_a_write_error_and_gives_the_journal_back(tmp_path, monkeypatch):
    """fsync failing (EIO) is WriteFailed, exit 74; the journal is closed, its lock given back."""
    out = str(tmp_path / "g.jsonl")
    j = Journal.start(out, "selfplay", 1, {}, resume=False)
    j.add(0, "x")
    with monkeypatch.context() as m:
        m.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(
            OSError(errno.EIO, os.strerror(errno.EIO))))
        with pytest.raises(WriteFailed, match="g.jsonl.journal") as e:
            j.sync()
    assert e.value.exit_status == 74
    again = Journal.start(out, "selfplay", 1, {}, resume=True)
    assert sorted(again.done) == [0]
    again.close()


# ---- a cluster that stalls says so ----------------------------------------------------------
def _dask(*args):
    exe = shutil.which("dask") or os.path.join(os.path.dirname(sys.executable), "dask")
    return subprocess.Popen([exe, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _address(file) -> str | None:
    try:
        return json.loads(file.read_text())["address"]
    except (OSError, ValueError, KeyError):
        return None             # not written yet, or half


@pytest.fixture
def scheduler(tmp_path):
    """A real `dask scheduler` on a free port: (its process, its address, start_worker())."""
    pytest.importorskip("distributed")
    file = tmp_path / "scheduler.json"
    sched = _dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file",
                  str(file), "--dashboard-address", ":0", "--no-show")
    workers = []
    wait_for(lambda: _address(file), sched)
    address = _address(file)

    def start_worker():
        workers.append(_dask("worker", address, "--nthreads", "1", "--nworkers", "1",
                             "--no-nanny", "--no-dashboard"))

    yield sched, address, start_worker
    for proc in workers + [sched]:
        try:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
        except OSError:
            pass
        proc.wait()


@pytest.fixture
def quick_watch(monkeypatch):
    """A look and a line every half second (at most a quarter of any timeout here)."""
    monkeypatch.setattr("bergen_search.runs.parallel.STALL_REPORT", 0.5)
    monkeypatch.setattr("bergen_search.runs.parallel.PROBE_TIMEOUT", 1)


def test_a_stalled_cluster_is_said_and_a_stopped_scheduler_given_up_on(
        scheduler, quick_watch, tmp_path, reference, monkeypatch):
    """No worker: said (none connected, the tasks in flight), and one started finishes the run;
    every task long: the line counts the worker connected, and the run goes on; kill -STOP of
    the scheduler after the command's first match: lines saying so, then past --cluster-timeout
    exit 2 naming the journal; --resume on local workers finishes the file."""
    from bergen_search.runs.parallel import Cluster, run_ordered
    sched, address, start_worker = scheduler
    lines = []

    def waiting(line):
        lines.append(line)
        if len(lines) == 1:
            start_worker()

    assert run_ordered(abs, [-1, -2, -3], cluster=Cluster(address, timeout=60,
                                                          waiting=waiting)) == [1, 2, 3]
    assert "none connected, 3 tasks in flight" in lines[0], lines
    lines = []
    run_ordered(time.sleep, [2.0], cluster=Cluster(address, timeout=2, waiting=lines.append))
    assert lines and all("1 worker connected, 1 tasks in flight" in x for x in lines), lines
    assert json.dumps(lines)            # plain text lines
    add = Journal.add

    def add_then_stop(journal, key, result):
        add(journal, key, result)
        if len(journal.done) == 1:
            os.kill(sched.pid, signal.SIGSTOP)
    monkeypatch.setattr(Journal, "add", add_then_stop)
    # A 4 s timeout: the first probe the stopped scheduler leaves unanswered (every half
    # second, given up on after one) ends well before it, however loaded the machine.
    res = run_here(SELFPLAY + ["--out", "c.jsonl", "--cluster", address, "--cluster-timeout",
                               "4"], tmp_path)
    assert res.exit_code == 2, res.output
    *lines, last = res.stderr.strip().splitlines()
    assert all(x.startswith("bergen: waiting for the Dask ") for x in lines), lines
    assert any("no answer for" in x and "giving up after 4 s" in x for x in lines), lines
    assert "has not answered for" in last and address in last and "Traceback" not in res.stderr
    assert int(last.split("has not answered for ")[1].split()[0]) >= 4
    assert "kept in c.jsonl.journal" in last and "--resume" in last
    assert entries(tmp_path / "c.jsonl.journal") >= 1
    monkeypatch.undo()
    again = run_here(SELFPLAY + ["--out", "c.jsonl", "--resume", "--workers", "2"], tmp_path)
    assert again.exit_code == 0, again.output
    assert (tmp_path / "c.jsonl").read_bytes() == reference["ref"]


@SLOW
def test_no_worker_at_all_gives_up(scheduler, quick_watch):
    from bergen_search.runs.parallel import Cluster, ClusterStalled, run_ordered
    _, address, _ = scheduler
    lines = []
    with pytest.raises(ClusterStalled, match="no worker has been connected"):
        run_ordered(abs, [-1, -2], cluster=Cluster(address, timeout=3, waiting=lines.append))
    assert lines and "giving up after 3 s" in lines[-1]


# ---- the command: stop signals, no silent overwrite -----------------------------------------
@pytest.mark.parametrize("name, status, workers", [
    ("SIGINT", 130, "1"), ("SIGTERM", 143, "2"), ("SIGHUP", 129, "1"),
    *(pytest.param(name, status, "2", marks=SLOW) for name, status in [("SIGINT", 130),
                                                                       ("SIGHUP", 129)])])
def test_a_stop_signal_keeps_the_journal_and_resume_finishes(tmp_path, cheap, reference, name,
                                                             status, workers, stopped_promptly):
    """Ctrl-C's line, 128 + the signal, the journal kept; --resume writes the whole file. The
    run is held (SIGSTOP) once its first match is in the journal and given the signal there, so
    the signal surely finds it running; tried again should it end before it was held."""
    # Two workers play SELFPLAY's slower matches: a worker killed while it hands over a result
    # can leave the pool's exit waiting for ever, and CHEAP's workers hand over results always.
    args, whole = (CHEAP, cheap) if workers == "1" else (SELFPLAY, reference["ref"])
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        proc = start(args + ["--out", "g.jsonl", "--workers", workers], folder)
        wait_for(lambda: entries(folder / "g.jsonl.journal") >= 1, proc)
        proc.send_signal(signal.SIGSTOP)
        if proc.poll() is None and not (folder / "g.jsonl").exists():
            break
        proc.send_signal(signal.SIGCONT)        # done, or writing its output: again
        assert proc.wait(timeout=60) == 0, proc.communicate()
    else:
        pytest.fail("the run always ended before it was held")
    proc.send_signal(getattr(signal, name))
    t0 = time.monotonic()
    proc.send_signal(signal.SIGCONT)
    _, err = proc.communicate(timeout=30)
    stopped_promptly(time.monotonic() - t0)
    assert proc.returncode == status, err
    assert err.startswith("bergen: interrupted after ") and f"of {args[2]} matches" in err
    assert "--resume" in err and len(err.splitlines()) == 1
    assert entries(folder / "g.jsonl.journal") >= 1 and not (folder / "g.jsonl").exists()
    again = run_here(args + ["--out", "g.jsonl", "--resume"], folder)
    assert again.exit_code == 0, again.output
    assert (folder / "g.jsonl").read_bytes() == whole


# ---- children forked while the stop signals are held back -----------------------------------
def _blocked_signals():
    return sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))


def _child(stop, parent: int, conn):
    """A pool's forked child: its initializer, then its signal mask and stop sent back."""
    from bergen_search.runs import parallel
    parallel._worker_init(parent, stop)
    conn.send((_blocked_signals(), parallel.own_stop() is stop))
    conn.close()
    time.sleep(60)


@pytest.mark.parametrize("init", ["search", "runs"])
def test_children_forked_under_deferred_ctrl_c_unblock_the_stop_signals(init):
    """`deferred_ctrl_c` blocks the stop signals around a fork; a child's initializer unblocks
    them (else a pool ending its children waits forever) and holds the run's stop."""
    import multiprocessing

    from bergen_search.runs import parallel
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event() if init == "search" else None
    here, there = ctx.Pipe()
    with parallel.deferred_ctrl_c():
        child = ctx.Process(target=_child, args=(stop, os.getpid(), there), daemon=True)
        child.start()
    try:
        assert here.poll(30), "the child did not report"
        blocked, own = here.recv()
        assert not {signal.SIGINT, signal.SIGTERM, signal.SIGHUP} & set(blocked), blocked
        assert own                              # the run's stop (None: no stop), its own
        child.kill()
        child.join(20)
        assert child.exitcode is not None       # ended, as the pool ends its workers
    finally:
        child.kill()
        child.join(5)


TORN = """
import os, struct, sys, threading, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from bergen_search.runs import parallel

def torn():
    # half of a result: a length of 1,000 bytes, then 3 of them; then the kill comes
    os.write(EX._result_queue._writer.fileno(), struct.pack("!i", 1000) + b"abc")
    os.write(WRITTEN, b"x")
    time.sleep(60)

HEARD, WRITTEN = os.pipe()              # the worker, forked, says it has written
EX = ProcessPoolExecutor(1, mp_context=get_context("fork"))
EX.submit(torn)
os.read(HEARD, 1)
manager = EX._executor_manager_thread
parallel._kill_workers(EX)
print("manager ended" if not manager.is_alive() else "manager waits", flush=True)
"""


def test_a_worker_killed_inside_a_result_leaves_no_pool_waiting():
    """A worker killed while it writes its result leaves half a message in the pool's pipe: the
    pool's manager thread must see the end of it, not wait for the rest (and the interpreter's
    exit with it, forever: arena and selfplay with --workers hung after a Ctrl-C)."""
    run = subprocess.run([sys.executable, "-c", TORN], capture_output=True, text=True,
                         timeout=20)
    assert run.stdout == "manager ended\n", run.stdout + run.stderr
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("command, options", [
    (["selfplay", "--games", "2", "--engine", "greedy,random"], ["--out"]),
    (["arena", "greedy", "random", "--games", "2", "--seed", "1", "--quiet"], ["--out"]),
    (["analyze", "examples/match.json", "--iterations", "30", "--quiet", "--seat", "0"],
     ["--out", "--html"])])
def test_every_command_that_writes_a_file_refuses_an_existing_one(tmp_path, command, options):
    """An existing file is refused (exit 2, one line, untouched) and replaced with --force;
    selfplay's also with --resume, which without a journal refuses it as having nothing to
    resume and, with no output either, starts afresh."""
    for option in options:
        target = tmp_path / f"kept{option.replace('-', '_')}"
        target.write_text("the old results\n")
        res = bergen(*command, option, target)
        assert res.exit_code == 2 and "exists: give --force to replace it" in res.stderr
        assert len(res.stderr.splitlines()) == 1
        assert target.read_text() == "the old results\n"
        res = bergen(*command, option, target, "--force")
        assert res.exit_code == 0, res.output
        assert target.read_text() != "the old results\n"
    if command[0] == "selfplay":
        assert len(target.read_text().splitlines()) == 2
        target.write_text("the old results\n")
        res = run_here([*command, "--out", str(target), "--resume"], tmp_path)
        assert res.exit_code == 2 and "nothing to resume; --force runs it again" in res.stderr
        assert target.read_text() == "the old results\n"
        target.unlink()
        assert run_here([*command, "--out", str(target), "--resume"], tmp_path).exit_code == 0
        assert len(target.read_text().splitlines()) == 2


# ---- outputs as a careless user gives them -----------------------------------------------
def test_a_folder_that_takes_no_new_file_is_not_called_missing(tmp_path):
    """A folder there that takes no new file (ENOENT, EACCES: /proc as root) is told to write
    elsewhere; a vanished folder, a permission and a long name keep their remedies."""
    there = tmp_path / "x.jsonl"
    for code in (errno.ENOENT, errno.EACCES):
        err = str(WriteFailed(str(there), OSError(code, os.strerror(code))))
        assert err == (f"cannot write {there}: {os.strerror(code)}; the folder {tmp_path} "
                       f"takes no new files: write to another folder")
    gone = tmp_path / "gone" / "x.jsonl"
    assert str(WriteFailed(str(gone), OSError(errno.ENOENT, "No such file or directory"))
               ).endswith("; make its folder again, then run the same command with --resume")
    kept = tmp_path / "kept.jsonl"
    kept.write_text("")
    assert str(WriteFailed(str(kept), OSError(errno.EACCES, "Permission denied"))).endswith(
        "; give yourself write permission, then run the same command with --resume")
    assert str(WriteFailed("a" * 300, OSError(errno.ENAMETOOLONG, "File name too long"))
               ).endswith("; give a shorter name, then run the same command with --resume")


@pytest.mark.parametrize("command", [["selfplay", "--out"], ["arena", "random", "random",
                                     "--games", "1", "--out"],
                                     ["analyze", "examples/match.json", "--html"],
                                     ["play", "--engine", "random", "--out"]])
def test_every_output_in_a_folder_that_takes_no_new_file_fails_before_it_starts(
        tmp_path, monkeypatch, command):
    """Said before any work (play: before the first move), exit 74, one line."""
    real_open = os.open

    def refusing(path, flags, *args, **kwargs):
        if str(path).startswith(str(tmp_path)) and flags & os.O_CREAT:
            raise OSError(errno.ENOENT, os.strerror(errno.ENOENT))
        return real_open(path, flags, *args, **kwargs)
    monkeypatch.setattr(os, "open", refusing)         # tempfile's os.open too
    out = tmp_path / "out.file"
    res = bergen(*command, out, input="2-2\n")
    assert res.exit_code == 74, res.output
    assert "you played" not in res.stdout and "Bergen against" not in res.stdout
    line = res.stderr.strip()
    assert line.startswith(f"bergen: cannot write {out}") and line.endswith(
        f"No such file or directory; the folder {tmp_path} takes no new files: write to "
        f"another folder"), line
    assert not os.listdir(tmp_path)


def test_a_write_error_names_the_folder_the_kernel_read(tmp_path, monkeypatch):
    """`nodir/../g.json`: the kernel needs nodir, which is missing; not "the folder (here)
    takes no new files", which abspath's nodir-less folder would say."""
    monkeypatch.chdir(tmp_path)
    missing = OSError(errno.ENOENT, os.strerror(errno.ENOENT))
    assert str(WriteFailed("nodir/../g.json", missing)) == (
        "cannot write nodir/../g.json: No such file or directory; make its folder again, then "
        "run the same command with --resume")
    assert str(WriteFailed("g.json", missing)).endswith(
        f"the folder {tmp_path} takes no new files: write to another folder")


@pytest.mark.parametrize("command", [
    ["best", "examples/decision.json", "--iterations", "300"],
    pytest.param(["analyze", "examples/match.json", "--iterations", "100", "--json"],
                 marks=SLOW),
    ["selfplay", "--games", "5"]])
def test_standard_output_on_a_full_device_is_exit_74(command):
    """`> /dev/full` is exit 74 and a line naming it, for a document and for a stream."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(CMD + command, stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr.splitlines()[-1] == ("bergen: cannot write standard output: No space "
                                            "left on device; free some space, then run the "
                                            "same command again")


def _closing(*fds):
    def close():
        for fd in fds:
            os.close(fd)
    return close


def test_a_closed_standard_stream_is_one_line_or_nothing(tmp_path):
    """`>&-`: a command that writes there fails as on a full device (74, one line); one that
    writes nothing there runs, its file whole (the descriptor held: no file takes its number).
    `2>&-`: the answer on standard output, the lines lost as asked; `<&-`: at its end."""
    def run(args, fds, **kwargs):
        return subprocess.run(CMD + args, preexec_fn=_closing(*fds), capture_output=True,
                              text=True, timeout=120, cwd=tmp_path, **kwargs)
    best = ["best", os.path.join(os.getcwd(), "examples", "decision.json"), "--iterations", "300"]
    res = run(best, [1])
    assert res.returncode == 74 and res.stderr == (
        "bergen: cannot write standard output: it is closed; fix that, then run the same "
        "command again\n"), res.stderr
    res = run(CHEAP + ["--out", "c.jsonl", "--quiet"], [1])
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "c.jsonl").read_text().encode() == bergen(*CHEAP).stdout.encode()
    res = run(best, [2])
    assert res.returncode == 0 and res.stdout.startswith("best: ")
    res = run(["play", "--engine", "greedy", "--seed", "5", "--out", "g.json"], [0])
    assert res.returncode == 0 and json.loads((tmp_path / "g.json").read_text())["format"]


def test_a_closed_pipe_ends_quietly_as_unix_tools_do():
    """`bergen selfplay | head -c 100`: exit 141 (killed by SIGPIPE), nothing on stderr."""
    proc = subprocess.Popen(CMD + ["selfplay", "--games", "300", "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(100)
    proc.stdout.close()
    assert proc.wait(120) == 141
    assert proc.stderr.read() == b""
    proc.stderr.close()


def test_an_out_that_is_not_a_file_is_never_replaced(tmp_path):
    """A run's output that is not a regular file is refused (its journal would land beside it);
    a one-shot write (`play --out`) goes into it in place (a full device: 74)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for out in ("/dev/full", str(fifo)):
        before = os.stat(out)
        res = bergen("selfplay", "--games", "2", "--out", out, "--force")
        assert res.exit_code == 2
        assert f"{out} is not a regular file" in res.stderr
        after = os.stat(out)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert not os.path.exists("/dev/full.journal") and not os.path.exists("/dev/full.lock")
    res = bergen("analyze", "examples/match.json", "--iterations", "50", "--html", "/dev/full",
                 "--force")
    assert res.exit_code == 2 and "/dev/full is not a regular file" in res.stderr
    res = bergen("play", "--engine", "greedy", "--seed", "2", "--out", "/dev/full", "--force",
                 input="quit\n")
    assert res.exit_code == 74 and "cannot write /dev/full: No space left" in res.stderr
    assert os.path.exists("/dev/full") and not os.path.isfile("/dev/full")
    write_atomic(os.devnull, "nothing\n")             # in place: /dev/null stays a device
    assert not os.path.isfile(os.devnull)


def test_an_output_that_is_an_input_or_another_output_is_refused(tmp_path):
    """`analyze M --out M --force` and `--out F --html F` are refused, nothing written."""
    record = tmp_path / "m.json"
    shutil.copy("examples/match.json", record)
    text = record.read_text()
    res = bergen("analyze", record, "--out", record, "--force", "--iterations", "50")
    assert res.exit_code == 2
    assert f"{record} is the input: give --out another file" in res.stderr
    assert record.read_text() == text
    same = tmp_path / "f.json"
    res = bergen("analyze", record, "--out", same, "--html", tmp_path / "." / "f.json",
                 "--iterations", "50")
    assert res.exit_code == 2 and "is also --out: give --html another file" in res.stderr
    assert not same.exists()


def test_a_read_only_file_system_is_exit_74(read_only_disk):
    res = bergen("selfplay", "--out", read_only_disk / "g.jsonl")
    assert res.exit_code == 74
    assert res.stderr == (f"bergen: cannot write {read_only_disk / 'g.jsonl'}: Read-only file "
                           f"system; make the file system writable, then run the same command "
                           f"again\n")


def test_a_result_that_times_out_is_a_stall_not_a_lost_scheduler(monkeypatch):
    """A result never handed over is `ClusterStalled`, worded by whether the scheduler answers
    the probe (TimeoutError is an OSError, not a loss); a reset connection is `ClusterLost`."""
    from unittest.mock import Mock

    distributed = pytest.importorskip("distributed")
    from bergen_search.runs.parallel import Cluster, ClusterLost, ClusterStalled, _on_client

    def completed(futures, loop=None):
        """`as_completed`: every future ready at the first look."""
        left = list(futures)
        return Mock(is_empty=lambda: not left, has_ready=lambda: True,
                    next_batch=lambda block=False: [left.pop() for _ in list(left)])

    monkeypatch.setattr(distributed, "as_completed", completed)
    for error, workers, stalled, words in [
            (TimeoutError(), None, True, "has not answered for"),
            (TimeoutError(), 1, True, "did not hand over a finished result within 4 s"),
            (ConnectionResetError(), None, False, "lost the Dask scheduler")]:
        future = Mock(key="k0", result=Mock(side_effect=error))
        probe = TimeoutError() if workers is None else (lambda *a, n=workers, **k: {"n_workers": n})
        client = Mock(loop=None, submit=Mock(return_value=future), sync=Mock(side_effect=probe))
        with pytest.raises(ClusterLost, match=words) as e:      # a stall is a kind of loss
            _on_client(abs, [1], client, lambda i, r: None, "tcp://x:1", own=False,
                       spec=Cluster("tcp://x:1", timeout=4))
        assert isinstance(e.value, ClusterStalled) == stalled
