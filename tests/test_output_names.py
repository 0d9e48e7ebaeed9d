"""Output names a new user gives: an output named as another's journal or lock file, a folder
that is not there as the kernel resolves it (`nodir/..`), a name too long for its folder, a
file of the user's at OUT.journal or OUT.lock, `--resume` with nothing to resume beside an
existing output, and `-` as a file output. Each is refused before any work, in one line, exit
2, and every file the user had is left as it was."""
import os
import shutil

import pytest
from support import run_here

from bergen_search.runs.journal import Journal

MATCH = os.path.abspath("examples/partial.json")
SELFPLAY = ["selfplay", "--games", "2", "--engine", "greedy,random", "--quiet"]
ARENA = ["arena", "greedy", "random", "--games", "1", "--quiet"]
ANALYZE = ["analyze", "partial.json", "--iterations", "30", "--quiet"]
PLAY = ["play", "--engine", "greedy", "--seed", "5"]


@pytest.fixture
def here(tmp_path):
    """A folder holding a copy of examples/partial.json."""
    shutil.copy(MATCH, tmp_path / "partial.json")
    return tmp_path


def _refused(res, *words):
    """Exit 2, one line on standard error holding every one of `words`, no traceback."""
    assert res.exit_code == 2, (res.exit_code, res.output)
    line = res.stderr.strip()
    assert len(res.stderr.splitlines()) == 1 and line.startswith("bergen"), res.stderr
    for word in words:
        assert word in line, line
    return line


def _files(folder):
    return sorted(os.listdir(folder))


# ---- 1. an output named as another output's journal or lock file ----------------------------
@pytest.mark.parametrize("suffix, what", [(".lock", "lock file"), (".journal", "journal")])
def test_an_output_named_as_the_journal_or_lock_of_another_is_refused(here, suffix, what):
    for out, html, option in (("a.json", "a.json" + suffix, "--html"),
                              ("h.html" + suffix, "h.html", "--out")):
        res = run_here(ANALYZE + ["--out", out, "--html", html], here)
        _refused(res, f"is also the {what} beside", f"give {option} another file")
        assert _files(here) == ["partial.json"]


def test_an_output_that_is_a_link_to_its_own_journal_is_refused(here):
    os.symlink("s.jsonl.journal", here / "s.jsonl")
    res = run_here(SELFPLAY + ["--out", "s.jsonl", "--force"], here)
    _refused(res, "is also the journal beside --out s.jsonl")
    assert _files(here) == ["partial.json", "s.jsonl"] and os.path.islink(here / "s.jsonl")


# ---- 2. the folder as the kernel resolves it, and the name's length ------------------------
COMMANDS = [(SELFPLAY, "--out"), (ARENA, "--out"), (ANALYZE, "--out"), (ANALYZE, "--html"),
            (PLAY, "--out")]


@pytest.mark.parametrize("command, option", COMMANDS)
def test_a_folder_missing_before_a_dot_dot_is_named_before_any_work(here, command, option):
    for given, named in (("nodir/../x.json", f"no folder {here / 'nodir'}"),
                         ("partial.json/../x.json", f"{here / 'partial.json'} is not a folder")):
        res = run_here(command + [option, given], here)
        _refused(res, f"cannot write {given}: {named}")
        assert "Bergen against" not in res.stdout          # play: before the first move
        assert _files(here) == ["partial.json"]


@pytest.mark.parametrize("command, option", COMMANDS)
def test_a_name_too_long_for_its_folder_is_refused_before_any_work(here, command, option):
    limit = os.pathconf(here, "PC_NAME_MAX")
    name = "a" * (limit + 1 - len(".json")) + ".json"
    res = run_here(command + [option, name], here)
    _refused(res, f"its name is {limit + 1} bytes, more than the {limit} its folder takes: "
                  f"give a shorter name")
    assert "Bergen against" not in res.stdout
    assert _files(here) == ["partial.json"]


@pytest.mark.parametrize("command", [SELFPLAY, ARENA, ANALYZE])
def test_a_name_whose_journal_is_too_long_is_refused(here, command):
    """The journal (OUT.journal) is the longest name a run writes beside its output."""
    limit = os.pathconf(here, "PC_NAME_MAX")
    name = "a" * (limit - len(".json")) + ".json"
    res = run_here(command + ["--out", name], here)
    _refused(res, f"the name of its journal ({name}.journal) is {limit + 8} bytes, more "
                  f"than the {limit} its folder takes")
    assert _files(here) == ["partial.json"]
    if command is ANALYZE:          # --html with --out keeps no journal: its name is enough
        res = run_here(command + ["--out", "a.json", "--html", name], here)
        assert res.exit_code == 0, res.output
        assert _files(here) == ["a.json", name, "partial.json"]


def test_play_saves_to_a_name_as_long_as_its_folder_takes(here):
    name = "a" * (os.pathconf(here, "PC_NAME_MAX") - len(".json")) + ".json"
    res = run_here(PLAY + ["--out", name], here)
    assert res.exit_code == 0, res.output
    assert _files(here) == [name, "partial.json"]


# ---- 3. a user's file at OUT.journal or OUT.lock ------------------------------------------
USERS = ["my notes\n", "my notes", "my notes\nmore notes\n", ""]


@pytest.mark.parametrize("command", [SELFPLAY, ANALYZE])
@pytest.mark.parametrize("text", USERS)
def test_a_file_at_the_journals_name_that_is_no_journal_is_left_alone(here, command, text):
    journal = here / "o.json.journal"
    journal.write_text(text)
    for resume in ([], ["--resume"]):
        res = run_here(command + ["--out", "o.json", *resume], here)
        _refused(res, f"{journal.name} is not a bergen journal", "move it away")
        assert journal.read_text() == text
        assert _files(here) == ["o.json.journal", "partial.json"]


@pytest.mark.parametrize("text", ["my notes\n", "12 13\n", "x" * 100])
def test_a_file_at_the_locks_name_holding_more_than_a_process_id_is_left_alone(here, text):
    lock = here / "o.jsonl.lock"
    lock.write_text(text)
    res = run_here(SELFPLAY + ["--out", "o.jsonl"], here)
    _refused(res, f"{lock.name} is not a bergen lock file", "move it away")
    assert lock.read_text() == text
    assert _files(here) == ["o.jsonl.lock", "partial.json"]


@pytest.mark.parametrize("text", ["", "999999\n", "999999"])
def test_a_lock_file_left_behind_is_taken(here, text):
    (here / "o.jsonl.lock").write_text(text)
    res = run_here(SELFPLAY + ["--out", "o.jsonl"], here)
    assert res.exit_code == 0, res.output
    assert _files(here) == ["o.jsonl", "partial.json"]


def test_a_real_journal_with_no_finished_task_is_still_replaced(here):
    Journal.start(str(here / "o.jsonl"), "selfplay", 9, {"other": 1}, resume=False).close()
    res = run_here(SELFPLAY + ["--out", "o.jsonl"], here)
    assert res.exit_code == 0, res.output
    assert _files(here) == ["o.jsonl", "partial.json"]


# ---- 4. --resume with nothing to resume ---------------------------------------------------
@pytest.mark.parametrize("command", [SELFPLAY, ARENA, ANALYZE])
def test_resume_beside_an_output_with_no_journal_is_refused(here, command):
    out = here / "k.json"
    out.write_text("precious\n")
    res = run_here(command + ["--out", "k.json", "--resume"], here)
    _refused(res, "k.json exists and no journal of a run is beside it (k.json.journal): "
                  "nothing to resume; --force runs it again")
    assert out.read_text() == "precious\n" and _files(here) == ["k.json", "partial.json"]
    # a journal of a start that failed before its first task: nothing to resume either
    Journal.start(str(out), command[0], 0, {}, resume=False).close()
    res = run_here(command + ["--out", "k.json", "--resume"], here)
    _refused(res, "k.json exists and its journal (k.json.journal) holds no finished task: "
                  "nothing to resume; --force runs it again")
    assert out.read_text() == "precious\n"
    res = run_here(command + ["--out", "k.json", "--resume", "--force"], here)
    assert res.exit_code == 0, res.output
    assert out.read_text() != "precious\n" and _files(here) == ["k.json", "partial.json"]
    out.unlink()                    # neither output nor journal: the run starts afresh
    res = run_here(command + ["--out", "k.json", "--resume"], here)
    assert res.exit_code == 0, res.output
    assert _files(here) == ["k.json", "partial.json"]


def test_resume_of_analyze_leaves_an_html_report_with_no_journal_alone(here):
    report = here / "r.html"
    report.write_text("precious\n")
    res = run_here(ANALYZE + ["--out", "a.json", "--html", "r.html", "--resume"], here)
    _refused(res, "r.html exists and no journal of a run is beside a.json (a.json.journal): "
                  "nothing to resume; --force runs it again")
    assert report.read_text() == "precious\n" and _files(here) == ["partial.json", "r.html"]


# ---- 5. `-` is no file output -------------------------------------------------------------
@pytest.mark.parametrize("command, option, fix", [
    (SELFPLAY, "--out", "leave out --out, and the records go to standard output"),
    (ARENA, "--out", "name a file"),
    (ANALYZE, "--out", "name a file, or give --json for the analysis on standard output"),
    (ANALYZE, "--html", "name a file"),
    (PLAY, "--out", "name a file")])
def test_a_dash_is_no_file_output(here, command, option, fix):
    res = run_here(command + [option, "-"], here)
    _refused(res, f"Invalid value for {option}: - (standard output) is not a file: {fix}")
    assert "Bergen against" not in res.stdout
    assert _files(here) == ["partial.json"]
