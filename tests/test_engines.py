"""Engine specs as the command line gives them: settings, one per seat, bad ones refused."""
import pytest

from bergen_search.errors import BergenError
from bergen_search.play.engines import EngineSpec, SearchArgs, parse_engine_list, parse_engine_spec
from bergen_search.search.api import Limits, Settings


@pytest.mark.parametrize("text, params, shown", [
    ("ismcts:iterations=500,exploration=0.9,objective=match",
     {"iterations": 500, "exploration": 0.9, "objective": "match"}, None),
    (" greedy ", {}, "greedy"),
    # every algorithm setting reads in a spec, booleans as on/off; presets take ISMCTS's
    ("ismcts:time=0.1,inference=false,playout=random,twins=no",
     {"time": 0.1, "inference": "off", "playout": "random", "twins": False},
     "ismcts:time=0.1,inference=off,playout=random,twins=off"),
    ("classic:inference=on", {"inference": "on"}, None),
    ("expectimax:inference=yes,playouts=3", {"inference": "on", "playouts": 3},
     "expectimax:inference=on,playouts=3"),
])
def test_spec_settings_and_types(text, params, shown):
    spec = parse_engine_spec(text)
    assert spec == EngineSpec(text.strip().split(":")[0], params)
    assert str(spec) == (shown or text) and parse_engine_spec(str(spec)) == spec
    assert (spec.simple_code is not None) == (spec.name == "greedy")


@pytest.mark.parametrize("text, limits, settings, objective, workers", [
    ("ismcts", Limits(iterations=2000), Settings.of("ismcts"), "points", 1),
    ("classic:iterations=300", Limits(iterations=300), Settings.of("classic"), "points", 1),
    ("expectimax:depth=4", Limits(iterations=64), Settings.of("expectimax", {"depth": 4}),
     "points", 1),
    ("expectimax:time=0.01,iterations=9", Limits(iterations=9, time=0.01),
     Settings.of("expectimax"), "points", 1),
    ("ismcts:time=0.5", Limits(time=0.5), Settings.of("ismcts"), "points", 1),
    # a spec's objective and workers are the search's parameters, not its settings
    ("ismcts:objective=match,workers=2,exploration=0.5", Limits(iterations=2000),
     Settings.of("ismcts", {"exploration": 0.5}), "match", 2),
])
def test_search_args_and_default_budgets(text, limits, settings, objective, workers):
    assert parse_engine_spec(text).search_args() == SearchArgs(limits, settings, objective,
                                                               workers)


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
