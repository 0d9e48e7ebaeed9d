"""Where the hidden tiles are (information/beliefs.py, `bergen show`'s grid, `--weighting`): the
chances equal the exact count per tile (merged epochs too) and, per weighting, the enumerated
worlds of the table its search draws from; they sum to 1 per tile and to the size per holder."""
import itertools
from fractions import Fraction

import pytest
from support import plies, sizes, bergen as run

from bergen_search.errors import BergenError
from bergen_search.formats.game import load
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.information.beliefs import beliefs
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.infoset import RESERVE
from bergen_search.information.sampler import WorldTable, count_worlds
from bergen_search.views.show import knowledge

#: (players, partnerships, every how many positions are checked in the default run and behind
#: slow): by default 20 or more with 2 and 3 players, where most tables are small, all with 4
TABLES = [(2, False, (10, 5)), (3, False, (4, 2)), (4, False, (1, 1)), (4, True, (1, 1))]


def positions(players, partnerships, games, seed=11, cap=3000):
    """Information sets of the seats to move in seeded self-play, with their observers: those
    of at most `cap` histories (counted, cheaper than building their tables)."""
    rules = Rules(players=players, partnerships=partnerships)
    for g in range(games):
        log = play_match(rules, [0] * players, derive_seed(seed, g))
        for _, _, state, observers in plies(log, observe=True):
            info = observers[state.to_move].infoset(state.to_move) if state.led else None
            if info is not None and count_worlds(info.groups, info.free) <= cap:
                yield info, observers[state.to_move]


def check_sums(b, info):
    holders = list(b.seats) + [b.reserve]
    for h in holders:
        assert sum(h.chances.values()) == pytest.approx(h.size, abs=1e-9)
    tiles = {t for h in holders for t in h.chances}
    for t in tiles:
        assert sum(h.chances.get(t, 0.0) for h in holders) == pytest.approx(1.0, abs=1e-9)


def counted_chances(info, owner) -> dict:
    """The oracle: tile -> the share of the histories in which `owner` holds it, each tile
    pinned to the owner's groups in turn and the histories counted exactly (`count_worlds`)."""
    groups, free = info.groups, info.free
    bits = sum(1 << i for i, g in enumerate(groups) if g.owner == owner)
    total = count_worlds(groups, free)
    out = {}
    for i, (t, allowed) in enumerate(free):
        if info.played_free >> t & 1 or not allowed & bits:
            continue
        n = count_worlds(groups, free[:i] + ((t, allowed & bits),) + free[i + 1:])
        if n:
            out[t] = Fraction(n, total)
    return out


def check_counted(b, info):
    """Every holder's chances are the exact count's, and they add up."""
    for h in list(b.seats) + [b.reserve]:
        want = counted_chances(info, RESERVE if h.seat is None else h.seat)
        assert h.chances.keys() == want.keys()
        for t, p in want.items():
            assert h.chances[t] == pytest.approx(float(p), abs=1e-12)
    check_sums(b, info)


def test_epochs_merged_by_the_programme_still_count_apart():
    checked = 0
    for info, obs in positions(2, False, 6, cap=10 ** 6):
        merged = WorldTable(info).merged_of
        if len(set(merged)) == len(merged):
            continue
        check_counted(beliefs(info, obs), info)
        assert WorldTable(info).histories == count_worlds(info.groups, info.free)
        checked += 1
        if checked == 5:
            return
    pytest.fail(f"only {checked} positions with merged epochs")


@pytest.mark.parametrize("players,partnerships,every", TABLES)
@pytest.mark.parametrize("games, full", sizes((2, 0), (6, 1)))
def test_the_chances_are_the_exact_count_and_the_worlds_the_search_draws_from(
        players, partnerships, every, games, full):
    """Uniform: the exact count, tile by tile. Each weighting: the chances of the worlds
    (enumerated, 400 at most) of the table the default engine with that `inference` setting
    draws from: the grid shows what the search believes."""
    from bergen_search.search.registry import Settings
    compared = enumerated = moved = weighted = 0
    for info, obs in itertools.islice(positions(players, partnerships, games), 0, None, every[full]):
        uniform = beliefs(info, obs)
        check_counted(uniform, info)
        compared += 1
        if WorldTable(info).total > 400:
            continue
        for weighting, setting in (("uniform", "off"), ("inference", "on")):
            b = beliefs(info, obs, weighting=weighting)
            assert b.weighting == weighting
            settings = Settings.of("ismcts", {"inference": setting})
            worlds = settings.engine.table(info, settings).enumerate()
            total = sum(worlds.values())
            for h in b.seats:
                for t in range(28):
                    share = sum(w for (hands, _), w in worlds.items() if hands[h.seat] >> t & 1)
                    assert abs(h.chances.get(t, 0.0) - share / total) <= 1e-9, (h.seat, t)
            for t in range(28):
                share = sum(w for (_, reserve), w in worlds.items() if t in reserve)
                assert abs(b.reserve.chances.get(t, 0.0) - share / total) <= 1e-9, t
            check_sums(b, info)
        moved += any(abs(h.chances.get(t, 0) - u.chances.get(t, 0)) > 1e-6
                     for h, u in zip(b.seats, uniform.seats) for t in range(28))
        weighted += bool(tile_factors(info, TileModel()))
        enumerated += 1
    assert compared >= 10 and enumerated >= 8 and weighted >= 3, (compared, enumerated, weighted)
    assert moved > 0


def test_show_prints_the_grid_its_weighting_names_and_refuses_others():
    """`--weighting inference`'s grid (the uniform one: GUIDE.md's example, which
    test_doc_examples.py runs); an unknown weighting, or one of the models removed, is refused
    by beliefs and by show."""
    r = run("show", "examples/decision.json", "--weighting", "inference")
    assert r.exit_code == 0
    assert "(% chance; weighted by what the other seats' plays say (inference))" in r.output
    assert "tile     seat 1  reserve" in r.output and "0-5          84       16" in r.output
    k = knowledge(load(open("examples/decision.json").read()), "inference")
    assert k.to_json()["weighting"] == "inference"
    with pytest.raises(BergenError, match="weighting must be one of uniform, inference"):
        beliefs(k.game.info, weighting="sure")
    for bad in ("sure", "learned", "action", "action-sir"):
        r = run("show", "examples/decision.json", "--weighting", bad)
        assert r.exit_code == 2 and "Invalid value for '--weighting'" in r.output, r.output
        assert f"'{bad}' is not one of 'uniform', 'inference'" in r.output
