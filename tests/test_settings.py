"""One `Settings` object carries an engine's settings, apart from a search's own parameters."""
from __future__ import annotations

import pickle

import pytest

from bergen_search.errors import BergenError
from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, search
from bergen_search.search.registry import Settings

POSITION = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"


def test_settings_are_checked_once_and_read_as_a_mapping():
    s = Settings.of("expectimax", {"depth": "3"})
    assert s["depth"] == 3 and s.given == (("depth", "3"),)
    assert dict(s) == {k: s[k] for k in s} and len(s) == len(s.engine.settings)
    assert list(s.values()) == [s[k] for k in s]        # the Mapping's, not a field
    assert s.get("nothing", 7) == 7 and "depth" in s
    with pytest.raises(BergenError) as caught:
        Settings.of("expectimax", {"depth": "deep"})
    assert caught.value.field == "depth"
    with pytest.raises(BergenError, match="has no setting 'seed'"):
        Settings.of("ismcts", {"seed": 3})


def test_settle_is_off_where_the_root_is_not_halving_and_says_so():
    """settle's cycles are sequential halvings: with root=ucb the settings say settle=off (they
    had said best, and nothing was settled); asked for there, it is refused."""
    assert Settings.of("ismcts", {"root": "ucb"})["settle"] == "off"
    assert Settings.of("ismcts", {})["settle"] == "best"
    assert Settings.of("classic", {})["settle"] == "off"
    with pytest.raises(BergenError, match="settle=review needs root=halving") as caught:
        Settings.of("ismcts", {"root": "ucb", "settle": "review"})
    assert caught.value.field == "settle"
    ucb = Settings.of("ismcts", {"root": "ucb"})
    assert ucb.engine.for_review(ucb)["settle"] == "off"        # a review's, the same
    assert Settings.of("ismcts", {}).engine.for_review(Settings.of("ismcts", {}))["settle"] \
        == "review"


def test_settings_are_values_a_journal_can_key_by():
    a = Settings.of("classic", {"exploration": 0.5})
    b = pickle.loads(pickle.dumps(a))
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    assert {a: 1}[b] == 1
    assert a != Settings.of("classic", {"exploration": 0.6})
    assert a.replace(replicates=4)["replicates"] == 4 and a["replicates"] == 1
    assert Settings.of() == Settings.of("ismcts", {})
    assert Settings.of()["inference"] == "on" and Settings.of("classic")["inference"] == "off"
    # equal when they search alike, however the values were written
    assert Settings.of("expectimax", {"depth": "2"}) == Settings.of("expectimax", {"depth": 2})
    # ... and the journals' fingerprint, read from the repr, says so too
    assert repr(Settings.of("expectimax", {"depth": "2"})) == \
        repr(Settings.of("expectimax", {"depth": 2}))
    assert Settings.of("classic") != Settings.of("ismcts", dict(Settings.of("classic")))


def test_search_takes_settings_or_keywords_never_both():
    info = load_game(POSITION)
    s = Settings.of("ismcts", {"inference": "off"})
    one = search(info, Limits(iterations=300), settings=s, seed=2)
    other = search(info, Limits(iterations=300), seed=2, algorithm="ismcts", inference="off")
    assert one.moves == other.moves and one.info["settings"] == dict(s)
    assert one.info["settings"]["inference"] == "off"         # as a string, as the JSON says
    with pytest.raises(TypeError, match="not both"):
        search(info, Limits(iterations=300), settings=s, inference="on")
    with pytest.raises(TypeError, match="not both"):
        search(info, Limits(iterations=300), settings=s, algorithm="ismcts")


@pytest.mark.parametrize("engine", ["ismcts", "expectimax", "flat", "ucb", "endgame"])
def test_inference_is_on_or_off_read_from_every_word_it_took(engine):
    """`inference` is `on` or `off`, read from every word it took; settings hold the string."""
    for given, held in [("on", "on"), ("yes", "on"), ("TRUE", "on"), ("1", "on"), (True, "on"),
                        (1, "on"), ("off", "off"), ("no", "off"), ("false", "off"), ("0", "off"),
                        (False, "off"), (0, "off"), (" Off ", "off")]:
        s = Settings.of(engine, {"inference": given})
        assert s["inference"] == held, (given, s["inference"])
    default = Settings.of(engine)
    assert default["inference"] in ("on", "off")
    assert default == Settings.of(engine, {"inference": default["inference"]})
    for bad in ("maybe", "learned", 2, 0.5, None):
        with pytest.raises(BergenError, match="inference must be on or off") as caught:
            Settings.of(engine, {"inference": bad})
        assert caught.value.field == "inference"
