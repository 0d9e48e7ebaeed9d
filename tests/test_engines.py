"""Engine specs as the command line gives them: settings, one per seat, bad ones refused."""
import pytest

from bergen_search.errors import BergenError
from bergen_search.play.engines import EngineSpec, SearchArgs, parse_engine_list, parse_engine_spec
from bergen_search.search.api import Limits, Settings


def test_spec_settings_and_types():
    spec = parse_engine_spec("ismcts:iterations=500,exploration=0.9,objective=match")
    assert spec == EngineSpec("ismcts", {"iterations": 500, "exploration": 0.9,
                                         "objective": "match"})
    assert str(spec) == "ismcts:iterations=500,exploration=0.9,objective=match"
    assert parse_engine_spec(" greedy ") == EngineSpec("greedy")
    assert parse_engine_spec("greedy").simple_code is not None
    assert parse_engine_spec("expectimax").simple_code is None


def test_algorithm_settings_in_specs():
    """Every algorithm setting reads in a spec, booleans as on/off; presets take ISMCTS's."""
    spec = parse_engine_spec("ismcts:time=0.1,inference=false,playout=random,twins=no")
    assert spec.params == {"time": 0.1, "inference": "off", "playout": "random", "twins": False}
    assert str(spec) == "ismcts:time=0.1,inference=off,playout=random,twins=off"
    assert parse_engine_spec(str(spec)) == spec
    assert parse_engine_spec("classic:iterations=300").search_args() == SearchArgs(
        Limits(iterations=300), Settings.of("classic"))
    assert parse_engine_spec("classic:inference=on").params == {"inference": "on"}
    assert parse_engine_spec("expectimax:inference=yes,playouts=3").params == {
        "inference": "on", "playouts": 3}


def test_search_args_and_default_budgets():
    assert parse_engine_spec("ismcts").search_args() == SearchArgs(Limits(iterations=2000),
                                                                   Settings.of("ismcts"))
    assert parse_engine_spec("expectimax:depth=4").search_args() == SearchArgs(
        Limits(iterations=64), Settings.of("expectimax", {"depth": 4}))
    args = parse_engine_spec("expectimax:time=0.01,iterations=9").search_args()
    assert args.limits == Limits(iterations=9, time=0.01)
    assert args.settings == Settings.of("expectimax")
    assert parse_engine_spec("ismcts:time=0.5").search_args().limits == Limits(time=0.5)


def test_an_engines_objective_and_workers_are_no_settings_of_its_search():
    """A spec's objective and workers are the search's parameters, not its settings."""
    args = parse_engine_spec("ismcts:objective=match,workers=2,exploration=0.5").search_args()
    assert (args.objective, args.workers) == ("match", 2)
    assert args.settings == Settings.of("ismcts", {"exploration": 0.5})
    assert "objective" not in args.settings and "workers" not in args.settings


@pytest.mark.parametrize("text,players,want", [
    ("random", 3, ["random"] * 3),
    ("greedy,random", 2, ["greedy", "random"]),
    ("ismcts:iterations=300,greedy", 2, ["ismcts:iterations=300", "greedy"]),
    ("random,expectimax:iterations=8,ismcts:iterations=200", 3,
     ["random", "expectimax:iterations=8", "ismcts:iterations=200"]),
    ("ismcts:iterations=200,time=0.1,expectimax:iterations=8,depth=3", 2,
     ["ismcts:iterations=200,time=0.1", "expectimax:iterations=8,depth=3"]),
    ("expectimax:iterations=4,expectimax:iterations=5,greedy,ismcts", 4,
     ["expectimax:iterations=4", "expectimax:iterations=5", "greedy", "ismcts"]),
])
def test_engine_lists_split_where_an_engine_name_starts(text, players, want):
    assert [str(s) for s in parse_engine_list(text, players)] == want


@pytest.mark.parametrize("text,needle", [
    ("minimax", "unknown engine"),
    ("ismcts:depth=3", "bad setting"),
    ("greedy:iterations=3", "bad setting"),
    ("ismcts:iterations", "bad setting"),
    ("ismcts:iterations=many", "iterations must be an integer"),
    ("ismcts:iterations=0", "at least 1"),
    ("expectimax:time=0", "positive"),
    ("ismcts:objective=money", "points or match"),
    ("ismcts:playout=clever", "one of random, scoring, safe"),
    ("ismcts:inference=maybe", "inference must be on or off"),
    ("ismcts:inference=learned", "inference must be on or off"),
    ("ismcts:exploration=-1", ">= 0"),
    ("expectimax:depth=0", "at least 1"),
    ("expectimax:twins=on", "bad setting"),
    ("classic:depth=3", "bad setting"),
])
def test_bad_specs(text, needle):
    with pytest.raises(BergenError, match=needle):
        parse_engine_spec(text)


def test_wrong_number_of_engines():
    with pytest.raises(BergenError, match="gives 2 engines for 3 seats"):
        parse_engine_list("greedy,random", 3)


@pytest.mark.parametrize("specs,scores,events,digest", [
    # the defaults before issues 9 (classic), 50 (settle=off) and 22 (root=ucb...), each the
    # very match it played then
    ("classic:iterations=200,greedy", (15, 11), 70, "7651b357cabe40db"),
    ("ismcts:iterations=200,greedy", (16, 13), 92, "f7f6249447bc2180"),
    ("ismcts:iterations=200,settle=off,greedy", (15, 13), 78, "96b9afc137737722"),
    ("ismcts:iterations=200,root=ucb,replicates=1,stats=all,greedy", (15, 14), 75,
     "edfe485f4d196fe5"),
    ("ismcts:iterations=200,root=ucb,replicates=1,stats=all,choose=visits,greedy", (16, 10),
     94, "61b1d7380a95dcbe"),
    ("expectimax:iterations=6,depth=3,random", (15, 4), 65, "a382afde77450827"),
])
def test_matches_with_a_search_engine_are_pinned(specs, scores, events, digest):
    """A match with a search engine is pinned by its seed."""
    import hashlib
    import json

    from bergen_search.formats.record_io import write_record
    from bergen_search.game.rules import Rules
    from bergen_search.play.seats import play_engines
    log = play_engines(Rules(), parse_engine_list(specs, 2), 3)
    record = write_record(log)
    record.pop("version")       # which program wrote it is not part of the match
    text = json.dumps(record, sort_keys=True)
    assert (log.scores, sum(len(r.events) for r in log.rounds)) == (scores, events)
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest
