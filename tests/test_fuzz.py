"""Every reader fuzzed (hypothesis): bundled examples mutated in structure (types, huge numbers,
NaN, fields dropped, added, duplicated) and as text (truncated, invalid UTF-8, control
characters, deep nesting, long input), fed to every command that reads a game, `--rules` or the
position flags: exit 0, or exit 2 with one line on stderr; `BERGEN_FUZZ_EXAMPLES` per property."""
import copy
import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import FUZZ_EXAMPLES

from bergen_search.cli import main

EXAMPLES = FUZZ_EXAMPLES
FUZZ = settings(max_examples=EXAMPLES, deadline=20_000, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

BASES = {name: json.load(open(f"examples/{name}.json", encoding="utf-8"))
         for name in ("partial", "position", "match", "decision")}

#: The commands and the arguments after the input ("-" reads standard input).
COMMANDS = {
    "best": ["best", "-", "--iterations", "20", "--json"],
    "best-expectimax": ["best", "-", "--algorithm", "expectimax", "--iterations", "2",
                        "--set", "depth=2"],
    "eval": ["eval", "-", "--iterations", "20"],
    "analyze": ["analyze", "-", "--iterations", "20", "--recheck", "1", "--quiet"],
    "replay": ["replay", "-", "--json"],
}

scalars = (st.none() | st.booleans()
           | st.integers(min_value=-10 ** 30, max_value=10 ** 30)
           | st.sampled_from([0, 1, 2, 6, 7, 27, 28, -1, 99, 2 ** 31, 2 ** 63])
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=12)
           | st.sampled_from(["0-1", "6-6", "7-1", "3-3:L", "3-5:R", "2-2:X", "", " 1-2 ",
                             "lowest-double", "german", "bergen-record/1",
                             "bergen-position/1", "\x00", "\u202e"]))
def _nested(kids):
    """Lists and objects of `kids` (a function: as tests/test_engine.py's)."""
    return st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4)


values = st.recursive(scalars, _nested, max_leaves=8)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated_documents(draw):
    """A bundled example with one to three structural mutations."""
    doc = copy.deepcopy(BASES[draw(st.sampled_from(sorted(BASES)))])
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        action = draw(st.sampled_from(["replace", "drop", "add", "duplicate"]))
        if action == "replace":
            parent[key] = draw(values)
        elif action == "drop":
            del parent[key]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(values)
        elif action == "add":
            parent.insert(key, draw(values))
        elif isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
    return json.dumps(doc)


@st.composite
def mutated_text(draw):
    """A bundled example's text, damaged as bytes."""
    text = json.dumps(BASES[draw(st.sampled_from(sorted(BASES)))]).encode()
    kind = draw(st.sampled_from(["truncate", "bytes", "control", "nest", "long", "number"]))
    if kind == "truncate":
        return text[:draw(st.integers(0, len(text)))]
    if kind == "bytes":
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.binary(min_size=1, max_size=6)) + text[at:]
    if kind == "control":
        at = draw(st.integers(0, len(text)))
        return text[:at] + bytes([draw(st.integers(0, 31))]) + text[at:]
    if kind == "nest":
        depth = draw(st.sampled_from([100, 1000, 5000, 50_000]))
        return b"[" * depth + text + b"]" * depth
    if kind == "long":
        return text[:-1] + b', "pad": "' + b"x" * draw(st.sampled_from([10 ** 4, 10 ** 6])) + b'"}'
    number = draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"9" * 5000,
                                   b"-0", b"1.5"]))
    digits = [i for i, c in enumerate(text) if chr(c).isdigit()]
    at = draw(st.sampled_from(digits))
    return text[:at] + number + text[at + 1:]


def _check(args, data: bytes):
    res = CliRunner().invoke(main, args, input=data, prog_name="bergen")
    err = res.stderr
    assert res.exit_code in (0, 2), (res.exit_code, err[-500:], res.exception)
    assert "Traceback" not in err and "internal error" not in err, err[-500:]
    if res.exit_code == 2:
        assert len(err.strip().splitlines()) == 1, err
        assert err.startswith(("bergen", "Error")), err


@pytest.mark.parametrize("command", sorted(COMMANDS))
@FUZZ
@given(doc=mutated_documents())
def test_mutated_documents(command, doc):
    _check(COMMANDS[command], doc.encode())


@pytest.mark.parametrize("command", sorted(COMMANDS))
@FUZZ
@given(data=mutated_text())
def test_mutated_text(command, data):
    _check(COMMANDS[command], data)


@FUZZ
@given(lines=st.lists(mutated_documents() | st.just(json.dumps(BASES["match"])), min_size=1,
                      max_size=3))
def test_mutated_jsonl(lines):
    data = "\n".join(lines).encode()
    _check(["replay", "-"], data)
    _check(["analyze", "-", "--iterations", "10", "--recheck", "1", "--quiet"], data)


@FUZZ
@given(rules=st.dictionaries(st.sampled_from(["players", "partnerships", "target", "hand_size",
                                              "lead", "no_double", "draw", "reserve_kept",
                                              "out_bonus", "blocked", "endgame_cap", "x"]),
                             values, max_size=4) | values)
def test_rules_option(rules):
    _check(["best", "--hand", "0-1 1-2", "--line", "1-1", "--hand-sizes", "2,3",
            "--rules", json.dumps(rules), "--iterations", "20"], b"")
    _check(["selfplay", "--games", "1", "--rules", json.dumps(rules)], b"")


flag_text = st.text(max_size=30) | st.sampled_from(["0-1 1-2", "1-1", "2,3", "7-7", "-1,3",
                                                   "1e9", "", "0-1:L", "3,3,3,3,3"])


@FUZZ
@given(hand=flag_text, line=flag_text, sizes=flag_text, reserve=flag_text, scores=flag_text,
       voids=flag_text | values.map(json.dumps))
def test_position_flags(hand, line, sizes, reserve, scores, voids):
    args = ["best", "--hand", hand, "--line", line, "--hand-sizes", sizes, "--iterations", "20"]
    for flag, value in (("--reserve-size", reserve), ("--scores", scores), ("--voids", voids)):
        if value:
            args += [flag, value]
    _check(args, b"")
