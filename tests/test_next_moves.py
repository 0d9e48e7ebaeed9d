"""`formats.replay.next_moves`: what the seat to move may do next, its hand seen or not."""
import json

import pytest
from support import RANDOM, Budget, brute_histories, plies, public_events, seen_record, sizes

from bergen_search.errors import BergenError
from bergen_search.formats.replay import Draw, Pass, Play, events, next_moves
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, move_str
from bergen_search.game.tiles import iter_mask, tile_str

MATCH = json.load(open("examples/match.json", encoding="utf-8"))


def _cut(k, hide=True):
    """The match up to event k of round 1, seat 1's hand and draws unseen (`hide`)."""
    r = MATCH["rounds"][1]
    evs = r["events"][:k]
    if hide:
        evs = [dict(e, draw=None) if e["seat"] == 1 and "draw" in e else e for e in evs]
        r = dict(r, hands=[r["hands"][0], None], reserve=None)
    return dict(MATCH, rounds=MATCH["rounds"][:1] + [dict(r, events=evs)])


def _written(step):
    if isinstance(step, Draw):
        return "draw"
    if isinstance(step, Pass):
        return "pass"
    return move_str(step.action)


def test_along_a_round_with_a_hand_unseen():
    steps = [s for s in events(MATCH) if s.round == 1 and isinstance(s, (Play, Draw, Pass))]
    pass_ends = None
    checked_after_pass = 0
    for k, step in enumerate(steps):
        if k == 0:
            continue                    # the lead: not led yet, an error (below)
        nxt = next_moves(_cut(k))
        before = step.before
        assert nxt.round == 1 and nxt.seat == step.seat
        if k == len(steps) - 1:
            # the pass that blocks the round: with seat 1's hand unseen it cannot be scored
            assert isinstance(step, Pass) and nxt.moves == [] and "cannot be scored" in nxt.why
            continue
        assert _written(step) in nxt.moves and nxt.why is None
        if step.seat == 0:
            assert nxt.seen
            assert nxt.moves == [move_str(m) if m < 56 else ("draw" if m == 56 else "pass")
                                 for m in before.legal_moves()]
            continue
        assert not nxt.seen
        plays = [m.split(":")[0] for m in nxt.moves if m not in ("draw", "pass")]
        shown = {tile_str(t) for t in iter_mask(before.hands[0] | before.line_mask())}
        assert not set(plays) & shown
        if pass_ends is not None:
            x, y = pass_ends
            assert not [t for t in plays if {int(t[0]), int(t[2])} & {x, y}], (k, plays)
            checked_after_pass += 1
        if isinstance(step, Pass):
            pass_ends = (before.left, before.right)
    assert checked_after_pass >= 1


def test_a_round_over_is_an_error_and_a_match_over_says_so():
    """A round over; the last round of a finished match: no next round either."""
    with pytest.raises(BergenError, match="the round is over"):
        next_moves(dict(MATCH, rounds=MATCH["rounds"][:1]))
    with pytest.raises(BergenError) as e:
        next_moves(MATCH)
    assert str(e.value) == ("round 4: the match is over: side 0 reached the target 15, so no "
                            "round follows")


def test_a_round_not_led_lists_every_lead_some_deal_allows():
    r = MATCH["rounds"][0]
    def leads(hands):
        nxt = next_moves(dict(MATCH, rounds=[dict(r, hands=hands, reserve=None, events=[])]))
        assert nxt.seat is None and nxt.moves == [] and nxt.why is None
        return nxt.leads
    assert leads(r["hands"]) == [(0, "2-2")]
    assert leads([r["hands"][0], None]) == [(0, "2-2"), (1, "0-0"), (1, "1-1")]
    doubles = [f"{v}-{v}" for v in range(7)]
    assert leads([None, None]) == [(s, d) for s in (0, 1) for d in doubles]
    # each lead offered replays; every other tile of those hands does not
    for seat, tile in leads([r["hands"][0], None]):
        rec = dict(MATCH, rounds=[dict(r, hands=[r["hands"][0], None], reserve=None,
                                       events=[{"seat": seat, "play": tile}])])
        for _ in events(rec):
            pass


# ---- whole hands, not tiles one by one: the offers against a brute force --------------------
@pytest.mark.parametrize("games, least", sizes((1, 15), (40, 20)))
def test_an_unseen_seat_is_offered_what_some_whole_hand_allows(games, least):
    """An unseen seat is offered exactly the moves legal after some whole history consistent
    with what seat 0 saw (support's brute force), the blocking pass aside (one match by
    default: 17 decisions, 3 of them with the draw refused; 40 behind slow)."""
    checked = draws_refused = 0
    for g in range(games):
        log = play_match(Rules(), [RANDOM] * 2, derive_seed(4077, g))
        rnd = log.rounds[0]
        for _, k, state, _ in plies(log, rounds=1):
            if not state.led or state.to_move != 1:
                continue
            try:
                histories = brute_histories(state.rules, 0, rnd.hands[0],
                                            public_events(rnd.events[:k], 0), log.start_scores,
                                            budget=15_000)
            except Budget:
                continue
            allowed = {"draw" if m == DRAW else "pass" if m == PASS else move_str(m)
                       for _, _, st in histories for m in st.legal_moves()}
            offered = set(next_moves(seen_record(log, 0, k, 0)).moves)
            if state.passes == state.rules.players - 1:
                allowed.discard("pass")
            assert offered == allowed, (g, k, sorted(offered ^ allowed))
            checked += 1
            draws_refused += "draw" not in offered and state.reserve_size > 2
    assert checked >= least and draws_refused >= 3, (checked, draws_refused)
