"""endgame_stage.py: its corpus, the phases an attempt reports, and the deviation study, on
the sample of the measured corpus (`SAMPLE`: its first 15 matches)."""
import endgame_stage as es


def test_the_corpus_and_the_phases():
    """The sample gives its 46 stage decisions; an attempt reports every phase it went
    through, and the summary counts what it saw."""
    infos = es.corpus_infos([es.SAMPLE])
    assert len(infos) == 46
    rows = es.attempts(infos[:8])
    out = es.summary(rows)
    assert out["positions"] == 8
    assert out["solved"] + out["declined_at_once"] + out["failed_after_building"] == 8
    from bergen_search.play.bench import solve_time_summary
    times = solve_time_summary([r["seconds"] if r["solved"] else float("inf") for r in rows])
    for key in ("median_s", "worst_solved_s", "within_0.1s", "within_1s"):
        assert out[key] == times[key], key          # the package's one summary
    for r in rows:
        assert "predict" in r["phases"] and set(r["phases"]) <= set(es.PHASES)
        if r["solved"]:
            assert {"deals", "build", "iterations", "checks", "report"} <= set(r["phases"])
            assert r["pairs"] <= r["work"]


def test_the_deviation_study_and_the_switch():
    """`--deviations` counts each solved decision's moves outside the mix and how many were
    refined; `--no-refine` leaves the subgames out of an attempt."""
    infos = es.corpus_infos([es.SAMPLE])[:12]
    rows = es.deviation_study(infos)
    assert rows and any(r["off_support"] for r in rows)
    for r in rows:
        assert 0 <= r["refined"] <= r["off_support"]
        assert r["lowered"] + r["raised"] <= r["refined"]
    plain = es.attempts(infos, refine=False)
    assert not any("refine" in r["phases"] for r in plain)
    assert any("refine" in r["phases"] for r in es.attempts(infos))


def test_the_bracket_summary_and_the_recheck_of_the_cut(tmp_path, capsys):
    """`--bracket` counts the brackets cut at a horizon; `--recheck-cut` brackets those
    decisions of an earlier run again and compares their widest ceiling - floor."""
    import json
    infos = es.corpus_infos([es.SAMPLE])
    rows = es.attempts(infos[:40], iterations=20_000, bracketing=True)
    out = es.summary(rows)
    cut = [r for r in rows if r.get("bracket", {}).get("cut")]
    assert out["bracketed_depth_limited"] == len(cut) and cut
    assert all(r["bracket"]["gap"] >= 0 and r["bracket"]["horizons"] for r in cut)
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"rows": rows}))
    doc = es.main(["--recheck-cut", str(run), "--iterations", "20000", "--quiet",
                   "--records", es.SAMPLE])
    assert doc["then"] == [r["bracket"]["gap"] for r in cut]
    assert doc["now"] == doc["then"]            # the same budget, the same brackets
    assert f"{len(cut)} decisions cut at a horizon" in capsys.readouterr().out
