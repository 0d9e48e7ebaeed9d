"""The version in every `--json` document and written record, read back, from one place
(bergen_search.__version__)."""
import json
from importlib import metadata

import pytest
from support import bergen as run

from bergen_search import __version__
from bergen_search.formats.record import parse_record
from bergen_search.formats.record_io import load_record, write_record
from bergen_search.game.match import play_match
from bergen_search.game.rules import Rules

STRING = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"


@pytest.mark.parametrize("args", [
    ("analyze", "examples/match.json", "--iterations", "50", "--recheck", "1", "--quiet"),
    ("replay", "examples/match.json"),
    # the other commands' documents: test_docs.test_the_documented_fields_are_the_outputs
    pytest.param(("bench", "--quick", "--seconds", "0.01"), marks=pytest.mark.slow),
], ids=lambda a: a[0])
def test_every_json_document_says_its_version(args, quick_bench):
    res = run(*args, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["version"] == __version__


def test_our_readers_accept_it():
    d = write_record(play_match(Rules(), [1, 1], 4))
    assert d["version"] == __version__
    rec = parse_record(d)
    assert rec.version == __version__ and write_record(rec) == d
    older = dict(d, version="0.0.1")           # a record from another version
    assert parse_record(older).version == "0.0.1" and write_record(parse_record(older)) == older
    unversioned = {k: v for k, v in d.items() if k != "version"}
    assert parse_record(unversioned).version is None
    assert load_record(json.dumps(unversioned)).to_dict() == unversioned
    assert run("replay", "-", input=json.dumps(older)).exit_code == 0
    pos = json.loads(open("examples/position.json").read())
    assert run("best", "-", "--iterations", "20", input=json.dumps(dict(pos, version="9"))
               ).exit_code == 0


@pytest.mark.parametrize("kind", ["record", "position"])
def test_a_bad_version_is_one_line(kind):
    doc = write_record(play_match(Rules(), [1, 1], 4)) if kind == "record" else \
        json.loads(open("examples/position.json").read())
    doc["version"] = 15
    res = run("replay" if kind == "record" else "best", "-", input=json.dumps(doc))
    assert res.exit_code == 2
    assert len(res.stderr.strip().splitlines()) == 1 and "'version' must be" in res.stderr


def test_one_version():
    assert metadata.version("bergen_search") == __version__
    assert run("--version").stdout.strip() == f"bergen, version {__version__}"
