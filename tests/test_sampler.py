"""The world sampler (information/sampler.py, the C walk of _sampler.pyx): the worlds it counts
equal a brute force's (replaying every hidden deal and draw through `State`) at cut points of
seeded games; drawn frequencies fit the exact weights (chi-square); true and sampled worlds
keep every proof, and the C walk is the Python walk bit for bit; impossible positions are
refused."""
from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction

import pytest

from bergen_search.errors import BergenError
from bergen_search.formats.game import load
from bergen_search.formats.position import Position, load_position, write_position
from bergen_search.game.match import play_match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, State, find_leader
from bergen_search.game.tiles import (ALL_TILES, TILES_WITH, is_double, iter_mask, parse_tile,
    popcount, tile_index)
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.infoset import (RESERVE, InfoSet, from_position,
    from_state_and_events)
from bergen_search.information.sampler import WorldTable, count_worlds

try:
    from bergen_search.information._sampler import CoreSampler
except ImportError:     # the conftest policy: the compiled core is required
    CoreSampler = None
from support import (BRUTE_BUDGET, EXHAUSTIVE, RANDOM, Budget, Cut, brute_distribution,
    brute_histories, chi2_sf, chi_square, cuts, describe_difference, normalised, plies,
    seen_record, sizes, table_distribution, tiles)


@pytest.fixture
def core_sampler(require_compiled):
    return require_compiled(CoreSampler, "bergen_search.information._sampler")


# ---- 1. exhaustive enumeration against the rules engine ---------------------------------------
#: What a cut point's proofs and hidden origins include.
FEATURES = {
    "hidden draw": lambda cut, _: any(w != cut.seat and a == DRAW for w, a, _ in cut.events),
    "hidden pass": lambda cut, _: any(w != cut.seat and a == PASS for w, a, _ in cut.events),
    "hidden drawn tile unplaced": lambda _, info: any(g.epoch > 0 and g.capacity > 0
                                                      for g in info.groups),
    "played tile of uncertain origin": lambda _, info: info.played_free,
    "viewpoint drew this turn": lambda _, info: info.draws_this_turn,
    "lead not a double": lambda cut, _: not is_double(cut.events[0][1] >> 1),
}


def _features(cut: Cut, info: InfoSet) -> set:
    return {name for name, has in FEATURES.items() if has(cut, info)}


_EXHAUSTIVE_RESULTS = {}


def exhaustive(name: str, share: int = 1, games: int = 20):
    """Compare programme and brute force on the cut points of seeded games (1/`share` of the
    thorough number); returns the number of cut points compared, of those skipped, and the
    features they covered."""
    # With 3 players only later cut points are cheap enough (fewer deals survive the plays).
    three = EXHAUSTIVE[name].get("players", 2) == 3
    want, min_k = (10, 6) if three else (16, 0)
    want = -(-want // share)
    if (name, share) in _EXHAUSTIVE_RESULTS:
        return _EXHAUSTIVE_RESULTS[name, share]
    variant = dict(EXHAUSTIVE[name])
    rules = Rules(players=variant.pop("players", 2), **variant)
    checked, skipped, features = 0, 0, Counter()
    for cut in cuts(rules, seed=11, games=games, decisions=False):
        if checked >= want:
            break
        hidden_event = any(w != cut.seat and a in (DRAW, PASS) for w, a, _ in cut.events)
        if not hidden_event and cut.k % 4:
            continue        # favour the cut points with proofs about the hidden hands
        if cut.k < min_k:
            continue        # early cut points leave too many deals to try
        try:
            histories = brute_histories(rules, cut.seat, cut.dealt[cut.seat], cut.public,
                                        cut.scores, budget=BRUTE_BUDGET)
        except Budget:
            skipped += 1
            continue
        where = f"{name} game {cut.game} round {cut.round} cut {cut.k} (seat {cut.seat})"
        bf = brute_distribution(histories, cut.others)
        truth = cut.true_world()
        assert truth in bf, f"the brute force lost the true world: {where}"
        info = cut.info()
        dp = table_distribution(WorldTable(info), cut.others)
        assert truth in dp, f"the true world is excluded: {where}"
        assert normalised(dp) == normalised(bf), f"{where}: {describe_difference(dp, bf)}"
        checked += 1
        features.update(_features(cut, info))
    _EXHAUSTIVE_RESULTS[name, share] = (checked, skipped, features)
    return _EXHAUSTIVE_RESULTS[name, share]


#: A sixth of the cut points by default, all of them behind the slow marker.
SHARES = sizes(6, 1)


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("name", list(EXHAUSTIVE))
def test_enumeration_equals_brute_force(name, share):
    checked, skipped, features = exhaustive(name, share)
    assert checked >= 10 // share, f"only {checked} cut points compared ({skipped} too costly)"
    assert skipped < 200, "the brute force skips too much: choose other configurations"
    assert features["hidden draw"] + features["hidden pass"] >= 2 // share, features
    if "lowest-tile" in name and share == 1:
        assert features["lead not a double"] >= 1, features


@pytest.mark.parametrize("share", SHARES)
def test_enumeration_meets_every_kind_of_proof(share):
    """A check on the test itself: across the variants, the cut points compared include every
    kind of proof and of hidden origin."""
    total = Counter()
    for name in EXHAUSTIVE:
        total.update(exhaustive(name, share)[2])
    missing = [f for f in FEATURES if total[f] < 2]
    assert not missing, (missing, total)


# ---- 2. chi-square: drawn frequencies against the exact weights -------------------------------
@pytest.mark.parametrize("x, df, p", [
    (3.841458820694124, 1, 0.04999999999999989), (18.307038053275146, 10, 0.05000000000000005),
    (100, 50, 3.454931382984871e-05), (0.5, 3, 0.9188914116546758),
    (250, 200, 0.009379131668826098), (30, 60, 0.9995815503316723),
    (1e-3, 2, 0.9995001249791693), (400, 300, 9.678621994933555e-05),
    (12, 1, 0.0005320055051392492)])
def test_chi2_sf_known_values(x, df, p):
    """The p-value function against scipy's (`scipy.stats.chi2.sf(x, df)`, written here: the
    series, below a+1, and the continued fraction, above, both met)."""
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-9)


def world_of(hands, reserve, others):
    return tuple(hands[s] for s in others), sum(1 << t for t in reserve)


CHI_TABLES = {"2p": Rules(), "2p-draw-one": Rules(draw="one"), "3p": Rules(players=3),
              "4p-partnerships": Rules(players=4, partnerships=True)}


def chi_position(rules: Rules, weighted: bool, inference=False):
    """The first decision of seeded games with 20..300 distinct worlds, after a hidden draw
    (and, if `weighted`, with worlds of unequal weight; with `inference`, its factors)."""
    for cut in cuts(rules, seed=5, games=30):
        info = cut.info()
        factors = tile_factors(info, TileModel()) if inference else None
        if inference and not factors:
            continue
        table = WorldTable(info, factors)
        if table.total > 20000 or "hidden draw" not in _features(cut, info):
            continue
        dist = table_distribution(table, cut.others)
        if 20 <= len(dist) <= 300 and (not weighted or len(set(dist.values())) > 1):
            return cut, info, table, dist
    raise LookupError("no position fits")


def fits(sample, others, probs, n: int, seed: int) -> Counter:
    """n worlds `sample(rng)` draws on one seeded stream, counted: they pass the chi-square test
    against `probs`."""
    rng = Rng(derive_seed(2024, seed))
    observed = Counter(world_of(*sample(rng), others) for _ in range(n))
    stat, df, p = chi_square(observed, probs, n)
    assert p > 1e-4, (stat, df, p)
    return observed


@pytest.mark.parametrize("backend, name", [("core", name) for name in CHI_TABLES]
                         + [("reference", "2p"), ("reference", "4p-partnerships"),
                            ("core", "2p-inference")])
def test_sampler_chi_square(backend, name, core_sampler):
    """The compiled walk (25,000 draws) and the Python walk (4,000) fit the exact weights (on
    an inference-weighted table too)."""
    inference = name.endswith("-inference")
    cut, info, table, dist = chi_position(CHI_TABLES[name.removesuffix("-inference")],
                                          weighted=name != "3p", inference=inference)
    total = sum(dist.values())
    probs = {k: v / total for k, v in dist.items()} if inference else normalised(dist)
    assert cut.true_world() in probs
    if backend == "reference":
        def sample(rng):
            w = table.sample(rng)
            return w.hands, w.reserve
        fits(sample, cut.others, probs, 4000, 2)
        return
    observed = fits(core_sampler(info, table).sample, cut.others, probs, 25000, 1)
    if len(set(dist.values())) > 1:
        # The test has power: the same draws are far from uniform over the distinct worlds.
        flat = {k: Fraction(1, len(dist)) for k in dist}
        assert chi_square(observed, flat, 25000)[2] < 1e-6


def voids_position(rules: Rules, lo: int = 20, hi: int = 300):
    """A bergen-position/1 document from a seeded game, with voids, with lo..hi worlds."""
    for g in range(40):
        log = play_match(rules, [RANDOM] * rules.players, derive_seed(77, g))
        for r, k, state, _ in plies(log, rounds=2):
            if state.led and len(state.legal_moves()) > 1:
                pos = load(seen_record(log, r, k, state.to_move)).position
                if pos.voids and lo <= WorldTable(from_position(pos)).total <= hi:
                    return write_position(pos), state
    raise LookupError("no position fits")


def position_brute_force(pos: Position):
    """Every deal of the unseen tiles to the other hands that avoids their voids (the reserve
    takes the rest): (other hands, reserve set) -> 1."""
    others = [s for s in range(pos.rules.players) if s != pos.to_move]
    found = Counter()

    def rec(i, left, hands):
        if i == len(others):
            found[(tuple(hands), left)] += 1
            return
        s = others[i]
        ok = left
        for v in pos.voids.get(s, ()):
            ok &= ~TILES_WITH[v]
        for combo in itertools.combinations(list(iter_mask(ok)), pos.hand_sizes[s]):
            m = sum(1 << t for t in combo)
            rec(i + 1, left & ~m, hands + [m])

    rec(0, pos.unseen, [])
    return found


@pytest.mark.parametrize("players", [2, 3])
def test_position_with_voids_chi_square(players, core_sampler):
    doc, true_state = voids_position(Rules(players=players))
    pos = load_position(json.dumps(doc))
    info = from_position(pos)
    table = WorldTable(info)
    others = [s for s in range(players) if s != pos.to_move]
    dist = table_distribution(table, others)
    assert dist == position_brute_force(pos)       # every world once: uniform
    truth = (tuple(true_state.hands[s] for s in others), sum(1 << t for t in true_state.reserve))
    assert truth in dist
    fits(core_sampler(info, table).sample, others, normalised(dist), 20000, 3)


# ---- 3. seeded games: the truth and every proof kept, the C walk the Python walk ---------
def true_groups(cut: Cut, info: InfoSet) -> dict:
    """The group each free tile belongs to in the true history: the reserve, or the epoch of
    the hidden seat that was dealt or drew it (epoch k: its k-th turn with a draw)."""
    origin = {}
    for s in cut.others:
        for t in iter_mask(cut.dealt[s]):
            origin[t] = (s, 0)
    epoch = {s: 0 for s in cut.others}
    drawing = {s: False for s in cut.others}
    for w, a, t in cut.events:
        if w == cut.seat:
            continue
        if a == DRAW:
            if not drawing[w]:
                epoch[w] += 1
                drawing[w] = True
            origin[t] = (w, epoch[w])
        else:
            drawing[w] = False
    index = {(g.owner, g.epoch): i for i, g in enumerate(info.groups)}
    reserve = set(cut.state.reserve)
    return {t: index[(RESERVE, -1)] if t in reserve else index[origin[t]] for t, _ in info.free}


def hidden_proofs(cut: Cut) -> dict:
    """Per hidden seat, from the events alone (RULES.md): [(numbers it was proved to lack,
    tiles it drew afterwards)], with the lead's proof first (tiles it rules out of a dealt hand,
    every draw of the seat afterwards)."""
    rules = cut.rules
    lead = cut.events[0][1] >> 1
    outrank = sum(1 << u for u in range(28)
                  if u != lead and find_leader(rules, [(1 << u) | (1 << lead)])[1] == u)
    proofs = {s: [[outrank, 0]] for s in cut.others}
    state = State.deal(rules, list(cut.dealt), None, cut.scores)
    turn_ends, drew_in_turn = None, False
    for w, a, t in cut.events:
        if state.led and (turn_ends is None or turn_ends[0] != w):
            turn_ends, drew_in_turn = (w, state.left, state.right), False
        if w in proofs:
            if a == DRAW:
                for p in proofs[w]:
                    p[1] += 1
                drew_in_turn = True
            elif a == PASS or drew_in_turn:
                proofs[w].append([TILES_WITH[turn_ends[1]] | TILES_WITH[turn_ends[2]], 0])
        state = state.apply(a, w, t if a == DRAW else None)
        if a != DRAW:
            turn_ends = None
    return proofs


def world_violations(cut: Cut, info: InfoSet, hands, reserve, proofs) -> list:
    bad = []
    line = sum(1 << tile_index(a, b) for a, b in info.line)
    if hands[cut.seat] != info.hand:
        bad.append("the viewpoint's hand changed")
    if tuple(popcount(h) for h in hands) != info.hand_sizes:
        bad.append(f"hand sizes {[popcount(h) for h in hands]}, not {list(info.hand_sizes)}")
    if len(reserve) != info.reserve_size or len(set(reserve)) != len(reserve):
        bad.append(f"reserve of {len(reserve)} tiles, not {info.reserve_size}")
    seen = line
    for h in list(hands) + [1 << t for t in reserve]:
        if seen & h:
            bad.append("a tile is in two places")
        seen |= h
    if seen != ALL_TILES:
        bad.append("the 28 tiles are not all accounted for")
    for s, ps in proofs.items():
        for nums, drawn_since in ps:
            if popcount(hands[s] & nums) > drawn_since:
                bad.append(f"seat {s} holds {popcount(hands[s] & nums)} tiles a proof rules "
                           f"out, having drawn only {drawn_since} since")
    return bad


def info_consistent_with_truth(cut: Cut, info: InfoSet):
    st = cut.state
    assert info.seat == cut.seat and info.hand == st.hands[cut.seat]
    assert info.line == st.line and info.scores == st.scores
    assert info.hand_sizes == tuple(st.hand_size(s) for s in range(cut.rules.players))
    assert info.reserve_size == st.reserve_size
    assert (info.passes, info.draws_this_turn, info.last_drawn) == (
        st.passes, st.draws_this_turn, st.last_drawn)
    line = st.line_mask()
    free = sum(1 << t for t, _ in info.free)
    assert free & ~line == ALL_TILES & ~info.hand & ~line
    assert info.played_free == free & line
    played_by = {a >> 1: w for w, a, _ in cut.events if a < DRAW and w != cut.seat}
    assert info.played_free & ~sum(1 << t for t in played_by) == 0
    for t, allowed in info.free:        # a tile a hidden seat played is in its groups only
        if info.played_free >> t & 1:
            assert {info.groups[g].owner for g in iter_mask(allowed)} == {played_by[t]}, t
    assert sum(g.capacity for g in info.groups) == len(info.free)
    assert all(g.capacity >= 0 for g in info.groups)
    assert [g.owner for g in info.groups].count(RESERVE) == 1


TABLES = {
    "2p": Rules(), "2p-draw-one": Rules(draw="one"),
    "2p-highest-double": Rules(lead="highest-double"),
    "2p-lowest-tile": Rules(no_double="lowest-tile", hand_size=3),
    "3p": Rules(players=3), "3p-draw-one-lowest-tile": Rules(players=3, draw="one",
                                                             no_double="lowest-tile"),
    "4p": Rules(players=4), "4p-partnerships": Rules(players=4, partnerships=True),
    "4p-partnerships-draw-one-highest": Rules(players=4, partnerships=True, draw="one",
                                              lead="highest-double"),
    "2p-h3-rk19": Rules(hand_size=3, reserve_kept=19),
    "3p-h4-draw-one": Rules(players=3, hand_size=4, draw="one"),
    "4p-lowest-tile-draw-one": Rules(players=4, no_double="lowest-tile", draw="one"),
}


@pytest.mark.parametrize("name, weighted", [(name, False) for name in TABLES]
                         + [("2p", True), ("3p", True)])
def test_true_world_kept_and_sampled_worlds_respect_proofs(name, weighted, core_sampler):
    """At 30 cut points a table: the information set agrees with the truth, whose assignment
    fits every group exactly; the table (plain, or inference-weighted) keeps the true world; the
    C walk's worlds respect every proof, and they are, draw for draw and stream state, the
    Python walk's (at every fifth cut point, sample_many's checksum is the xor of the 100 worlds
    the Python walk draws on one stream); where the table has at most 1,000 worlds, every
    world drawn is one of those it enumerates."""
    rules = TABLES[name]
    positions = 0
    for i, cut in enumerate(cuts(rules, seed=41, games=12)):
        if positions >= 30:
            break
        where = f"{name} game {cut.game} round {cut.round} cut {cut.k}"
        info = cut.info()
        info_consistent_with_truth(cut, info)
        # The true history is one of the worlds: its assignment fits every group exactly.
        truth = true_groups(cut, info)
        for t, allowed in info.free:
            assert allowed >> truth[t] & 1, f"{where}: tile {t} barred from its true group"
        filled = Counter(truth.values())
        assert all(filled[g] == grp.capacity for g, grp in enumerate(info.groups)), where
        only_truth = tuple((t, 1 << truth[t]) for t, _ in info.free)
        assert count_worlds(info.groups, only_truth) == 1, where
        table = WorldTable(info, tile_factors(info, TileModel()) if weighted else None)
        sampler = core_sampler(info, table)
        assert sampler.total == table.total >= 1
        small = table_distribution(table, cut.others) if table.total <= 1000 else None
        if small is not None:
            assert cut.true_world() in small, where
        proofs = hidden_proofs(cut)
        assert not world_violations(cut, info, cut.state.hands, cut.state.reserve, proofs)
        rng, ref = Rng(derive_seed(41, i)), Rng(derive_seed(41, i))
        for d in range(25):
            hands, reserve = sampler.sample(rng)
            if d < 4:
                w = table.sample(ref)
                assert (hands, reserve) == (w.hands, w.reserve) and rng.state == ref.state, where
            bad = world_violations(cut, info, hands, reserve, proofs)
            assert not bad, f"{where}: {bad}"
            if small is not None:
                assert world_of(hands, reserve, cut.others) in small, where
        if i % 5 == 0:
            rng, check = Rng(12345), 0
            for _ in range(100):
                w = table.sample(rng)
                check ^= w.hands[0] ^ (w.hands[1] << 28) ^ (w.reserve[0] if w.reserve else 0)
            assert sampler.sample_many(100, 12345) == check, where
        positions += 1
    assert positions >= 30, positions


# ---- 4. impossible positions ------------------------------------------------------------------
LINE = ((1, 1), (1, 4), (4, 4), (4, 6), (6, 3))


@pytest.mark.parametrize("make, message", [
    # seat 1 void in 0..5 (the reader refuses it: test_record_errors.py, voids-no-deal),
    # built without the format's check
    (lambda: from_position(Position(Rules(), (0, 0), 0, tiles("0-3 1-2 2-5 5-6"), LINE, (4, 5),
                                    14, {1: frozenset(range(6))})), "impossible position: no deal"),
    # 2 + 1 + 6 + 14 = 23 tiles: refused before the programme is built (infoset.check_infoset)
    (lambda: from_position(Position(Rules(), (0, 0), 0, tiles("0-3 1-2"), ((1, 1),), (2, 6), 14)),
     "the tiles add up to 23, not 28"),
    # seat 1 passes at ends 0|0 (nothing can be drawn: all 16 reserve tiles are kept), so it
    # holds no 0; then it plays 0-2 without having drawn: the events replay (State cannot see
    # the hidden hand) but no world fits them
    (lambda: from_state_and_events(Rules(reserve_kept=16), 0, tiles("0-0 0-1 3-3 3-4 4-5 5-6"),
                                   None, [(0, parse_tile("0-0") * 2, None), (1, PASS, None),
                                          (0, parse_tile("0-1") * 2 + 1, None),
                                          (1, parse_tile("0-2") * 2, None)]),
     "impossible position: no deal of the hidden tiles"),
], ids=["voids", "sizes", "events"])
def test_impossible_positions_are_refused_by_both_walks(make, message, core_sampler):
    info = make()
    assert count_worlds(info.groups, info.free) == 0
    with pytest.raises(BergenError, match=message):
        WorldTable(info)
    with pytest.raises(BergenError, match=message):
        core_sampler(info)
