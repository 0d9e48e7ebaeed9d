"""Mirror twins are one choice: when both ends show the same number and are both doubles or
neither, a tile laid at either end gives the same position up to the mirror; the searches value
the two alike (and `classic`, twins not merged, does not), `best` lists the twin once and
`analyze` judges either alike. Also the final pass's values and errors."""
import copy
import json
import statistics

import pytest
from support import bergen, plies, sizes

from bergen_search.formats.game import load_game
from bergen_search.formats.record_io import write_record
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW
from bergen_search.game.state import mirror_twins as state_mirror_twins
from bergen_search.game.tiles import parse_tile as t
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines
from bergen_search.search.api import Limits, mirror_twins, search


def test_mirror_twins_known_answers():
    moves = [t("2-3") * 2, t("2-3") * 2 + 1, t("2-5") * 2, t("2-5") * 2 + 1, t("2-2") * 2]
    # ends 2 and 2, neither a double: both 2-3 and 2-5 have twins
    assert state_mirror_twins(2, 2, False, False, moves) == {
        t("2-3") * 2 + 1: t("2-3") * 2, t("2-5") * 2 + 1: t("2-5") * 2}
    # both doubles (a lone double led: 2-2): twins too
    assert state_mirror_twins(2, 2, True, True, moves) != {}
    # one end a double: laying at the double end or the other differs (triple or double)
    assert state_mirror_twins(2, 2, True, False, moves) == {}
    # different numbers: no tile fits both ends alike
    assert state_mirror_twins(2, 5, False, False, moves) == {}
    # before the lead
    assert state_mirror_twins(-1, -1, False, False, moves) == {}


@pytest.fixture(scope="module")
def decisions():
    """(State, Observer's information set) at decisions with a twin pair, from 12 games of
    greedy and random self-play for 2, 3, 4 players and partners."""
    return [d for p, part in ((2, False), (3, False), (4, False), (4, True))
            for d in twin_decisions(p, part, 12, p + 10 * part)]


def twin_decisions(players, partnerships, games, seed):
    rules = Rules(players=players, partnerships=partnerships)
    logs = (play_engines(rules, parse_engine_list("greedy" if g % 2 else "random", players),
                         derive_seed(seed, g)) for g in range(games))
    return [(state, obs[state.to_move].infoset(state.to_move))
            for log in logs for _, _, state, obs in plies(log, observe=True)
            if state.led and twins_of(state)]


def twins_of(state) -> dict:
    return state_mirror_twins(state.left, state.right, state.left_double, state.right_double,
                              state.legal_moves())


def test_twin_positions_are_mirror_images(decisions):
    for state, _ in decisions:
        for right, left in twins_of(state).items():
            a, b = state.apply(left), state.apply(right)
            # What the rest of the round depends on: the ends (mirrored), the hands, the
            # reserve, the scores, the seat to move; the line's tiles are the same set.
            assert (a.left, a.right, a.left_double, a.right_double) == (
                b.right, b.left, b.right_double, b.left_double)
            assert (a.scores, a.hands, a.reserve, a.to_move, a.ended, a.line_mask()) == (
                b.scores, b.hands, b.reserve, b.to_move, b.ended, b.line_mask())


@pytest.mark.parametrize("algorithm", ["ismcts", "expectimax"])
def test_best_lists_every_pair_once(algorithm, one_search):
    # (a budget of its own for ISMCTS too: the table's rows do not depend on it)
    args = ("best", "examples/decision.json", "--algorithm", algorithm,
            "--iterations", "50" if algorithm == "expectimax" else "2000")
    res = bergen(*args)
    assert res.exit_code == 0, res.output
    rows = [line.split()[0] for line in res.output.splitlines() if line.startswith("  ") and
            line.split()[0][:1].isdigit()]
    assert sorted(rows) == ["0-2:L/R", "1-2:L/R", "2-2:L/R", "2-3:L/R", "2-5:L/R"]
    out = json.loads(bergen(*args, "--json").output)
    by_move = {m["move"]: m for m in out["moves"]}
    assert len(by_move) == 10
    for m in out["moves"]:
        if "twin" in m:
            other = by_move[m["twin"]]
            assert m["move"].endswith(":R") and m["twin"] == m["move"][:-1] + "L"
            assert (m["value"], m["stderr"], m["visits"]) == (other["value"], other["stderr"],
                                                              other["visits"])


@pytest.mark.parametrize("stride", sizes(6, 1))
def test_twins_get_equal_values(decisions, require_compiled, stride):
    """Every `stride`-th decision (all of them behind the slow marker)."""
    assert len(decisions) >= 50, len(decisions)
    assert {s.rules.players for s, _ in decisions[::stride]} == {2, 3, 4}
    unequal_classic = 0
    for k, (_, info) in enumerate(decisions[::stride]):
        twins = mirror_twins(info)
        assert twins
        for algorithm, limits, kw in (("ismcts", Limits(iterations=300), {}),
                                      ("expectimax", Limits(iterations=2), {"depth": 2})):
            res = search(info, limits, seed=k, algorithm=algorithm, **kw)
            values = {m.code: (m.value, m.stderr) for m in res.moves}
            for right, left in twins.items():
                assert values[right] == values[left], (algorithm, info)
        if k < 20:
            res = search(info, Limits(iterations=300), seed=k, algorithm="classic")
            values = {m.code: m.value for m in res.moves}
            unequal_classic += any(values[r] != values[l] for r, l in twins.items())
    assert unequal_classic >= 5


def _mirrored_from(rec, r, k):
    """The record with every play of round r from event k on laid at the other end."""
    out = copy.deepcopy(rec)
    for ev in out["rounds"][r]["events"][k:]:
        if "play" in ev and ev["play"][-2:] in (":L", ":R"):
            ev["play"] = ev["play"][:-1] + ("R" if ev["play"][-1] == "L" else "L")
    out["rounds"] = out["rounds"][:r + 1]
    out["rounds"][r]["events"] = out["rounds"][r]["events"][:k + 4]
    return out


@pytest.mark.parametrize("cases", sizes(3, 6))
def test_analyze_never_labels_the_twin_of_the_best(require_compiled, cases):
    """A twin decision analysed as played and mirrored: when the play's tile is the best, at
    either end, it loses nothing and gets no label (3 cases by default, 6 behind slow)."""
    from bergen_search.analysis.review import analyze
    twin_cases = 0
    for g in range(40):
        log = play_engines(Rules(), parse_engine_list("greedy", 2), derive_seed(77, g))
        rec, events = write_record(log), log.rounds[0].events
        for _, k, state, _ in plies(log, rounds=1):
            w, a, _ = events[k]
            if state.led and a < DRAW and twins_of(state).keys() & {a, a ^ 1}:
                for r in (_mirrored_from(rec, 0, len(events)), _mirrored_from(rec, 0, k)):
                    r["rounds"][0]["events"] = r["rounds"][0]["events"][:k + 4]
                    res = analyze(r, seats={w}, limits=Limits(iterations=400), seed=3)
                    d = next(d for d in res.decisions if d.event == k)
                    if d.best.tile == d.played.tile:
                        assert d.loss == 0 and d.label is None, d
                        twin_cases += d.best != d.played
                break
        if twin_cases >= cases:
            break
    assert twin_cases >= cases


# ---- values that compare: ISMCTS's final pass --------------------------------------------------
@pytest.fixture
def grown(require_compiled):
    """grown(info, seed, iterations): the core's ISMCTS tree of `info`, grown that far."""
    from bergen_search.information._sampler import CoreSampler
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree

    def grow(info, seed, iterations):
        tree = IsmctsTree(CoreSampler(info), seed, playout="safe", merge_twins=True)
        tree.run(iterations, 0)
        return tree
    return grow


@pytest.mark.parametrize("stride, count, least", sizes((12, 20, 50), (6, 40, 80)))
def test_pass_values_are_consistent(decisions, grown, stride, count, least):
    """The final pass measures each move as the engine plays on: 400 worlds agree with 8,000
    other worlds within four standard errors for every move (20 decisions of 2, 3 and 4 players
    by default, the largest gap 2.1; 40 behind slow)."""
    checked = 0
    for k, (_, info) in enumerate(decisions[::stride][:count]):
        tree = grown(info, k, 3000)
        small = {m: (s / 400, max(sq / 400 - (s / 400) ** 2, 0.0) ** 0.5 / 400 ** 0.5)
                 for m, s, sq, _ in tree.evaluate_root(400, 1000 + k)}
        big = {m: s / 8000 for m, s, _, _ in tree.evaluate_root(8000, 2000 + k)}
        for m, (v, se) in small.items():
            assert abs(v - big[m]) <= 4 * se + 1e-9, (m, v, big[m], se)
            checked += 1
    assert checked >= least


def test_pass_standard_errors_are_calibrated(grown):
    """Over 40 seeds of the pass on one tree, the spread of a move's mean is about the
    standard error the pass reports."""
    tree = grown(load_game(open("examples/decision.json").read()), 3, 5000)
    means, ses = {}, {}
    for seed in range(40):
        for m, s, sq, _ in tree.evaluate_root(300, seed):
            mean = s / 300
            means.setdefault(m, []).append(mean)
            ses.setdefault(m, []).append((max(sq / 300 - mean ** 2, 0) / 299) ** 0.5)
    for m in means:
        spread, se = statistics.stdev(means[m]), statistics.mean(ses[m])
        assert 0.6 * se < spread < 1.5 * se, (m, spread, se)


def test_search_reports_pass_values_and_skips_them_for_play():
    """search() values come from the pass (info['values']); with choose=visits an engine at a
    table, which needs only the move, skips it and chooses the same move."""
    info = load_game(open("examples/decision.json").read())
    shown = search(info, Limits(iterations=3000), seed=2, choose="visits")
    quick = search(info, Limits(iterations=3000), seed=2, values=False, choose="visits")
    assert shown.info["values"]["method"] == "pass" and shown.info["values"]["worlds"] >= 100
    assert quick.info["values"]["method"] == "search"
    assert shown.best == quick.best
    assert [m.visits for m in shown.moves] == [m.visits for m in quick.moves]
    # expected points per side come from the same pass as the values
    best = shown.moves[0]
    pts = shown.info["sides"][best.move]
    assert pts[0] - pts[1] == pytest.approx(best.raw, abs=1e-9)   # (the raw value: settle)


@pytest.mark.parametrize("stride, least", sizes((3, 10), (1, 20)))
def test_choose_value_plays_the_best_value_of_the_pass(decisions, stride, least):
    """`choose=value` (the default): the move played is the pass's best value (the pass runs
    even for an engine that asks for no values); `choose=visits` plays the most visited.
    (Every third of the first 120 decisions by default: 12 with a choice; all behind slow.)"""
    differ = checked = 0
    for _, info in decisions[:120:stride]:
        by_value = search(info, Limits(iterations=1500), seed=3, choose="value", values=False)
        by_visits = search(info, Limits(iterations=1500), seed=3, choose="visits")
        if sum(m.twin is None for m in by_visits.moves) < 2:
            continue        # one choice (a twin pair): no pass, nothing to choose
        checked += 1
        assert by_value.info["values"]["method"] == "pass"
        raw = lambda m: m.value if m.raw is None else m.raw     # (settle: chosen by raw)
        assert raw(by_value.moves[0]) == max(raw(m) for m in by_value.moves)
        assert by_value.moves[0].move == by_value.best
        assert search(info, Limits(iterations=1500), seed=3, values=False).best == by_value.best
        assert by_visits.moves[0].visits == max(m.visits for m in by_visits.moves)
        # the same search and pass underneath: only the choice differs
        assert sorted((m.move, m.value) for m in by_value.moves) == \
            sorted((m.move, m.value) for m in by_visits.moves)
        differ += by_value.best != by_visits.best
    assert checked >= least and differ < checked
