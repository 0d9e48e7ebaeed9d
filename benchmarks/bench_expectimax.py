"""Worlds per second of the determinized expectimax (bergen_search.search.engines.expectimax._expectimax), 2 players.

Depth 6 (actions: plays, draws and passes), 2 horizon playouts, exact solving at 7 tiles or
fewer (the defaults), fixed seeds. Two positions of a random round: the first decision after
the lead (`first`), and the first decision once 8 tiles are on the line (`mid`).
Worlds per second of a benchmark: `extra_info["worlds"]` over the mean time.

`python benchmarks/bench_expectimax.py` prints worlds per second (CPU time, best of 3) for those
two positions and the median over 12 positions of each kind, which vary widely: a small hand
against a large reserve makes many chance nodes.
"""
import statistics
import time

import pytest

from bergen_search.game import match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, State
from bergen_search.information.infoset import from_state_and_events

SEED = 12345
DEPTH = 6
#: (tiles on the line before the decision, index of the round's seed)
POSITIONS = {"first": (1, 0), "mid": (8, 2)}
WORLDS = {"first": 100, "mid": 100}


def decision(rules, seed, min_line):
    """The information set of the seat to move at the first decision (two moves or more) of a
    random round once `min_line` tiles are on the line."""
    rng = Rng(seed)
    hands, reserve = match.deal(rules, rng)
    st = State.deal(rules, hands, reserve)
    events = []
    while st.ended is None:
        moves = st.legal_moves()
        if len(st.line) >= min_line and len(moves) >= 2:
            return from_state_and_events(rules, st.to_move, hands[st.to_move], None, events)
        m = moves[0] if len(moves) == 1 else moves[rng.below(len(moves))]
        events.append((st.to_move, m, st.reserve[0] if m == DRAW else None))
        st = st.apply(m)
    return None


def position(kind):
    min_line, index = POSITIONS[kind]
    return decision(Rules(players=2), derive_seed(SEED, index), min_line)


def _search(sampler, worlds):
    from bergen_search.search.engines.expectimax._expectimax import ExpectimaxSearch
    search = ExpectimaxSearch(sampler, DEPTH, SEED)
    search.run_worlds(worlds, 0)
    return search


@pytest.mark.parametrize("kind", sorted(POSITIONS))
def test_expectimax_worlds(benchmark, core, kind):
    from bergen_search.information._sampler import CoreSampler
    sampler = CoreSampler(position(kind))
    worlds = WORLDS[kind]
    benchmark.extra_info["worlds"] = worlds
    search = benchmark(_search, sampler, worlds)
    benchmark.extra_info["nodes"] = search.nodes
    assert search.worlds == worlds
    again = _search(sampler, worlds)   # the node count is the run's signature
    assert (again.nodes, again.root_stats()) == (search.nodes, search.root_stats())


def worlds_per_second(info, seconds=1.0, repeats=3) -> float:
    """Best of a few runs of `seconds`, in CPU time."""
    from bergen_search.search.engines.expectimax._expectimax import ExpectimaxSearch
    from bergen_search.information._sampler import CoreSampler
    sampler = CoreSampler(info)
    best = 0.0
    for _ in range(repeats):
        search = ExpectimaxSearch(sampler, DEPTH, SEED)
        start = time.process_time()
        done = search.run_worlds(0, seconds)
        best = max(best, done / (time.process_time() - start))
    return best


if __name__ == "__main__":
    for kind, (min_line, _) in sorted(POSITIONS.items()):
        info = position(kind)
        infos = [decision(Rules(players=2), derive_seed(SEED, i), min_line) for i in range(14)]
        rates = [worlds_per_second(x, seconds=0.5, repeats=1) for x in infos if x][:12]
        print(f"{kind}: {worlds_per_second(info):,.0f} worlds/s at depth {DEPTH} "
              f"(reserve {info.reserve_size}, hands {info.hand_sizes}); median of 12 positions "
              f"{statistics.median(rates):,.0f}, range {min(rates):,.0f}..{max(rates):,.0f}")
