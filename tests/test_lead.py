"""Who leads, from one seat's view before the lead (`information.lead.leads`): the chances
against every deal counted one by one, for each lead rule and each rule for a deal without a
double, with hands small enough to count."""
from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from support import sizes

from bergen_search.game.rules import Rules
from bergen_search.game.state import find_leader
from bergen_search.game.tiles import ALL_TILES, N_TILES, iter_mask
from bergen_search.information.lead import leads


def counted(rules: Rules, seat: int, hand: int) -> dict:
    """{(seat, tile): chance} over every way to deal the other hands (the reserve takes the
    rest), the deals without a lead (a redeal) left out."""
    unseen = ALL_TILES & ~hand
    others = [j for j in range(rules.players) if j != seat]
    n = rules.hand_size
    found: Counter = Counter()

    def deal(j, left, hands):
        if j == len(others):
            who = find_leader(rules, hands)
            if who is not None:
                found[who] += 1
            return
        for pick in itertools.combinations(iter_mask(left), n):
            hands[others[j]] = dealt = sum(1 << t for t in pick)
            deal(j + 1, left & ~dealt, hands)

    hands = [0] * rules.players
    hands[seat] = hand
    deal(0, unseen, hands)
    total = sum(found.values())
    return {k: Fraction(v, total) for k, v in found.items()}


CASES = [dict(players=2, hand_size=3), dict(players=3, hand_size=2),
         dict(players=4, hand_size=1), dict(players=2, hand_size=3, lead="highest-double"),
         dict(players=2, hand_size=3, no_double="lowest-tile"),
         dict(players=3, hand_size=2, lead="highest-double", no_double="lowest-tile")]


@pytest.mark.parametrize("trials", sizes(2, 4))
@pytest.mark.parametrize("fields", CASES, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()))
def test_the_chances_are_the_deals_counted(fields, trials):
    """At `trials` seeded seats and hands (2 by default, 4 behind slow: the first 2 the same)."""
    rules = Rules(**fields)
    rng = random.Random(7)
    for trial in range(trials):
        seat = rng.randrange(rules.players)
        hand = sum(1 << t for t in rng.sample(range(N_TILES), rules.hand_size))
        got = leads(rules, seat, hand)
        want = counted(rules, seat, hand)
        assert {(j, t) for j, t, _ in got} == {k for k, p in want.items() if p}
        for j, t, p in got:
            assert p == pytest.approx(float(want[(j, t)]), abs=1e-12), (seat, hand, j, t)
        assert sum(p for *_, p in got) == pytest.approx(1.0)


def test_the_lowest_double_leads_for_sure_and_a_hand_must_be_whole():
    hand = sum(1 << t for t in (0, 1, 2, 3, 4, 5))      # 0-0 0-1 ... 0-5
    assert leads(Rules(), 1, hand) == [(1, 0, 1.0)]
    with pytest.raises(ValueError, match="holds 6 tiles"):
        leads(Rules(), 0, 0b111)
