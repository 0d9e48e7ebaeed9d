"""Known-answer tests of the rules (RULES.md), one per rule and variant, each on a hand-made
deal through the interface both backends offer (`State` alone where partial information needs
the reference); each row or docstring quotes the line it checks. Scenarios stay short with a
small `hand_size` and a "closed" reserve (`reserve_kept` the whole reserve: nobody may draw),
and are written as scripts that `play` runs (its docstring has the notation). What the whole
rounds of tests/data/known prove step by step (draws until a tile fits, a blocked end after
the draws, points by side, two double ends that differ) is not repeated as a scene."""
import json
import re
from pathlib import Path

import pytest

from bergen_search.errors import BergenError
from bergen_search.game import match
from bergen_search.game.rng import Rng
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, State, find_leader
from bergen_search.game.tiles import ALL_TILES, DOUBLES, N_TILES, mask_of, parse_tile

REST = "..."


# ---- helpers ---------------------------------------------------------------------------------
def tiles(text):
    """Tile indices of a list like '0-0 3-5' (or '0-0,3-5')."""
    return [parse_tile(w) for w in text.replace(",", " ").split()]


def hand(text):
    return mask_of(tiles(text))


def code(text):
    """A move's int: `1-1` the lead (or a play at the left end), `1-3:L`, `1-3:R`, `draw`,
    `pass`."""
    if text in ("draw", "pass"):
        return DRAW if text == "draw" else PASS
    tile, _, end = text.partition(":")
    return parse_tile(tile) * 2 + (end == "R")


def closed(players=2, hand_size=3, **kw):
    """Rules whose reserve may never be drawn from: `reserve_kept` is the whole reserve."""
    return Rules(players=players, hand_size=hand_size,
                 reserve_kept=N_TILES - players * hand_size, **kw)


def deal(backend, rules, hands, reserve=None, head="", scores=None):
    """A round about to be led. `hands`: one tile list per seat, or REST for every tile not
    placed elsewhere (then `reserve` must be given). `reserve`: the whole draw order; when
    None it is `head` followed by the tiles no hand holds, in index order."""
    placed = hand(head) | hand(reserve or "")
    for h in hands:
        placed |= hand(h) if h != REST else 0
    order = tiles(reserve) if reserve is not None else (
        tiles(head) + [t for t in range(N_TILES) if not placed >> t & 1])
    return backend.new_state(rules, [ALL_TILES & ~placed if h == REST else hand(h)
                                     for h in hands], order, scores)


def _joined(values):
    return ",".join(map(str, values))


#: What a script's `name=value` compares with `value`, written as the script writes it.
CHECKS = {
    "ends": lambda s: f"{s.left}{'D' * s.left_double}|{s.right}{'D' * s.right_double}",
    "scores": lambda s: _joined(s.scores), "last": lambda s: _joined(s.last_points),
    "hidden": lambda s: _joined(s.hidden), "to": lambda s: str(s.to_move),
    "reserve": lambda s: str(s.reserve_size), "passes": lambda s: str(s.passes),
    "end": lambda s: str(s.ended), "winner": lambda s: str(s.winner),
    "legal": lambda s: s.legal_moves(),
}
WORD = re.compile(r"(!)?(?:s(\d):)?([^(]+)(?:\((.+)\))?$")


def play(state, script):
    """Run `script` on `state`, word by word, and return the state it ends in:
    - a move (`code`'s notation) is checked legal and applied; `s1:move` applies it as seat 1
      (partial information: nothing is checked first), `s1:draw(2-4)` is a seen draw of 2-4;
    - `!move` (or `!s1:move`): that move is refused (not legal, and `apply` raises);
    - `name=value` checks what `CHECKS` names: `ends=3|1D` (left 3, right the double 1-1),
      `scores=2,0`, `last=0,2` (the points of the last event), `to=1`, `reserve=20`,
      `passes=3`, `end=out` (or None), `winner=1`, `hidden=0,2`, `legal=1-3:L,1-3:R` (exactly
      those, in order; `legal=` none); `hand1=1-2,3-4` compares seat 1's hand."""
    for i, word in enumerate(script.split()):
        where = f"word {i} {word!r} of {script!r}"
        name, eq, value = word.partition("=")
        if eq and name.startswith("hand"):
            assert state.hands[int(name[4:])] == hand(value), where
            continue
        if eq:
            want = [code(m) for m in value.split(",") if m] if name == "legal" else value
            assert CHECKS[name](state) == want, f"{where}: {CHECKS[name](state)}"
            continue
        refused, seat, move, drawn = WORD.match(word).groups()
        kw = {} if seat is None else {"seat": int(seat)}
        if drawn:
            kw["tile"] = parse_tile(drawn)
        if seat is None:
            assert (code(move) in state.legal_moves()) != bool(refused), \
                f"{where}: legal {state.legal_moves()}"
        if refused:
            with pytest.raises(BergenError):
                state.apply(code(move), **kw)
        else:
            state = state.apply(code(move), **kw)
    return state


# ---- equipment, seats and defaults -----------------------------------------------------------
@pytest.mark.parametrize("fields, target, hand_size", [
    (dict(players=2), 15, 6),
    (dict(players=3), 10, 6),
    (dict(players=4), 10, 5),
    (dict(players=4, partnerships=True), 15, 5),
    # the largest hands that fit: hands of `hand_size` plus the `reserve_kept` tiles in 28
    (dict(players=2, hand_size=13), 15, 13),
    (dict(players=3, hand_size=8), 10, 8),
    (dict(players=4, hand_size=6), 10, 6),
    (dict(players=4, hand_size=7, reserve_kept=0), 10, 7),
], ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else None)
def test_seats_sides_target_and_hand_size(fields, target, hand_size):
    """RULES.md: "Each player gets 6 tiles with 2 or 3 players, 5 with 4 (`hand_size`).";
    the target: "15 with two players or two partnerships, 10 with three or four individual
    players"; "seats 0 and 2 are side 0, seats 1 and 3 side 1. Otherwise every seat is a side
    of its own."."""
    r = Rules(**fields)
    assert (r.target, r.hand_size) == (target, hand_size)
    assert r.reserve_start == 28 - r.players * hand_size
    sides = [0, 1, 0, 1] if r.partnerships else list(range(r.players))
    assert [r.side_of(s) for s in range(r.players)] == sides and r.n_sides == len(set(sides))


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


# ---- the lead --------------------------------------------------------------------------------
def test_every_round_of_a_match_is_led_by_the_lead_rule(backend):
    """RULES.md: "Every round is led afresh by the same rule: no seat carries over from the
    round before." Checked on every round of a whole match."""
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
    # RULES.md: "The holder of the lowest double must lead it, in every round (`lead:
    # lowest-double`)." (also with scores on the board)
    (dict(hand_size=3), "2-2 5-5 0-1", "1-1 6-6 3-4", 1, "1-1"),
    # "With `lead: highest-double`, the holder of the highest double leads it." (6-6 is in the
    # reserve)
    (dict(hand_size=3, lead="highest-double"), "1-1 2-2 0-1", "5-5 3-3 0-2", 1, "5-5"),
    # "With `no_double: lowest-tile`, the holder of the lowest tile leads it: the lowest pip
    # total, ties broken by the lower half (0-1, 0-2, then 0-3 before 1-2)."
    (LOWEST_TILE, "0-2 5-6", "0-1 3-4", 1, "0-1"),
    (LOWEST_TILE, "0-2 5-6", "0-3 3-4", 0, "0-2"),
    (LOWEST_TILE, "1-2 5-6", "0-3 4-5", 1, "0-3"),
    (LOWEST_TILE, "0-3 5-6", "1-2 4-5", 0, "0-3"),
    (LOWEST_TILE, "0-4 5-6", "1-2 4-5", 1, "1-2"),
    (LOWEST_TILE, "1-3 5-6", "0-4 2-6", 1, "0-4"),
    (LOWEST_TILE, "2-3 1-5", "1-4 2-6", 1, "1-4"),
    # ... only "When nobody holds a double": the lowest double still leads otherwise
    (LOWEST_TILE, "0-1 0-2", "5-5 3-4", 1, "5-5"),
    # with `lead: highest-double`, no double held: the lowest tile (not the highest) leads
    (dict(LOWEST_TILE, lead="highest-double"), "5-6 1-2", "0-3 4-6", 1, "0-3"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_the_lead_variants_pick_the_leader_and_its_tile(backend, rules, seat0, seat1, leader,
                                                        tile):
    """... and RULES.md: "The lead is forced: the leader has no choice"; "The lead double
    counts as a double match: 2 points to the leader (not 3), at once. A lead that is not a
    double (`no_double: lowest-tile`) scores nothing."."""
    a, b = sorted(map(int, tile.split("-")))
    d, points = "D" * (a == b), [0, 0]
    points[leader] = 2 if a == b else 0
    for start in (None, (9, 4)):
        s = play(deal(backend, Rules(**rules), [seat0, seat1], scores=start),
                 f"to={leader} legal={tile} {tile} ends={a}{d}|{b}{d} to={1 - leader}"
                 f" last={_joined(points)} end=None winner=None")
    assert s.scores == tuple(p + q for p, q in zip(points, start))
    held = [hand(seat0), hand(seat1)]
    held[leader] &= ~hand(tile)
    assert list(s.hands) == held


def _first_shuffle(seed):
    rng = Rng(seed)
    order = list(range(N_TILES))
    rng.shuffle(order)
    return order


def test_no_double_redeal_playout_deals_again(backend):
    """RULES.md: "When nobody holds a double, the tiles are dealt again (`no_double:
    redeal`)." `match.deal` shuffles again until a hand holds a double, and a state is never
    made from a deal without one."""
    rules = Rules(hand_size=2)
    with pytest.raises(BergenError):
        deal(backend, rules, ["0-1 0-2", "0-3 1-2"])
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


# ---- whole scenarios: the line, scoring, drawing, passing and the end ------------------------
def scene(name, rules, hands, script, **where):
    """A row of SCENES: `deal(rules, hands, **where)`, then `play(script)`."""
    return pytest.param(rules, hands, where, script, id=name)


MATCH_HANDS = ["1-1 1-5 5-5 4-6", "1-3 3-5 2-2 2-6"]
MATCHES = ("1-1 legal=1-3:L,1-3:R 1-3:L ends=3|1D scores=2,0 last=0,0 1-5:R ends=3|5 last=0,0"
           " legal=3-5:L,3-5:R 3-5:L ends=5|5 scores=2,2 last=0,2 legal=5-5:L,5-5:R")
TRIPLE_HANDS = ["4-4 1-6 2-3", "1-4 4-6 2-5"]
TRIPLE = "4-4 1-4:R 1-6:R 4-6:R"        # ends 4D|4: a triple for seat 1
TWO_ENDS = ("2-2 legal=2-3:L,2-3:R,2-5:L,2-5:R 2-3:R 3-5:R ends=2D|5 legal=2-5:L,2-5:R")
DRAWS = ["0-0 5-5 6-6", "1-2 3-4 5-6"]

SCENES = [
    # RULES.md: "A tile that fits both ends may be laid at either, as the player chooses:
    # laying it at the left (`a-b:L`) and at the right (`a-b:R`) are different moves."
    scene("both-ends-left", closed(hand_size=2), ["3-3 6-6", "3-5 2-4"],
          "3-3 legal=3-5:L,3-5:R 3-5:L ends=5|3D"),
    scene("both-ends-right", closed(hand_size=2), ["3-3 6-6", "3-5 2-4"], "3-3 3-5:R ends=3D|5"),
    # ... also where the ends show different numbers (2 and 5, tile 2-5): each choice gives
    # another line and score (a double match, or a triple on the double 2-2)
    scene("two-ends-double", closed(), ["2-2 3-5 6-6", "2-3 2-5 1-4"],
          TWO_ENDS + " 2-5:L ends=5|5 last=0,2"),
    scene("two-ends-triple", closed(), ["2-2 3-5 6-6", "2-3 2-5 1-4"],
          TWO_ENDS + " 2-5:R ends=2D|2 last=0,3"),
    # "An end "is a double" when the tile at that end is a double." A double is one tile of
    # the line: laying past it makes the end plain again.
    scene("double-end", closed(), ["1-1 1-5 5-6", "1-3 5-5 2-2"],
          "1-1 ends=1D|1D 1-3:L ends=3|1D 1-5:R ends=3|5 legal=5-5:R 5-5:R ends=3|5D 5-6:R"
          " ends=3|6"),
    # "A tile is laid at one end, its touching half equal to the number showing there." "A
    # player who holds a tile that fits must play one (any one that fits). Nobody draws or
    # passes by choice." Every fitting tile is offered, nothing else; 5-5 may not lead.
    scene("must-play", Rules(hand_size=4), ["0-0 5-5 6-6 4-5", "0-2 0-6 3-4 2-5"],
          "!5-5 0-0 reserve=20 legal=0-2:L,0-2:R,0-6:L,0-6:R !3-4:L !2-5:R !draw !pass !5-5:L"
          " 0-2:R legal=draw draw to=0 legal=0-1:L"),
    # "if both ends of the line show the same number, the player's side scores a match: a
    # double match, 2 points, when neither end tile is a double; a triple match, 3 points,
    # when one of the two matching end tiles is a double" (otherwise nothing), here formed by
    # laying the double itself on an end matching the other (at the left: round_default_2p)
    scene("double-match-then-triple", closed(hand_size=4), MATCH_HANDS,
          MATCHES + " 5-5:R ends=5|5D scores=5,2 last=3,0"),
    # ... and a triple formed by a plain tile matching a double at the other end
    scene("triple-on-a-double", closed(), TRIPLE_HANDS,
          "4-4 legal=1-4:L,1-4:R,4-6:L,4-6:R 1-4:R legal=1-6:R 1-6:R ends=4D|6"
          " legal=4-6:L,4-6:R 4-6:R ends=4D|4 scores=2,3 last=0,3"),
    # "A player who cannot play draws from the reserve, one tile at a time, until a drawn tile
    # fits, and must then play it (at either end where it fits both)": no pass meanwhile, and
    # the drawn tile, not another, is played; fitting one end it is the only move
    scene("drawn-tile-is-played", Rules(hand_size=3), DRAWS,
          "0-0 !pass draw legal=0-4:L,0-4:R", head="0-4"),
    scene("drawn-tile-one-end", Rules(hand_size=3), ["0-0 5-5 6-6", "0-4 1-2 1-3"],
          "0-0 0-4:R legal=draw draw legal=draw draw legal=4-5:R 4-5:R ends=0D|5"
          " hand0=5-5,6-6,2-3", head="2-3 4-5"),
    # "With `draw: one`, the player draws a single tile; if it fits it must be played,
    # otherwise the player passes."
    scene("draw-one", Rules(hand_size=3, draw="one"), DRAWS, head="2-3 0-3",
          script="0-0 draw !draw hand1=1-2,3-4,5-6,2-3 reserve=21 legal=pass pass to=0"
          " passes=1 end=None legal=draw draw legal=0-3:L,0-3:R 0-3:L ends=3|0D to=1"),
    # "Under `draw: one`, a round is blocked once every player has passed since the last play
    # and the reserve is down to the kept tiles": passes while a draw is allowed do not block
    scene("draw-one-passes-do-not-block", Rules(hand_size=9, reserve_kept=6, draw="one"),
          ["0-0 1-1 1-2 1-3 1-4 1-5 1-6 2-2 2-3", REST],
          reserve="2-4 3-3 4-4 5-5 0-1 0-2 0-3 0-4 0-5 0-6",
          script="0-0 draw pass draw pass passes=2 reserve=8 end=None to=1 legal=draw draw"
          " pass draw reserve=6 end=None pass end=blocked"),
    # "seats 0 and 2 are side 0, seats 1 and 3 side 1 ... Points belong to sides": seat 3 goes
    # out with a triple, side 1 scores 3 + 2
    scene("partners-out-bonus", closed(players=4, hand_size=2, partnerships=True),
          ["0-0 5-5", "0-1 6-6", "1-2 4-4", "2-3 0-3"],
          "0-0 0-1:R 1-2:R legal=0-3:L,2-3:R 2-3:R pass pass pass passes=3 legal=0-3:L,0-3:R"
          " 0-3:R end=out scores=2,5 last=0,5"),
    # "Otherwise every seat is a side of its own." and "play passes from seat i to seat
    # i + 1": seat 1 leads, seat 2 scores a triple, seat 1 (no double) wins the blocked round
    scene("three-players-by-seat", closed(players=3),
          ["3-3 6-6 2-4", "1-1 3-5 2-6", "1-5 1-3 4-4"],
          "1-1 to=2 scores=0,2,0 last=0,2,0 legal=1-3:L,1-3:R,1-5:L,1-5:R 1-5:R to=0"
          " legal=pass pass 3-5:R ends=1D|3 1-3:R scores=0,2,3 last=0,0,3 pass pass pass"
          " end=blocked scores=0,4,3 last=0,2,0"),
    # "Going out: the first player to lay their last tile ends the round" — even the lead,
    # with one-tile hands: the lead double's 2, then the out bonus; nothing after it
    scene("lead-goes-out", closed(players=4, hand_size=1, partnerships=True),
          ["6-6", "0-0", "1-2", "3-4"], "legal=0-0 0-0 end=out scores=0,4 last=0,4 !draw"),
    # "The match ends the moment a side reaches the target, even in the middle of a round.
    # ... once the target is reached nothing more is scored."
    scene("target-ends-the-match", closed(), TRIPLE_HANDS, scores=(0, 14),
          script=TRIPLE.rsplit(" ", 1)[0] + " end=None 4-6:R scores=2,15 end=target winner=1"
          " legal= hand0=2-3 hand1=2-5 !2-3:R !pass !draw"),
]


@pytest.mark.parametrize("rules, hands, where, script", SCENES)
def test_scenes(backend, rules, hands, where, script):
    play(deal(backend, rules, hands, **where), script)


# ---- points near the target and going out ---------------------------------------------------
#: The deals of POINTS: (hand_size, hands, the script that plays them; who scores last).
POINT_DEALS = {
    "lead": (3, ["2-2 5-5 0-1", "1-1 6-6 3-4"], "1-1"),                 # seat 1's lead double
    "double": (4, MATCH_HANDS, "1-1 1-3:L 1-5:R 3-5:L"),               # seat 1's double match
    "triple": (3, TRIPLE_HANDS, TRIPLE),                               # seat 1's triple
    "out": (2, ["1-1 1-2", "1-3 5-6"],                                 # seat 0 goes out
            "1-1 1-3:R legal=1-2:L 1-2:L ends=2|3 hand1=5-6"),
    "out-triple": (3, ["1-1 4-6 1-6", "1-4 2-3 2-5"],                  # ... with a triple
                   "1-1 1-4:R legal=1-6:L,4-6:R 4-6:R pass legal=1-6:L,1-6:R 1-6:R ends=1D|1"),
    "blocked": (4, ["0-0 1-1 2-2 1-2", "5-6 4-6 4-5 3-6"], "0-0 pass pass"),   # seat 1's 2
}
NO_CAP, BONUS_5 = {"endgame_cap": False}, {"out_bonus": 5}
#: (deal, the scores before, rules, the scores after, the points of the last play, the end,
#: the winner)
POINTS = [
    # RULES.md: "Reduced matches near the target (`endgame_cap: true`): a side that needs 2
    # points or fewer to reach the target scores only 1 for any match, and a side that needs
    # exactly 3 scores at most 2 for a match. ... `endgame_cap: false` turns it off." The lead
    # double "counts as a double match", so it is capped too.
    ("lead", (0, 11), {}, "0,13", "0,2", None, None),           # needs 4: full value
    ("lead", (0, 12), {}, "0,14", "0,2", None, None),           # needs 3: at most 2
    ("lead", (0, 13), {}, "0,14", "0,1", None, None),           # needs 2: only 1
    ("lead", (0, 14), {}, "0,15", "0,1", "target", 1),          # needs 1: 1 reaches the target
    ("lead", (0, 13), NO_CAP, "0,15", "0,2", "target", 1),
    ("double", (0, 11), {}, "2,13", "0,2", None, None),
    ("double", (0, 12), {}, "2,14", "0,2", None, None),         # needs 3: a double keeps 2
    ("double", (0, 13), {}, "2,14", "0,1", None, None),
    ("double", (0, 13), NO_CAP, "2,15", "0,2", "target", 1),
    ("triple", (0, 11), {}, "2,14", "0,3", None, None),
    ("triple", (0, 12), {}, "2,14", "0,2", None, None),         # needs 3: a triple scores 2
    ("triple", (0, 13), {}, "2,14", "0,1", None, None),
    ("triple", (0, 14), {}, "2,15", "0,1", "target", 1),
    ("triple", (0, 12), NO_CAP, "2,15", "0,3", "target", 1),
    ("triple", (0, 13), NO_CAP, "2,16", "0,3", "target", 1),
    ("triple", (0, 4), {"target": 7}, "2,6", "0,2", None, None),   # counted from `target`
    # "Going out: the first player to lay their last tile ends the round; the side scores the
    # match of that play, if any, and then 2 points (`out_bonus`; variant 5)"; the cap
    # "applies to matches only, never to the bonuses"; the bonus counts toward the target
    ("out", (0, 0), {}, "4,0", "2,0", "out", None),
    ("out", (0, 0), BONUS_5, "7,0", "5,0", "out", None),
    ("out", (12, 0), {}, "16,0", "2,0", "out", 0),      # the lead capped to 2, the whole bonus
    ("out", (11, 0), {}, "15,0", "2,0", "out", 0),      # the bonus reaches the target
    ("out-triple", (0, 0), {}, "7,0", "5,0", "out", None),      # the triple, then the bonus
    ("out-triple", (0, 0), BONUS_5, "10,0", "8,0", "out", None),
    # the lead needs 6 -> 2 (12), the triple needs 4 -> 3 (15), the bonus 2 (17 >= 16)
    ("out-triple", (10, 0), {"target": 16}, "17,0", "5,0", "out", 0),
    # the lead needs 4 -> 2 (13), the triple needs 2 -> 1 (14), then the whole 5
    ("out-triple", (11, 0), BONUS_5, "19,0", "6,0", "out", 0),
    # "Points are added in this order: the match of a play, then the going-out bonus; once the
    # target is reached nothing more is scored." lead 2 -> 12, triple 3 -> 15
    ("out-triple", (10, 0), NO_CAP, "15,0", "3,0", "out", 0),
    ("out-triple", (12, 0), {}, "15,0", "1,0", "out", 0),       # lead 2 -> 14, triple 1 -> 15
    # the blocked 2 are a bonus too, never capped, and they can end the match
    ("blocked", (0, 14), {}, "2,16", "0,2", "blocked", 1),
]


@pytest.mark.parametrize("name, start, rules, after, points, end, winner", POINTS)
def test_points_near_the_target_and_going_out(backend, name, start, rules, after, points, end,
                                              winner):
    hand_size, hands, script = POINT_DEALS[name]
    play(deal(backend, closed(hand_size=hand_size, **rules), hands, scores=start),
         f"{script} scores={after} last={points} end={end} winner={winner}"
         + (" legal=" if end else ""))


# ---- drawing and the kept tiles --------------------------------------------------------------
@pytest.mark.parametrize("kept, draws, then, draw", [
    (2, 2, "pass", "until-playable"),
    (3, 1, "pass", "until-playable"),
    (4, 0, "pass", "until-playable"),
    (1, 3, "play", "until-playable"),
    (0, 3, "play", "until-playable"),
    # `draw: one`: "the player draws a single tile" (while the reserve holds more than it keeps)
    (3, 1, "pass", "one"),
    (4, 0, "pass", "one"),
])
def test_reserve_kept_tiles_are_never_drawn(backend, kept, draws, then, draw):
    """RULES.md: "The last two tiles of the reserve are never drawn (`reserve_kept: 2`). A
    player who cannot play when the reserve holds only those passes." With 0, 1, 3 and 4
    kept: seat 1 holds no 0, and of the reserve 2-2, 3-3, 0-6, 4-4 only the third fits."""
    s = play(deal(backend, Rules(hand_size=12, reserve_kept=kept, draw=draw),
                  ["0-0 0-1 0-2 0-3 0-4 0-5 1-1 1-2 1-3 1-4 1-5 5-5", REST],
                  reserve="2-2 3-3 0-6 4-4"),
             "0-0 reserve=4" + " legal=draw draw" * draws + f" reserve={4 - draws}")
    assert s.hands[1] & hand("2-2 3-3 0-6") == hand(" ".join(["2-2", "3-3", "0-6"][:draws]))
    if then == "pass":
        fits = ",".join(f"0-{b}:{end}" for b in range(1, 6) for end in "LR")
        play(s, f"legal=pass !draw pass to=0 passes=1 end=None legal={fits} 0-1:R passes=0")
    else:
        play(s, "legal=0-6:L,0-6:R")


# ---- blocked rounds --------------------------------------------------------------------------
def _blocked(backend, rules, hand_texts, scores=None):
    """Seat 0 leads 0-0 and nobody else holds a 0 (the reserve is closed): all pass."""
    n = rules.players
    return play(deal(backend, rules, hand_texts, scores=scores),
                "0-0" + "".join(f" end=None passes={i} to={(1 + i) % n} legal=pass pass"
                                for i in range(n)) + " end=blocked legal=")


def _partners(blocked):
    return closed(players=4, hand_size=3, partnerships=True, blocked=blocked)


# RULES.md `blocked`: "`german` (default): the side holding the fewest doubles scores 2;
# between sides tied on fewest doubles, the one with the fewest pips; a full tie scores
# nothing" / "`pips`: the side with the fewest pips scores 2; a tie scores nothing" /
# "`american`: a side holding no double beats every side holding one; among several sides
# without a double the fewest pips decides; when every side holds a double, the side with the
# lowest double scores 2". With two, three and four players and partnerships ("In
# partnerships a side's doubles and pips are the sums over both partners' hands."; "Otherwise
# every seat is a side of its own."): (rules, hands, the scores after: seat 0's lead double's
# 2 and the blocked 2). Partnerships where every side holds a double: round_partners_blocked.
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
    """RULES.md: "Blocked: when nobody can play and nobody may draw (the reserve is down to the
    kept tiles), the round ends. A record shows this as every player passing in turn", scored
    by side."""
    s = _blocked(backend, rules, hand_texts)
    assert s.scores == after and s.winner is None
    assert s.last_points == (after[0] - 2,) + after[1:]


# ---- partial information (reference only) ----------------------------------------------------
PARTIAL = [
    # RULES.md: "The lead is forced: ... everyone learns from it that no other hand was dealt a
    # lower double (with `highest-double`: a higher one; after a `lowest-tile` lead: no double
    # at all and no lower tile)": a lead of 2-2 while a known hand holds 1-1 is refused
    scene("lowest-known-double", Rules(hand_size=3), ["1-1 3-4 5-6", None],
          "to=-1 !s1:2-2 s1:0-0 ends=0D|0D scores=0,2 hidden=0,2"),
    scene("redeal-leads-a-double", Rules(hand_size=3), ["1-3 3-4 5-6", None], "!s1:0-1"),
    scene("highest-double", Rules(hand_size=3, lead="highest-double"), ["5-5 3-4 1-2", None],
          "!s1:4-4 s1:6-6 scores=0,2"),
    scene("lowest-tile", Rules(hand_size=3, no_double="lowest-tile"), ["0-2 3-4 1-2", None],
          "!s1:0-3 s1:0-1 scores=0,0"),
    scene("lowest-tile-no-double", Rules(hand_size=3, no_double="lowest-tile"),
          ["6-6 3-4 1-2", None], "!s1:0-1"),
    # "Nobody draws or passes by choice", checked on the known part of a hand; a seen drawn
    # tile that fits is the one that must be played; a tile the known hand does not hold, one
    # on the line, or one out of turn is refused
    scene("no-draw-while-a-known-tile-fits", Rules(hand_size=3), [None, "0-3 5-5 6-6"],
          "s0:0-0 !s1:draw !s1:0-1:L"),
    scene("seen-draws", Rules(hand_size=3), [None, "1-3 5-5 6-6"],
          "s0:0-0 s1:draw(2-4) s1:draw(0-2) !s1:pass s1:0-2:L ends=2|0D !s0:0-2:L"),
    scene("a-hidden-hand-plays-the-seen-draw", Rules(hand_size=3), [None, None],
          "s0:0-0 !s0:0-1:L s1:draw(0-2) !s1:0-1:L s1:0-2:R hidden=2,3"),
    # "A record whose finished round ended blocked needs the hands to score it": with a hidden
    # hand the reference refuses to score it
    scene("blocked-needs-the-hands", closed(), [None, "1-3 5-5 6-6"], "s0:0-0 s1:pass !s0:pass",
          reserve_size=22),
]


@pytest.mark.parametrize("rules, hands, where, script", PARTIAL)
def test_partial_information(rules, hands, where, script):
    play(State.deal(rules, [h if h is None else hand(h) for h in hands], **where), script)


# ---- known-answer data files -----------------------------------------------------------------
KNOWN = sorted((Path(__file__).parent / "data" / "known").glob("*.json"))


def _replay(backend, data, rules, check_steps):
    s = backend.new_state(rules, [hand(h) for h in data["hands"]],
                          [parse_tile(t) for t in data["reserve"]], tuple(data["start_scores"]))
    for i, st in enumerate(data["steps"]):
        assert (s.ended, s.to_move) == (None, st["seat"]), f"step {i}"
        assert s.legal_moves() == [code(m) for m in st["legal"]], f"step {i}"
        s = s.apply(code(st["move"]))
        if check_steps:
            assert [s.left, s.left_double, s.right, s.right_double] == st["ends"], f"step {i}"
            assert (list(s.scores), s.reserve_size) == (st["scores"], st["reserve"]), f"step {i}"
    assert s.ended == data["end"]
    assert tuple(s.hands) == tuple(hand(h) for h in data["final_hands"])
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
        assert list(s.scores) == var["scores"], var["why"]
        assert s.winner == var.get("winner"), var["why"]


def test_the_move_rule_written_once_known_answers():
    """`fitting`, `plays`, `actions` and `may_take` (game/state.py) are the rule every layer
    asks (the state, the search's root, the exact endgame and its oracle, the luck estimate)."""
    from bergen_search.game.state import actions, fitting, may_take, plays
    held = hand("2-5 5-5 0-1 3-6")
    assert fitting(held, 2, 5) == hand("2-5 5-5")
    # 2-5 fits both ends (two plays), 5-5 the right only; in tile order, left before right
    assert plays(held, 2, 5) == sorted(map(code, ["2-5:L", "2-5:R", "5-5:R"]))
    assert plays(held, 4, 4) == []
    rules = Rules()
    assert actions(rules, held, 4, 4, 10, 0) == [DRAW]               # nothing fits: draw
    assert actions(rules, held, 4, 4, rules.reserve_kept, 0) == [PASS]   # reserve kept: pass
    assert actions(rules, held, 1, 4, 10, 0) == [code("0-1")]
    # a play (one that fits: the public tree's) needs its tile in the hand
    assert may_take(held, code("0-1"), 1, 4) and not may_take(held, code("1-4"), 1, 4)
    assert may_take(hand("0-0"), PASS, 1, 4) and not may_take(held, PASS, 1, 4)
