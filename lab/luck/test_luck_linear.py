"""The linear luck estimate (luck_linear.py): its luck has mean zero over the reserve on every
table shape, and statistically, where a plausible bug is caught; a draw changes only what
drawing changes; the shipped file holds its coefficients."""
import math

import pytest

from bergen_search.errors import BergenError
from bergen_search.game.backend import ACTIVE
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW
from bergen_search.game.tiles import TILES_WITH
from bergen_search.play.luck import draw_luck, match_luck, model_data, side_margin
from luck_linear import SEAT_FEATURES, KnownPosition, ValueModel, default_model, side_features

SHAPES = (Rules(), Rules(players=3), Rules(players=4), Rules(players=4, partnerships=True),
          Rules(draw="one"))


def before_draws(rules, log):
    """The fully known states just before each draw of the first round of `log`."""
    rnd = log.rounds[0]
    state = ACTIVE.new_state(rules, rnd.hands, rnd.reserve, log.start_scores)
    for _, action, _ in rnd.events:
        if action == DRAW:
            yield state
        state = state.apply(action)


def draws_of(rules, seeds):
    """The states before each draw of the first rounds of some matches, random and greedy
    seated by turns."""
    for seed in seeds:
        mix = [("random", "greedy")[(seed + s) % 2] for s in range(rules.players)]
        yield from before_draws(rules, ACTIVE.play_match(rules, mix, seed, max_rounds=1))


@pytest.mark.parametrize("rules", SHAPES)
def test_every_draws_linear_luck_has_mean_zero_over_the_reserve(rules):
    model, seen = default_model(), 0
    for state in draws_of(rules, range(12)):
        got, values = draw_luck(model, state)
        assert sorted(values) == sorted(state.reserve) and len(got) == rules.n_sides
        for j in range(rules.n_sides):
            mean = math.fsum(v[j] for v in values.values()) / len(values)
            assert got[j] == pytest.approx(values[state.reserve[0]][j] - mean, abs=1e-12)
        seen += 1
    assert seen > 12


def test_a_draw_changes_only_what_drawing_changes():
    state = next(draws_of(Rules(), range(4, 20)))
    pos = KnownPosition.of(state)
    t = state.reserve[0]
    after = pos.drawn(t)
    assert after.hands[state.to_move] == pos.hands[state.to_move] | 1 << t
    assert after.reserve == pos.reserve & ~(1 << t) and after.reserve_size == pos.reserve_size - 1
    other = 1 - state.to_move
    assert after.hands[other] == pos.hands[other]
    assert len(side_features(after)[0]) == len(SEAT_FEATURES)
    log = ACTIVE.play_match(Rules(), ["random", "greedy"], 9, max_rounds=1)
    assert len(match_luck(Rules(), log, default_model())) == 2     # points only


def test_the_model_file_holds_this_versions_coefficients():
    data = model_data()["linear"]
    assert data["features"] == list(SEAT_FEATURES)
    for key in ("2", "3", "4", "4p"):
        assert len(data["weights"][key]) == len(SEAT_FEATURES) * (2 if key == "4p" else 1)
    with pytest.raises(BergenError, match="features"):
        ValueModel.from_dict({"features": ["size"], "weights": {}})


class FitOnly:
    """A plausible bug: the expectation taken over the reserve tiles that fit the line (as if
    the drawn tile were always played), not over every tile in the reserve."""

    def __init__(self, model):
        self.model = model

    def draw_values(self, state):
        values = self.model.draw_values(state)
        fits = TILES_WITH[state.left] | TILES_WITH[state.right]
        return {t: v for t, v in values.items() if fits >> t & 1 or t == state.reserve[0]}


def drawers_luck_z(rules, model, rounds, seed):
    """Per round, the summed luck of each draw for the side that drew (in the margin's unit);
    their mean over its standard error: z ~ N(0, 1) when every draw's luck has mean zero.
    (A duplicate set would hide a bias like FitOnly's: A draws in both seatings' shoes.)"""
    sums = []
    for i in range(rounds):
        log = ACTIVE.play_match(rules, ["greedy", "random"], 1000 * seed + i, max_rounds=1)
        total = 0.0
        for state in before_draws(rules, log):
            got, _ = draw_luck(model, state)
            total += side_margin(got, rules.side_of(state.to_move))
        sums.append(total)
    mean = math.fsum(sums) / rounds
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in sums) / (rounds - 1))
    return mean / (sd / math.sqrt(rounds))


def test_the_luck_has_mean_zero_and_a_biased_correction_is_caught():
    """The z of the drawers' luck over 200 rounds: 0.03, and -6.5 with FitOnly's bias: far
    from the 3.5 bound either way (the rollout estimate, whose values hardly depend on what
    fits, would not show this bias at that size)."""
    model = default_model()
    assert abs(drawers_luck_z(Rules(), model, 200, 18)) < 3.5
    assert abs(drawers_luck_z(Rules(), FitOnly(model), 200, 18)) > 3.5
