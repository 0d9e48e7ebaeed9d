"""Flat Monte Carlo and UCB1 at the root: listed, reproducible, honest errors, a bandit."""
import json
import statistics

import pytest
from click.testing import CliRunner

from bergen_search.cli import main
from bergen_search.formats.game import load_game
from bergen_search.search import backend, registry
from bergen_search.search.api import Limits, search

DECISION = "examples/decision.json"
ENDGAME = "examples/endgame.json"


def _info(path=DECISION):
    with open(path, encoding="utf-8") as f:
        return load_game(f.read())


def _run(*args):
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res


@pytest.mark.parametrize("name, given, settings, help", [
    ("flat", {"playout": "random"}, {"playout": "random", "inference": "off", "replicates": 4},
     "flat: flat Monte Carlo"),
    ("ucb", {"exploration": "0.5"},
     {"exploration": 0.5, "playout": "safe", "inference": "off", "replicates": 4},
     "ucb: UCB1 over the root choices")])
def test_the_registry_and_every_front_end_have_it(name, given, settings, help):
    alg, got = registry.resolve(name, given)
    assert name in registry.names() and alg.unit == "iterations" and got == settings
    assert help in " ".join(_run("best", "--help").output.split())
    doc = json.loads(_run("best", DECISION, "--algorithm", name, "--iterations", "80",
                          "--json").output)
    assert doc["algorithm"] == name and doc["replicates"] == 4 and doc["iterations"] == 80
    assert doc["best"] == doc["moves"][0]["move"] and doc["stderr"] > 0
    # A match engine spec, in an arena against another engine.
    out = _run("arena", f"{name}:iterations=24", "greedy", "--games", "2", "--round", "--seed",
               "3", "--json").output
    assert json.loads(out)["engines"] == [f"{name}:iterations=24", "greedy"]


@pytest.mark.parametrize("name", ["flat", "ucb"])
def test_same_seed_same_answer_with_any_number_of_workers_and_without_the_core(name,
                                                                              monkeypatch):
    info = _info()
    # (the same seed's same bytes in one process: test_engine_contract.py)
    one = search(info, Limits(iterations=120), algorithm=name, seed=5)
    two = search(info, Limits(iterations=120), algorithm=name, seed=5, workers=2)
    assert one.moves == two.moves
    assert search(info, Limits(iterations=120), algorithm=name, seed=6).moves != one.moves
    monkeypatch.setattr(backend, "SEARCH", backend.reference_search("test"))
    ref = search(info, Limits(iterations=120), algorithm=name, seed=5)
    assert ref.info["backend"] == "reference" and ref.moves == one.moves


def test_mirror_twins_share_their_figures_and_the_move_is_the_best_value():
    res = search(_info(), Limits(iterations=80), algorithm="flat", seed=2)
    by = {m.move: m for m in res.moves}
    for m in res.moves:
        if m.twin:
            assert (m.value, m.stderr) == (by[m.twin].value, by[m.twin].stderr)
    assert res.best == max((m for m in res.moves if not m.twin), key=lambda m: m.value).move


def test_its_error_matches_the_spread_over_seeds_and_the_sides_the_value():
    """The printed ± matches the spread over 16 seeds; the sides' points agree with the value."""
    info = _info(ENDGAME)
    runs = [search(info, Limits(iterations=64), algorithm="flat", seed=s) for s in range(16)]
    for move in ("1-5:R", "1-2:R"):
        vals = [next(m for m in r.moves if str(m.move) == move) for r in runs]
        spread = statistics.stdev(m.value for m in vals)
        printed = statistics.fmean(m.stderr for m in vals)
        assert 0.5 < spread / printed < 2.0, (move, spread, printed)
    for m in runs[1].moves:     # the mover's side's points minus the other's: the value
        a, b = runs[1].info["sides"][m.move]
        assert abs((b - a) - m.value) < 1e-9       # seat 1 (side 1) to move


def test_ucb_finds_flats_best_move_and_pulls_every_choice_once_before_any_twice():
    info = _info()
    flat = search(info, Limits(iterations=500), algorithm="flat", seed=1)
    ucb = search(info, Limits(iterations=1000), algorithm="ucb", seed=1)
    assert ucb.best in (flat.best, flat.moves[0].twin, flat.moves[1].move)
    choices = [m for m in ucb.moves if m.twin is None]
    assert choices[0].visits == max(m.visits for m in choices)
    assert choices[0].visits > 1000 / len(choices)          # more than an even share
    assert sum(m.visits for m in choices) == 1000
    assert min(m.visits for m in choices) >= 4              # every choice pulled, per unit
    res = search(info, Limits(iterations=len(choices)), algorithm="ucb", seed=2, replicates=1)
    assert all(m.visits == 1 for m in res.moves)
