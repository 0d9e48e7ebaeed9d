"""The luck of the draws and the arena's luck-adjusted margin: every draw's luck has mean zero
over the reserve (every draw of many rounds, every table shape); the C rollouts equal their
Python twin; statistically, the adjusted margin keeps the raw mean (lab/luck/test_luck_linear.py
catches a biased correction with the linear estimate)."""
import json
import math

import pytest
from click.testing import CliRunner
from support import sizes

from bergen_search.cli import main
from bergen_search.errors import BergenError
from bergen_search.game.backend import ACTIVE, REFERENCE, load_core
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW
from bergen_search.play import luck
from bergen_search.play.arena import play_set, run_arena
from bergen_search.play.engines import parse_engine_spec
from bergen_search.play.luck import (RolloutModel, draw_luck, match_luck, position_fields,
                                     reference_rollouts, round_luck, side_margin)
from bergen_search.views.arena import arena_text

GREEDY, RANDOM = parse_engine_spec("greedy"), parse_engine_spec("random")
SHAPES = {"2p": Rules(), "3p": Rules(players=3), "4p": Rules(players=4),
          "4p-partners": Rules(players=4, partnerships=True), "draw-one": Rules(draw="one")}
CORE = load_core()
needs_core = pytest.mark.skipif(CORE is None, reason="the compiled core is not built")


def before_draws(rules, log, backend=ACTIVE):
    """The fully known states just before each draw of the first round of `log`."""
    rnd = log.rounds[0]
    state = backend.new_state(rules, rnd.hands, rnd.reserve, log.start_scores)
    for _, action, _ in rnd.events:
        if action == DRAW:
            yield state
        state = state.apply(action)


def draws_of(rules, seeds, backend=ACTIVE):
    """The states before each draw of first rounds, random and greedy seated by turns."""
    for seed in seeds:
        mix = [("random", "greedy")[(seed + s) % 2] for s in range(rules.players)]
        yield from before_draws(rules, backend.play_match(rules, mix, seed, max_rounds=1),
                                backend)


# ---- each draw's luck has mean zero over the reserve; the C rollouts equal the Python ones ----
@pytest.mark.parametrize("name", SHAPES)
def test_every_draws_luck_has_mean_zero_and_the_core_rollouts_equal_the_reference(name):
    rules = SHAPES[name]
    model = RolloutModel(8, 0.7)
    seen = compared = 0
    # with two sides also the chance to win, from a made-up equity table
    equity = ([((a * 7 + b * 3) % 10) / 10 for a in range(rules.target)
               for b in range(rules.target)] if rules.n_sides == 2 else None)
    for seed in range(12):
        for state in draws_of(rules, [seed]):
            got, values = draw_luck(model, state)
            # the candidates are exactly the tiles still in the reserve, kept ones included
            assert sorted(values) == sorted(state.reserve)
            assert len(got) == rules.n_sides
            for j in range(rules.n_sides):
                mean = math.fsum(v[j] for v in values.values()) / len(values)
                assert got[j] == pytest.approx(values[state.reserve[0]][j] - mean, abs=1e-12)
                deviations = [v[j] - mean for v in values.values()]
                assert abs(math.fsum(deviations)) < 1e-9
            seen += 1
            if seed >= 5 or CORE is None:
                continue
            from bergen_search.play._luck import draw_rollouts
            for engine in (0, 1):
                args = (rules, list(state.hands), list(state.reserve))
                kwargs = dict(position_fields(state), playouts=3, seed=77, engine=engine,
                              equity=equity)
                rows = draw_rollouts(*args, **kwargs)
                assert rows == reference_rollouts(*args, **kwargs)
                assert all(len(row) == rules.n_sides * (2 if equity else 1) for row in rows)
                compared += 1
    assert seen > 12 and (compared >= 10 or CORE is None)
    if equity and CORE is not None:
        with pytest.raises(ValueError, match="equity"):
            draw_rollouts(*args, **dict(kwargs, equity=equity[:-1]))


def test_round_luck_replays_the_log_and_sums_the_draws():
    rules = Rules()
    log = ACTIVE.play_match(rules, ["random", "greedy"], 9, max_rounds=1)
    model = RolloutModel(8, 0.7)
    expected = [0.0, 0.0]
    for state in before_draws(rules, log):
        got, _ = draw_luck(model, state)
        expected = [a + b for a, b in zip(expected, got)]
    assert round_luck(rules, log.rounds[0], log.start_scores, model) == pytest.approx(expected)
    active = match_luck(rules, log, model)
    assert active == pytest.approx(expected)
    assert match_luck(rules, log, model, backend=REFERENCE) == pytest.approx(active, abs=1e-12)
    # two sides: the margins mirror; the chances to win sum to one, so their luck to zero
    both = match_luck(rules, log)
    assert side_margin(both[:2], 0) == pytest.approx(-side_margin(both[:2], 1))
    assert len(both) == 4 and both[2] == pytest.approx(-both[3], abs=1e-12)


def test_a_broken_log_is_an_error():
    rules = Rules()
    log = ACTIVE.play_match(rules, ["random", "random"], 2, max_rounds=1)
    rnd = log.rounds[0]
    draw_at = next(i for i, e in enumerate(rnd.events) if e[1] == DRAW)
    seat, action, tile = rnd.events[draw_at]
    wrong = next(t for t in rnd.reserve if t != tile)
    rnd.events[draw_at] = (seat, action, wrong)
    with pytest.raises(BergenError, match="next tile"):
        round_luck(rules, rnd, log.start_scores)
    rnd.events[draw_at] = (1 - seat, action, tile)
    with pytest.raises(BergenError, match="out of turn"):
        round_luck(rules, rnd, log.start_scores)


def test_the_model_file_is_this_versions():
    data = luck.model_data()
    for key in ("2", "3", "4", "4p"):
        assert 0.0 < data["rollout"]["scale"][key] <= 1.5
    assert luck.luck_estimate_name() == f"rollout:{data['rollout']['playouts']}"


# ---- the rollouts are a fixed function of the position ------------------------------------
def test_rollout_values_ignore_the_reserve_order():
    """The estimate sees the reserve's contents, never its order (which tells the next tile)."""
    rules = Rules()
    state = next(draws_of(rules, range(6, 20)))
    model = RolloutModel(4, 1.0)
    first = model.draw_values(state)

    class Reordered:
        def __init__(self, s):
            self._s = s
            self.reserve = tuple(reversed(s.reserve))

        def __getattr__(self, name):
            return getattr(self._s, name)

    assert model.draw_values(Reordered(state)) == first


# ---- the arena ----------------------------------------------------------------------------
def test_arena_reports_both_margins_and_no_luck_adjust_restores_the_raw_one():
    """`arena --round`: the luck fields (JSON; the lines of the text are GUIDE.md's --round
    example), none with --no-luck-adjust (from --start-scores), the raw figures the same either
    way; one set of whole matches: no interval, still printed."""
    runner = CliRunner()
    args = ["arena", "greedy", "random", "--games", "20", "--round", "--seed", "2", "--quiet"]
    raw = runner.invoke(main, args + ["--no-luck-adjust", "--start-scores", "10,12"])
    assert raw.exit_code == 0 and "luck" not in raw.output
    assert "single rounds from 10-12" in raw.output and "ties" in raw.output
    d = json.loads(runner.invoke(main, args + ["--json"]).output)
    assert d["mode"] == "round" and d["rounds"] == d["matches"] == 40
    assert d["adjusted_win_rate"] is None        # single rounds: no luck-adjusted win rate
    assert d["wins"][0] + d["wins"][1] + d["ties"] == 40
    for key in ("luck_adjusted", "luck_estimate", "luck_per_round", "luck_stderr",
                "adjusted_margin_per_round", "adjusted_margin_stderr", "variance_ratio"):
        assert key in d
    assert d["luck_adjusted"] is True and d["luck_estimate"].startswith("rollout:")
    assert d["adjusted_margin_per_round"] == pytest.approx(
        d["margin_per_round"] - d["luck_per_round"], abs=2e-6)
    assert d["variance_ratio"] > 0 and d["variance_ratio"] == pytest.approx(
        (d["margin_stderr"] / d["adjusted_margin_stderr"]) ** 2, rel=1e-4)
    e = json.loads(runner.invoke(main, args + ["--json", "--no-luck-adjust"]).output)
    assert e["luck_adjusted"] is False and e["adjusted_margin_per_round"] is None
    assert e["variance_ratio"] is None and e["luck_estimate"] is None
    # the raw figures keep their meaning, with or without the adjustment
    for key in ("margin_per_round", "margin_stderr", "win_rate", "ci95", "points"):
        assert d[key] == e[key]
    out = runner.invoke(main, ["arena", "greedy", "random", "--games", "1", "--quiet"])
    assert out.exit_code == 0, out.output
    assert "matches won less the luck" in out.output and "[" not in out.output.splitlines()[-2]


@pytest.mark.parametrize("single_round", [True, False])
def test_set_luck_is_the_sum_over_seatings_in_the_margins_unit(single_round):
    rules = Rules(players=3)
    sr = play_set(rules, GREEDY, RANDOM, 8, 3, keep_logs=True, single_round=single_round)
    expected = math.fsum(side_margin(match_luck(rules, g.log), g.seating) for g in sr.logs)
    assert sr.luck == pytest.approx(expected, abs=1e-12)
    assert play_set(rules, GREEDY, RANDOM, 8, 3, single_round=single_round,
                    luck_adjust=False).luck is None
    # per-side numbers equal in every seating (a deal's value) sum to zero over a set: the deal
    # needs no correction
    for values in ([3.0, -1.0], [2.0, 0.5, 4.0], [1.0, 2.0, 3.0, 5.0]):
        assert abs(math.fsum(side_margin(values, k) for k in range(len(values)))) < 1e-12


@needs_core
@pytest.mark.parametrize("games", sizes(100, 600))
def test_adjusted_and_raw_means_agree_and_the_error_shrinks(games):
    """At 100 sets the means 0.3 luck errors apart, the variance ratio 1.48 (600: 0.34, 1.54)."""
    r = run_arena(Rules(), GREEDY, RANDOM, games=games, seed=2718, single_round=True)
    diff = r.margin_per_round - r.adjusted_margin_per_round
    assert abs(diff) < 3.5 * r.luck_stderr
    assert r.adjusted_margin_stderr < r.margin_stderr
    assert r.variance_ratio > 1.1


def test_whole_matches_get_a_luck_adjusted_win_rate():
    rules = Rules()
    r = run_arena(rules, GREEDY, RANDOM, games=8, seed=31, keep_logs=True)
    assert r.adjusted_win_rate is not None and r.win_variance_ratio > 0
    lo, hi = r.adjusted_ci95
    assert lo < r.adjusted_win_rate < hi
    # A's chance-to-win luck over the matches separates the two rates
    n = rules.n_sides
    luck = math.fsum(match_luck(rules, g.log)[n + g.seating] for g in r.played)
    assert r.adjusted_win_rate == pytest.approx(r.win_rate - luck / r.matches, abs=1e-9)
    d = r.to_json()
    assert d["adjusted_win_rate"] == pytest.approx(r.adjusted_win_rate, abs=1e-6)
    assert "chance to win" in arena_text(r)
    # three or more sides (no equity table) have none, as single rounds (the arena test above)
    three = run_arena(Rules(players=3), GREEDY, RANDOM, games=5, seed=1)
    assert three.adjusted_win_rate is None and three.adjusted_margin_per_round is not None
    assert run_arena(rules, GREEDY, RANDOM, games=5, seed=1,
                     luck_adjust=False).to_json()["adjusted_ci95"] is None
