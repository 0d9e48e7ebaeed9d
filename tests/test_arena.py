"""The arena: duplicate sets, the intervals, parallel runs, single rounds. `random` and `greedy`
play, mostly without the luck adjustment (`luck_adjust=False`: the same games, without the
rollouts that cost a hundred times them); the luck's own tests are in test_luck.py."""
import math

import numpy as np
import pytest

from bergen_search.errors import BergenError
from bergen_search.formats.record import parse_record
from bergen_search.formats.record_io import write_record
from bergen_search.formats.replay import replay
from bergen_search.game.policy import greedy_choice
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import State
from bergen_search.play.arena import (MIN_SETS_NORMAL, ArenaResult, duplicate_interval,
    duplicate_interval_method, ratio_stderr, run_arena, seatings, wilson_interval)
from bergen_search.play.engines import parse_engine_spec
from bergen_search.views.arena import arena_text

GREEDY, RANDOM = parse_engine_spec("greedy"), parse_engine_spec("random")

RULE_SETS = {
    "2p": Rules(),
    "3p": Rules(players=3),
    "4p": Rules(players=4),
    "4p-partners": Rules(players=4, partnerships=True),
}


def comparable(result: ArenaResult) -> dict:
    """The JSON without what may differ between equal runs (time, worker count)."""
    d = result.to_json()
    del d["seconds"], d["workers"], d["seconds_per_search"]
    return d


# ---- the duplicate sets, and counting -------------------------------------------------------
def _seat_agrees_with_greedy(log):
    """Per seat: (decisions with a choice, of which the move greedy would have made)."""
    rules = log.rules
    tally = {s: [0, 0] for s in range(rules.players)}
    scores = log.start_scores
    for rnd in log.rounds:
        state = State.deal(rules, rnd.hands, rnd.reserve, scores)
        for seat, action, _tile in rnd.events:
            assert state.to_move == seat
            moves = state.legal_moves()
            if len(moves) > 1:
                tally[seat][0] += 1
                tally[seat][1] += greedy_choice(state, moves) == action
            state = state.apply(action)
        assert tuple(state.scores) == tuple(rnd.scores)
        scores = state.scores
    return tally


@pytest.mark.parametrize("name, seats", [
    ("2p", [(0,), (1,)]), ("3p", [(0,), (1,), (2,)]), ("4p", [(0,), (1,), (2,), (3,)]),
    ("4p-partners", [(0, 2), (1, 3)])])
def test_the_sets_their_seatings_and_the_counts(name, seats):
    """A's seats in each seating; every seating of a set plays the same deals; A's seats make
    greedy's moves, B's not always; the figures count the matches played."""
    rules = RULE_SETS[name]
    n = rules.n_sides
    assert seatings(rules) == seats
    r = run_arena(rules, "greedy", "random", games=10, seed=5, keep_logs=True,
                  luck_adjust=False)
    assert len(r.played) == 10 * n
    assert [(g.set_index, g.seating) for g in r.played] == [(i, k) for i in range(10)
                                                           for k in range(n)]
    compared = 0
    for i in range(10):
        group = r.played[i * n:(i + 1) * n]
        assert {g.seed for g in group} == {derive_seed(5, i)}
        first = group[0].log
        for g in group[1:]:
            common = min(len(first.rounds), len(g.log.rounds))
            assert common >= 1
            for a, b in zip(first.rounds[:common], g.log.rounds[:common]):
                assert list(a.hands) == list(b.hands)
                assert list(a.reserve) == list(b.reserve)
                compared += 1
    assert compared > 10 * (n - 1)
    random_disagrees = {s: 0 for s in range(rules.players)}
    for g in r.played:
        assert g.a_seats == seatings(rules)[g.seating]
        for seat, (choices, agree) in _seat_agrees_with_greedy(g.log).items():
            if seat in g.a_seats:
                assert agree == choices, (g.set_index, g.seating, seat)
            else:
                random_disagrees[seat] += choices - agree
    assert all(v > 0 for v in random_disagrees.values())
    assert (r.sets, r.seatings, r.matches) == (10, n, 10 * n)
    assert r.pairs == (10 if n == 2 else None)
    assert sum(r.wins) == r.matches
    a_wins = sum(g.log.winner == g.seating for g in r.played)
    assert r.wins[0] == a_wins == sum(r.a_wins_by_seating)
    assert r.win_rate == a_wins / r.matches
    assert r.rounds == sum(len(g.log.rounds) for g in r.played)
    a_points = sum(g.log.scores[g.seating] for g in r.played)
    b_points = sum(sum(g.log.scores) - g.log.scores[g.seating] for g in r.played) / (n - 1)
    assert r.points == (a_points, pytest.approx(b_points))
    assert r.points_per_round[0] == pytest.approx(a_points / r.rounds)
    assert r.points_per_round[1] == pytest.approx(b_points / r.rounds)
    assert r.margin_per_round == pytest.approx((a_points - b_points) / r.rounds)
    assert r.even_rate == pytest.approx(1 / n)
    assert r.ci95[0] <= r.win_rate <= r.ci95[1]
    assert r.set_scores == tuple(
        sum(g.log.winner == g.seating for g in r.played[i * n:(i + 1) * n]) / n
        for i in range(10))


def test_logs_progress_json_and_table():
    calls = []
    r = run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=3, seed=2, keep_logs=True,
                  luck_adjust=False, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)] and len(r.logs) == 6
    for g in r.played:
        report = replay(parse_record(write_record(g.log)))
        assert report["ok"] and report["winner"] == g.log.winner
    r = run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=10, seed=1, luck_adjust=False)
    d = r.to_json()
    assert r.played == []                   # no logs kept unless asked
    for key in ("games", "wins", "win_rate", "ci95", "points_per_round", "pairs", "sets",
                "matches", "rounds", "seconds", "margin_per_round", "margin_stderr"):
        assert key in d
    assert d["games"] == d["sets"] == d["pairs"] == 10 and d["matches"] == 20
    assert d["engines"] == ["greedy", "random"] and d["seats"] == [[[0], [1]], [[1], [0]]]
    assert len(d["ci95"]) == 2 and len(d["points_per_round"]) == 2
    text = arena_text(r)
    assert "greedy" in text and "random" in text and "0 / 1" in text and "margin" in text
    t3 = arena_text(run_arena(RULE_SETS["3p"], GREEDY, RANDOM, games=2, seed=1,
                                luck_adjust=False))
    assert "1+2 / 0+2 / 0+1" in t3 and "33.3%" in t3


def test_start_scores_and_bad_input():
    """Matches and single rounds from the start scores (the target applies), bad input."""
    r = run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=5, seed=1, start_scores=(10, 12),
                  keep_logs=True, luck_adjust=False)
    assert all(g.log.start_scores == (10, 12) for g in r.played)
    assert r.points[0] == sum(g.log.scores[g.seating] - (10, 12)[g.seating] for g in r.played)
    r = run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=40, seed=6, keep_logs=True,
                  single_round=True, start_scores=(13, 14), luck_adjust=False)
    assert all(g.log.start_scores == (13, 14) for g in r.played)
    assert any(g.log.winner is not None for g in r.played)
    assert "single rounds from 13-14" in arena_text(r)
    for a, kw in ((GREEDY, dict(games=0)), (GREEDY, dict(workers=0)),
                  (GREEDY, dict(start_scores=(15, 0))), ("nonsense", {})):
        with pytest.raises(BergenError):
            run_arena(RULE_SETS["2p"], a, RANDOM, **{"games": 1, "seed": 1, **kw})


# ---- the intervals ----------------------------------------------------------------------------
def test_wilson_known_values():
    for (wins, n), interval in (((50, 100), [0.4038, 0.5962]), ((0, 10), [0.0, 0.2775]),
                                ((10, 10), [0.7225, 1.0]), ((81, 263), [0.2553, 0.3662])):
        assert [round(x, 4) for x in wilson_interval(wins, n)] == interval
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


#: The by-hand half width of 25 sets' interval: ten 1.0, ten 0.5, five 0.0 (mean 0.6).
HALF = 1.959963984540054 * math.sqrt((10 * 0.4 ** 2 + 10 * 0.1 ** 2 + 5 * 0.6 ** 2) / 24) / 5


@pytest.mark.parametrize("scores, method, interval", [
    ([1.0, 0.5] * 10 + [0.0] * 5, "normal", (0.6 - HALF, 0.6 + HALF)),  # (0.4503, 0.7497)
    ([1.0] * 24 + [0.5], "normal", (0.98 - 1.959963984540054 * 0.1 / 5, 1.0)),   # clipped
    ([0.5] * 40, "wilson", wilson_interval(20, 40)),                     # every set alike
    ([1.0, 0.5, 0.0, 1.0, 1.0], "wilson", wilson_interval(3.5, 5)),      # too few sets
    ([], "wilson", (0.0, 1.0))])
def test_duplicate_interval(scores, method, interval):
    assert method == "normal" or len(set(scores)) <= 1 or len(scores) < MIN_SETS_NORMAL
    assert duplicate_interval_method(scores) == method
    assert duplicate_interval(scores) == pytest.approx(interval)


def test_duplicate_interval_coverage():
    """Simulated duplicate pairs, p = 0.6, strongly dependent matches: the interval covers the
    true win rate about 95% of the time."""
    rng = np.random.default_rng(7)
    sets, trials, p = 60, 2000, 0.6
    covered = 0
    for _ in range(trials):
        # half the deals decide (A wins one of two), else A wins both w.p. 0.7: mean 0.6
        decided = rng.random(sets) < 0.5
        both = rng.random(sets) < 0.7
        scores = np.where(decided, 0.5, np.where(both, 1.0, 0.0))
        lo, hi = duplicate_interval(scores.tolist())
        covered += lo <= p <= hi
    assert 0.93 <= covered / trials <= 0.97


def test_ratio_stderr():
    assert ratio_stderr([1.0], [2]) is None
    x, y = [3.0, 1.0, 2.0, 4.0], [2, 2, 2, 2]
    # equal denominators: the plain standard error of the mean of x/y
    m = [a / b for a, b in zip(x, y)]
    mean = sum(m) / 4
    se = math.sqrt(sum((v - mean) ** 2 for v in m) / 3 / 4)
    assert ratio_stderr(x, y) == pytest.approx(se)


def test_greedy_beats_random():
    """Greedy wins about 64% against random (2000 pairs); 300 put the interval above 1/2."""
    r = run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=300, seed=2024, luck_adjust=False)
    assert r.ci_method == "normal"
    assert r.win_rate > 0.5 and r.ci95[0] > 0.5
    assert r.ci95[0] <= r.win_rate <= r.ci95[1]
    assert r.margin_per_round > 0 and r.margin_per_round - 2 * r.margin_stderr > 0
    assert r.points_per_round[0] > r.points_per_round[1]


@pytest.mark.parametrize("name", RULE_SETS)
def test_random_against_random(name):
    """The seatings share deals and random stream: random against random wins exactly its share
    and the luck cancels exactly (exact, so 40 sets have the power of any number)."""
    rules = RULE_SETS[name]
    r = run_arena(rules, RANDOM, RANDOM, games=40, seed=99, luck_adjust=False)
    assert r.win_rate == pytest.approx(r.even_rate)
    assert r.ci95[0] <= r.even_rate <= r.ci95[1]
    assert r.margin_per_round == pytest.approx(0.0, abs=1e-12)
    adjusted = run_arena(rules, RANDOM, RANDOM, games=8, seed=99)
    assert adjusted.adjusted_margin_per_round == pytest.approx(0.0, abs=1e-12)
    assert adjusted.luck_per_round == pytest.approx(0.0, abs=1e-12)


# ---- reproducibility --------------------------------------------------------------------------
@pytest.mark.parametrize("name, games, luck, single_round", [
    ("2p", 18, False, False), ("3p", 4, True, False), ("4p-partners", 12, True, True),
    *(pytest.param(n, 90, True, False, marks=pytest.mark.slow)
      for n in ("2p", "3p", "4p-partners"))])
def test_workers_give_the_same_result(name, games, luck, single_round):
    """Workers or not, the same sets, logs, progress and figures, the luck's too (each table
    size in one mode: the tasks are sets whatever the table)."""
    rules = RULE_SETS[name]
    calls = []
    one = run_arena(rules, GREEDY, RANDOM, games=games, seed=8, keep_logs=True,
                    luck_adjust=luck, single_round=single_round)
    two = run_arena(rules, GREEDY, RANDOM, games=games, seed=8, workers=2, keep_logs=True,
                    progress=lambda done, total: calls.append((done, total)), luck_adjust=luck,
                    single_round=single_round)
    assert (one.adjusted_margin_per_round is not None) == luck
    assert comparable(one) == comparable(two)
    assert one.set_scores == two.set_scores
    assert [(g.set_index, g.seating, g.seed) for g in one.played] == \
        [(g.set_index, g.seating, g.seed) for g in two.played]
    assert [write_record(g.log) for g in one.played] == [write_record(g.log) for g in two.played]
    assert calls and calls[-1] == (games, games)
    assert all(a[0] < b[0] for a, b in zip(calls, calls[1:]))


def test_another_seed_gives_another_result():
    """(The same seed's same result: test_workers_give_the_same_result.)"""
    a, c = (run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=5, seed=k) for k in (1, 2))
    assert a.adjusted_win_rate is not None
    assert a.set_scores != c.set_scores and comparable(a) != comparable(c)


def test_search_time_is_reported_per_engine():
    """Each engine's searched decisions and their mean time (none for greedy), in workers too."""
    r = run_arena(Rules(), "ismcts:iterations=20", GREEDY, games=1, seed=2, luck_adjust=False)
    assert r.searches[0] > 0 and r.searches[1] == 0
    assert r.seconds_per_search[0] > 0 and r.seconds_per_search[1] is None
    d = r.to_json()
    assert d["searches"] == list(r.searches) and d["seconds_per_search"][1] is None
    assert "time per searched move: ismcts:iterations=20" in arena_text(r)
    t = run_arena(Rules(), GREEDY, "expectimax:time=0.005", games=2, seed=3, workers=2,
                  luck_adjust=False)
    assert t.searches[1] > 0 and t.seconds_per_search[1] > 0


# ---- single rounds ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", RULE_SETS)
def test_single_rounds_play_one_deal_in_every_seating(name):
    """--round: one deal and reserve order per set, in every seating; that round's points."""
    rules = RULE_SETS[name]
    r = run_arena(rules, GREEDY, RANDOM, games=12, seed=4, keep_logs=True, single_round=True,
                  luck_adjust=False)
    assert r.single_round and r.rounds == r.matches == 12 * r.seatings
    by_set = {}
    for g in r.played:
        assert len(g.log.rounds) == 1
        rnd = g.log.rounds[0]
        by_set.setdefault(g.set_index, set()).add((tuple(rnd.hands), tuple(rnd.reserve)))
        assert replay(write_record(g.log))["ok"]
    assert all(len(deals) == 1 for deals in by_set.values())
    # The round's points, A's side against B's (per side B holds).
    a = sum(g.log.scores[g.seating] - g.log.start_scores[g.seating] for g in r.played)
    assert r.points[0] == a
    assert r.margin_per_round == pytest.approx((r.points[0] - r.points[1]) / r.rounds)


def test_single_round_wins_and_ties():
    """A round is won by the side gaining most in it; a tie is half a win, and said."""
    r = run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=100, seed=5, keep_logs=True,
                  single_round=True, luck_adjust=False)
    wins = ties = 0
    share = 0.0
    for g in r.played:
        gained = [e - s for e, s in zip(g.log.scores, g.log.start_scores)]
        mine, theirs = gained[g.seating], gained[1 - g.seating]
        wins += mine > theirs
        ties += mine == theirs
        share += (mine > theirs) + 0.5 * (mine == theirs)
    assert (r.wins[0], r.ties, r.wins[1]) == (wins, ties, r.matches - wins - ties)
    assert 0 < ties < r.matches
    assert r.win_rate == pytest.approx(share / r.matches)
    assert r.ci95[0] <= r.win_rate <= r.ci95[1]
    d = r.to_json()
    assert d["mode"] == "round" and d["ties"] == ties
    assert run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=3, seed=5,
                     luck_adjust=False).to_json()["mode"] == "match"
    text = arena_text(r)
    assert "single rounds from 0-0" in text
    head, a_row, b_row = text.splitlines()[1:4]
    assert head.split()[:6] == ["engine", "seats", "wins", "ties", "losses", "win"]
    assert a_row.split()[4:8] == [str(wins), str(ties), str(r.matches - wins - ties),
                                  f"{100 * r.win_rate:.1f}%"]
    assert b_row.split()[4:7] == [str(r.matches - wins - ties), str(ties), str(wins)]
    assert text.endswith("the win rate counts a tie as half a win")
    whole = arena_text(run_arena(RULE_SETS["2p"], GREEDY, RANDOM, games=2, seed=5,
                                 luck_adjust=False))
    assert "ties" not in whole and "losses" not in whole       # a match never ties
