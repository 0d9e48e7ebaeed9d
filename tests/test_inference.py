"""Inference (information/inference.py): known answers of the match tile, of how a tile relates
to a play and of where the factors land (the seat that played, groups opened before the play);
a passed-up match's probability exactly; the weighted table equals a brute force. The weighted
core walk and its chi-square are in test_sampler.py, the factors' view of a seat in
test_infoset.py."""
import itertools
import math
from collections import Counter

import pytest
from support import plies, sizes, tiles

from bergen_search.errors import BergenError
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.tiles import parse_tile as t
from bergen_search.game.tiles import tile_str
from bergen_search.information.inference import TileModel, relation, scoring_tile, tile_factors
from bergen_search.information.infoset import RESERVE, ObservedPlay, from_state_and_events
from bergen_search.information.sampler import WorldTable
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines

ONLY_MISSED = dict(opened=1.0, opened_fitting=1.0, fitting_double=1.0, fitting=1.0)


def play(text, end):
    return t(text) * 2 + "LR".index(end)


def test_scoring_tile_known_answers():
    assert [tile_str(scoring_tile(a, b)) for a, b in ((3, 5), (5, 3), (4, 4), (0, 6))] == [
        "3-5", "3-5", "4-4", "0-6"]


@pytest.mark.parametrize("ends, move, tile, expected", [
    # ends (1, 6); the seat lays 6-4 at the right: the ends become (1, 4)
    ((1, 6), ("4-6", "R"), "1-6", "missed_match"),     # it would have made a match
    ((1, 6), ("4-6", "R"), "4-5", "opened"),           # shows the 4 it opened, fits no end
    ((1, 6), ("4-6", "R"), "1-4", "opened_fitting"),   # shows the 4, and fits the 1
    ((1, 6), ("4-6", "R"), "6-6", "fitting_double"),   # a double that fitted
    ((1, 6), ("4-6", "R"), "1-2", "fitting"),          # fitted, not played
    ((1, 6), ("4-6", "R"), "2-3", None),               # nothing to say
    ((3, 3), ("3-5", "L"), "3-3", "missed_match"),     # equal ends: the match tile is the double
    ((3, 3), ("3-5", "L"), "5-6", "opened"),
])
def test_relation_known_answers(ends, move, tile, expected):
    assert relation(ObservedPlay(5, 1, *ends, False, False, 0, play(*move), False),
                    t(tile)) == expected


def _passed_up_match():
    """Seat 0 leads 0-0, seat 1 lays 0-6, seat 0 lays 0-1: ends (1, 6). Seat 1 then lays 6-4
    at the right: it passed up 1-6 (if it held it). Seat 0's view, seat 0 to move."""
    rules = Rules()
    hand = tiles("0-0 0-1 1-2 2-3 3-4 4-5")
    events = [(0, play("0-0", "L"), -1), (1, play("0-6", "R"), -1), (0, play("0-1", "L"), -1),
              (1, play("4-6", "R"), -1)]
    return from_state_and_events(rules, 0, hand, (0, 0), events)


def test_observer_records_the_hidden_seats_plays_after_the_lead():
    info = _passed_up_match()
    assert [(d.event, d.seat, d.left, d.right) for d in info.decisions] == [(1, 1, 0, 0),
                                                                            (3, 1, 1, 6)]
    assert info.decisions[1].move == play("4-6", "R") and not info.decisions[1].drew
    assert info.decisions[1].line_mask == tiles("0-0 0-1 0-6")


def test_missed_match_factor_lands_on_the_seat_that_passed_it_up():
    info = _passed_up_match()
    f = tile_factors(info, TileModel(missed_match=0.05, **ONLY_MISSED))
    assert set(f) == {t("1-6")}
    seat1 = [g for g, grp in enumerate(info.groups) if grp.owner == 1]
    reserve = [g for g, grp in enumerate(info.groups) if grp.owner == RESERVE]
    assert [f[t("1-6")][g] for g in seat1] == [0.05]
    assert [f[t("1-6")][g] for g in reserve] == [1.0]
    assert tile_factors(info, None) == {}


def test_factors_follow_the_models_own_relation():
    """`tile_factors` classes each tile by the model's `relation` (a finer model subclasses
    TileModel; lab/belief/fit_inference.py measures one): here a model that classes only 2-5,
    a tile the play says nothing about, puts its ratio there and nowhere else."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class OnlyTwoFive(TileModel):
        def relation(self, d, tile):
            return "fitting" if tile == t("2-5") and d.seat == 1 else None

    info = _passed_up_match()
    f = tile_factors(info, OnlyTwoFive(fitting=0.5))
    assert set(f) == {t("2-5")}
    seat1 = [g for g, grp in enumerate(info.groups) if grp.owner == 1]
    # Both of seat 1's free plays (0-6, then 4-6) weigh it, on its group from the deal.
    assert [f[t("2-5")][g] for g in seat1] == [0.25]


def test_passed_up_match_probability_is_exact():
    """Seat 1 holds 4 of the 20 unseen tiles (the 16 others are in the reserve). Weighing the
    worlds where it holds 1-6 by f gives P(1-6 in its hand) = 4f / (4f + 16) exactly."""
    info = _passed_up_match()
    assert info.hand_sizes[1] == 4 and bin(info.unknown).count("1") == 20
    for f in (1.0, 0.05, 0.5):
        table = WorldTable(info, tile_factors(info, TileModel(missed_match=f, **ONLY_MISSED)))
        worlds = table.enumerate()
        total = sum(worlds.values())
        held = sum(w for (hands, _), w in worlds.items() if hands[1] >> t("1-6") & 1)
        assert held / total == pytest.approx(4 * f / (4 * f + 16), rel=1e-12)
        assert table.total == math.comb(20, 4)          # the count stays the histories'


def test_factor_only_for_groups_open_before_the_play():
    """A seat that drew after its plays may have drawn any tile since: the plays' ratios land
    on its groups opened before them, never on the epoch of a later draw."""
    rules = Rules()
    found = 0
    for g in range(300):
        log = play_engines(rules, parse_engine_list("random", 2), derive_seed(17, g))
        for _, _, state, obs in plies(log, rounds=1, observe=True):
            if state.to_move != 0 or not state.led:
                continue
            info = obs[0].infoset(0)
            plays = [d.event for d in info.decisions if not d.drew]
            factors = tile_factors(info, TileModel())
            late = [gi for gi, grp in enumerate(info.groups)
                    if plays and grp.owner == 1 and grp.opened > max(plays)]
            if not factors or not late:
                continue
            for fac in factors.values():
                assert all(fac[gi] == 1.0 for gi in late)
            dealt = next(gi for gi, grp in enumerate(info.groups) if grp.owner == 1)
            assert any(fac[dealt] != 1.0 for fac in factors.values())
            found += 1
        if found >= 5:
            return
    pytest.fail(f"only {found} positions where seat 1 drew after its plays")


# ---- the weighted table against brute force ---------------------------------------------------
def brute_weighted(info, factors):
    """{world (hands, sorted reserve): weight}: every assignment of the free tiles to the groups
    that respects the proofs and fills every group, weighted by the product of its factors."""
    groups = info.groups
    options = [[g for g in range(len(groups)) if a >> g & 1] for _, a in info.free]
    out = {}
    for choice in itertools.product(*options):
        fill = Counter(choice)
        if any(fill[g] != grp.capacity for g, grp in enumerate(groups)):
            continue
        weight = 1.0
        hands = [0] * info.rules.players
        hands[info.seat] = info.hand
        reserve = []
        for (tile, _), g in zip(info.free, choice):
            weight *= factors.get(tile, [1.0] * len(groups))[g]
            if info.played_free >> tile & 1:
                continue
            if groups[g].owner == RESERVE:
                reserve.append(tile)
            else:
                hands[groups[g].owner] |= 1 << tile
        key = (tuple(hands), tuple(sorted(reserve)))
        out[key] = out.get(key, 0.0) + weight
    return out


def _normalised(d):
    total = sum(d.values())
    return {k: v / total for k, v in d.items()}


def small_cuts(rules, seed, want, max_assignments=100_000):
    """Information sets of seeded greedy/random games with evidence and few assignments of the
    free tiles to try (the product of their numbers of allowed groups)."""
    found = []
    for g in range(400):
        log = play_engines(rules, parse_engine_list("greedy" if g % 2 else "random",
                                                  rules.players), derive_seed(seed, g))
        for _, _, state, obs in plies(log, rounds=1, observe=True):
            if not state.led:
                continue
            info = obs[state.to_move].infoset(state.to_move)
            size = math.prod(bin(a).count("1") for _, a in info.free)
            if size <= max_assignments and tile_factors(info, TileModel()):
                found.append(info)
                break
        if len(found) >= want:
            return found
    return found


@pytest.mark.parametrize("count, assignments", sizes((3, 20_000), (6, 100_000)))
@pytest.mark.parametrize("players,kw", [(2, {}), (3, {}), (2, {"draw": "one"}),
                                        (4, {"partnerships": True})])
def test_weighted_table_equals_brute_force(players, kw, count, assignments):
    """By default 3 cut points whose brute force tries at most 20,000 assignments (the
    weights change all 3 distributions at each table); 6 of up to 100,000 behind slow. The
    hand-set model factorises, so the sampler is exact."""
    rules = Rules(players=players, **kw)
    model = TileModel()
    infos = small_cuts(rules, 31 + players, want=count, max_assignments=assignments)
    assert len(infos) >= count * 2 // 3
    changed = 0
    for info in infos:
        factors = tile_factors(info, model)
        table = WorldTable(info, factors)
        got = _normalised(table.enumerate())
        want = _normalised(brute_weighted(info, factors))
        assert got.keys() == want.keys()
        for k in want:
            assert got[k] == pytest.approx(want[k], rel=1e-9, abs=1e-15)
        plain = _normalised(WorldTable(info).enumerate())
        changed += any(abs(plain[k] - want[k]) > 1e-6 for k in want)
    # The weights change the distribution in most (else the test would prove little).
    assert changed >= count // 3, changed


def test_ratios_and_factors_are_checked():
    """A model's ratios are positive (power 0 flattens them); a table's factors are positive
    and one per group."""
    for bad in ({"missed_match": 0}, {"fitting": -1}, {"power": 5}):
        with pytest.raises(ValueError):
            TileModel(**bad)
    assert TileModel(power=0).ratio("missed_match") == 1.0
    assert TileModel().ratio(None) == 1.0
    info = _passed_up_match()
    for factors in ({t("1-6"): (0.0, 1.0)}, {t("1-6"): (0.5,)}):
        with pytest.raises(BergenError):
            WorldTable(info, factors)
