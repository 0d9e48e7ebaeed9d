"""lab/gauntlet/gauntlet.py: its cells, resume after a kill, the table and the intervals, and the
split by phase, with tiny budgets and no OpenSpiel (its cells are skipped when the instrument
is absent, which is checked too).

The arena cells here play greedy against random (the gauntlet's engine names mapped onto
them), so a run is deterministic and a resumed run must give exactly the figures of one that
was never stopped.
"""
import json
import math
import os

import pytest

import gauntlet as g


@pytest.fixture
def fast_engines(monkeypatch):
    """`default` plays greedy, `greedy` plays random: deterministic and quick."""
    monkeypatch.setitem(g.ENGINES, "default", "greedy")
    monkeypatch.setitem(g.ENGINES, "greedy", "random")


def lines(path):
    with open(path) as f:
        return [json.loads(x) for x in f if x.strip()]


def test_cells_parse_and_name_themselves():
    c = g.parse_cell("default-vs-openspiel-100ms-4pp")
    assert (c.a, c.b, c.ms, c.players, c.partnerships) == ("default", "openspiel", 100, 4, True)
    assert c.name == "default-vs-openspiel-100ms-4pp"
    assert c.spec("a") == "bergen:time=0.1" and c.spec("b") == "openspiel:time=0.1"
    old = g.parse_cell("classic-vs-openspiel-10ms-2p").spec("a")
    assert old == "bergen:time=0.01,root=ucb,replicates=1,stats=all,endgame=off"
    assert g.parse_cell("default-vs-classic-1000ms-3p").spec("b") == \
        "ismcts:root=ucb,replicates=1,stats=all,endgame=off,time=1"
    assert g.parse_cell("default-vs-flat-10ms-2p").spec("b") == "flat:time=0.01"
    slow = g.parse_cell("default-vs-openspiel10x-100ms-2p")
    assert slow.openspiel and (slow.spec("a"), slow.spec("b")) == ("bergen:time=0.1",
                                                                    "openspiel:time=1")
    assert g.parse_cell("default-vs-greedy-10ms-2p").spec("b") == "greedy"
    names = [c.name for c in g.expand(["*-100ms-2p"])]
    assert names == ["default-vs-openspiel-100ms-2p", "default-vs-classic-100ms-2p",
                     "default-vs-flat-100ms-2p", "default-vs-greedy-100ms-2p",
                     "classic-vs-openspiel-100ms-2p"]
    assert len(g.all_cells()) == 3 * 4 * 5


@pytest.mark.parametrize("bad", ["nonsense", "default-vs-nobody-10ms-2p", "default-vs-flat-10-2p",
                                 "default-vs-flat-10ms-5p", "default-vs-flat-0ms-2p"])
def test_bad_input_is_one_line_and_exit_2(bad, capsys, tmp_path):
    assert g.main(["run", bad, "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gauntlet: ") and err.count("\n") == 1


def test_openspiel_cells_are_skipped_without_the_instrument(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv(g.TOOLS_ENV, raising=False)
    assert g.main(["run", "default-vs-openspiel-10ms-2p", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.strip() == ("default-vs-openspiel-10ms-2p: skipped: no OpenSpiel instrument: "
                           "give --openspiel-tools DIR or set BERGEN_OPENSPIEL_TOOLS")
    assert g.main(["run", "default-vs-openspiel-10ms-2p", "--dir", str(tmp_path),
                   "--openspiel-tools", str(tmp_path)]) == 0
    assert "skipped: no OpenSpiel instrument at" in capsys.readouterr().out
    assert os.listdir(tmp_path) == []


def test_a_killed_run_resumes_without_losing_or_replaying_sets(fast_engines, tmp_path, capsys):
    cell = "default-vs-greedy-10ms-2p"
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    args = ["run", cell, "--pairs", "6", "--seed", "5", "--quiet"]
    assert g.main(args + ["--dir", str(whole)]) == 0
    path = whole / f"{cell}.jsonl"
    full = lines(path)
    assert [x for x in full if "header" in x][0]["header"]["pairs"] == 6
    sets = [x["set"] for x in full if "set" in x]
    assert [s["index"] for s in sets] == list(range(6))
    assert [x["at"] for x in full if "load" in x] == ["start", "end"]

    # A kill after three sets, in the middle of writing the fourth.
    cut.mkdir()
    text = path.read_text().splitlines(keepends=True)
    keep = [ln for ln in text if '"set"' not in ln and '"at":"end"' not in ln] + \
        [ln for ln in text if '"set"' in ln][:3]
    (cut / f"{cell}.jsonl").write_text("".join(keep) + '{"set":{"index":3,"a_wi')
    assert g.main(args + ["--dir", str(cut)]) == 0
    again = lines(cut / f"{cell}.jsonl")
    got = [x["set"] for x in again if "set" in x]
    assert sorted(s["index"] for s in got) == list(range(6))       # none lost, none twice
    assert [x.get("resumed") for x in again if x.get("at") == "start"] == [0, 3]
    assert got == sets                                             # the same sets, same order
    a, b = g.figures(str(path)), g.figures(str(cut / f"{cell}.jsonl"))
    assert (a.sets, a.margin, a.stderr, a.raw) == (b.sets, b.margin, b.stderr, b.raw)
    # Done: a third run plays nothing.
    assert g.main(args + ["--dir", str(cut)]) == 0
    assert len(lines(cut / f"{cell}.jsonl")) == len(again)
    assert "done (6 sets)" in capsys.readouterr().out


def test_a_journal_of_other_settings_is_refused(fast_engines, tmp_path, capsys):
    cell = "default-vs-greedy-10ms-2p"
    assert g.main(["run", cell, "--pairs", "2", "--seed", "5", "--quiet",
                   "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert g.main(["run", cell, "--pairs", "2", "--seed", "6", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "other settings (seed)" in err and err.count("\n") == 1


def test_arena_figures_are_the_arenas_own(fast_engines, tmp_path):
    """The cell's luck-adjusted margin and its standard error are those `run_arena` reports
    for the same sets (equal rounds per set: the ratio estimator is the plain mean)."""
    from bergen_search.game.rules import Rules
    from bergen_search.play.arena import run_arena
    assert g.main(["run", "default-vs-greedy-10ms-3p", "--pairs", "10", "--seed", "9",
                   "--quiet", "--dir", str(tmp_path)]) == 0
    f = g.figures(str(tmp_path / "default-vs-greedy-10ms-3p.jsonl"))
    r = run_arena(Rules(players=3), "greedy", "random", 10, 9, single_round=True)
    assert f.adjusted and f.sets == 10
    assert f.raw == pytest.approx(r.margin_per_round)
    assert f.margin == pytest.approx(r.adjusted_margin_per_round)
    assert f.stderr == pytest.approx(r.adjusted_margin_stderr)
    assert f.raw_stderr == pytest.approx(r.margin_stderr)
    assert g.command(f.settings).endswith(
        "(the same sets: `bergen arena greedy random --round --games 10 --seed 9 --players 3`)")
    lo, hi = f.ci95
    assert (lo, hi) == pytest.approx((f.margin - g.Z95 * f.stderr, f.margin + g.Z95 * f.stderr))


def synthetic_os_journal(path, sets, pairs=None, luck=True):
    """An OpenSpiel cell's journal with given (margin, luck) per set."""
    j = g.Journal(str(path))
    settings = g.parse_cell("default-vs-openspiel-100ms-2p").settings(pairs or len(sets), 1)
    j.open(settings)
    j.append({"load": "1.00 1.00 1.00", "at": "start"})
    for i, (m, lk) in enumerate(sets):
        j.append({"set": {"index": i, "margin": m, "luck": lk if luck else None, "rounds": 2,
                          "search_time": {"A": [10, 1.0], "B": [20, 2.5]}, "games": []}})
    return j


def test_intervals_and_the_table(tmp_path):
    sets = [(1.5, 0.5), (-1.0, -0.5), (2.0, 1.0), (0.5, 0.0), (-0.5, 0.5)]
    synthetic_os_journal(tmp_path / "default-vs-openspiel-100ms-2p.jsonl", sets, pairs=8)
    f = g.figures(str(tmp_path / "default-vs-openspiel-100ms-2p.jsonl"))
    adj = [m - lk for m, lk in sets]
    mean = sum(adj) / 5
    se = math.sqrt(sum((x - mean) ** 2 for x in adj) / 4) / math.sqrt(5)
    assert f.adjusted and f.margin == pytest.approx(mean) and f.stderr == pytest.approx(se)
    assert f.raw == pytest.approx(0.5)
    assert f.ci95 == pytest.approx((mean - g.Z95 * se, mean + g.Z95 * se))
    assert (f.ms_a, f.ms_b) == pytest.approx((100.0, 125.0))
    # 0.1 a round at 1.96 standard errors: (1.96 sd / 0.1)^2 sets.
    assert g.pairs_for(se, 5) == math.ceil((g.Z95 * se * math.sqrt(5) / 0.1) ** 2)

    g.Journal(str(tmp_path / "default-vs-openspiel-100ms-2p.losses-4000.jsonl")).open(
        {"cell": "default-vs-openspiel-100ms-2p", "iterations": 4000, "seed": 1})
    text = g.table(str(tmp_path))
    assert text.count("| `default-vs-openspiel-100ms-2p` |") == 1
    row = [ln for ln in text.splitlines() if ln.startswith("| `default-vs-openspiel")][0]
    assert f"{mean:+.3f} ± {se:.3f} (adj)" in row
    assert f"[{mean - g.Z95 * se:+.3f}, {mean + g.Z95 * se:+.3f}]" in row
    assert "| 5 of 8 |" in row and "1.00 1.00 1.00 → running" in row
    assert ("`python lab/gauntlet/gauntlet.py run default-vs-openspiel-100ms-2p --pairs 8 "
            "--seed 1`") in text

    doc = tmp_path / "GAUNTLET.md"
    doc.write_text("# Title\n\nbefore\n")
    g.write_table(text, str(doc))
    g.write_table(text.replace("(adj)", "(ADJ)"), str(doc))
    out = doc.read_text()
    assert out.startswith("# Title\n\nbefore\n") and out.count(g.MARKER_BEGIN) == 1
    assert "(ADJ)" in out and "(adj)" not in out
    doc.write_text(out + "\nafter\n")
    g.write_table(text, str(doc))
    assert doc.read_text().endswith("\nafter\n")


def test_raw_margins_when_the_luck_is_unknown(tmp_path):
    synthetic_os_journal(tmp_path / "x.jsonl", [(1.0, 0), (3.0, 0)], luck=False)
    f = g.figures(str(tmp_path / "x.jsonl"))
    assert not f.adjusted and f.margin == f.raw == 2.0 and f.stderr == pytest.approx(1.0)


def game(plays, decisions_at, engines):
    """Events of a 2-player round: each play one event; decisions where listed."""
    events = [{"seat": k % 2, "play": p} for k, p in enumerate(plays)]
    decisions = [{"event": e, "seat": e % 2, "engine": engines[e % 2], "plays": 2, "tiles": 2,
                  "plays_made": e, "reserve": r} for e, r in decisions_at]
    return {"events": events, "decisions": decisions, "gained": [0, 0]}


def test_phases_split_the_margin_where_the_games_part(tmp_path):
    path = tmp_path / "default-vs-openspiel-100ms-2p.jsonl"
    j = synthetic_os_journal(path, [])
    spots = [(1, 14), (5, 10), (6, 2)]
    line = ["1-1", "1-2:L", "2-3:L", "1-4:R", "4-5:R"]       # ends 3 and 5 after it
    sets = [
        # part at the answer to the lead: another tile
        (["1-1", "1-2:L", "2-2:L"], ["1-1", "1-3:L", "3-3:R"], 1.0, 0.0),
        # part in the draw phase: the same tile at the other end (3-5 on 3 or on 5)
        (line + ["3-5:L"], line + ["3-5:R"], -2.0, -1.0),
        # part at the end: another tile
        (line + ["5-5:R", "3-6:L"], line + ["5-5:R", "0-3:L"], 3.0, 1.0),
        # part at the answer to the lead, on mirror twins (1-2 either side of 1-1)
        (["1-1", "1-2:L"], ["1-1", "1-2:R"], 0.5, 0.25),
        # never part
        (["1-1", "1-2:L"], ["1-1", "1-2:L"], 0.0, 0.0),
    ]
    for i, (p0, p1, m, lk) in enumerate(sets):
        j.append({"set": {"index": i, "margin": m, "luck": lk, "rounds": 2,
                          "search_time": {"A": [0, 0], "B": [0, 0]},
                          "games": [game(p0, spots, "AB"), game(p1, spots, "BA")]}})
    out = g.phases(str(path))
    assert "| lead and first plays | tile | 1 | +1.000 ± — | +0.200 |" in out
    assert ("| lead and first plays | end only, mirror twins (one choice) | 1 | +0.250 ± — "
            "| +0.050 |") in out
    assert "| draw phase | end only (same tile) | 1 | -1.000 ± — | -0.200 |" in out
    assert "| end (no draw left: exact endgame) | tile | 1 | +2.000 ± — | +0.400 |" in out
    assert "| never part | — | 1 | 0 | 0 |" in out
    assert "| **all** | | 5 | | +0.450 |" in out
    assert g.line_ends([{"play": p} for p in line]) == (3, 5, False, False)


def test_openspiel_cells_resume_too(monkeypatch, tmp_path):
    """The OpenSpiel cells' loop (the instrument's games stubbed): a resumed run plays only
    the sets its journal lacks."""
    played = []

    def fake_set(tools, settings, index):
        played.append(index)
        return {"index": index, "margin": float(index), "luck": 0.5, "rounds": 2,
                "search_time": {"A": [1, 0.1], "B": [1, 0.1]}, "games": []}

    monkeypatch.setattr(g, "play_os_set", fake_set)
    monkeypatch.setattr(g, "find_tools", lambda option: (object(), None))
    cell = "default-vs-openspiel-10ms-2p"
    args = ["run", cell, "--pairs", "4", "--quiet", "--dir", str(tmp_path)]
    assert g.main(args) == 0 and played == [0, 1, 2, 3]
    path = tmp_path / f"{cell}.jsonl"
    kept = [ln for ln in path.read_text().splitlines(keepends=True)
            if '"index":2' not in ln and '"index":3' not in ln]
    path.write_text("".join(kept))
    played.clear()
    assert g.main(args) == 0 and played == [2, 3]
    f = g.figures(str(path))
    assert f.sets == 4 and f.margin == pytest.approx(1.0) and f.raw == pytest.approx(1.5)


def test_losses_table_sums_each_engines_losses_a_round_by_phase():
    header = g.parse_cell("default-vs-openspiel-100ms-2p").settings(2, 1)
    d = lambda eng, ph, loss: {"engine": eng, "phase": g.PHASES[ph], "loss": loss, "se": 0.1,
                               "exact": ph == 2, "played": "1-2:L", "best": "1-3:R",
                               "position": "p"}
    judged = {0: {"decisions": [d("A", 0, 0.2), d("B", 0, 1.0), d("B", 2, 0.4)]},
              1: {"decisions": [d("A", 1, 0.0), d("B", 1, 0.6), d("A", 2, 0.2)]}}
    out = g.losses_table(header, judged, 4000)
    # per set, losses over its two rounds / 2; B − A set by set
    assert "| lead and first plays | 1 | +0.050 ± 0.050 | 1 | +0.250 ± 0.250 | +0.200 ± 0.200 |" in out
    assert "| all | 3 | +0.100 ± 0.000 | 3 | +0.500 ± 0.200 | +0.400 ± 0.200 |" in out
    assert "2 of the judged decisions were valued by the exact endgame." in out
    assert out.index("- 1.00 ± 0.10: B played") < out.index("- 0.60 ± 0.10: B played")


def test_a_cell_another_run_is_writing_is_skipped_not_played_twice(fast_engines, tmp_path,
                                                                   capsys):
    # Two runs of the same cell (a queue started twice) would play the same sets into the
    # same journal: the second is refused at once and the command goes on with its other cells.
    from bergen_search.runs.files import OutputLock
    cell, other = "default-vs-greedy-10ms-2p", "default-vs-flat-10ms-2p"
    path = tmp_path / f"{cell}.jsonl"
    with OutputLock(str(path)):
        assert g.main(["run", cell, other, "--pairs", "2", "--seed", "5", "--quiet",
                       "--dir", str(tmp_path)]) == 0
        out = capsys.readouterr().out
        assert (f"{cell}: skipped: {path} is being written by another bergen run (process "
                f"{os.getpid()})") in out
        assert not path.exists()
        assert (tmp_path / f"{other}.jsonl").exists()
    # Once the other run has ended, the cell plays, and gives its lock back at the end.
    assert g.main(["run", cell, "--pairs", "2", "--seed", "5", "--quiet",
                   "--dir", str(tmp_path)]) == 0
    assert len([x for x in lines(path) if "set" in x]) == 2
    assert not (tmp_path / f"{cell}.jsonl.lock").exists()


def test_compare_pairs_two_runs_set_by_set(fast_engines, tmp_path, capsys):
    # Two runs on the same deals: the paired difference is the mean of the per-set
    # differences, with their own spread; runs on other deals are refused.
    cell = "default-vs-greedy-10ms-2p"
    one, two, other = tmp_path / "one", tmp_path / "two", tmp_path / "other"
    for d, pairs, seed in ((one, 6, 5), (two, 4, 5), (other, 4, 6)):
        assert g.main(["run", cell, "--pairs", str(pairs), "--seed", str(seed), "--quiet",
                       "--dir", str(d)]) == 0
    capsys.readouterr()
    a, b = str(one / f"{cell}.jsonl"), str(two / f"{cell}.jsonl")
    assert g.main(["compare", a, b]) == 0
    out = capsys.readouterr().out
    assert "4 sets in common (before 6, after 4)" in out
    # The same engines on the same deals: every set plays the same, the difference is 0.
    assert "| raw | " in out and "| +0.000 ± 0.000 | [+0.000, +0.000] |" in out
    ha, sa, _ = g.Journal(a).read()
    ms = g.set_margins(ha, {i: sa[i] for i in range(4)})
    base, se = g.mean_se([r for r, _ in ms])
    assert f"| raw | {g.fmt_num(base)} ± {g.fmt_num(se, '.3f')} |" in out
    assert g.main(["compare", a, str(other / f"{cell}.jsonl")]) == 2
    assert "not played on the same deals (seed differ)" in capsys.readouterr().err
