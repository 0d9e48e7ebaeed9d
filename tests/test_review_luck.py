"""`analyze`'s luck is the seat's own chance events in the objective's unit (the deal: its
hand's value before the lead less the value before the deal; its draws), and per round

    result = start + luck of the deal + luck of the draws − own losses + others' losses + residual

with a residual of mean zero over matches between different engines (equals could not fail it).
"""
import json
import math

import pytest
from support import bergen

from bergen_search.analysis.luck import rounds_of
from bergen_search.analysis.review import analyze
from bergen_search.constants import DEAL_STREAM
from bergen_search.formats.game import load_game
from bergen_search.formats.record_io import to_record
from bergen_search.game.match import ENGINE_GREEDY, MatchLog, RoundLog, play_round
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import State
from bergen_search.game.tiles import mask_of, parse_tile
from bergen_search.play.engines import parse_engine_spec
from bergen_search.play.seats import play_engines
from bergen_search.search.api import Limits, search
from bergen_search.stats import t_quantile

MINE = "1-2 2-2 3-4 5-6 0-5 4-6"


def one_round(hands, seed=1):
    """A record of one round of greedy play from `hands` (texts) and the rest in the reserve."""
    rules = Rules()
    masks = [mask_of(parse_tile(x) for x in h.split()) for h in hands]
    reserve = [t for t in range(28) if not any(m >> t & 1 for m in masks)]
    Rng(seed).shuffle(reserve)
    events: list = []
    end = play_round(State.deal(rules, masks, reserve, (0, 0)), [ENGINE_GREEDY] * 2,
                     Rng(seed), events)
    return to_record(MatchLog(rules, (0, 0), [RoundLog(masks, reserve, events, end.ended,
                                                       end.scores)], end.scores))


def test_the_deal_s_luck_is_the_hand_s_value_before_the_lead():
    """The same hand, the other seat leading 0-0 or this one 2-2: the deal's luck is the hand's
    value before the lead in both."""
    leads_00 = one_round([MINE, "0-0 1-3 2-5 3-6 4-4 0-6"])
    leads_22 = one_round([MINE, "0-1 1-3 2-5 3-6 4-5 0-6"])
    assert leads_00.rounds[0].events[0].seat == 1 and leads_22.rounds[0].events[0].seat == 0
    lucks = [analyze(r, limits=Limits(iterations=400), seed=3).summary[0].luck_deal
             for r in (leads_00, leads_22)]
    before = search(load_game("bergen1/2/0,0/0/" + MINE.replace(" ", ",") + "/-"),
                    Limits(iterations=20), seed=derive_seed(3, DEAL_STREAM))
    assert lucks == [before.value, before.value]


def test_the_identity_adds_up_as_printed(one_search):
    """Each result is the round's margin, each residual the result less the terms, `identity`
    their sum; the text's table (of the same analysis) adds up row by row."""
    doc = json.loads(bergen("analyze", "examples/match.json", "--iterations", "300",
                            "--json").stdout)
    replay = json.loads(bergen("replay", "examples/match.json", "--json").stdout)
    scores = [(0, 0)] + [tuple(r["scores"]) for r in replay["rounds"]]
    for row in doc["rounds"]:
        r, s = row["round"], row["seat"]
        margin = (scores[r + 1][s] - scores[r][s]) - (scores[r + 1][1 - s] - scores[r][1 - s])
        assert row["result"] == margin
        terms = row["start"] + row["luck_deal"] + row["luck_draws"] - row["loss"] + row["others"]
        assert abs(row["result"] - terms - row["residual"]) < 1e-3
    for sm in doc["summary"]:
        mine = [x for x in doc["rounds"] if x["seat"] == sm["seat"]]
        for k, v in sm["identity"].items():
            assert abs(sum(x[k] for x in mine) - v) < 1e-3, k
        assert abs(sm["identity"]["luck_deal"] - sm["luck_deal"]) < 1e-3
        assert abs(sm["identity"]["loss"] - sm["total_loss"]) < 1e-3
    text = bergen("analyze", "examples/match.json", "--iterations", "300").stdout
    table = text[text.index("luck and play add up"):].splitlines()[3:]
    rows = [line.split() for line in table if line.split()[:1] and line.split()[0] in
            ("1", "2", "3", "4", "all")]
    assert len(rows) == len(doc["rounds"]) + 2
    for cells in rows:
        result, terms = float(cells[2]), [float(x) for x in cells[4:]]
        assert abs(result - sum(terms)) <= 0.005 * (len(terms) + 1), cells


def test_the_match_objective_s_luck_is_a_change_of_chances():
    """The match objective: every term a chance, each result the next start, the last won."""
    rules = Rules(target=5)
    log = play_engines(rules, [parse_engine_spec("greedy"), parse_engine_spec("random")], 2)
    a = analyze(to_record(log), limits=Limits(iterations=200), seed=2, objective="match")
    rounds = rounds_of(a.summary)
    assert len(rounds) == 2 * len(log.rounds) >= 4
    for x in rounds:
        assert 0 <= x.start <= 1 and 0 <= x.result <= 1
        assert all(abs(v) <= 1 for v in (x.luck_deal, x.luck_draws, x.loss, x.others))
    for s in range(2):
        mine = [x for x in rounds if x.seat == s]
        assert [x.result for x in mine[:-1]] == [x.start for x in mine[1:]]
        assert mine[-1].result == float(log.winner == s) and mine[0].start == 0.5


def residuals(a: str, b: str, matches: int, iterations: int, objective: str = "points",
              rules=None, max_rounds=1, seed=1000) -> dict:
    """Per engine, each match's result less the value before the deal (0; 1/2), its luck and
    the other's loss, plus its own."""
    rules = rules or Rules()
    out: dict = {a: [], b: []}
    for i in range(matches):
        names = [a, b] if i % 2 == 0 else [b, a]
        log = play_engines(rules, [parse_engine_spec(x) for x in names], seed + i,
                           max_rounds=max_rounds)
        sm = {x.seat: x for x in analyze(to_record(log), limits=Limits(iterations=iterations),
                                         seed=i, objective=objective).summary}
        end = log.rounds[-1].scores
        for s in range(2):
            result, start = ((end[s] - end[1 - s], 0.0) if objective == "points" else
                             (float(end[s] >= rules.target), 0.5))
            out[names[s]].append(result - start - sm[s].luck_deal - sm[s].luck_draws
                                 + sm[s].total_loss - sm[1 - s].total_loss)
    return out


def within_99(xs) -> bool:
    n, mean = len(xs), math.fsum(xs) / len(xs)
    se = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1) / n)
    return abs(mean) <= t_quantile(0.995, n - 1) * se


@pytest.mark.parametrize("a, b, matches, iterations, objective, rules, max_rounds", [
    ("greedy", "random", 12, 100, "points", Rules(), 1),
    *(pytest.param(*case, marks=pytest.mark.slow) for case in [
        ("greedy", "random", 300, 200, "points", Rules(), 1),
        ("ismcts:iterations=100", "random", 150, 200, "points", Rules(), 1),
        ("greedy", "random", 150, 200, "match", Rules(target=5), None)])])
def test_the_residual_has_mean_zero_between_different_engines(a, b, matches, iterations,
                                                              objective, rules, max_rounds):
    """A dozen matches by default; hundreds, a searching engine and the match objective behind
    slow."""
    for xs in residuals(a, b, matches, iterations, objective, rules, max_rounds).values():
        assert within_99(xs)
