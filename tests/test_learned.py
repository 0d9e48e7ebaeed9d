"""The learned belief model (`information/learned.py`): its features have known answers, the
shipped weights are checked and cover every table shape, a play's ratios are computed once,
and a model that is not this version's is refused."""
from __future__ import annotations

import copy
import math

import pytest

from bergen_search.errors import BergenError
from bergen_search.game.rules import Rules
from bergen_search.game.tiles import N_TILES, parse_tile
from bergen_search.information.infoset import ObservedPlay
from bergen_search.information.learned import (
    FEATURES,
    LearnedModel,
    check_model_data,
    learned_model,
    model_data,
    play_relation,
    table_key,
)


def t(text: str) -> int:
    return parse_tile(text)


def play(left, right, tile, end, line, left_double=False, right_double=False):
    """Seat 1's play of `tile` on `end` (0 left, 1 right) at ends left|right."""
    mask = sum(1 << x for x in line)
    return ObservedPlay(3, 1, left, right, left_double, right_double, mask, t(tile) * 2 + end,
                        False)


def test_features_known_answers():
    # ends 2|5 (line 2-3 3-5), seat 1 plays 5-6 on the right: covers 5, opens 6.
    d = play(2, 5, "5-6", 1, [t("2-3"), t("3-5")])
    assert play_relation(d, t("2-5")) == ("missed_double",)     # a 2-point match passed up
    assert play_relation(d, t("0-6")) == ("opened",)
    assert play_relation(d, t("6-6")) == ("opened", "opened_double")
    assert play_relation(d, t("2-6")) == ("opened_fitting", "fit_early", "left_match")
    assert play_relation(d, t("1-2")) == ("fitting_other_end", "fit_early")
    assert play_relation(d, t("4-5")) == ("fitting_same_end", "fit_heavy", "fit_early")
    assert play_relation(d, t("2-2")) == ("fitting_double", "fit_early")
    assert play_relation(d, t("0-1")) == ()                          # says nothing
    # a double at an end: its match is worth 3 (missed_triple); late in the round
    line = [t(x) for x in ("4-4", "4-0", "0-1", "1-3", "3-3", "3-6", "6-0", "0-5", "5-1")]
    dd = play(4, 1, "1-2", 1, line, left_double=True)
    assert play_relation(dd, t("1-4")) == ("missed_triple", "missed_late", "late")
    assert play_relation(dd, t("2-4")) == ("opened_fitting", "fit_late", "fit_end_double",
                                           "left_match", "late")
    # right after the lead (one tile on the line)
    d1 = play(3, 3, "3-0", 0, [t("3-3")], left_double=True, right_double=True)
    assert play_relation(d1, t("0-0")) == ("opened", "opened_double", "line_short")


def test_every_feature_can_be_on():
    """Each feature is the answer for some legal (play, tile): none is dead code."""
    from bergen_search.game.tiles import TILES_WITH
    seen = set()
    lines = [[0], [0, 1], [0, 1, 2, 3, 4, 5, 6], list(range(10))]
    for left in range(7):
        for right in range(7):
            for u in range(N_TILES):
                for end in (0, 1):
                    if not TILES_WITH[right if end else left] >> u & 1:
                        continue
                    for line in lines:
                        mask = sum(1 << x for x in line) & ~(1 << u)
                        d = ObservedPlay(3, 1, left, right, left == 6, False, mask,
                                         u * 2 + end, False)
                        for other in range(N_TILES):
                            if other != u and not mask >> other & 1:
                                seen.update(play_relation(d, other))
    assert seen == set(FEATURES)


def test_the_shipped_model_covers_every_table_shape():
    data = model_data()
    assert set(data["models"]) == {"2", "3", "4", "4p"}
    assert data["fitted_by"].startswith("python benchmarks/train_belief.py fit")
    for key, m in data["models"].items():
        assert len(m["weights"]) == len(FEATURES)
        fig = data["training"]["figures"][key]
        assert fig["cross_entropy_fitted"] < fig["cross_entropy_uniform"]
    assert learned_model(Rules()).key == "2"
    assert learned_model(Rules(players=4, partnerships=True)).key == "4p"
    assert learned_model(Rules(draw="one")).key == "2"             # variants share the shape's
    assert table_key(Rules(players=3)) == "3"


def test_a_plays_ratios_are_computed_once_and_agree_with_its_relations():
    model = learned_model(Rules())
    d = play(2, 5, "5-6", 1, [t("2-2"), t("2-5")])
    ratios = model.play_ratios(d)
    assert model.play_ratios(d) is ratios                            # cached
    for x in range(N_TILES):
        blocked = d.line_mask | 1 << (d.move >> 1)
        want = 1.0 if blocked >> x & 1 else model.ratio(play_relation(d, x))
        assert ratios[x] == want
    assert ratios[t("0-6")] == pytest.approx(math.exp(model.weights[FEATURES.index("opened")]))


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(format="bergen-belief-model/0"), "format"),
    (lambda d: d.update(features=list(FEATURES)[:-1]), "features"),
    (lambda d: d.update(models={}), "models"),
    (lambda d: d["models"]["2"].update(weights=[0.0] * (len(FEATURES) - 1)), "weights"),
    (lambda d: d["models"]["2"]["weights"].__setitem__(0, float("nan")), "weights"),
    (lambda d: d["models"]["2"]["weights"].__setitem__(0, 50.0), "weights"),
])
def test_a_model_file_not_this_versions_is_refused(change, field):
    data = copy.deepcopy(model_data())
    change(data)
    with pytest.raises(BergenError) as e:
        check_model_data(data)
    assert e.value.field == field


def test_a_model_needs_finite_weights_within_bounds():
    with pytest.raises(BergenError):
        LearnedModel((0.0,) * 3)
