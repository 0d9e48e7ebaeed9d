"""UCB1 at the root (`algorithms/ucb.py`), the engine added as one module after the search API
was made public: the registry lists it, every front end takes it, it passes the engine contract
(tests/test_engine_contract.py, with no edit there), and it is a bandit: the same answer as
flat Monte Carlo where the best move is clear, with most of its worlds on that move."""
import json

from click.testing import CliRunner

from bergen_search.cli import main
from bergen_search.formats.game import load_game
from bergen_search.search import backend, registry
from bergen_search.search.api import Limits, search

DECISION = "examples/decision.json"


def _info(path=DECISION):
    with open(path, encoding="utf-8") as f:
        return load_game(f.read())


def _run(*args):
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res


def test_the_registry_and_the_front_ends_have_it():
    assert "ucb" in registry.names()
    alg, settings = registry.resolve("ucb", {"exploration": "0.5"})
    assert settings == {"exploration": 0.5, "playout": "safe", "inference": "off",
                        "replicates": 4}
    doc = json.loads(_run("best", DECISION, "--algorithm", "ucb", "--iterations", "80",
                          "--json").output)
    assert doc["algorithm"] == "ucb" and doc["iterations"] == 80 and doc["replicates"] == 4
    out = _run("arena", "ucb:iterations=24", "greedy", "--games", "2", "--round", "--seed",
               "3", "--json").output
    assert json.loads(out)["engines"] == ["ucb:iterations=24", "greedy"]


def test_it_finds_flats_best_move_with_its_worlds_on_it():
    info = _info()
    flat = search(info, Limits(iterations=1000), algorithm="flat", seed=1)
    ucb = search(info, Limits(iterations=2000), algorithm="ucb", seed=1)
    assert ucb.best in (flat.best, flat.moves[0].twin, flat.moves[1].move)
    choices = [m for m in ucb.moves if m.twin is None]
    assert choices[0].visits == max(m.visits for m in choices)
    assert choices[0].visits > 2000 / len(choices)          # more than an even share
    assert sum(m.visits for m in choices) == 2000
    assert min(m.visits for m in choices) >= 4              # every choice pulled, per unit


def test_every_choice_is_pulled_once_before_any_twice():
    info = _info()
    n_choices = len([m for m in search(info, Limits(iterations=40), algorithm="ucb",
                                       seed=2, replicates=1).moves if m.twin is None])
    res = search(info, Limits(iterations=n_choices), algorithm="ucb", seed=2, replicates=1)
    assert all(m.visits == 1 for m in res.moves)


def test_same_answer_on_the_reference_backend_and_with_workers(monkeypatch):
    info = _info()
    core = search(info, Limits(iterations=120), algorithm="ucb", seed=5)
    two = search(info, Limits(iterations=120), algorithm="ucb", seed=5, workers=2)
    monkeypatch.setattr(backend, "SEARCH", backend.reference_search("test"))
    ref = search(info, Limits(iterations=120), algorithm="ucb", seed=5)
    assert core.moves == two.moves == ref.moves and ref.info["backend"] == "reference"
