"""benchmarks/endgame_stage.py: its corpus, the phases an attempt reports, and the deviation
study (these tests lived in the script, where `pytest tests benchmarks` never collected
them: only `bench_*.py` files are)."""
import endgame_stage as es


def test_the_corpus_and_the_phases():
    """The kept corpus gives its 491 stage decisions; an attempt reports every phase it went
    through, and the summary counts what it saw."""
    infos = es.corpus_infos()
    assert len(infos) == 491
    rows = es.attempts(infos[:8])
    out = es.summary(rows)
    assert out["positions"] == 8
    assert out["solved"] + out["declined_at_once"] + out["failed_after_building"] == 8
    for r in rows:
        assert "predict" in r["phases"] and set(r["phases"]) <= set(es.PHASES)
        if r["solved"]:
            assert {"deals", "build", "iterations", "checks", "report"} <= set(r["phases"])
            assert r["pairs"] <= r["work"]


def test_the_deviation_study_and_the_switch():
    """`--deviations` counts each solved decision's moves outside the mix and how many were
    refined; `--no-refine` leaves the subgames out of an attempt."""
    infos = es.corpus_infos()[:12]
    rows = es.deviation_study(infos)
    assert rows and any(r["off_support"] for r in rows)
    for r in rows:
        assert 0 <= r["refined"] <= r["off_support"]
        assert r["lowered"] + r["raised"] <= r["refined"]
    plain = es.attempts(infos, refine=False)
    assert not any("refine" in r["phases"] for r in plain)
    assert any("refine" in r["phases"] for r in es.attempts(infos))
