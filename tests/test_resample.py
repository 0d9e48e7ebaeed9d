"""inference=action-sir (`information/resample.py`): the action model's chance of a play is
rated as `action.ActionModel.likelihood` rates it, the pool is drawn as the reference walk
draws, the pool's table draws its worlds in proportion to their shares, and on small
positions the resampled worlds follow the brute force (every history the rules allow,
replayed through the reference `State`, weighed by the action model's chance of each of
the other seats' plays given the hand it held then)."""
from __future__ import annotations

import dataclasses
import math
from collections import Counter

import pytest

from bergen_search.errors import BergenError
from bergen_search.formats.game import load_game
from bergen_search.game.rng import Rng
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS
from bergen_search.game.tiles import ALL_TILES, N_TILES, TILES_WITH
from bergen_search.information.action import action_model, candidates
from bergen_search.information.infoset import ObservedPlay
from bergen_search.information.resample import (
    PlayRater,
    PoolTable,
    Resampling,
    pool_table,
    pool_weights,
    shares_of,
    walks,
)
from bergen_search.information.sampler import ReferenceSampler, WorldTable
from support import EXHAUSTIVE, Budget, brute_histories, cuts

try:
    from bergen_search.information._sampler import CoreSampler
except ImportError:     # the conftest policy: the compiled core is required
    CoreSampler = None


def decision():
    with open("examples/decision.json") as f:
        return load_game(f.read())


def test_a_plays_rating_is_the_models_likelihood():
    """`PlayRater.log_chance` (features summed once per play) against the plain
    `ActionModel.likelihood`, on random plays and hands."""
    model = action_model()
    rng = Rng(43)
    checked = 0
    while checked < 400:
        line = sum(1 << rng.below(N_TILES) for _ in range(rng.below(12)))
        left, right = rng.below(7), rng.below(7)
        fits = (TILES_WITH[left] | TILES_WITH[right]) & ~line
        if not fits:
            continue
        hand = (sum(1 << rng.below(N_TILES) for _ in range(1 + rng.below(8))) & ~line) | (
            1 << min(t for t in range(N_TILES) if fits >> t & 1))
        ld, rd = bool(rng.below(2)), bool(rng.below(2))
        moves = candidates(hand, left, right, ld, rd)
        if not moves:
            continue
        move = moves[rng.below(len(moves))]
        d = ObservedPlay(5, 1, left, right, ld, rd, line, move, False)
        want = model.likelihood(d, hand)
        got = PlayRater(model, d).log_chance(hand)
        assert math.exp(got) == pytest.approx(want, rel=1e-9, abs=1e-12)
        other = hand & ~(1 << (move >> 1))          # a hand without the tile played
        assert PlayRater(model, d).log_chance(other) == -math.inf
        checked += 1


def test_the_pool_is_drawn_as_the_reference_walks(require_compiled):
    require_compiled(CoreSampler, "bergen_search.information._sampler")
    info = decision()
    table = WorldTable(info)
    r1, r2 = Rng(7), Rng(7)
    flat = CoreSampler(info, table).walks(r1, 300)
    want = [table.walk(r2) for _ in range(300)]
    assert [list(flat[i * len(table.tiles):(i + 1) * len(table.tiles)])
            for i in range(300)] == want
    assert r1.state == r2.state
    assert walks(table, Rng(9), 5) == [tuple(table.walk(r)) for r in [Rng(9)] for _ in range(5)]


def test_the_pool_table_draws_each_world_by_its_share(require_compiled):
    """The trie's walk gives each pooled world its share: the exact marginals agree with
    the shares, and the core's draws with both (chi-square-free: a fixed seed, a bound)."""
    require_compiled(CoreSampler, "bergen_search.information._sampler")
    info = decision()
    table = pool_table(info, how=Resampling(fresh=0.0))
    assert isinstance(table, PoolTable) and table.pool == 256
    assert 1 <= table.effective <= table.pool and table.distinct <= table.pool
    shares = table.enumerate()
    assert sum(shares.values()) == pytest.approx(1.0)
    # the marginals of the trie against the shares summed by hand
    marg = table.marginals()
    for t, owners in marg.items():
        for owner, p in owners.items():
            want = sum(q for (hands, reserve), q in shares.items()
                       if (owner == -1 and t in reserve) or (owner >= 0 and hands[owner] >> t & 1))
            assert p == pytest.approx(want, abs=1e-9)
    # the core's sampler walks it unchanged, as the reference does
    core, ref = CoreSampler(info, table), ReferenceSampler(info, table)
    r1, r2 = Rng(3), Rng(3)
    got = Counter()
    for _ in range(4000):
        a, b = core.sample(r1), ref.sample(r2)
        assert a[0] == b[0] and a[1] == b[1]
        got[(a[0], tuple(sorted(a[1])))] += 1
    tv = 0.5 * sum(abs(got[k] / 4000 - q) for k, q in shares.items())
    assert tv < 0.12, tv


def test_the_fresh_share_mixes_in_the_base_tables_own_draws(require_compiled):
    """With `fresh`, the table is that share of the base table and the rest the pool: its
    exact marginals are the mixture's, and the core walks it."""
    require_compiled(CoreSampler, "bergen_search.information._sampler")
    info = decision()
    mixed = pool_table(info, how=Resampling(fresh=0.3))
    alone = pool_table(info, how=Resampling(fresh=0.0))
    base = mixed.base.marginals()
    got, pool = mixed.marginals(), alone.marginals()
    for t, owners in got.items():
        for owner, p in owners.items():
            want = 0.7 * pool[t].get(owner, 0.0) + 0.3 * base[t].get(owner, 0.0)
            assert p == pytest.approx(want, abs=1e-9)
    assert sum(mixed.enumerate().values()) == pytest.approx(1.0)
    core, ref = CoreSampler(info, mixed), ReferenceSampler(info, mixed)
    r1, r2 = Rng(8), Rng(8)
    for _ in range(300):
        assert core.sample(r1) == ref.sample(r2)


def test_the_floor_and_the_temper():
    logs = [0.0, -50.0, -math.inf, -1.0]
    shares, ess = shares_of(logs, Resampling(pool=4, floor=0.2))
    assert sum(shares) == pytest.approx(1.0) and min(shares) == pytest.approx(0.05)
    assert 1 <= ess < 2
    flat, ess0 = shares_of(logs, Resampling(pool=4, floor=0.2, temper=0.0))
    assert flat == [pytest.approx(0.25)] * 4 or ess0 == pytest.approx(3.0)
    collapse, ess1 = shares_of([-math.inf] * 3, Resampling(pool=3))
    assert collapse == [pytest.approx(1 / 3)] * 3 and ess1 == 3


@pytest.mark.parametrize("kwargs, field", [
    (dict(pool=0), "pool"), (dict(pool=2.5), "pool"), (dict(floor=0), "floor"),
    (dict(floor=1.5), "floor"), (dict(temper=-1), "temper"), (dict(fresh=1.0), "fresh")])
def test_bad_resampling_settings_are_one_line_errors(kwargs, field):
    with pytest.raises(BergenError) as e:
        Resampling(**kwargs)
    assert e.value.field == field and "\n" not in str(e.value)


# ---- the brute force ---------------------------------------------------------------------
def brute_weighted(cut, histories, model):
    """{(other hands, reserve mask): weight}: each history of the brute force weighed by the
    model's chance of every play of another seat with a choice (not right after its draw),
    the hand it held then replayed from its deal and draws."""
    info = cut.info()
    rated = {d.event: d for d in info.decisions if not d.drew}
    out: Counter = Counter()
    for dealt, drawn, final in histories:
        hands = list(dealt)
        w = 1.0
        for i, (seat, action, tile) in enumerate(cut.events):
            if action == DRAW:
                got = tile if seat == cut.seat else drawn.get(i)
                hands[seat] |= 1 << got
            elif action != PASS:
                if i in rated:
                    w *= model.likelihood(rated[i], hands[seat])
                hands[seat] &= ~(1 << (action >> 1))
        key = (tuple(final.hands[s] for s in cut.others), ALL_TILES & ~final.located())
        out[key] += w
    return out


def distance(a: dict, b: dict) -> float:
    sa, sb = sum(a.values()), sum(b.values())
    return 0.5 * sum(abs(a.get(k, 0) / sa - b.get(k, 0) / sb) for k in set(a) | set(b))


def pool_distribution(table: PoolTable, others) -> Counter:
    d: Counter = Counter()
    for (hands, reserve), q in table.enumerate().items():
        d[(tuple(hands[s] for s in others), sum(1 << t for t in reserve))] += q
    return d


@pytest.mark.parametrize("name", ["default-h3", "draw-one-h3", "3p-h3"])
def test_resampled_worlds_follow_the_brute_force(name):
    """On cut points where the plays move the weights (the weighted brute force differs from
    the unweighted one by 0.1 or more in total variation) and the worlds are few, a pool of
    50,000 uniform histories resampled by the model is within sampling error of the brute
    force's weighted worlds (0.002 to 0.013 when written), and far from the unweighted ones."""
    variant = dict(EXHAUSTIVE[name])
    rules = Rules(players=variant.pop("players", 2), **variant)
    model = action_model()
    how = Resampling(pool=50_000, floor=1e-9, seed=11, fresh=0.0)
    checked = drew = 0
    for cut in cuts(rules, seed=5, games=80, decisions=True):
        info = cut.info()
        if not any(not d.drew for d in info.decisions):
            continue
        try:
            histories = brute_histories(rules, cut.seat, cut.dealt[cut.seat], cut.public,
                                        cut.scores, budget=4000)
        except Budget:
            continue
        target = brute_weighted(cut, histories, model)
        flat = Counter()
        for _, _, final in histories:
            flat[(tuple(final.hands[s] for s in cut.others), ALL_TILES & ~final.located())] += 1
        if distance(target, flat) < 0.1 or len(flat) > 60:
            continue            # the plays say little here, or too many worlds to sample
        table = pool_table(info, model, how, factors={})
        got = pool_distribution(table, cut.others)
        assert distance(got, target) < 0.03, (name, cut.game, cut.k, distance(got, target))
        assert distance(got, flat) > 0.08
        checked += 1
        # a hidden seat's draw: its hand at its plays rebuilt from its epochs
        drew += any(g.epoch > 0 for g in info.groups)
        if checked >= 6:
            break
    assert checked >= 2, f"{name}: only {checked} cut points where the plays weigh"
    assert drew or rules.players == 3, f"{name}: no cut point with a hidden draw"


def test_without_plays_to_read_the_pool_is_the_factorised_draw():
    info = decision()
    blind = dataclasses.replace(info, decisions=())
    assignments, logs = pool_weights(blind, WorldTable(blind), action_model(), Resampling())
    assert logs == [0.0] * len(assignments)
    table = pool_table(blind)
    assert table.effective == pytest.approx(table.pool)


# ---- through the searches ----------------------------------------------------------------
def test_a_search_reports_its_pool_and_repeats_itself():
    from bergen_search.search.api import Limits, search
    info = decision()
    runs = [search(info, Limits(iterations=300), seed=4, inference="action-sir")
            for _ in range(2)]
    assert runs[0].info["resampled"] == {"pool": 256, "distinct": runs[0].info[
        "resampled"]["distinct"], "effective": pytest.approx(139.9, abs=0.1)}
    assert [(m.move, m.visits, m.value) for m in runs[0].moves] == [
        (m.move, m.visits, m.value) for m in runs[1].moves]
    plain = search(info, Limits(iterations=300), seed=4)
    assert "resampled" not in plain.info            # the default: no pool, nothing reported


def test_the_setting_is_checked_in_one_line():
    from bergen_search.search import registry
    alg, _ = registry.resolve("ismcts", {})
    assert alg.check({"inference": "action-sir"})["inference"] == "action-sir"
    with pytest.raises(BergenError) as e:
        alg.check({"inference": "action-sirr"})
    assert "action-sir" in str(e.value) and "\n" not in str(e.value)


def test_the_units_of_a_search_share_the_pools_sampler():
    """The pool's programme is copied into the core once a process, not once a unit; a
    pickled table (another process's) builds its own."""
    import pickle

    from bergen_search.search import registry
    alg, _ = registry.resolve("ismcts", {})
    info = decision()
    table = alg.table(info, {"inference": "action-sir"})
    first = alg.sampler(info, table)
    assert alg.sampler(info, table) is first
    copy = pickle.loads(pickle.dumps(table))
    assert copy.samplers == {} and copy.shares == table.shares
    assert alg.sampler(info, copy) is not first
    plain = alg.table(info, {"inference": True})
    assert alg.sampler(info, plain) is not alg.sampler(info, plain)    # the default: as it was


def test_best_json_says_the_pool():
    """`bergen best --json` carries the search's `resampled` (docs/FORMATS.md), only with
    action-sir."""
    import json

    from click.testing import CliRunner

    from bergen_search.cli import main
    args = ["best", "examples/decision.json", "--iterations", "300", "--seed", "4", "--json"]
    doc = json.loads(CliRunner().invoke(main, args + ["--set", "inference=action-sir"]).stdout)
    assert doc["resampled"]["pool"] == 256 and 0 < doc["resampled"]["effective"] <= 256
    assert "resampled" not in json.loads(CliRunner().invoke(main, args).stdout)
