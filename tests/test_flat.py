"""Flat Monte Carlo (`algorithms/flat.py`), the engine added by one module: the registry
lists it, every front end takes it, and it is a search as the others are (reproducible, the
same with any number of workers, honest errors, the same without the compiled core)."""
import json
import statistics

from click.testing import CliRunner

from bergen_search.cli import main
from bergen_search.formats.game import load_game
from bergen_search.search import backend, registry
from bergen_search.search.api import Limits, search

DECISION = "examples/decision.json"
ENDGAME = "examples/endgame.json"


def _info(path):
    with open(path, encoding="utf-8") as f:
        return load_game(f.read())


def _run(*args):
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res


def test_the_registry_and_every_front_end_have_it():
    assert "flat" in registry.names()
    alg, settings = registry.resolve("flat", {"playout": "random"})
    assert alg.unit == "iterations" and settings == {"playout": "random", "inference": "off",
                                                     "replicates": 4}
    assert "flat: flat Monte Carlo" in " ".join(_run("best", "--help").output.split())
    doc = json.loads(_run("best", DECISION, "--algorithm", "flat", "--iterations", "80",
                          "--json").output)
    assert doc["algorithm"] == "flat" and doc["replicates"] == 4 and doc["iterations"] == 80
    assert doc["best"] == doc["moves"][0]["move"] and doc["stderr"] > 0
    # A match engine spec, in an arena against another engine.
    out = _run("arena", "flat:iterations=24", "greedy", "--games", "2", "--round", "--seed",
               "3", "--json").output
    assert json.loads(out)["engines"] == ["flat:iterations=24", "greedy"]


def test_same_seed_same_answer_with_any_number_of_workers():
    info = _info(DECISION)
    one = search(info, Limits(iterations=120), algorithm="flat", seed=5)
    again = search(info, Limits(iterations=120), algorithm="flat", seed=5)
    two = search(info, Limits(iterations=120), algorithm="flat", seed=5, workers=2)
    assert one.moves == again.moves == two.moves
    assert search(info, Limits(iterations=120), algorithm="flat", seed=6).moves != one.moves


def test_mirror_twins_share_their_figures_and_the_move_is_the_best_value():
    res = search(_info(DECISION), Limits(iterations=80), algorithm="flat", seed=2)
    by = {m.move: m for m in res.moves}
    for m in res.moves:
        if m.twin:
            assert (m.value, m.stderr) == (by[m.twin].value, by[m.twin].stderr)
    assert res.best == max((m for m in res.moves if not m.twin), key=lambda m: m.value).move


def test_its_error_matches_the_spread_over_seeds():
    """The printed ± (the spread of 4 replicates) against the spread of the value over 16
    independent seeds, for the best and the worst move: the same within the noise of 16
    seeds (a ± of zero, or one that ignored the replicates, fails by far)."""
    info = _info(ENDGAME)
    runs = [search(info, Limits(iterations=64), algorithm="flat", seed=s) for s in range(16)]
    for move in ("1-5:R", "1-2:R"):
        vals = [next(m for m in r.moves if str(m.move) == move) for r in runs]
        spread = statistics.stdev(m.value for m in vals)
        printed = statistics.fmean(m.stderr for m in vals)
        assert 0.5 < spread / printed < 2.0, (move, spread, printed)


def test_the_sides_and_the_value_agree():
    """The mover's side's expected points minus the other's is the move's value."""
    res = search(_info(ENDGAME), Limits(iterations=40), algorithm="flat", seed=1)
    for m in res.moves:
        a, b = res.info["sides"][m.move]
        assert abs((b - a) - m.value) < 1e-9       # seat 1 (side 1) to move


def test_the_same_without_the_compiled_core(monkeypatch):
    info = _info(DECISION)
    core = search(info, Limits(iterations=60), algorithm="flat", seed=4)
    monkeypatch.setattr(backend, "SEARCH", backend.reference_search("test"))
    ref = search(info, Limits(iterations=60), algorithm="flat", seed=4)
    assert ref.info["backend"] == "reference" and ref.moves == core.moves
