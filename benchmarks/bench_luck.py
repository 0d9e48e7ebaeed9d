"""Speed of the arena's luck adjustment (bergen_search/luck.py), fixed seeds.

- `match_luck` of one duplicate set of single rounds (greedy against random, 2 players), with
  the shipped estimate (64 compiled greedy playouts per candidate tile): the cost the arena
  adds to each set of `--round`;
- `draw_rollouts` at one draw (16 candidate tiles × 64 playouts): `extra_info["playouts"]`
  over the mean time is playouts per second.

`python benchmarks/bench_luck.py` prints the figures directly (best of a few runs).
"""
import time

from bergen_search.game.backend import ACTIVE
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW
from bergen_search.play.arena import play_set
from bergen_search.play.engines import parse_engine_spec
from bergen_search.play.luck import default_estimate, match_luck, position_fields

SEED = 20261201


def a_set():
    """The logs of a duplicate set of single rounds with at least ten draws."""
    rules = Rules()
    greedy, rand = parse_engine_spec("greedy"), parse_engine_spec("random")
    for i in range(100):
        sr = play_set(rules, greedy, rand, SEED, i, keep_logs=True, single_round=True,
                      luck_adjust=False)
        draws = sum(a == DRAW for g in sr.logs for _, a, _ in g.log.rounds[0].events)
        if draws >= 10:
            return rules, [g.log for g in sr.logs], draws
    raise AssertionError("no set with ten draws")


def first_draw(rules, log):
    rnd = log.rounds[0]
    state = ACTIVE.new_state(rules, rnd.hands, rnd.reserve, log.start_scores)
    for _, action, _ in rnd.events:
        if action == DRAW and state.reserve_size == 16:
            return state
        state = state.apply(action)
    raise AssertionError("no draw from a full reserve")


def luck_of_set(rules, logs, model):
    return [match_luck(rules, log, model) for log in logs]


def test_bench_luck_of_a_set(benchmark):
    rules, logs, draws = a_set()
    benchmark.extra_info["draws"] = draws
    out = benchmark(luck_of_set, rules, logs, default_estimate())
    assert len(out) == 2


def test_bench_draw_rollouts(benchmark):
    from bergen_search.play._luck import draw_rollouts
    rules, logs, _ = a_set()
    state = next(first_draw(rules, log) for log in logs if any(
        a == DRAW for _, a, _ in log.rounds[0].events))
    benchmark.extra_info["playouts"] = 64 * len(state.reserve)
    rows = benchmark(draw_rollouts, rules, list(state.hands), list(state.reserve),
                     **position_fields(state), playouts=64, seed=1, engine=1)
    assert len(rows) == len(state.reserve)


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    rules, logs, draws = a_set()
    best = min(_time(lambda: luck_of_set(rules, logs, default_estimate())) for _ in range(5))
    print(f"luck of a set ({draws} draws), rollout (shipped): {1000 * best:.2f} ms")
