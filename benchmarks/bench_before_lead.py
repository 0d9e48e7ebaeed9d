"""Speed of a hand's value before the lead (`search/before_lead.py`), fixed seeds.

- `deal_value` of a 2-player hand that leaves three leads possible, on the core (its
  playouts in C, `_before_lead.pyx`) and on the pure-Python loop that is their reference:
  `extra_info["playouts"]` over the mean time is playouts per second.

`python benchmarks/bench_before_lead.py` prints both rates and their ratio (best of a few runs,
measured one after the other).
"""
import time

import pytest

from bergen_search.game.rules import Rules
from bergen_search.game.tiles import mask_of, parse_tile
from bergen_search.search import backend
from bergen_search.search.before_lead import deal_value

SEED = 20261207
HAND = mask_of(parse_tile(t) for t in "1-2 2-2 2-3 3-4 4-5 5-6".split())   # seat 1 may lead
PLAYOUTS, REFERENCE_PLAYOUTS = 20_000, 500


def value(search_backend, playouts):
    was = backend.SEARCH
    backend.SEARCH = search_backend
    try:
        return deal_value(Rules(), 0, HAND, (0, 0), playouts=playouts, seed=SEED)
    finally:
        backend.SEARCH = was


@pytest.mark.parametrize("which", ["core", "reference"])
def test_bench_deal_value(benchmark, core, which):
    search_backend = (backend.load_search() if which == "core"
                      else backend.reference_search("benchmark"))
    n = PLAYOUTS if which == "core" else REFERENCE_PLAYOUTS
    benchmark.extra_info["playouts"] = n
    v = benchmark(value, search_backend, n)
    assert v.done == n and len(v.leads) == 3


def _rate(search_backend, n) -> float:
    best = None
    for _ in range(5):
        t = time.perf_counter()
        value(search_backend, n)
        best = min(best or 1e9, time.perf_counter() - t)
    return n / best


if __name__ == "__main__":
    core = _rate(backend.load_search(), PLAYOUTS)
    ref = _rate(backend.reference_search("benchmark"), REFERENCE_PLAYOUTS)
    print(f"before the lead: {core:,.0f} playouts/s in C, {ref:,.0f}/s in Python "
          f"({core / ref:.0f} times)")
