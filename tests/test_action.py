"""The action model behind `inference=action` (information/action.py, issue 43): a chance
for each play a hand could make, and tile factors moved toward the hands that explain the
plays seen. The no-peek and brute-force checks of every inference value cover it too
(tests/test_engine_contract.py, tests/test_inference.py)."""
from __future__ import annotations

import pytest

from bergen_search.errors import BergenError
from bergen_search.formats.game import load_game
from bergen_search.game.tiles import parse_tile
from bergen_search.information.action import ActionModel, action_model, candidates
from bergen_search.information.infoset import ObservedPlay
from bergen_search.search.api import Limits, search

T = parse_tile


def _play(move_tile, end, left=3, right=5, line_mask=0):
    return ObservedPlay(event=5, seat=1, left=left, right=right, left_double=False,
                        right_double=False, line_mask=line_mask, move=T(move_tile) * 2 + end,
                        drew=False)


def test_the_chances_of_a_hands_plays_sum_to_one():
    model = action_model()
    hand = 1 << T("3-4") | 1 << T("5-6") | 1 << T("3-5") | 1 << T("0-1")
    moves = candidates(hand, 3, 5, False, False)
    assert sorted(moves) == sorted([T("3-4") * 2, T("5-6") * 2 + 1, T("3-5") * 2,
                                    T("3-5") * 2 + 1])
    total = sum(model.likelihood(_play(("3-4", "5-6", "3-5", "3-5")[k],
                                       (0, 1, 0, 1)[k]), hand) for k in range(4))
    assert total == pytest.approx(1.0)
    assert model.likelihood(_play("2-2", 0, left=2), hand) == 0.0    # a tile it did not hold
    assert model.likelihood(_play("3-4", 0), 1 << T("3-4")) == 1.0   # its only play


def test_a_play_that_scores_is_likelier_than_one_that_does_not():
    """The fitted weights say what the games say: a seat that could make a match made it."""
    model = action_model()
    hand = 1 << T("3-3") | 1 << T("3-4")
    scoring = model.likelihood(_play("3-3", 1, left=3, right=3), hand)
    assert scoring > 0.6
    flat = ActionModel((0.0,) * len(model.weights))
    assert flat.likelihood(_play("3-3", 1, left=3, right=3), hand) == pytest.approx(0.5)


def test_action_is_a_setting_and_a_bad_one_is_one_line():
    info = load_game(open("examples/decision.json").read())
    res = search(info, Limits(iterations=300), seed=2, inference="action")
    assert res.info["settings"]["inference"] == "action"
    with pytest.raises(BergenError, match="inference must be on, off, learned, action or action-sir"):
        search(info, Limits(iterations=300), seed=2, inference="actions")
