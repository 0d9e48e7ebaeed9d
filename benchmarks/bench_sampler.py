"""Speed of the world sampler on a typical mid-round 2-player decision (fixed seeds).

- `CoreSampler.sample_many(10000, seed)`: worlds per second of the C walk
  (`extra_info["worlds"]` over the mean time);
- `WorldTable(info)`: building the counting programme, once per decision;
- `WorldTable.sample`: the reference walk in Python, for comparison.

`python benchmarks/bench_sampler.py` prints the figures directly (best of a few runs).
"""
import time

import pytest

from bergen_search.game.match import ENGINE_RANDOM, play_match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, State
from bergen_search.information.infoset import from_state_and_events
from bergen_search.information.sampler import WorldTable

SEED = 20261129
WORLDS = 10000
REFERENCE_WORLDS = 1000


def mid_round_position():
    """The first decision after a dozen events of a seeded 2-player round where the opponent
    keeps tiles it drew and thousands of worlds remain (round 0 of game 4: 8 tiles laid, hands
    of 5 and 3, 12 in the reserve, 3360 worlds)."""
    rules = Rules()
    for g in range(50):
        log = play_match(rules, [ENGINE_RANDOM, ENGINE_RANDOM], derive_seed(SEED, g))
        rnd = log.rounds[0]
        state = State.deal(rules, rnd.hands, rnd.reserve)
        events = []
        for k, (w, a, t) in enumerate(rnd.events):
            if k >= 12 and state.led and len(state.legal_moves()) > 1:
                seat = state.to_move
                public = [(ww, aa, tt if (aa == DRAW and ww == seat) else None)
                          for ww, aa, tt in events]
                info = from_state_and_events(rules, seat, rnd.hands[seat], None, public)
                drawn_kept = any(grp.epoch > 0 and grp.capacity > 0 for grp in info.groups)
                if drawn_kept and WorldTable(info).total >= 1000:
                    return info
                break
            state = state.apply(a, w, t if a == DRAW else None)
            events.append((w, a, t))
    raise RuntimeError("no mid-round position found")


@pytest.fixture(scope="module")
def info():
    return mid_round_position()


@pytest.fixture(scope="module")
def core_sampler():
    from bergen_search.game.backend import load_core
    if load_core() is None:
        pytest.fail("compiled core is not built; run `pip install -e .`")
    from bergen_search.information._sampler import CoreSampler
    return CoreSampler


def test_core_sample_many(benchmark, info, core_sampler):
    sampler = core_sampler(info)
    benchmark.extra_info["worlds"] = WORLDS
    benchmark.extra_info["consistent_worlds"] = sampler.total
    check = benchmark(sampler.sample_many, WORLDS, SEED)
    assert check == sampler.sample_many(WORLDS, SEED)      # deterministic


def test_world_table_construction(benchmark, info):
    table = benchmark(WorldTable, info)
    benchmark.extra_info["nodes"] = table.n_nodes
    benchmark.extra_info["consistent_worlds"] = table.total
    assert table.total >= 1000


def test_weighted_world_table_construction(benchmark):
    """The world table weighed by inference (the default engine's, once per search), on a
    position where the other seat's plays give evidence about several tiles."""
    from bergen_search.information.inference import TileModel, tile_factors
    from bergen_search.play.bench import inference_position
    info = inference_position()
    table = benchmark(lambda: WorldTable(info, tile_factors(info, TileModel())))
    assert table.weight is not None and table.total > 0


def test_core_sampler_construction(benchmark, info, core_sampler):
    table = WorldTable(info)
    benchmark(core_sampler, info, table)


def test_reference_sample(benchmark, info):
    table = WorldTable(info)

    def draw():
        rng = Rng(SEED)
        for _ in range(REFERENCE_WORLDS):
            table.sample(rng)
    benchmark.extra_info["worlds"] = REFERENCE_WORLDS
    benchmark(draw)


def _best(fn, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


if __name__ == "__main__":
    from bergen_search.information._sampler import CoreSampler
    position = mid_round_position()
    table = WorldTable(position)
    sampler = CoreSampler(position, table)
    print(f"position: seat {position.seat}, {len(position.line)} tiles laid, hands "
          f"{list(position.hand_sizes)}, reserve {position.reserve_size}, "
          f"{table.total} worlds, {table.n_nodes} nodes")
    t = _best(lambda: sampler.sample_many(100 * WORLDS, SEED))
    print(f"CoreSampler.sample_many: {100 * WORLDS / t:,.0f} worlds/s")
    t = _best(lambda: [table.sample(Rng(SEED)) for _ in range(REFERENCE_WORLDS)])
    print(f"WorldTable.sample (Python): {REFERENCE_WORLDS / t:,.0f} worlds/s")
    t = _best(lambda: WorldTable(position), repeats=20)
    print(f"WorldTable construction: {t * 1e3:.3f} ms")
    t = _best(lambda: CoreSampler(position, table), repeats=20)
    print(f"CoreSampler construction (table given): {t * 1e3:.3f} ms")
