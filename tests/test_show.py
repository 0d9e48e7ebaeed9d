"""`bergen show`: what the seat to move knows, on hand-built records (tests/data/
show_records.json) worked out by hand, and against the brute force (tests/support.py)."""
import copy
import json
import pickle
from fractions import Fraction

import pytest
from support import EXHAUSTIVE, Budget, brute_distribution, brute_histories, cuts, sizes, bergen as run

from bergen_search import __version__
from bergen_search.errors import BergenError
from bergen_search.formats.game import load
from bergen_search.formats.record_io import write_record
from bergen_search.formats.replay import walk
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, move_str
from bergen_search.game.tiles import iter_mask, parse_tile, tile_str
from bergen_search.information.infoset import Observer
from bergen_search.information.sampler import WorldTable, count_deals
from bergen_search.views.show import knowledge

RECORDS = json.load(open("tests/data/show_records.json", encoding="utf-8"))


def tiles(text):
    return sorted(parse_tile(t) for t in text.split())


def voids_of(k, seat=1):
    holder = next(h for h in k.seats if h.seat == seat)
    return {v.number: (v.event, v.how, v.ends) for v in holder.voids}


# ---- hand-built records -----------------------------------------------------------------------
#: name: (seat 1's voids {number: (event, how, ends)}, what it may hold, deals, histories, the
#: position string's tail)
HAND_BUILT = {
    # seat 1 drew at event 12 (ends 0, 3) and played it; at 16-17 drew two at ends 5, 4 and
    # played the second. Its hand: a dealt tile free of 0, 3, 4, 5, in A = {1-1, 1-2, 6-6}, and
    # the tile drawn at 16, free of 4 and 5 only, in B = {0-1, 0-3, 1-1, 1-2, 2-3, 3-3, 3-6,
    # 6-6}: void in 4 and 5 (event 16), not provably in 0 or 3 (the later draw kept a tile).
    # 3 x 7 = 21 histories; deals are the pairs of B holding a tile of A: C(8,2) - C(5,2) = 18.
    "kept": ({4: (16, "draw", (5, 4)), 5: (16, "draw", (5, 4))},
             "0-1 0-3 1-1 1-2 2-3 3-3 3-6 6-6", 18, 21, "/3,2/10/1:45"),
    # (reserve_kept 12) seat 1 drew at event 12 (ends 0, 3) and played it, then passed at 16
    # (ends 5, 4): the voids accumulate; its one tile avoids 0, 3, 4 and 5.
    "pass": ({0: (12, "draw", (0, 3)), 3: (12, "draw", (0, 3)), 4: (16, "pass", (5, 4)),
              5: (16, "pass", (5, 4))}, "1-1 1-2 6-6", 3, 3, "/3,1/12/1:0345"),
    # seat 1 led 6-6, drew at event 9 (ends 2, 1) and played it, drew at 14 (ends 0, 0) and
    # played it: every proof still covers its dealt tile, void in 0, 1, 2 and no double
    # below 6-6.
    "played": ({0: (14, "draw", (0, 0)), 1: (9, "draw", (2, 1)), 2: (9, "draw", (2, 1))},
               "3-4 3-6 4-5 5-6", 4, 4, "/2,1/12/1:012"),
}


@pytest.mark.parametrize("name", HAND_BUILT)
def test_the_voids_and_the_counts_of_hand_built_records(name):
    voids, may_hold, deals, histories, tail = HAND_BUILT[name]
    k = knowledge(load(RECORDS[name]))
    assert voids_of(k) == voids and k.seats[0].may_hold == tiles(may_hold)
    assert (k.deals, k.histories) == (deals, histories) and k.string.endswith(tail)


def test_what_else_the_hand_built_records_show():
    """kept: 1-1 in 9 of the 21 histories (GUIDE.md's example, examples/voids.json, run by
    test_doc_examples, is this record); pass: alike; played: a draw this turn."""
    assert json.load(open("examples/voids.json")) == RECORDS["kept"]
    k = knowledge(load(RECORDS["kept"]))
    seat1 = k.seats[0]
    assert seat1.size == 2
    assert seat1.chances[parse_tile("1-1")] == pytest.approx(9 / 21, abs=1e-12)
    assert seat1.chances[parse_tile("0-3")] == pytest.approx(3 / 21, abs=1e-12)
    assert k.reserve.size == 10 and len(k.reserve.may_hold) == 12
    assert copy.copy(k).deals == 18 and pickle.loads(pickle.dumps(k)).histories == 21
    k = knowledge(load(RECORDS["pass"]))
    assert all(p == pytest.approx(1 / 3) for p in k.seats[0].chances.values())
    # played: seat 0 drew 0-6 and is still to play (its lead's proof: test_json)
    assert knowledge(load(RECORDS["played"])).game.info.draws_this_turn == 1


def test_json():
    res = run("show", "-", "--json", input=json.dumps(RECORDS["played"]))
    doc = json.loads(res.stdout)
    assert doc["version"] == __version__
    assert doc["deals"] == 4 and doc["histories"] == 4 and doc["history"] is True
    assert doc["seats"] == [{
        "seat": 1, "hand_size": 1,
        "voids": [{"number": 0, "round": 0, "event": 14, "how": "draw", "ends": [0, 0]},
                  {"number": 1, "round": 0, "event": 9, "how": "draw", "ends": [2, 1]},
                  {"number": 2, "round": 0, "event": 9, "how": "draw", "ends": [2, 1]}],
        "may_hold": ["3-4", "3-6", "4-5", "5-6"],
        "p_hold": {"3-4": 0.25, "3-6": 0.25, "4-5": 0.25, "5-6": 0.25}}]
    assert doc["lead"] == {"seat": 1, "tile": "6-6", "ruled_out": ["2-2", "3-3", "4-4", "5-5"]}
    assert doc["position_json"]["voids"] == {"1": [0, 1, 2]}
    assert doc["position"].startswith("bergen1/")
    assert doc["reserve"]["size"] == 12 and len(doc["unseen"]) == 13


def test_a_position_lists_its_voids_as_given():
    string = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"
    for args, stdin in [((string,), None), (("examples/position.json",), None),
                        (("--hand", "0-3 1-2 2-5 5-6", "--line", "1-1 1-4 4-4 4-6 6-3",
                          "--hand-sizes", "4,5", "--scores", "4,7", "--voids",
                          '{"1": [1, 4]}'), None)]:
        res = run("show", *args, "--json", input=stdin)
        assert res.exit_code == 0, res.output
        doc = json.loads(res.stdout)
        assert doc["position"] == string and doc["history"] is False
        assert [v["how"] for v in doc["seats"][0]["voids"]] == ["given", "given"]
        # 19 unseen tiles, 8 of them showing 1 or 4: seat 1's five come from the other 11
        assert doc["deals"] == doc["histories"] == 462
        assert len(doc["seats"][0]["may_hold"]) == 11
    text = run("show", string).stdout
    assert "1 (given)   4 (given)" in text and "each deal is one history" in text


# ---- against the brute force --------------------------------------------------------------------
def _record_of(cut) -> dict:
    """The one-seat record of a cut point (tests/support.py's `Cut`)."""
    events, led = [], False
    for w, a, t in cut.public:
        if a == DRAW:
            events.append({"seat": w, "draw": None if t is None else tile_str(t)})
        elif a == PASS:
            events.append({"seat": w, "pass": True})
        else:
            events.append({"seat": w, "play": move_str(a, lead=not led)})
            led = True
    hands = [None] * cut.rules.players
    hands[cut.seat] = [tile_str(t) for t in iter_mask(cut.dealt[cut.seat])]
    return {"format": "bergen-record/1", "rules": cut.rules.to_dict(),
            "start_scores": list(cut.scores),
            "rounds": [{"hands": hands, "reserve": None, "events": events}]}


@pytest.mark.parametrize("name", ["default-h3", "draw-one-h3", "highest-double-h3",
                                  "lowest-tile-h3", "3p-h3"])
def test_deals_and_chances_equal_the_brute_force(name):
    variant = dict(EXHAUSTIVE[name])
    rules = Rules(players=variant.pop("players", 2), **variant)
    checked, several = 0, 0
    for cut in cuts(rules, seed=23, games=25):
        if checked >= 8:
            break
        if cut.k < (6 if rules.players == 3 else 2):
            continue
        try:
            histories = brute_histories(rules, cut.seat, cut.dealt[cut.seat], cut.public,
                                        cut.scores, budget=4000)
        except Budget:
            continue
        bf = brute_distribution(histories, cut.others)
        k = knowledge(load(_record_of(cut)))
        assert k.deals == len(bf), (name, cut.game, cut.k)
        total = sum(bf.values())
        for i, holder in enumerate(k.seats):
            assert holder.seat == cut.others[i]
            for t in range(28):
                share = Fraction(sum(w for (hands, _), w in bf.items() if hands[i] >> t & 1),
                                 total)
                assert holder.chances.get(t, 0.0) == pytest.approx(float(share), abs=1e-12)
        checked += 1
        several += k.deals > 1
    assert checked >= 5 and several >= 3, (checked, several)


@pytest.mark.parametrize("players,partnerships", [(2, False), (3, False), (4, False),
                                                  (4, True)])
@pytest.mark.parametrize("games", sizes(1, 4))
def test_count_deals_equals_the_distinct_worlds(players, partnerships, games):
    rules = Rules(players=players, partnerships=partnerships)
    compared = 0
    for g in range(games):
        log = play_match(rules, [0] * players, derive_seed(5, g))
        observers = {}
        for step in walk(write_record(log)):
            if step.event == 0:
                observers = {s: Observer(rules, {s}, step.before) for s in range(players)}
            before = step.before
            if before.led and before.to_move == step.seat:
                info = observers[step.seat].infoset(step.seat)
                table = WorldTable(info)
                if table.total <= 3000:
                    assert count_deals(info) == len(table.enumerate())
                    compared += 1
            for obs in observers.values():
                obs.step(step.seat, step.action, step.after)
    assert compared >= 10 * games, compared


def test_an_impossible_history_has_no_deal():
    with pytest.raises(BergenError):
        load({"format": "bergen-record/1", "rounds": [{"hands": [["0-0", "0-1", "0-2", "0-3",
                                                                   "0-4", "0-5"], None],
                                                        "events": [{"seat": 1, "play": "1-1"}]}]})
