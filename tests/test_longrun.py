"""cli/longrun.py: the journal of `selfplay`, `arena` and `analyze`, and their endings (done,
Ctrl-C, a lost scheduler) as the same messages and statuses; the manager alone, then the
commands side by side (Ctrl-C to the commands: test_interrupt.py)."""
import os

import pytest
from click.testing import CliRunner

from bergen_search.cli import main
from bergen_search.cli.longrun import LongRun
from bergen_search.errors import BergenError, Interrupted
from bergen_search.runs.journal import Journal, journal_path
from bergen_search.runs.parallel import ClusterLost


def test_a_finished_run_deletes_its_journal(tmp_path):
    out = str(tmp_path / "out.jsonl")
    with LongRun(out, "selfplay", 0, False, total=3, unit="matches") as run:
        journal = run.start({"games": 3})
        assert os.path.exists(journal_path(out)) and run.hooks["done"] is journal.done
        run.hooks["on_result"](0, "first")
    assert run.interrupted is None
    assert not os.path.exists(journal_path(out))


def test_without_an_output_there_is_no_journal():
    """(And no --resume: test_messages.py's rows, word for word for each command.)"""
    with LongRun(None, "selfplay", 0, False, total=3, unit="matches") as run:
        assert run.start({}) is None and run.hooks == {} and run.resumed == 0


def test_ctrl_c_is_kept_with_how_far_the_journal_got(tmp_path, capsys):
    out = str(tmp_path / "out.jsonl")
    with LongRun(out, "selfplay", 0, False, total=5, unit="matches", partial=[]) as run:
        journal = run.start({"games": 5})
        journal.add(0, "a")
        journal.add(1, "b")
        raise KeyboardInterrupt
    e = run.interrupted
    assert (e.partial, e.done, e.total, e.unit) == ([], 2, 5, "matches")
    assert run.stop() == 130
    assert capsys.readouterr().err == (
        f"bergen: interrupted after 2 of 5 matches; the finished work is kept in "
        f"{journal_path(out)}: run the same command with --resume to go on\n")
    assert os.path.exists(journal_path(out))        # kept for --resume
    with LongRun(out, "selfplay", 0, True, total=5, unit="matches") as again:
        again.start({"games": 5})
        assert again.resumed == 2


def test_the_library_says_how_far_it_got(capsys):
    with LongRun(None, "arena", 0, False, total=9, unit="sets") as run:
        run.start({})
        raise Interrupted("the finished sets", 4, 9, "sets")
    assert run.interrupted.partial == "the finished sets"
    assert run.stop(" (and more)") == 130
    assert capsys.readouterr().err == ("bergen: interrupted after 4 of 9 sets (and more) (give "
                                       "--out to keep a journal of the finished work)\n")


def test_counts_given_as_functions_are_asked_only_when_interrupted(tmp_path):
    asked = []
    with LongRun(None, "analyze", 0, False, unit="decisions", partial=[],
                 total=lambda: asked.append("total") or 12,
                 done=lambda journal: asked.append(journal) or 7) as run:
        run.start({})
    assert asked == [] and run.interrupted is None
    with LongRun(None, "analyze", 0, False, unit="decisions", partial=[],
                 total=lambda: 12, done=lambda journal: 7) as run:
        raise KeyboardInterrupt
    assert (run.interrupted.done, run.interrupted.total) == (7, 12)


def test_a_lost_scheduler_says_where_the_work_is_kept(tmp_path):
    out = str(tmp_path / "out.jsonl")
    with pytest.raises(BergenError) as caught:
        with LongRun(out, "selfplay", 0, False, total=2, unit="matches") as run:
            run.start({})
            raise ClusterLost("the scheduler went away")
    assert str(caught.value) == (f"the scheduler went away; the finished work is kept in "
                                 f"{journal_path(out)}: run the same command with --resume "
                                 f"to go on")
    with pytest.raises(ClusterLost):                 # no output: nothing kept, said as it was
        with LongRun(None, "selfplay", 0, False, total=2, unit="matches") as run:
            raise ClusterLost("the scheduler went away")


def test_other_errors_go_through(tmp_path):
    with pytest.raises(ValueError):
        with LongRun(str(tmp_path / "x"), "arena", 0, False, total=2, unit="sets") as run:
            run.start({})
            raise ValueError("no")
    assert run.interrupted is None


@pytest.mark.parametrize("command", [
    ["selfplay", "--games", "1"],
    ["arena", "random", "random", "--games", "1"],
])
def test_an_unfinished_journal_is_refused_alike(tmp_path, command):
    out = tmp_path / "out.jsonl"
    # A journal holding a finished task (one with none, from a failed start, is replaced).
    journal = Journal.start(str(out), command[0], 0, {}, resume=False)
    journal.add(0, "a finished task")
    journal.close()
    res = CliRunner().invoke(main, command + ["--out", str(out)])
    assert res.exit_code == 2
    assert res.output == (f"bergen: {out}.journal holds the work of an unfinished run of this "
                          f"output: add --resume to go on with it, or delete it to start "
                          f"again\n")
