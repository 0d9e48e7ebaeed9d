"""The value of a deal before the lead: exact and Monte Carlo answers, no peeking."""
import json
import math
import threading
import time
from itertools import combinations
from pathlib import Path

import pytest
from support import ALL_VARIANTS, bergen, sizes, tiles

from bergen_search.formats.game import load_game
from bergen_search.formats.notation import Move
from bergen_search.game.rng import Rng
from bergen_search.game.rules import Rules
from bergen_search.game.state import State, find_leader
from bergen_search.game.tiles import mask_of, parse_tile
from bergen_search.information.lead import leads as lead_chances
from bergen_search.search.api import Limits, search
from bergen_search.search import backend, before_lead
from bergen_search.search.before_lead import DealValue, deal_value, start_values
from bergen_search.search.playouts import play_out, reward

DECISION = Path(__file__).resolve().parents[1] / "examples" / "decision.json"
#: A deal with no draw: three tiles a hand, every reserve tile kept.
TINY = dict(hand_size=3, reserve_kept=22)


def _expected(rules, s, base, side):
    """The random policy's expected reward to `side` from `s`: every legal play alike."""
    if s.ended is not None:
        return reward(rules, 0, s, base, side)
    moves = s.legal_moves()
    return math.fsum(_expected(rules, s.apply(m), base, side) for m in moves) / len(moves)


def exact_tiny(rules, hand) -> float:
    """Seat 0's exact value before the lead of a 2p deal with no draw, random play."""
    unseen = [t for t in range(28) if not hand >> t & 1]
    values = []
    for other in combinations(unseen, rules.hand_size):
        hands = [hand, mask_of(other)]
        if find_leader(rules, hands) is None:
            continue
        s = State.deal(rules, hands, [t for t in unseen if t not in other], (0, 0))
        values.append(_expected(rules, s, s, 0))
    return math.fsum(values) / len(values)


@pytest.mark.parametrize("no_double, hand", [
    ("redeal", "1-2 2-2 5-6"),          # seat 1 leads 0-0 or 1-1, else seat 0 leads 2-2
    ("redeal", "1-2 3-4 5-6"),          # no double: seat 1 leads, seat 0 only follows
    ("lowest-tile", "1-2 3-4 5-6"),     # ... or, with no double dealt, the lowest tile
    ("redeal", "0-0 3-4 5-6"),          # 0-0 leads for sure
])
def test_a_tiny_deal_s_value_is_the_enumerated_one(no_double, hand):
    """... and where the hand leads for sure, `best` is that lead, valued as the deal."""
    rules = Rules(no_double=no_double, **TINY)
    v = deal_value(rules, 0, tiles(hand), (0, 0), playout="random", playouts=1500, seed=1)
    assert abs(sum(p for _, _, p, *_ in v.leads) - 1) < 1e-12
    assert abs(v.value - exact_tiny(rules, tiles(hand))) <= 3.5 * v.stderr
    assert v.stderr < 0.08
    if hand.startswith("0-0"):
        assert v.leads == ((0, parse_tile(hand[:3]), 1.0, v.value, v.stderr, 1500),)
        info = load_game(json.dumps({
            "format": "bergen-position/1", "rules": rules.to_dict(), "to_move": 0,
            "hand": hand.split(), "line": "", "hand_sizes": [3, 3], "reserve_size": 22}))
        result = search(info, Limits(iterations=1500), seed=1, settings=None, playout="random")
        assert result.best == Move.parse(hand[:3], None)
        assert [m.move for m in result.moves] == [result.best]
        assert (result.value, result.stderr) == (v.value, v.stderr) == (
            result.moves[0].value, result.moves[0].stderr)


@pytest.mark.parametrize("variants", sizes(
    [Rules(), Rules(players=4, partnerships=True, no_double="lowest-tile"), Rules(**TINY)],
    [Rules(**v) for v in ALL_VARIANTS]))
def test_the_core_s_playouts_are_the_reference_s_bit_for_bit(require_compiled, monkeypatch,
                                                             variants):
    """The core plays the deals before the lead (`_before_lead.pyx`) draw for draw as the
    pure-Python loop: every objective and policy gives the same sums, so the same value."""
    require_compiled(backend.SEARCH.module(before_lead.CORE), before_lead.CORE)
    core, ref = backend.SEARCH, backend.reference_search("test")
    for k, rules in enumerate(variants):
        seat, hand = k % rules.players, mask_of((k + 5 * i) % 28 for i in range(rules.hand_size))
        for objective in ("points", "match"):
            scores = tuple((3 * k + 5 * side) % rules.target for side in range(rules.n_sides))
            for playout in ("random", "scoring", "safe"):
                answers = []
                for b in (core, ref):
                    monkeypatch.setattr(backend, "SEARCH", b)
                    answers.append((deal_value(rules, seat, hand, scores, objective=objective,
                                               playout=playout, playouts=150, seed=k),
                                    start_values(rules, scores, objective=objective,
                                                 playout=playout, playouts=60, seed=k)))
                assert answers[0] == answers[1], (rules, objective, playout)


def test_a_lead_no_deal_allows_is_not_listed_and_the_hand_is_valued():
    """Four hands of 5, no double dealt: the lowest tile leads. Seat 3's 0-3 would need 0-1,
    0-2 and the seven doubles, nine tiles, in a reserve of eight: it never leads. It was listed
    with chance 0, and the hand's value failed dealing it its first two playouts."""
    rules, hand = Rules(players=4, no_double="lowest-tile"), tiles("0-3 1-5 2-5 3-6 5-6")
    got = lead_chances(rules, 3, hand)
    assert all(p > 0 for *_, p in got) and math.isclose(sum(p for *_, p in got), 1.0)
    assert (3, parse_tile("0-3")) not in {(j, t) for j, t, _ in got}
    v = deal_value(rules, 3, hand, (0,) * 4, playouts=100, seed=1)
    assert v.done == 100 and math.isfinite(v.value) and [x[:3] for x in v.leads] == got


def test_the_default_budget_is_the_default_engine_s_on_either_backend(monkeypatch):
    """No budget: the default engine's 100,000 (docs/GUIDE.md prints the value it gives), and
    on the pure-Python backend the same share of it as its searches (1/FALLBACK_DIVISOR)."""
    asked = []

    def value(*args, playouts, **kwargs):
        asked.append(playouts)
        return DealValue(0.0, 0.0, (0.0, 0.0), (), 0)
    monkeypatch.setattr(before_lead, "deal_value", value)
    position = load_game("bergen1/2/0,0/0/0-1,1-4,2-2,3-6,5-5,5-6/-")
    search(position, Limits(), seed=5)
    monkeypatch.setattr(backend, "SEARCH", backend.reference_search("test"))
    search(position, Limits(), seed=5)
    assert asked == [100_000, 100_000 // backend.FALLBACK_DIVISOR]


def test_a_search_beside_a_live_search_before_the_lead_is_not_slowed(require_compiled):
    """Before the lead the hand's value is played out in C without the GIL: a search in another
    thread (another tab of the board, another query of the engine) runs as fast as alone. (The
    playouts in Python held the GIL, and the other search waited for it at every slice: 30
    times slower.)"""
    require_compiled(backend.SEARCH.module(before_lead.CORE), before_lead.CORE)
    info = load_game(DECISION.read_text())

    def timed():
        t0 = time.perf_counter()
        search(info, Limits(iterations=6000), seed=1, bracket=False)
        return time.perf_counter() - t0
    alone = min(timed() for _ in range(2))
    stop = threading.Event()
    live = threading.Thread(target=deal_value, args=(Rules(), 0, tiles("1-2 2-2 2-3 3-4 4-5 5-6"),
                                                     (0, 0)), kwargs=dict(playouts=None,
                                                                          stop=stop))
    live.start()
    try:
        beside = min(timed() for _ in range(2))
    finally:
        stop.set()
        live.join()
    assert beside < 3 * alone + 0.2, (alone, beside)


def plain(rules, hand, n: int, seed: int) -> tuple:
    """Seat 0's value by whole deals given its hand, played out: (mean, its error)."""
    rng, unseen, xs = Rng(seed), [t for t in range(28) if not hand >> t & 1], []
    while len(xs) < n:
        rest = unseen[:]
        rng.shuffle(rest)
        k, hands = 0, [hand]
        for _ in range(1, rules.players):
            hands.append(mask_of(rest[k:k + rules.hand_size]))
            k += rules.hand_size
        if find_leader(rules, hands) is None:
            continue
        s = State.deal(rules, hands, rest[k:], (0,) * rules.n_sides)
        xs.append(reward(rules, 0, play_out(rules, 0, 2, s, rng), s, 0))
    mean = math.fsum(xs) / n
    return mean, math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1) / n)


@pytest.mark.parametrize("rules, hand, n", [
    (Rules(), "1-2 3-4 5-6 0-5 2-2 4-6", 1000),
    *(pytest.param(rules, hand, 6000, marks=pytest.mark.slow) for rules, hand in [
        (Rules(), "1-2 3-4 5-6 0-5 2-3 4-6"),
        (Rules(no_double="lowest-tile"), "1-2 3-4 5-6 0-5 2-3 4-6"),
        (Rules(lead="highest-double"), "1-2 3-4 5-5 0-5 2-3 4-6"),
        (Rules(players=3), "1-2 3-4 5-6 0-5 2-2 4-6"),
        (Rules(players=4, partnerships=True), "1-2 3-4 5-6 1-1 4-6")])])
def test_the_value_is_that_of_whole_deals(rules, hand, n):
    """The default rules by default; every table behind slow."""
    v = deal_value(rules, 0, tiles(hand), (0,) * rules.n_sides, playouts=n, seed=2)
    mean, se = plain(rules, tiles(hand), n, seed=3)
    assert abs(v.value - mean) <= 3.5 * math.hypot(v.stderr, se), (v.value, mean)


def record_before_the_lead(other):
    """A record before the lead, seat 0 holding 2-2 and leading; seat 1's hand `other`."""
    mine = ["0-1", "1-4", "2-2", "3-6", "5-5", "5-6"]
    return json.dumps({"format": "bergen-record/1", "rules": {"players": 2},
                       "rounds": [{"hands": [mine, other], "events": []}]})


def test_no_peeking_before_the_lead():
    """Seat 0's answer reads its hand alone, and is the position's."""
    answers = []
    for other in (["0-5", "2-3", "2-6", "3-4", "3-5", "4-5"],
                  ["0-5", "2-3", "2-6", "3-4", "3-5", "4-6"],
                  ["1-2", "1-3", "2-4", "3-4", "3-5", "0-6"]):
        info = load_game(record_before_the_lead(other))
        r = search(info, Limits(iterations=300), seed=5)
        answers.append((r.best, r.moves, r.value, r.stderr,
                        {k: v for k, v in r.info.items() if k != "seconds"}))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0] is None and [s for s, *_ in answers[0][4]["leads"]] == [1, 1, 0]
    position = load_game("bergen1/2/0,0/0/0-1,1-4,2-2,3-6,5-5,5-6/-")
    r = search(position, Limits(iterations=300), seed=5)
    assert (r.value, r.stderr) == answers[0][2:4]


def run(*args):
    result = bergen(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


BEFORE = "bergen1/2/3,5/0/1-2,2-2,2-3,3-4,4-5,5-6/-"


def test_best_and_eval_before_the_lead(one_search):
    """Before the lead `best` and `eval` give the hand's value, its ± and each lead's chance
    (a lead that is sure: test_a_tiny_deal_s_value_is_the_enumerated_one)."""
    doc = json.loads(run("best", BEFORE, "--iterations", "300", "--json"))
    assert doc["best"] is None and doc["moves"] == [] and doc["iterations"] == 300
    assert [(x["seat"], x["tile"]) for x in doc["leads"]] == [(1, "0-0"), (1, "1-1"), (0, "2-2")]
    assert abs(sum(x["chance"] * x["value"] for x in doc["leads"]) - doc["value"]) < 1e-5
    assert abs(math.sqrt(sum((x["chance"] * x["stderr"]) ** 2 for x in doc["leads"]))
               - doc["stderr"]) < 1e-5
    text = run("best", BEFORE, "--iterations", "300")
    assert text.startswith(f"before the lead:   {doc['value']:+.3f} ± {doc['stderr']:.3f}   "
                           f"(points to come this round, side 0 minus side 1; who leads is "
                           f"not known yet)")
    assert "  seat 0 2-2     51.9%" in text
    ev = json.loads(run("eval", BEFORE, "--iterations", "300", "--json"))
    assert (ev["value"], ev["stderr"], ev["leads"]) == (doc["value"], doc["stderr"],
                                                        doc["leads"])
    points = [s["expected_points"] for s in ev["sides"]]
    assert abs(points[0] - points[1] - ev["value"]) < 1e-3
    assert abs(sum(s["p_win_match"] for s in ev["sides"]) - 1) < 1e-3
    assert run("eval", BEFORE, "--iterations", "300").startswith(
        f"value {ev['value']:+.3f} ± {ev['stderr']:.3f}   (points to come this round, side 0 "
        f"minus side 1; before the lead)")
