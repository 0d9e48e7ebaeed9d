"""Mirror twins are one choice (issue 10).

When both ends show the same number and are both doubles or neither, a tile that fits one end
fits the other, and laying it at the left or at the right gives the same position up to the
mirror. The searches treat the two as one choice: equal values, the twin listed once in
`best`'s table (as `a-b:L/R`) and named in JSON (`twin`), and `analyze` judges either alike.

- Known answers for `state.mirror_twins`, and the two positions are mirror images.
- `bergen best examples/decision.json`, with either algorithm, lists every pair once.
- Over more than 50 mirror-symmetric decisions of self-play (2, 3 and 4 players, and
  partnerships) the twins get equal values from ISMCTS and from expectimax, while the old
  engine (`classic`, twins not merged) does not give them equal values: the test can fail.
- A record and its mirror from a twin decision on (every later play at the other end) are
  analysed alike at that decision: the same loss, and never a label for the twin of the best.
"""
import copy
import json

import pytest
from click.testing import CliRunner

from bergen_search.cli import main
from bergen_search.engines import parse_engine_list, play_match
from bergen_search.infoset import Observer
from bergen_search.record import write_record
from bergen_search.rng import derive_seed
from bergen_search.rules import Rules
from bergen_search.search import Limits, mirror_twins, search
from bergen_search.state import DRAW, State, mirror_twins as state_mirror_twins
from bergen_search.tiles import tile_index


def t(text):
    a, b = (int(x) for x in text.split("-"))
    return tile_index(a, b)


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


def twin_decisions(players, partnerships=False, games=40, seed=5):
    """(State, Observer's information set) at decisions with a twin pair, from greedy and
    random self-play."""
    rules = Rules(players=players, partnerships=partnerships)
    out = []
    for g in range(games):
        engines = "greedy" if g % 2 else "random"
        log = play_match(rules, parse_engine_list(engines, players), derive_seed(seed, g))
        scores = log.start_scores
        for rnd in log.rounds:
            state = State.deal(rules, rnd.hands, rnd.reserve, scores)
            obs = {s: Observer(rules, {s}, state) for s in range(players)}
            for w, a, tile in rnd.events:
                if state.led and state.to_move >= 0:
                    moves = state.legal_moves()
                    if state_mirror_twins(state.left, state.right, state.left_double,
                                          state.right_double, moves):
                        out.append((state, obs[state.to_move].infoset(state.to_move)))
                after = state.apply(a, w, tile if a == DRAW else None)
                for o in obs.values():
                    o.step(w, a, after)
                state = after
            scores = rnd.scores
    return out


def test_twin_positions_are_mirror_images():
    found = twin_decisions(2, games=10)
    assert len(found) >= 10
    for state, _ in found:
        twins = state_mirror_twins(state.left, state.right, state.left_double,
                                   state.right_double, state.legal_moves())
        for right, left in twins.items():
            a, b = state.apply(left), state.apply(right)
            # What the rest of the round depends on: the ends (mirrored), the hands, the
            # reserve, the scores, the seat to move; the line's tiles are the same set.
            assert (a.left, a.right, a.left_double, a.right_double) == (
                b.right, b.left, b.right_double, b.left_double)
            assert (a.scores, a.hands, a.reserve, a.to_move, a.ended, a.line_mask()) == (
                b.scores, b.hands, b.reserve, b.to_move, b.ended, b.line_mask())


@pytest.mark.parametrize("algorithm", ["ismcts", "expectimax"])
def test_best_lists_every_pair_once(algorithm):
    extra = ["--iterations", "50"] if algorithm == "expectimax" else []
    res = CliRunner().invoke(main, ["best", "examples/decision.json", "--algorithm", algorithm,
                                    *extra])
    assert res.exit_code == 0, res.output
    rows = [line.split()[0] for line in res.output.splitlines() if line.startswith("  ") and
            line.split()[0][:1].isdigit()]
    assert sorted(rows) == ["0-2:L/R", "1-2:L/R", "2-2:L/R", "2-3:L/R", "2-5:L/R"]
    res = CliRunner().invoke(main, ["best", "examples/decision.json", "--algorithm", algorithm,
                                    "--json", *extra])
    out = json.loads(res.output)
    by_move = {m["move"]: m for m in out["moves"]}
    assert len(by_move) == 10
    for m in out["moves"]:
        if "twin" in m:
            other = by_move[m["twin"]]
            assert m["move"].endswith(":R") and m["twin"] == m["move"][:-1] + "L"
            assert (m["value"], m["stderr"], m["visits"]) == (other["value"], other["stderr"],
                                                              other["visits"])


@pytest.fixture(scope="module")
def decisions():
    found = []
    for players, part in ((2, False), (3, False), (4, False), (4, True)):
        found += twin_decisions(players, part, games=12, seed=players + 10 * part)
    return found


def test_twins_get_equal_values(decisions, require_compiled):
    assert len(decisions) >= 50, len(decisions)
    assert {s.rules.players for s, _ in decisions} == {2, 3, 4}
    unequal_classic = 0
    for k, (_, info) in enumerate(decisions):
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


def test_analyze_never_labels_the_twin_of_the_best(require_compiled):
    """A twin decision analysed as played and mirrored (the other end, and every later play
    mirrored too): whenever the play's tile is the best one, at either end, it loses nothing
    and gets no label; the mirrored records make the play the twin of the best."""
    from bergen_search.analysis import analyze
    twin_cases = 0
    for g in range(40):
        log = play_match(Rules(), parse_engine_list("greedy", 2), derive_seed(77, g))
        rec = write_record(log)
        rnd = log.rounds[0]
        state = State.deal(log.rules, rnd.hands, rnd.reserve, log.start_scores)
        for k, (w, a, tile) in enumerate(rnd.events):
            if state.led and a < DRAW and state_mirror_twins(
                    state.left, state.right, state.left_double, state.right_double,
                    state.legal_moves()).keys() & {a, a ^ 1}:
                for r in (_mirrored_from(rec, 0, len(rnd.events)), _mirrored_from(rec, 0, k)):
                    r["rounds"][0]["events"] = r["rounds"][0]["events"][:k + 4]
                    res = analyze(r, seats={w}, limits=Limits(iterations=400), seed=3)
                    d = next(d for d in res.decisions if d.event == k)
                    if d.best[:-1] == d.played[:-1]:
                        assert d.loss == 0 and d.label is None, d
                        twin_cases += d.best != d.played
                break
            state = state.apply(a, w, tile if a == DRAW else None)
        if twin_cases >= 6:
            break
    assert twin_cases >= 6
