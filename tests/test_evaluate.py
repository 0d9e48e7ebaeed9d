"""search/evaluate.py (`answer`, `evaluate`) and the label thresholds `analyze` takes."""
import json

import pytest
from click.testing import CliRunner

from bergen_search.analysis.verdicts import DEFAULT_THRESHOLDS, THRESHOLDS, label_thresholds
from bergen_search.cli import main
from bergen_search.errors import BergenError
from bergen_search.formats import load_game
from bergen_search.formats.notation import Move
from bergen_search.search import evaluate as ev_module
from bergen_search.search.api import Limits, SearchResult, search
from bergen_search.search.evaluate import (SIDE_OBJECTIVES, Evaluation, NothingFinished, answer,
    evaluate, side_settings)
from bergen_search.search.registry import Settings

POSITION = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"
LIMITS = Limits(iterations=600)


@pytest.fixture(scope="module")
def info():
    return load_game(POSITION)


def _empty(interrupted):
    def fake_search(info, limits, **kw):
        return SearchResult(Move.parse("0-3:R"), [], 0.0, float("inf"), 0,
                            {"empty": True, "interrupted": interrupted})
    return fake_search


def test_answer_that_finished_nothing_says_why(info, monkeypatch):
    monkeypatch.setattr(ev_module, "search", _empty(True))
    with pytest.raises(NothingFinished) as caught:
        answer(info, Settings.of("ismcts"), "points", LIMITS, 0, 1)
    assert str(caught.value) == ("interrupted before the search finished a single iteration: "
                                 "no answer")
    with pytest.raises(NothingFinished, match="a single world"):
        answer(info, Settings.of("expectimax"), "points", LIMITS, 0, 1)
    assert not isinstance(caught.value, BergenError)     # Ctrl-C, not bad input: exit 130
    # not interrupted: too small a budget, and what to give
    monkeypatch.setattr(ev_module, "search", _empty(False))
    with pytest.raises(BergenError) as caught:
        answer(info, Settings.of("ismcts"), "points", Limits(time=0.001), 0, 1)
    assert caught.value.message == ("the search finished no iteration within the time limit "
                                    "of 0.001 s; give more --time")
    with pytest.raises(BergenError, match="expectimax at depth 6: one world takes longer"):
        answer(info, Settings.of("expectimax"), "points", Limits(time=0.001), 0, 1)


def test_evaluate_scores_every_side_for_both_objectives_and_eval_prints_it(info):
    """`bergen eval --json` is the evaluation's view: the same figures, rounded."""
    ev = evaluate(info, Settings.of("ismcts"), "points", LIMITS, seed=2)
    assert isinstance(ev, Evaluation)
    assert ev.searched == SIDE_OBJECTIVES and not ev.interrupted
    assert ev.side_algorithm == "ismcts"
    assert [s.side for s in ev.sides] == list(range(info.rules.n_sides))
    assert all(s.expected_points is not None and 0.0 <= s.p_win_match <= 1.0 for s in ev.sides)
    # The value is the chosen search's: the same as asking for it alone, which `answer` does.
    alone = answer(info, Settings.of("ismcts"), "points", LIMITS, 2, 1)
    plain = search(info, LIMITS, seed=2, algorithm="ismcts", objective="points")
    assert (ev.result.value, ev.result.best) == (alone.value, alone.best) == (plain.value,
                                                                              plain.best)
    assert alone.info["iterations"] == plain.info["iterations"]
    # Each side's points are the chosen search's figures after its best move.
    sides = alone.info["sides"][alone.moves[0].move]
    assert [s.expected_points for s in ev.sides] == list(sides)
    res = CliRunner().invoke(main, ["eval", "--position", POSITION, "--iterations", "600",
                                    "--seed", "2", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["sides"] == [{"side": s.side, "expected_points": round(s.expected_points, 6),
                             "p_win_match": round(s.p_win_match, 6)} for s in ev.sides]
    assert doc["value"] == round(ev.result.value, 6)


@pytest.mark.parametrize("objective, chosen_cut", [("points", False), ("match", True)])
def test_evaluate_after_ctrl_c_starts_no_more_searches(info, monkeypatch, objective, chosen_cut):
    """Ctrl-C in the chosen search, or a side search cut early: no more searches, figures None."""
    real = ev_module.search
    calls = []

    def cut(info_, limits, **kw):
        calls.append(kw["objective"])
        if len(calls) == 2:
            return _empty(True)(info_, limits, **kw)
        res = real(info_, limits, **kw)
        res.info["interrupted"] = chosen_cut
        return res
    monkeypatch.setattr(ev_module, "search", cut)
    ev = evaluate(info, Settings.of("ismcts"), objective, LIMITS, seed=1)
    assert calls == ([objective] if chosen_cut else ["points", "match"])
    assert ev.interrupted and ev.searched == (objective,)
    got, lost = ("expected_points", "p_win_match")[::1 if objective == "points" else -1]
    assert all(getattr(s, lost) is None and getattr(s, got) is not None for s in ev.sides)


def test_expectimax_takes_the_sides_from_ismcts(info):
    """Side figures come from an engine that reports them."""
    chosen = Settings.of("ismcts", {"inference": "off"})
    assert side_settings(chosen) is chosen
    assert side_settings(Settings.of("expectimax", {"depth": 3})) == Settings.of("ismcts")
    ev = evaluate(info, Settings.of("expectimax"), "points", Limits(iterations=5), seed=0)
    assert ev.side_algorithm == "ismcts" and ev.searched == SIDE_OBJECTIVES
    assert ev.result.info["algorithm"] == "expectimax"


def test_nothing_finished_through_the_cli_is_one_line_and_130(monkeypatch):
    monkeypatch.setattr(ev_module, "search", _empty(True))
    for command in ("best", "eval"):
        res = CliRunner().invoke(main, [command, "--position", POSITION])
        assert res.exit_code == 130
        assert res.output == ("bergen: interrupted before the search finished a single "
                              "iteration: no answer\n")


def test_label_thresholds():
    assert label_thresholds() == THRESHOLDS == DEFAULT_THRESHOLDS["points"]
    assert label_thresholds("match") == {"inaccuracy": 0.03, "mistake": 0.07, "blunder": 0.15}
    assert label_thresholds("points", mistake=0.5, blunder=None) == {
        "inaccuracy": 0.25, "mistake": 0.5, "blunder": 1.2}
    with pytest.raises(BergenError, match="inaccuracy <= mistake <= blunder"):
        label_thresholds("match", inaccuracy=0.1)
    with pytest.raises(TypeError):
        label_thresholds("points", blundr=1.0)

