"""Information sets (information/infoset.py) read only what their seat could see, and keep the
proofs RULES.md states ("The lead", "Decisions and chance"): complete and nulled records give
the same set (other histories the seat cannot tell apart: test_hidden.py); a record as one seat
saw it replays whenever the complete one does; hand-made positions show what a lead, pass and
draw prove."""
from __future__ import annotations

import pytest
from support import RANDOM, plies, seen_record, sizes, tiles

from bergen_search.errors import BergenError
from bergen_search.formats.game import load_game
from bergen_search.formats.record import parse_record
from bergen_search.formats.record_io import write_record
from bergen_search.formats.replay import replay, walk
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS
from bergen_search.game.tiles import TILES_WITH, parse_tile, tile_str
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.infoset import RESERVE, Observer, from_state_and_events

TABLES = {
    "2p": Rules(), "2p-draw-one": Rules(draw="one"),
    "2p-highest-double-lowest-tile": Rules(lead="highest-double", no_double="lowest-tile",
                                           hand_size=3),
    "3p": Rules(players=3), "3p-draw-one": Rules(players=3, draw="one"),
    "4p": Rules(players=4, no_double="lowest-tile"),
    "4p-partnerships": Rules(players=4, partnerships=True),
    "4p-partnerships-draw-one": Rules(players=4, partnerships=True, draw="one",
                                      lead="highest-double"),
}


def play(name: str, end: int | None = None) -> int:
    """A play as a move int: `play("0-0")` the lead, `play("0-5", 1)` at the right end."""
    return parse_tile(name) * 2 + (end or 0)


def infoset_via_record(rec: dict):
    """The seat to move's information set after a record's last event, built the way the
    command line builds it: parse, replay through replay.walk, an Observer of the last round
    that knows only the seat to move."""
    record = parse_record(rec)
    last = len(record.rounds) - 1
    steps = [s for s in walk(record) if s.round == last]
    seat = steps[-1].after.to_move
    obs = Observer(record.rules, {seat}, steps[0].before)
    for s in steps:
        obs.step(s.seat, s.action, s.after)
    return obs.infoset(seat)


def cut_points(rules: Rules, seed: int, games: int, every: int):
    """(log, round, k, state before event k) at every `every`-th event after a lead."""
    logs = [play_match(rules, [RANDOM] * rules.players, derive_seed(seed, g))
            for g in range(games)]
    return [(log, r, k, state) for log in logs for r, k, state, _ in plies(log, rounds=2)
            if state.led][::every]


# ---- 1. complete and nulled records give the same information set ------------------------------
@pytest.mark.parametrize("games, thin", sizes((1, 2), (3, 1)))
@pytest.mark.parametrize("name", list(TABLES))
def test_nulled_record_gives_the_same_infoset(name, games, thin):
    """Built from the events, through the replay, and by formats.game (the command line's
    reader), complete or nulled; the inference's factors alike. The default run takes every
    other cut point of the slow run's first game (3 to 12 a table)."""
    rules = TABLES[name]
    checked = 0
    every = {2: 3, 3: 6, 4: 10}[rules.players]     # replays cost more with more hidden seats
    for log, r, k, state in cut_points(rules, seed=3, games=games, every=every * thin):
        seat = state.to_move
        rnd = log.rounds[r]
        public = [(w, a, t if (a == DRAW and w == seat) else None) for w, a, t in rnd.events[:k]]
        start = log.rounds[r - 1].scores if r else log.start_scores
        key = from_state_and_events(rules, seat, rnd.hands[seat], start, public).key()
        complete = seen_record(log, r, k, alone=False)
        assert infoset_via_record(complete).key() == key
        full = load_game(complete)                          # the command line's reader
        assert full.key() == key
        for hands, draws, alone in ((True, True, False), (True, False, False),
                                    (False, True, True), (True, True, True)):
            rec = seen_record(log, r, k, seat, hands=hands, draws=draws, alone=alone)
            assert infoset_via_record(rec).key() == key, (name, r, k, hands, draws)
            seen = load_game(rec)
            assert seen.key() == key
            assert tile_factors(seen, TileModel()) == tile_factors(full, TileModel())
        checked += 1
    assert checked >= 10 * games // 3 // thin, checked


# ---- 2. a record as one seat saw it replays whenever the complete one does ---------------------
def nulled_match(log, seat: int) -> dict:
    """The whole match as `seat` saw it; rounds that ended blocked keep their hands (a blocked
    round with hidden hands cannot be scored, by design)."""
    rec = write_record(log)
    for rnd, played in zip(rec["rounds"], log.rounds):
        if played.end == "blocked":
            continue
        rnd["hands"] = [h if s == seat else None for s, h in enumerate(rnd["hands"])]
        rnd["reserve"] = None
        for ev in rnd["events"]:
            if "draw" in ev and ev["seat"] != seat:
                ev["draw"] = None
    return rec


PARTIAL_TABLES = dict(TABLES, **{
    "2p-small-reserve-draw-one": Rules(hand_size=3, reserve_kept=16, draw="one"),
    "3p-lowest-tile-pips": Rules(players=3, no_double="lowest-tile", blocked="pips"),
    "4p-american-out5": Rules(players=4, partnerships=True, blocked="american", out_bonus=5),
})


@pytest.mark.parametrize("games", sizes(1, 2))
@pytest.mark.parametrize("name", list(PARTIAL_TABLES))
def test_one_seat_records_replay(name, games):
    """`games` whole matches as one seat saw them (1 by default, 2 behind the slow marker),
    and every seat's view of cut rounds of as many more."""
    rules = PARTIAL_TABLES[name]
    n = rules.players
    for g in range(games):
        log = play_match(rules, [RANDOM] * n, derive_seed(8, g))
        full = replay(write_record(log))
        seat = g % n
        report = replay(nulled_match(log, seat))
        assert report["scores"] == full["scores"] and report["winner"] == full["winner"]
    # And every seat's view of single rounds cut mid-round.
    for log, r, k, state in cut_points(rules, seed=9, games=games, every=4 * n + 1):
        for seat in range(n):
            replay(seen_record(log, r, k, seat))


PASSES = [{"seat": 1, "play": "0-0"}] + [
    ev for i in range(4) for ev in ({"seat": 0, "play": f"{i}-{i + 1}:R"},
                                    {"seat": 1, "pass": True})]


@pytest.mark.parametrize("players, kept, own, events, message, legal", [
    # seat 1 passes at ends 0|0 with nothing to draw, then plays 0-2 without having drawn
    (2, 16, ["0-0", "0-1", "3-3", "3-4", "4-5", "5-6"],
     [{"seat": 0, "play": "0-0"}, {"seat": 1, "pass": True}, {"seat": 0, "play": "0-1:R"},
      {"seat": 1, "play": "0-2:L"}], "cannot hold 0-2", {"seat": 1, "play": "1-2:R"}),
    # the same with three players: the play of seat 2 in between lends seat 1 no tile
    (3, 10, ["0-0", "1-3", "4-4", "4-5", "5-5", "5-6"],
     [{"seat": 0, "play": "0-0"}, {"seat": 1, "pass": True}, {"seat": 2, "play": "0-1:R"},
      {"seat": 0, "play": "1-3:R"}, {"seat": 1, "play": "0-2:L"}], "cannot hold 0-2",
     {"seat": 1, "play": "3-6:R"}),
    # every tile seat 1 might play is possible on its own, but after its passes at 0|1, 0|2,
    # 0|3 and 0|4 its 5 tiles would have to come from 5-5, 5-6 and 6-6: no deal fits
    (2, 16, ["0-1", "1-2", "2-3", "3-4", "4-5", "1-1"], PASSES,
     "no deal of the hidden tiles fits", {"seat": 1, "play": "4-4:R"}),
])
def test_a_hidden_play_or_pass_no_deal_allows_is_rejected(players, kept, own, events, message,
                                                          legal):
    """A hidden seat's play of a tile its passes proved absent (nothing drawn since), or a pass
    that leaves no deal, is refused at that event; one it may make there replays."""
    rec = {"format": "bergen-record/1", "rules": {"players": players, "reserve_kept": kept},
           "rounds": [{"hands": [own] + [None] * (players - 1), "events": list(events)}]}
    with pytest.raises(BergenError, match=message) as e:
        replay(rec)
    assert (e.value.round, e.value.event) == (0, len(events) - 1)
    rec["rounds"][0]["events"][-1] = legal
    replay(rec)


# ---- 3. hand-made proofs ----------------------------------------------------------------------
def groups_allowed(info, tile: int) -> set:
    """The (owner, epoch) of the groups a free tile may belong to."""
    allowed = dict(info.free)[tile]
    return {(g.owner, g.epoch) for i, g in enumerate(info.groups) if allowed >> i & 1}


LOWEST_TILE = Rules(no_double="lowest-tile")


@pytest.mark.parametrize("rules, own, led, barred", [
    (Rules(), "3-3 0-1 1-4 2-5 4-6 5-6", "2-2", "0-0 1-1"),
    (Rules(lead="highest-double"), "1-1 0-1 1-4 2-5 4-6 5-6", "4-4", "5-5 6-6"),
    (LOWEST_TILE, "1-2 1-3 2-4 3-5 4-6 5-6", "0-3", "0-0 1-1 2-2 3-3 4-4 5-5 6-6 0-1 0-2"),
    # 1-2 ranks after 0-3 (lowest pip total, ties by the lower half): no proof against it
    (LOWEST_TILE, "0-4 1-3 2-4 3-5 4-6 5-6", "0-3", "0-0 1-1 2-2 3-3 4-4 5-5 6-6 0-1 0-2"),
    # a double lead under the same rules proves nothing about the other tiles
    (LOWEST_TILE, "3-3 0-4 1-3 2-4 4-6 5-6", "1-1", "0-0"),
])
def test_a_lead_proves_no_tile_ranked_before_it(rules, own, led, barred):
    """The lowest (highest) double led proves its leader holds no lower (higher) double; a
    lowest tile led, no double and no lower tile; every other unseen tile stays open."""
    info = from_state_and_events(rules, 0, tiles(own), None, [(1, play(led), None)])
    barred = tiles(barred)
    for t, _ in info.free:
        expect = {(RESERVE, -1)} if barred >> t & 1 else {(1, 0), (RESERVE, -1)}
        assert groups_allowed(info, t) == expect, tile_str(t)


# Seat 1 leads 0-0, seat 0 plays 0-5; seat 1 draws three tiles at ends 0|5 and plays the third,
# 0-6; seat 0 plays 6-6; seat 1 draws two at ends 6|5 and plays the second, 3-5.
DRAW_OWN = tiles("0-5 6-6 1-1 1-2 2-2 3-4")
DRAW_EVENTS = [(1, play("0-0"), None), (0, play("0-5", 1), None),
               (1, DRAW, None), (1, DRAW, None), (1, DRAW, None), (1, play("0-6", 0), None),
               (0, play("6-6", 0), None),
               (1, DRAW, None), (1, DRAW, None), (1, play("3-5", 1), None)]


@pytest.mark.parametrize("rules, events, ends, caps, proofs", [
    # nothing may be drawn: seat 1, unable to play at 0|5, passes
    (Rules(reserve_kept=16), DRAW_EVENTS[:2] + [(1, PASS, None)], (0, 5),
     {(1, 0): 5, (RESERVE, -1): 16}, [((0, 5), {0})]),
    # three tiles drawn at 0|5 and kept: the lead and 0-6 are fixed
    (Rules(), DRAW_EVENTS[:6], (6, 5), {(1, 0): 5, (1, 1): 2, (RESERVE, -1): 13},
     [((0, 5), {0, 1})]),
    # draw: one, a tile that does not fit, then a pass: the drawn tile is covered too
    (Rules(draw="one"), DRAW_EVENTS[:2] + [(1, DRAW, None), (1, PASS, None)], (0, 5),
     {(1, 0): 5, (1, 1): 1, (RESERVE, -1): 15}, [((0, 5), {0, 1})]),
    # then two drawn at 6|5: the tile kept from them may show 0 (drawn after that proof)
    (Rules(), DRAW_EVENTS, (6, 3), {(1, 0): 5, (1, 1): 2, (1, 2): 1, (RESERVE, -1): 11},
     [((0, 5), {0, 1}), ((6, 5), {0, 1, 2})]),
], ids=["pass", "drawn-and-kept", "draw-one-then-pass", "later-turn"])
def test_a_pass_or_a_draw_proves_both_end_numbers_absent(rules, events, ends, caps, proofs):
    """After a pass or drawing at ends x|y, seat 1 holds no tile showing x or y, in its deal or
    among the tiles it drew then (`proofs`: the ends and the epochs they cover); tiles drawn on
    later turns are not covered."""
    info = from_state_and_events(rules, 0, DRAW_OWN, None, events)
    assert (info.left, info.right) == ends
    assert {(g.owner, g.epoch): g.capacity for g in info.groups} == caps
    for t, _ in info.free:
        expect = {(RESERVE, -1)} | {
            (1, e) for owner, e in caps if owner == 1
            and not any(e in held and (TILES_WITH[x] | TILES_WITH[y]) >> t & 1
                        for (x, y), held in proofs)}
        assert groups_allowed(info, t) == expect, tile_str(t)


def test_played_tile_comes_from_an_epoch_that_could_hold_it():
    """A tile seat 1 plays from its hand (no draw that turn) came from its deal or an earlier
    draw that no proof excludes while it was held."""
    # After DRAW_EVENTS (ends 6|3) seat 0 must play 3-4, its only tile that fits.
    events = DRAW_EVENTS + [(0, play("3-4", 1), None), (1, play("4-4", 1), None)]
    info = from_state_and_events(Rules(), 0, DRAW_OWN, None, events)
    # 4-4 shows no 0, 5 or 6: it may come from the deal or either draw.
    assert groups_allowed(info, parse_tile("4-4")) == {(1, 0), (1, 1), (1, 2)}
    assert info.played_free >> parse_tile("4-4") & 1
    events = DRAW_EVENTS + [(0, play("3-4", 1), None), (1, play("4-0", 1), None)]
    info = from_state_and_events(Rules(), 0, DRAW_OWN, None, events)
    # 0-4 shows 0: not dealt (the pass-free draw turn at 0|5 proved no 0), not from the first
    # draw (same proof); only the second draw, at ends 6|5, could have brought it.
    assert groups_allowed(info, parse_tile("0-4")) == {(1, 2)}


def test_own_draws_must_name_their_tile():
    own = tiles("0-5 1-1 1-2 2-2 3-4 4-4")
    events = [(1, play("6-6"), None), (0, DRAW, None)]
    with pytest.raises(BergenError, match="must name its tile") as e:
        from_state_and_events(Rules(lead="highest-double"), 0, own, None, events)
    assert e.value.event == 1
