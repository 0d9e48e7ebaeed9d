"""Known-answer tests of the rules (RULES.md), one per rule and variant, each on a hand-made
deal through the interface both backends offer (`State` alone where partial information needs
the reference); each docstring quotes the line it checks. Scenarios stay short with a small
`hand_size` and a "closed" reserve (`reserve_kept` the whole reserve: nobody may draw)."""
import json
from pathlib import Path

import pytest

from bergen_search.errors import BergenError
from bergen_search.game import match
from bergen_search.game.backend import REFERENCE
from bergen_search.game.rng import Rng
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, State, find_leader
from bergen_search.game.tiles import ALL_TILES, DOUBLES, N_TILES, mask_of, parse_tile

REST = "..."


# ---- helpers ---------------------------------------------------------------------------------
def tiles(text):
    """Tile indices of a space-separated list like '0-0 3-5'."""
    return [parse_tile(w) for w in text.split()]


def hand(text):
    return mask_of(tiles(text))


def L(t):
    """The move laying tile t at the left end (and the lead of t)."""
    return parse_tile(t) * 2


lead = L


def R(t):
    return parse_tile(t) * 2 + 1


def closed(players=2, hand_size=3, **kw):
    """Rules whose reserve may never be drawn from: `reserve_kept` is the whole reserve."""
    return Rules(players=players, hand_size=hand_size,
                 reserve_kept=N_TILES - players * hand_size, **kw)


def deal(backend, rules, hands, reserve=None, head="", scores=None):
    """A round about to be led. `hands`: one tile list per seat, or REST for every tile not
    placed elsewhere (then `reserve` must be given). `reserve`: the whole draw order; when
    None it is `head` followed by the tiles no hand holds, in index order."""
    placed = 0
    for h in hands:
        if h != REST:
            placed |= hand(h)
    if reserve is not None:
        placed |= hand(reserve)
    placed |= hand(head)
    masks = [ALL_TILES & ~placed if h == REST else hand(h) for h in hands]
    if reserve is None:
        used = 0
        for m in masks:
            used |= m
        order = tiles(head)
        reserve_list = order + [t for t in range(N_TILES)
                                if not (used >> t & 1) and t not in order]
    else:
        reserve_list = tiles(reserve)
    return backend.new_state(rules, masks, reserve_list, scores)


def step(state, move):
    """Apply a move after checking that it is legal."""
    moves = state.legal_moves()
    assert move in moves, f"{move} is not among the legal moves {moves}"
    return state.apply(move)


def run(state, *moves):
    for m in moves:
        state = step(state, m)
    return state


def ends(state):
    return (state.left, state.left_double, state.right, state.right_double)


def scores(state):
    return tuple(state.scores)


def last(state):
    return tuple(state.last_points)


def hands(state):
    return tuple(state.hands)


# ---- equipment, seats and defaults -----------------------------------------------------------
@pytest.mark.parametrize("players, partnerships, target, hand_size", [
    (2, False, 15, 6),
    (3, False, 10, 6),
    (4, False, 10, 5),
    (4, True, 15, 5),
])
def test_defaults_target_and_hand_size(players, partnerships, target, hand_size):
    """RULES.md: "Each player gets 6 tiles with 2 or 3 players, 5 with 4 players (`hand_size`)."
    and "the target: 15 with two players or two partnerships, 10 with three or four individual
    players"."""
    r = Rules(players=players, partnerships=partnerships)
    assert (r.target, r.hand_size) == (target, hand_size)
    assert r.reserve_start == 28 - players * hand_size
    assert r.n_sides == (2 if partnerships else players)


def test_defaults_of_the_variants():
    """RULES.md defaults: `lead: lowest-double`, `no_double: redeal`, `draw: until-playable`,
    `reserve_kept: 2`, `out_bonus` 2, `blocked` `german`, `endgame_cap: true`."""
    r = Rules()
    assert (r.players, r.partnerships, r.lead, r.no_double, r.draw, r.reserve_kept,
            r.out_bonus, r.blocked, r.endgame_cap) == (
        2, False, "lowest-double", "redeal", "until-playable", 2, 2, "german", True)
    assert Rules.from_dict({"players": 3, "target": 21}).target == 21


@pytest.mark.parametrize("bad", [
    {"lead": "middle-double"},
    {"no_double": "pass"},
    {"draw": "two"},
    {"blocked": "chinese"},
    {"players": 1},
    {"players": 5},
    {"partnerships": True},
    {"players": 3, "partnerships": True},
    {"hand_size": 14},
    {"players": 3, "hand_size": 9},
    {"players": 4, "hand_size": 7},
    {"hand_size": 0},
    {"target": 0},
    {"reserve_kept": 29},
    {"out_bonus": -1},
    {"endgame_cap": "yes"},
    {"players": "2"},
    {"colour": "red"},
], ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_rules_reject_unknown_values_and_impossible_sets(bad):
    """FORMATS.md `rules`: "An unknown field or value is an error."; RULES.md: "2, 3 or 4
    players", "With 4 players the game may be played in partnerships"; hands must fit the set."""
    with pytest.raises(BergenError):
        Rules.from_dict(bad)


@pytest.mark.parametrize("players, hand_size, reserve_kept", [(2, 13, 2), (3, 8, 2), (4, 6, 2),
                                                              (4, 7, 0)])
def test_rules_accept_the_largest_hands_that_fit(players, hand_size, reserve_kept):
    """Hands of `hand_size` plus the `reserve_kept` tiles must fit in the 28 tiles."""
    r = Rules(players=players, hand_size=hand_size, reserve_kept=reserve_kept)
    assert r.reserve_start == 28 - players * hand_size


def test_partnership_sides():
    """RULES.md: "seats 0 and 2 are side 0, seats 1 and 3 side 1. Otherwise every seat is its
    own side."."""
    p = Rules(players=4, partnerships=True)
    assert [p.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [Rules(players=4).side_of(s) for s in range(4)] == [0, 1, 2, 3]


# ---- the lead --------------------------------------------------------------------------------
def test_lead_lowest_double_is_the_only_legal_move(backend):
    """RULES.md: "Default (`lead: lowest-double`): the holder of the lowest double must lead that
    double, in every round" (whatever the scores) and "The lead is forced: the leader has no
    choice."."""
    for start in (None, (9, 4)):
        s = deal(backend, Rules(hand_size=3), ["2-2 5-5 0-1", "1-1 6-6 3-4"], scores=start)
        assert s.to_move == 1
        assert s.legal_moves() == [lead("1-1")]
    s = s.apply(lead("1-1"))
    assert ends(s) == (1, True, 1, True)
    assert hands(s) == (hand("2-2 5-5 0-1"), hand("6-6 3-4"))
    assert s.to_move == 0


def test_every_round_of_a_match_is_led_by_the_lead_rule(backend):
    """RULES.md: "Every round is led afresh by the lead rule; no seat carries over from the round
    before." Checked on every round of a whole match."""
    rules = Rules(target=40)
    log = backend.play_match(rules, [match.ENGINE_RANDOM] * 2, 12345)
    assert len(log.rounds) >= 3
    for rnd in log.rounds:
        seat, tile = find_leader(rules, list(rnd.hands))
        assert tile in (parse_tile(f"{v}-{v}") for v in range(7))
        assert not any(h & DOUBLES & ((1 << tile) - 1) for h in rnd.hands)
        assert (rnd.events[0][0], rnd.events[0][1]) == (seat, tile * 2)


LOWEST_TILE = dict(hand_size=2, no_double="lowest-tile")


@pytest.mark.parametrize("rules, seat0, seat1, leader, tile", [
    # RULES.md: "Variant `lead: highest-double`: the holder of the highest double leads it."
    # (6-6 is in the reserve)
    (dict(hand_size=3, lead="highest-double"), "1-1 2-2 0-1", "5-5 3-3 0-2", 1, "5-5"),
    # "Variant `no_double: lowest-tile` (French and Russian texts): when nobody holds a double,
    # the holder of the lowest tile leads it: lowest pip total, ties broken by the lower half
    # (so 0-1, 0-2, then 0-3 before 1-2)."
    (LOWEST_TILE, "0-2 5-6", "0-1 3-4", 1, "0-1"),
    (LOWEST_TILE, "0-2 5-6", "0-3 3-4", 0, "0-2"),
    (LOWEST_TILE, "1-2 5-6", "0-3 4-5", 1, "0-3"),
    (LOWEST_TILE, "0-3 5-6", "1-2 4-5", 0, "0-3"),
    (LOWEST_TILE, "0-4 5-6", "1-2 4-5", 1, "1-2"),
    (LOWEST_TILE, "1-3 5-6", "0-4 2-6", 1, "0-4"),
    (LOWEST_TILE, "2-3 1-5", "1-4 2-6", 1, "1-4"),
    # ... only "when nobody holds a double": the lowest double still leads otherwise
    (LOWEST_TILE, "0-1 0-2", "5-5 3-4", 1, "5-5"),
    # with `lead: highest-double`, no double held: the lowest tile (not the highest) leads
    (dict(LOWEST_TILE, lead="highest-double"), "5-6 1-2", "0-3 4-6", 1, "0-3"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_the_lead_variants_pick_the_leader_and_its_tile(backend, rules, seat0, seat1, leader,
                                                        tile):
    """... and RULES.md: "The lead double counts as a double match: 2 points for the leader
    (not 3), at once." "A lead that is not a double (variant `lowest-tile`) scores nothing."."""
    s = deal(backend, Rules(**rules), [seat0, seat1])
    assert s.to_move == leader
    assert s.legal_moves() == [lead(tile)]
    s = s.apply(lead(tile))
    a, b = sorted(map(int, tile.split("-")))
    assert ends(s) == (a, a == b, b, a == b) and s.to_move == 1 - leader
    assert last(s)[leader] == scores(s)[leader] == (2 if a == b else 0)
    assert s.ended is None and s.winner is None


@pytest.mark.parametrize("start, cap, after, ended, winner", [
    (12, True, 14, None, None),       # needs 3: a double match is worth at most 2 -> 2
    (13, True, 14, None, None),       # needs 2: only 1
    (14, True, 15, "target", 1),      # needs 1: only 1, and it reaches the target
    (11, True, 13, None, None),       # needs 4: full value
    (13, False, 15, "target", 1),     # no cap: full 2 reaches the target
])
def test_lead_double_is_capped_near_the_target(backend, start, cap, after, ended, winner):
    """RULES.md: "a side that needs 2 points or fewer to reach the target scores only 1 for any
    match" — the lead double counts as a double match, so it is capped too."""
    s = deal(backend, Rules(hand_size=3, endgame_cap=cap), ["2-2 5-5 0-1", "1-1 6-6 3-4"],
             scores=(0, start))
    s = s.apply(lead("1-1"))
    assert scores(s) == (0, after)
    assert last(s) == (0, after - start)
    assert (s.ended, s.winner) == (ended, winner)
    if ended:
        assert s.legal_moves() == []


def _first_shuffle(seed):
    rng = Rng(seed)
    order = list(range(N_TILES))
    rng.shuffle(order)
    return order


def test_no_double_redeal_playout_deals_again():
    """RULES.md: "If nobody holds a double, the tiles are dealt again (`no_double: redeal`)."
    `match.deal` shuffles again until a hand holds a double."""
    rules = Rules(hand_size=2)
    seed = next(s for s in range(10000) if not mask_of(_first_shuffle(s)[:4]) & DOUBLES)
    first = _first_shuffle(seed)
    dealt, reserve = match.deal(rules, Rng(seed))
    assert (dealt[0] | dealt[1]) & DOUBLES
    assert [mask_of(first[:2]), mask_of(first[2:4])] != list(dealt)
    assert State.deal(rules, dealt, reserve).to_move in (0, 1)
    # Under `lowest-tile` the same seed keeps the first deal, which has no double.
    kept, kept_reserve = match.deal(Rules(hand_size=2, no_double="lowest-tile"), Rng(seed))
    assert list(kept) == [mask_of(first[:2]), mask_of(first[2:4])]
    assert kept_reserve == first[4:]


# ---- the line --------------------------------------------------------------------------------
def test_tile_fitting_both_ends_left_and_right_are_different_moves(backend):
    """RULES.md: "A tile that fits both ends may be laid at either; the player chooses. Laying it
    at the left or the right are different moves."."""
    s = deal(backend, closed(hand_size=2), ["3-3 6-6", "3-5 2-4"])
    s = run(s, lead("3-3"))
    assert s.legal_moves() == [L("3-5"), R("3-5")]
    left = s.apply(L("3-5"))
    right = s.apply(R("3-5"))
    assert ends(left) == (5, False, 3, True)
    assert ends(right) == (3, True, 5, False)


def test_tile_fitting_two_different_ends(backend):
    """RULES.md: "A tile that fits both ends may be laid at either" — also when the ends show
    different numbers (2 and 5, tile 2-5): each choice gives a different line and score."""
    s = deal(backend, closed(hand_size=3), ["2-2 3-5 6-6", "2-3 2-5 1-4"])
    s = run(s, lead("2-2"))
    assert s.legal_moves() == [L("2-3"), R("2-3"), L("2-5"), R("2-5")]
    s = run(s, R("2-3"), R("3-5"))
    assert ends(s) == (2, True, 5, False)
    assert s.legal_moves() == [L("2-5"), R("2-5")]
    left, right = s.apply(L("2-5")), s.apply(R("2-5"))
    assert ends(left) == (5, False, 5, False)       # a double match
    assert last(left) == (0, 2)
    assert ends(right) == (2, True, 2, False)       # a triple match
    assert last(right) == (0, 3)


def test_double_at_an_end_makes_that_end_a_double(backend):
    """RULES.md: "An end "is a double" when the tile at that end is a double." A double is one
    tile of the line: laying past it makes the end plain again."""
    s = deal(backend, closed(hand_size=3), ["1-1 1-5 5-6", "1-3 5-5 2-2"])
    s = run(s, lead("1-1"))
    assert ends(s) == (1, True, 1, True)
    s = run(s, L("1-3"))
    assert ends(s) == (3, False, 1, True)
    s = run(s, R("1-5"))
    assert ends(s) == (3, False, 5, False)
    assert s.legal_moves() == [R("5-5")]
    s = run(s, R("5-5"))
    assert ends(s) == (3, False, 5, True)
    s = run(s, R("5-6"))
    assert ends(s) == (3, False, 6, False)


def test_must_play_a_fitting_tile_no_voluntary_draw(backend):
    """RULES.md: "A player who holds a tile that fits must play one (any one that fits). There is
    no voluntary drawing and no voluntary pass." Every fitting tile is offered, nothing else."""
    s = deal(backend, Rules(hand_size=4), ["0-0 5-5 6-6 4-5", "0-2 0-6 3-4 2-5"])
    s = run(s, lead("0-0"))
    assert s.reserve_size == 20
    assert s.legal_moves() == [L("0-2"), R("0-2"), L("0-6"), R("0-6")]
    s = run(s, R("0-2"))
    assert s.legal_moves() == [DRAW]          # seat 0: 5-5 6-6 4-5 fit neither 0 nor 2
    s = run(s, DRAW)                          # draws 0-1, the first reserve tile
    assert s.to_move == 0
    assert s.legal_moves() == [L("0-1")]


def test_illegal_plays_are_refused_by_the_reference():
    """RULES.md: "A tile is laid at one end, touching halves equal." and no voluntary draw or
    pass: the reference raises BergenError."""
    s = State.deal(Rules(hand_size=4), [hand("0-0 5-5 6-6 4-5"), hand("0-2 0-6 3-4 2-5")],
                   [t for t in range(N_TILES)
                    if not hand("0-0 5-5 6-6 4-5 0-2 0-6 3-4 2-5") >> t & 1])
    with pytest.raises(BergenError):
        s.apply(lead("5-5"))                  # not the lowest double
    s = s.apply(lead("0-0"))
    for bad in (L("3-4"), R("2-5"), DRAW, PASS, L("5-5")):
        with pytest.raises(BergenError):
            s.apply(bad)
    with pytest.raises(BergenError):
        s.apply(L("0-2"), seat=0)             # out of turn


# ---- scoring during play ---------------------------------------------------------------------
def _match_deal(backend, scores=None, **kw):
    """seat 0 leads 1-1; then 1-3:L, 1-5:R, 3-5:L (a double match, ends 5|5), 5-5:R (triple)."""
    return deal(backend, closed(hand_size=4, **kw), ["1-1 1-5 5-5 4-6", "1-3 3-5 2-2 2-6"],
                scores=scores)


def test_no_score_a_double_match_and_a_triple_by_laying_the_double(backend):
    """RULES.md: "After a tile is laid, if both ends of the line show the same number, the player
    scores a match" (otherwise nothing): "a double match, 2 points, when neither end tile is a
    double"; "a triple match, 3 points, when one of the two matching end tiles is a double",
    here formed by laying the double itself, at either end, on an end matching the other."""
    s = run(_match_deal(backend), lead("1-1"))
    assert s.legal_moves() == [L("1-3"), R("1-3")]
    s = run(s, L("1-3"))
    assert ends(s) == (3, False, 1, True)
    assert (scores(s), last(s)) == ((2, 0), (0, 0))
    s = run(s, R("1-5"))
    assert ends(s) == (3, False, 5, False)
    assert (scores(s), last(s)) == ((2, 0), (0, 0))
    assert s.legal_moves() == [L("3-5"), R("3-5")]
    s = run(s, L("3-5"))
    assert ends(s) == (5, False, 5, False)
    assert (scores(s), last(s)) == ((2, 2), (0, 2))
    assert s.legal_moves() == [L("5-5"), R("5-5")]
    right, left = s.apply(R("5-5")), s.apply(L("5-5"))
    assert ends(right) == (5, False, 5, True) and ends(left) == (5, True, 5, False)
    assert scores(right) == (5, 2) and last(right) == last(left) == (3, 0)


def _triple_deal(backend, scores=None, **kw):
    """seat 0 leads 4-4; then 1-4:R, 1-6:R, 4-6:R: ends 4D|4, a triple for seat 1."""
    return deal(backend, closed(hand_size=3, **kw), ["4-4 1-6 2-3", "1-4 4-6 2-5"],
                scores=scores)


def test_triple_match_by_matching_a_double_at_the_other_end(backend):
    """RULES.md: "a triple match, 3 points, when one of the two matching end tiles is a double" —
    formed by a plain tile that matches a double at the other end."""
    s = run(_triple_deal(backend), lead("4-4"))
    assert s.legal_moves() == [L("1-4"), R("1-4"), L("4-6"), R("4-6")]
    s = run(s, R("1-4"))
    assert s.legal_moves() == [R("1-6")]
    s = run(s, R("1-6"))
    assert ends(s) == (4, True, 6, False)
    assert s.legal_moves() == [L("4-6"), R("4-6")]
    s = run(s, R("4-6"))
    assert ends(s) == (4, True, 4, False)
    assert scores(s) == (2, 3)
    assert last(s) == (0, 3)


def test_double_at_both_ends_does_not_score_when_numbers_differ(backend):
    """RULES.md: a match needs "both ends of the line show the same number"; two double ends with
    different numbers score nothing."""
    s = deal(backend, closed(hand_size=3), ["1-1 1-5 2-3", "5-5 4-6 2-6"])
    s = run(s, lead("1-1"))
    assert s.legal_moves() == [PASS]          # seat 1 holds no 1
    s = run(s, PASS, R("1-5"))
    assert s.legal_moves() == [R("5-5")]
    s = run(s, R("5-5"))
    assert ends(s) == (1, True, 5, True)
    assert last(s) == (0, 0)
    assert scores(s) == (2, 0)


# ---- endgame_cap -----------------------------------------------------------------------------
@pytest.mark.parametrize("start, cap, points, ended, target", [
    (11, True, 3, None, 15),        # needs 4: full value
    (12, True, 2, None, 15),        # needs exactly 3: a triple scores at most 2
    (13, True, 1, None, 15),        # needs 2: any match scores 1
    (14, True, 1, "target", 15),    # needs 1: any match scores 1
    (12, False, 3, "target", 15),   # no cap: the full 3
    (13, False, 3, "target", 15),
    (4, True, 2, None, 7),          # the cap counts from `target`: on 4 of 7 it needs exactly 3
])
def test_endgame_cap_on_a_triple(backend, start, cap, points, ended, target):
    """RULES.md: "Reduced matches near the target (`endgame_cap: true`): a side that needs 2
    points or fewer to reach the target scores only 1 for any match; a side that needs exactly 3
    scores at most 2 for a match."."""
    s = run(_triple_deal(backend, scores=(0, start), endgame_cap=cap, target=target),
            lead("4-4"), R("1-4"), R("1-6"), R("4-6"))
    assert scores(s) == (2, start + points)
    assert last(s) == (0, points)
    assert s.ended == ended
    assert s.winner == (1 if ended else None)


@pytest.mark.parametrize("start, cap, points", [
    (11, True, 2),              # needs 4
    (12, True, 2),              # needs exactly 3: at most 2, a double match keeps its 2
    (13, True, 1),              # needs 2: 1
    (13, False, 2),             # no cap: the whole 2 reaches the target and ends the match
])
def test_endgame_cap_on_a_double_match(backend, start, cap, points):
    """RULES.md: "a side that needs exactly 3 scores at most 2 for a match" (a double match keeps
    2), "a side that needs 2 points or fewer ... scores only 1 for any match" and "The match
    ends the moment a side reaches the target"."""
    s = run(_match_deal(backend, scores=(0, start), endgame_cap=cap),
            lead("1-1"), L("1-3"), R("1-5"), L("3-5"))
    assert last(s) == (0, points)
    assert scores(s) == (2, start + points)
    ended = start + points >= 15
    assert (s.ended, s.winner) == (("target", 1) if ended else (None, None))
    assert (s.legal_moves() == []) == ended


# ---- going out -------------------------------------------------------------------------------
def _out_deal(backend, scores=None, **kw):
    """seat 0 leads 1-1, seat 1 plays 1-3:R, seat 0 goes out with 1-2:L (no match)."""
    return deal(backend, closed(hand_size=2, **kw), ["1-1 1-2", "1-3 5-6"], scores=scores)


@pytest.mark.parametrize("bonus, start, final, winner", [
    (2, 0, 4, None), (5, 0, 7, None),
    (2, 12, 16, 0),     # the lead double capped at 2 (needs 3), then (needs 1) the whole bonus
    (2, 11, 15, 0),     # the bonus reaches the target: the match is won
])
def test_going_out_scores_the_out_bonus(backend, bonus, start, final, winner):
    """RULES.md: "Going out: the first player to lay their last tile ends the round and scores
    the match value of that play (if any) and then 2 points (`out_bonus`; variant: 5)"; "The
    reduction applies to matches only, never to the bonuses below"; the bonus counts toward
    the target like any points."""
    s = run(_out_deal(backend, scores=(start, 0), out_bonus=bonus), lead("1-1"), R("1-3"))
    assert s.legal_moves() == [L("1-2")]
    s = run(s, L("1-2"))
    assert ends(s) == (2, False, 3, False)
    assert (s.ended, s.winner) == ("out", winner)
    assert scores(s) == (final, 0)
    assert last(s) == (bonus, 0)
    assert s.legal_moves() == []
    assert hands(s) == (0, hand("5-6"))


def _out_with_triple_deal(backend, scores=None, **kw):
    """seat 0 leads 1-1, 1-4:R, 4-6:R, seat 1 passes, seat 0 goes out with 1-6:R, a triple."""
    return deal(backend, closed(hand_size=3, **kw), ["1-1 4-6 1-6", "1-4 2-3 2-5"], scores=scores)


def _out_with_triple(state):
    s = run(state, lead("1-1"), R("1-4"))
    assert s.legal_moves() == [L("1-6"), R("4-6")]
    s = run(s, R("4-6"), PASS)
    assert s.legal_moves() == [L("1-6"), R("1-6")]
    return run(s, R("1-6"))


@pytest.mark.parametrize("start, rules, final, points, winner", [
    # "scores the match value of that play (if any) and then 2 points": a triple, then the bonus
    (0, {}, 7, 5, None), (0, {"out_bonus": 5}, 10, 8, None),
    # the match capped, the bonus not: lead needs 6 -> 2 (12), triple needs 4 -> 3 (15), bonus
    # 2 (17 >= 16)
    (10, {"target": 16}, 17, 5, 0),
    # lead needs 4 -> 2 (13), triple needs 2 -> 1 (14), then the whole 5
    (11, {"target": 15, "out_bonus": 5}, 19, 6, 0),
    # "Points are added in this order: the match value of a play, then the going-out bonus;
    # once the target is reached nothing further is scored." lead 2 -> 12, triple 3 -> 15
    (10, {"endgame_cap": False}, 15, 3, 0),
    (12, {}, 15, 1, 0),             # lead 2 (needs 3) -> 14, triple capped to 1 -> 15
])
def test_going_out_with_a_triple_adds_the_match_then_the_bonus(backend, start, rules, final,
                                                               points, winner):
    s = _out_with_triple(_out_with_triple_deal(backend, scores=(start, 0), **rules))
    assert ends(s) == (1, True, 1, False)
    assert scores(s) == (final, 0) and last(s) == (points, 0)
    assert (s.ended, s.winner) == ("out", winner)
    assert s.legal_moves() == []


def test_lead_of_the_only_tile_goes_out(backend):
    """RULES.md: "the first player to lay their last tile ends the round" — even the lead, with
    one-tile hands: the lead double's 2, then the out bonus."""
    s = deal(backend, closed(players=4, hand_size=1, partnerships=True),
             ["6-6", "0-0", "1-2", "3-4"])
    assert s.legal_moves() == [lead("0-0")]
    s = s.apply(lead("0-0"))
    assert s.ended == "out"
    assert scores(s) == (0, 4)
    assert last(s) == (0, 4)


# ---- the match ends at the target ------------------------------------------------------------
def test_match_ends_the_moment_a_side_reaches_the_target(backend):
    """RULES.md: "The match ends the moment a side reaches the target, even in the middle of a
    round."."""
    s = run(_triple_deal(backend, scores=(0, 14)), lead("4-4"), R("1-4"), R("1-6"))
    assert s.ended is None
    s = run(s, R("4-6"))
    assert scores(s) == (2, 15)
    assert s.ended == "target"
    assert s.winner == 1
    assert s.legal_moves() == []
    assert hands(s) == (hand("2-3"), hand("2-5"))


def test_no_event_after_the_match_ended():
    """RULES.md: "once the target is reached nothing further is scored": the reference refuses
    any further action."""
    s = run(_triple_deal(REFERENCE, scores=(0, 14)), lead("4-4"), R("1-4"), R("1-6"), R("4-6"))
    for action in (R("2-3"), PASS, DRAW):
        with pytest.raises(BergenError):
            s.apply(action)


# ---- drawing ---------------------------------------------------------------------------------
def _draw_deal(backend, **kw):
    """seat 0 leads 0-0; seat 1 holds no 0; the reserve starts 2-3, 4-4, 0-3, 4-5."""
    return deal(backend, Rules(hand_size=3, **kw), ["0-0 5-5 6-6", "1-2 3-4 5-6"],
                head="2-3 4-4 0-3 4-5")


def test_draws_continue_until_a_tile_fits_which_must_be_played(backend):
    """RULES.md: "A player who cannot play draws from the reserve, one tile at a time, until a
    drawn tile fits, which must then be played (it is the only tile that fits; the player still
    chooses the end where it fits both) (`draw: until-playable`)."."""
    s = run(_draw_deal(backend), lead("0-0"))
    assert (s.to_move, s.reserve_size, s.legal_moves()) == (1, 22, [DRAW])
    s = run(s, DRAW)
    assert s.to_move == 1
    assert s.reserve_size == 21
    assert hands(s)[1] == hand("1-2 3-4 5-6 2-3")
    assert s.legal_moves() == [DRAW]
    s = run(s, DRAW)
    assert hands(s)[1] == hand("1-2 3-4 5-6 2-3 4-4")
    assert s.legal_moves() == [DRAW]
    s = run(s, DRAW)
    assert s.reserve_size == 19
    assert s.to_move == 1
    assert s.legal_moves() == [L("0-3"), R("0-3")]
    s = run(s, R("0-3"))
    assert ends(s) == (0, True, 3, False)
    assert hands(s)[1] == hand("1-2 3-4 5-6 2-3 4-4")
    assert s.to_move == 0
    assert scores(s) == (2, 0)


def test_drawn_tile_fitting_one_end_is_the_only_play(backend):
    """RULES.md: "until a drawn tile fits, which must then be played (it is the only tile that
    fits...)" — a tile fitting one end gives exactly one move."""
    s = deal(backend, Rules(hand_size=3), ["0-0 5-5 6-6", "0-4 1-2 1-3"], head="2-3 4-5")
    s = run(s, lead("0-0"), R("0-4"))
    assert s.legal_moves() == [DRAW]
    s = run(s, DRAW)
    assert s.legal_moves() == [DRAW]
    s = run(s, DRAW)
    assert s.legal_moves() == [R("4-5")]
    s = run(s, R("4-5"))
    assert ends(s) == (0, True, 5, False)
    assert hands(s)[0] == hand("5-5 6-6 2-3")


def _kept_deal(backend, reserve_kept, draw="until-playable"):
    """2 players, hands of 12, reserve 2-2, 3-3, 0-6, 4-4 (4 tiles). seat 0 leads 0-0; seat 1
    holds no 0; the only fitting reserve tile is the third, 0-6."""
    return deal(backend, Rules(hand_size=12, reserve_kept=reserve_kept, draw=draw),
                ["0-0 0-1 0-2 0-3 0-4 0-5 1-1 1-2 1-3 1-4 1-5 5-5", REST],
                reserve="2-2 3-3 0-6 4-4")


@pytest.mark.parametrize("kept, draws, then, draw", [
    (2, 2, "pass", "until-playable"),
    (3, 1, "pass", "until-playable"),
    (4, 0, "pass", "until-playable"),
    (1, 3, "play", "until-playable"),
    (0, 3, "play", "until-playable"),
    # `draw: one`: "draws one tile (if the reserve holds more than `reserve_kept`)"
    (3, 1, "pass", "one"),
    (4, 0, "pass", "one"),
])
def test_reserve_kept_tiles_are_never_drawn(backend, kept, draws, then, draw):
    """RULES.md: "The last two tiles of the reserve are never drawn (`reserve_kept: 2`). A player
    who cannot play while the reserve holds only those two passes." With 0, 1, 3 and 4 kept."""
    s = run(_kept_deal(backend, kept, draw), lead("0-0"))
    assert s.reserve_size == 4
    drawn = tiles("2-2 3-3 0-6")
    for i in range(draws):
        assert s.legal_moves() == [DRAW]
        s = s.apply(DRAW)
        assert hands(s)[1] >> drawn[i] & 1
    assert s.reserve_size == 4 - draws
    if then == "pass":
        assert s.legal_moves() == [PASS]
        s = s.apply(PASS)
        assert (s.to_move, s.passes, s.ended) == (0, 1, None)
        assert s.legal_moves() == [m(f"0-{b}") for b in range(1, 6) for m in (L, R)]
        assert run(s, R("0-1")).passes == 0
    else:
        assert s.legal_moves() == [L("0-6"), R("0-6")]


def test_draw_one_passes_or_plays_the_drawn_tile(backend):
    """RULES.md: "Variant `draw: one` (French and Russian texts): a player who cannot play draws
    one tile (if the reserve holds more than `reserve_kept`); if it fits it must be played,
    otherwise the player passes."."""
    s = deal(backend, Rules(hand_size=3, draw="one"), ["0-0 5-5 6-6", "1-2 3-4 5-6"],
             head="2-3 0-3")
    s = run(s, lead("0-0"), DRAW)
    assert hands(s)[1] == hand("1-2 3-4 5-6 2-3") and s.reserve_size == 21
    assert s.legal_moves() == [PASS]
    s = run(s, PASS)
    assert (s.to_move, s.passes, s.ended) == (0, 1, None)
    assert s.legal_moves() == [DRAW]
    s = run(s, DRAW)
    assert s.legal_moves() == [L("0-3"), R("0-3")]
    s = run(s, L("0-3"))
    assert ends(s) == (3, False, 0, True)
    assert s.to_move == 1


def test_draw_rule_violations_are_refused_by_the_reference():
    """RULES.md drawing rules, as the reference validates them: no second draw under `draw: one`,
    no draw past `reserve_kept`, no pass while a draw is allowed, the drawn tile must be the one
    played."""
    s = run(_draw_deal(REFERENCE, draw="one"), lead("0-0"), DRAW)
    with pytest.raises(BergenError):
        s.apply(DRAW)
    s = run(_draw_deal(REFERENCE), lead("0-0"))
    with pytest.raises(BergenError):
        s.apply(PASS)
    s = run(_kept_deal(REFERENCE, 2), lead("0-0"), DRAW, DRAW)
    with pytest.raises(BergenError):
        s.apply(DRAW)
    # seat 1 draws 0-4 (fits) while holding nothing that fits: it must play that very tile.
    s = deal(REFERENCE, Rules(hand_size=3), ["0-0 5-5 6-6", "1-2 3-4 5-6"], head="0-4")
    s = run(s, lead("0-0"), DRAW)
    assert s.legal_moves() == [L("0-4"), R("0-4")]


# ---- blocked rounds --------------------------------------------------------------------------
def _blocked(backend, rules, hand_texts, scores=None):
    """Seat 0 leads 0-0 and nobody else holds a 0 (the reserve is closed): all pass."""
    s = deal(backend, rules, hand_texts, scores=scores)
    s = s.apply(lead("0-0"))
    for i in range(rules.players):
        assert (s.ended, s.passes, s.to_move) == (None, i, (1 + i) % rules.players)
        assert s.legal_moves() == [PASS]
        s = s.apply(PASS)
    assert s.ended == "blocked"
    assert s.legal_moves() == []
    return s


def test_blocked_after_the_draws_run_out(backend):
    """RULES.md: "Blocked round: when no player can play and nobody may draw (the reserve is down
    to `reserve_kept`), the round ends." Here seat 1 first draws the two drawable tiles."""
    rules = Rules(hand_size=10, reserve_kept=6)
    s = deal(backend, rules, ["0-0 1-1 1-2 1-3 1-4 1-5 1-6 2-2 2-3 2-4", REST],
             reserve="3-3 4-4 0-1 0-2 0-3 0-4 0-5 0-6")
    s = run(s, lead("0-0"), DRAW, DRAW)
    assert s.reserve_size == 6
    assert s.legal_moves() == [PASS]
    s = run(s, PASS)
    assert s.legal_moves() == [PASS]
    s = run(s, PASS)
    assert s.ended == "blocked"
    # german: seat 0 holds 2 doubles (1-1 2-2), seat 1 holds 3-3 4-4 5-5 6-6: side 0 scores.
    assert scores(s) == (4, 0)
    assert last(s) == (2, 0)


def test_draw_one_passes_do_not_block_while_a_draw_is_allowed(backend):
    """RULES.md: blocked "when no player can play and nobody may draw": under `draw: one` every
    player may pass in turn while the reserve still allows draws, and the round goes on."""
    rules = Rules(hand_size=9, reserve_kept=6, draw="one")
    s = deal(backend, rules, ["0-0 1-1 1-2 1-3 1-4 1-5 1-6 2-2 2-3", REST],
             reserve="2-4 3-3 4-4 5-5 0-1 0-2 0-3 0-4 0-5 0-6")
    s = run(s, lead("0-0"), DRAW, PASS, DRAW, PASS)
    assert s.passes == 2
    assert s.reserve_size == 8
    assert s.ended is None
    assert s.to_move == 1
    assert s.legal_moves() == [DRAW]
    s = run(s, DRAW, PASS, DRAW)
    assert s.reserve_size == 6
    assert s.ended is None
    s = run(s, PASS)
    assert s.ended == "blocked"


def _partners(blocked):
    return closed(players=4, hand_size=3, partnerships=True, blocked=blocked)


# RULES.md `blocked`: "`german` (default): the side holding the fewest doubles scores 2.
# Between sides tied on fewest doubles, the one with the fewest pips scores 2. A full tie
# scores nothing." / "`pips`: the side with the fewest pips scores 2; a tie scores nothing." /
# "`american`: a side holding no double beats every side holding one; among several sides
# with no double, the fewest pips decides; when every side holds a double, the side holding
# the lowest double scores 2." With two, three and four players and partnerships ("In
# partnerships, a side's doubles and pips are the sums over both partners' hands."; "Otherwise
# every seat is its own side"): (rules, hands, the scores after: seat 0's lead double's 2 and
# the blocked 2).
THREE = dict(players=3, hand_size=3)
TWO_GERMAN, TWO_PIPS, TWO_AMERICAN = (closed(hand_size=4, blocked=b)
                                      for b in ("german", "pips", "american"))
BLOCKED_SIDES = [
    # seat 0 keeps 1-1 2-2 1-2 (2 doubles, 9 pips), seat 1 5-6 4-6 4-5 3-6 (none, 39 pips)
    (TWO_GERMAN, ["0-0 1-1 2-2 1-2", "5-6 4-6 4-5 3-6"], (2, 2)),
    (TWO_PIPS, ["0-0 1-1 2-2 1-2", "5-6 4-6 4-5 3-6"], (4, 0)),
    (TWO_AMERICAN, ["0-0 1-1 2-2 1-2", "5-6 4-6 4-5 3-6"], (2, 2)),
    # tied on doubles (1 each): seat 0 23 pips, seat 1 16 pips
    (TWO_GERMAN, ["0-0 1-1 5-6 4-6", "2-2 1-2 1-3 1-4"], (2, 2)),
    # both hold doubles: seat 0's lowest is 1-1 (but 2 doubles, 25 pips), seat 1's 3-3 (18)
    (TWO_AMERICAN, ["0-0 1-1 5-6 6-6", "3-3 1-2 1-3 1-4"], (4, 0)),
    (TWO_GERMAN, ["0-0 1-1 5-6 6-6", "3-3 1-2 1-3 1-4"], (2, 2)),
    (TWO_PIPS, ["0-0 1-1 5-6 6-6", "3-3 1-2 1-3 1-4"], (2, 2)),
    # equal pips (23), seat 0 one double, seat 1 none
    (TWO_PIPS, ["0-0 1-1 5-6 4-6", "3-5 2-6 1-3 1-2"], (2, 0)),
    (TWO_GERMAN, ["0-0 1-1 5-6 4-6", "3-5 2-6 1-3 1-2"], (2, 2)),
    (TWO_AMERICAN, ["0-0 1-1 5-6 4-6", "3-5 2-6 1-3 1-2"], (2, 2)),
    # german full tie: one double each, 16 pips each
    (TWO_GERMAN, ["0-0 1-1 2-5 3-4", "2-2 1-3 1-2 1-4"], (2, 0)),
    # german: seat 0 fewest pips but most doubles; seats 1 and 2 tie on doubles, 2 fewer pips
    (closed(**THREE), ["0-0 1-1 2-2", "3-3 5-6 4-6", "4-4 1-2 1-3"], (2, 0, 2)),
    # german full tie: seats 1 and 2 one double and 27 pips each
    (closed(**THREE), ["0-0 1-1 2-2", "3-3 5-6 4-6", "5-5 3-6 2-6"], (2, 0, 0)),
    # pips: 6, 13, 19 pips; then 21, 16, 19; then 21, 16, 16 (a tie at the fewest)
    (closed(**THREE, blocked="pips"), ["0-0 1-1 2-2", "3-3 1-2 1-3", "1-4 2-3 4-5"], (4, 0, 0)),
    (closed(**THREE, blocked="pips"), ["0-0 5-6 4-6", "1-1 2-5 3-4", "2-2 1-5 4-5"], (2, 2, 0)),
    (closed(**THREE, blocked="pips"), ["0-0 5-6 4-6", "1-1 2-5 3-4", "2-2 1-5 3-3"], (2, 0, 0)),
    # american: no double beats a double, among them the fewest pips (seat 1 18, seat 2 20);
    # a full tie (18 and 18) scores nothing; every side a double: the lowest double
    (closed(**THREE, blocked="american"), ["0-0 1-1 1-2", "2-3 2-4 3-4", "1-3 1-4 5-6"],
     (2, 2, 0)),
    (closed(**THREE, blocked="american"), ["0-0 1-1 1-2", "2-3 2-4 3-4", "1-3 1-4 4-5"],
     (2, 0, 0)),
    (closed(**THREE, blocked="american"), ["0-0 4-4 1-2", "6-6 5-5 5-6", "2-2 3-3 1-3"],
     (2, 0, 2)),
    # partnerships, german: side 0 two doubles, side 1 one (seat 2 alone would have won)
    (_partners("german"), ["0-0 1-1 2-2", "3-3 1-5 1-6", "1-2 1-3 1-4", "2-3 2-4 2-5"], (2, 2)),
    # german, two doubles each: side 0 18 pips, side 1 52
    (_partners("german"), ["0-0 1-1 2-2", "3-3 5-6 4-6", "1-2 1-3 1-4", "4-4 3-6 2-6"], (4, 0)),
    # pips: side 0 5 + 30 = 35, side 1 18 + 16 = 34 (seat 0 alone has the fewest); 35 and 35
    (_partners("pips"), ["0-0 1-1 1-2", "2-3 2-4 3-4", "5-6 4-6 4-5", "1-3 1-4 2-5"], (2, 2)),
    (_partners("pips"), ["0-0 1-1 1-2", "2-3 2-4 3-4", "5-6 4-6 4-5", "1-3 1-4 2-6"], (2, 0)),
    # american: seat 0 holds no double but its partner holds 2-2, side 1 none
    (_partners("american"), ["0-0 1-2 1-3", "2-3 2-4 3-4", "2-2 5-6 4-6", "1-4 2-5 3-5"],
     (2, 2)),
    # american, every side a double: side 0 5-5 6-6, side 1 3-3 4-4
    (_partners("american"), ["0-0 5-5 6-6", "4-4 2-3 2-4", "1-2 1-3 1-4", "3-3 1-5 1-6"],
     (2, 2)),
    # american, neither side a double: side 0 7 + 30 = 37, side 1 18 + 20 = 38
    (_partners("american"), ["0-0 1-2 1-3", "2-3 2-4 3-4", "5-6 4-6 4-5", "1-4 2-5 3-5"],
     (4, 0)),
    # four individual players, german: seats 2 and 3 hold no double, seat 3 fewer pips
    (closed(players=4, hand_size=3), ["0-0 1-1 2-2", "3-3 1-5 1-6", "2-3 2-4 2-5",
                                      "1-2 1-3 1-4"], (2, 0, 0, 2)),
]


@pytest.mark.parametrize("rules, hand_texts, after", BLOCKED_SIDES,
                         ids=[f"{r.players}p-{r.blocked}-{i}"
                              for i, (r, _, _) in enumerate(BLOCKED_SIDES)])
def test_blocked_rounds_score_by_side(backend, rules, hand_texts, after):
    """RULES.md: "Blocked round: when no player can play and nobody may draw (the reserve is
    down to `reserve_kept`), the round ends" (every player passing in turn), scored by side."""
    s = _blocked(backend, rules, hand_texts)
    assert scores(s) == after
    assert last(s) == (after[0] - 2,) + after[1:] and s.winner is None


def test_blocked_points_can_reach_the_target(backend):
    """RULES.md: the blocked 2 are a bonus, never capped ("The reduction applies to matches
    only, never to the bonuses below"), and they can end the match."""
    s = _blocked(backend, closed(hand_size=4), ["0-0 1-1 2-2 1-2", "5-6 4-6 4-5 3-6"],
                 scores=(0, 14))
    assert scores(s) == (2, 16)
    assert last(s) == (0, 2)
    assert s.winner == 1
    assert s.ended == "blocked"


# ---- partnerships: points to the side --------------------------------------------------------
def test_partnership_points_go_to_the_side(backend):
    """RULES.md: "seats 0 and 2 are side 0, seats 1 and 3 side 1 ... Points belong to sides."."""
    s = deal(backend, closed(players=4, hand_size=3, partnerships=True),
             ["0-0 0-5 1-1", "0-3 5-6 2-2", "3-4 0-6 1-2", "0-4 1-3 1-4"])
    s = run(s, lead("0-0"))
    assert (scores(s), last(s)) == ((2, 0), (2, 0))
    s = run(s, R("0-3"), R("3-4"))
    assert s.to_move == 3
    s = run(s, R("0-4"))                      # seat 3: 0D | 0, a triple for side 1
    assert (scores(s), last(s)) == ((2, 3), (0, 3))
    s = run(s, R("0-5"), R("5-6"))
    s = run(s, R("0-6"))                      # seat 2: 0D | 0, a triple for side 0
    assert (scores(s), last(s)) == ((5, 3), (3, 0))
    assert s.to_move == 3


def test_partnership_out_bonus_goes_to_the_side(backend):
    """RULES.md: "Points belong to sides": seat 3 goes out with a triple; side 1 scores 3 + 2."""
    s = deal(backend, closed(players=4, hand_size=2, partnerships=True),
             ["0-0 5-5", "0-1 6-6", "1-2 4-4", "2-3 0-3"])
    s = run(s, lead("0-0"), R("0-1"), R("1-2"))
    assert s.legal_moves() == [L("0-3"), R("2-3")]
    s = run(s, R("2-3"), PASS, PASS, PASS)
    assert s.passes == 3
    assert s.legal_moves() == [L("0-3"), R("0-3")]
    s = run(s, R("0-3"))
    assert s.ended == "out"
    assert scores(s) == (2, 5)
    assert last(s) == (0, 5)


def test_three_individual_players_score_by_seat(backend):
    """RULES.md: "Otherwise every seat is its own side." and play "passes from seat i to seat
    i+1 (mod n)": seat 1 leads, seat 2 scores a triple, seat 1 wins the blocked round."""
    s = deal(backend, closed(players=3, hand_size=3),
             ["3-3 6-6 2-4", "1-1 3-5 2-6", "1-5 1-3 4-4"])
    s = run(s, lead("1-1"))
    assert s.to_move == 2
    assert (scores(s), last(s)) == ((0, 2, 0), (0, 2, 0))
    assert s.legal_moves() == [L("1-3"), R("1-3"), L("1-5"), R("1-5")]
    s = run(s, R("1-5"))
    assert s.to_move == 0
    assert s.legal_moves() == [PASS]
    s = run(s, PASS, R("3-5"))
    assert ends(s) == (1, True, 3, False)
    s = run(s, R("1-3"))                      # seat 2: 1D | 1, a triple
    assert (scores(s), last(s)) == ((0, 2, 3), (0, 0, 3))
    s = run(s, PASS, PASS, PASS)              # blocked; german: seat 1 keeps 2-6, no double
    assert s.ended == "blocked"
    assert (scores(s), last(s)) == ((0, 4, 3), (0, 2, 0))


# ---- partial information (reference only) ----------------------------------------------------
def test_partial_lead_must_be_the_lowest_known_double():
    """RULES.md: "The lead is forced ... It tells everyone that no other hand held a lower double"
    — a lead of 2-2 while a known hand holds 1-1 is refused; 0-0 is accepted."""
    rules = Rules(hand_size=3)
    s = State.deal(rules, [hand("1-1 3-4 5-6"), None])
    assert s.to_move == -1
    with pytest.raises(BergenError):
        s.apply(lead("2-2"), seat=1)
    s2 = s.apply(lead("0-0"), seat=1)
    assert ends(s2) == (0, True, 0, True)
    assert scores(s2) == (0, 2)
    assert s2.hidden == (0, 2)
    s = State.deal(rules, [hand("1-3 3-4 5-6"), None])
    with pytest.raises(BergenError):
        s.apply(lead("0-1"), seat=1)          # not a double, under `redeal`


def test_partial_lead_highest_double_and_lowest_tile():
    """RULES.md: for `highest-double` no other hand held a higher double; "for a `lowest-tile`
    lead: no double at all and no lower tile"."""
    s = State.deal(Rules(hand_size=3, lead="highest-double"), [hand("5-5 3-4 1-2"), None])
    with pytest.raises(BergenError):
        s.apply(lead("4-4"), seat=1)
    assert s.apply(lead("6-6"), seat=1).scores == (0, 2)
    s = State.deal(Rules(hand_size=3, no_double="lowest-tile"), [hand("0-2 3-4 1-2"), None])
    with pytest.raises(BergenError):
        s.apply(lead("0-3"), seat=1)          # 0-2 is lower
    assert s.apply(lead("0-1"), seat=1).scores == (0, 0)
    s = State.deal(Rules(hand_size=3, no_double="lowest-tile"), [hand("6-6 3-4 1-2"), None])
    with pytest.raises(BergenError):
        s.apply(lead("0-1"), seat=1)          # a double is held: it leads


def test_partial_draw_and_pass_checked_against_the_known_hand():
    """RULES.md: "A player who holds a tile that fits must play one ... no voluntary drawing and
    no voluntary pass", checked on the known part of a hand; and a seen drawn tile that fits is
    the one that must be played."""
    rules = Rules(hand_size=3)
    s = State.deal(rules, [None, hand("0-3 5-5 6-6")])
    s = s.apply(lead("0-0"), seat=0)
    with pytest.raises(BergenError):
        s.apply(DRAW, seat=1)
    s = State.deal(rules, [None, hand("1-3 5-5 6-6")])
    s = s.apply(lead("0-0"), seat=0)
    s = s.apply(DRAW, seat=1, tile=parse_tile("2-4"))
    s = s.apply(DRAW, seat=1, tile=parse_tile("0-2"))
    with pytest.raises(BergenError):
        s.apply(PASS, seat=1)
    s = s.apply(L("0-2"), seat=1)
    assert ends(s) == (2, False, 0, True)
    with pytest.raises(BergenError):
        s.apply(L("0-2"), seat=0)             # on the line already
    # a hidden hand: after drawing 0-2 (seen), seat 1 may not play a hidden 0-1 instead
    s = State.deal(rules, [None, None]).apply(lead("0-0"), seat=0)
    s = s.apply(DRAW, seat=1, tile=parse_tile("0-2"))
    with pytest.raises(BergenError):
        s.apply(L("0-1"), seat=1)
    assert s.apply(R("0-2"), seat=1).hidden == (2, 3)


def test_partial_unseen_draws_and_a_blocked_round_that_cannot_be_scored():
    """RULES.md / FORMATS.md: "A finished round that ended blocked needs the hands to be scored"
    — with hidden hands the reference refuses to score it."""
    rules = closed(hand_size=3)
    s = State.deal(rules, [None, hand("1-3 5-5 6-6")], reserve_size=22)
    s = s.apply(lead("0-0"), seat=0)
    s = s.apply(PASS, seat=1)
    with pytest.raises(BergenError):
        s.apply(PASS, seat=0)


# ---- known-answer data files -----------------------------------------------------------------
KNOWN = sorted((Path(__file__).parent / "data" / "known").glob("*.json"))


def _action(text, led):
    if text in ("draw", "pass"):
        return DRAW if text == "draw" else PASS
    if not led:
        return lead(text)
    tile, end = text.split(":")
    return L(tile) if end == "L" else R(tile)


def _replay(backend, data, rules, check_steps):
    s = backend.new_state(rules, [hand(h) for h in data["hands"]],
                          [parse_tile(t) for t in data["reserve"]], tuple(data["start_scores"]))
    led = False
    for i, st in enumerate(data["steps"]):
        assert s.ended is None, f"step {i}"
        assert s.to_move == st["seat"], f"step {i}"
        assert s.legal_moves() == [_action(m, led) for m in st["legal"]], f"step {i}"
        s = s.apply(_action(st["move"], led))
        led = True
        if check_steps:
            assert list(ends(s)) == st["ends"], f"step {i}"
            assert list(scores(s)) == st["scores"], f"step {i}"
            assert s.reserve_size == st["reserve"], f"step {i}"
    assert s.ended == data["end"]
    assert hands(s) == tuple(hand(h) for h in data["final_hands"])
    return s


@pytest.mark.parametrize("path", KNOWN, ids=[p.name for p in KNOWN])
def test_known_rounds_from_data_files(backend, path):
    """tests/data/known/*.json: whole rounds worked out by hand from RULES.md, replayed step by
    step (legal moves, ends, scores, reserve size, the end of the round), and the final scores
    under other rule variants where the file gives them."""
    data = json.loads(path.read_text())
    s = _replay(backend, data, Rules.from_dict(data["rules"]), True)
    assert s.winner == data["winner"]
    for var in data.get("variants", []):
        s = _replay(backend, data, Rules.from_dict({**data["rules"], **var["rules"]}), False)
        assert list(scores(s)) == var["scores"], var["why"]
        assert s.winner == var.get("winner"), var["why"]


def test_the_move_rule_written_once_known_answers():
    """`fitting`, `plays`, `actions` and `may_take` (game/state.py) are the rule every layer
    asks (the state, the search's root, the exact endgame and its oracle, the luck estimate)."""
    from bergen_search.game.state import actions, fitting, may_take, plays
    t = parse_tile
    hand = mask_of(map(t, ["2-5", "5-5", "0-1", "3-6"]))
    assert fitting(hand, 2, 5) == mask_of(map(t, ["2-5", "5-5"]))
    # 2-5 fits both ends (two plays), 5-5 the right only; in tile order, left before right
    assert plays(hand, 2, 5) == sorted([t("2-5") * 2, t("2-5") * 2 + 1, t("5-5") * 2 + 1])
    assert plays(hand, 4, 4) == []
    rules = Rules()
    assert actions(rules, hand, 4, 4, 10, 0) == [DRAW]               # nothing fits: draw
    assert actions(rules, hand, 4, 4, rules.reserve_kept, 0) == [PASS]   # reserve kept: pass
    assert actions(rules, hand, 1, 4, 10, 0) == [t("0-1") * 2]
    # a play (one that fits: the public tree's) needs its tile in the hand
    assert may_take(hand, t("0-1") * 2, 1, 4) and not may_take(hand, t("1-4") * 2, 1, 4)
    assert may_take(mask_of([t("0-0")]), PASS, 1, 4) and not may_take(hand, PASS, 1, 4)
