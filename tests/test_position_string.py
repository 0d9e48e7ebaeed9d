"""The one-line position string (position_string.py, docs/NOTATION.md): round trips with
bergen-position/1 on thousands of self-play positions of every variant; the sizes left out are
inferred, exactly those that can be; a malformed string is one line naming its part, exit 2
(a table, and a fuzz); the string is read wherever a GAME is, printed by every view of a
decision, and pastes back into `best` with the same answer."""
import json
import re
import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import ALL_VARIANTS, FUZZ_EXAMPLES, plies, sizes, bergen as run

from bergen_search.errors import BergenError
from bergen_search.formats.game import load, load_game
from bergen_search.formats.position import (Position, parse_position, position_from_flags,
    write_position)
from bergen_search.formats.position_string import (PARTS, TAG, is_position_string, parse_string,
    to_string)
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.search.api import Limits, search

EXAMPLE = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"

VARIANTS = ALL_VARIANTS + [
    dict(target=7), dict(hand_size=4), dict(players=3, hand_size=5, reserve_kept=4),
    dict(out_bonus=5, endgame_cap=False), dict(players=4, target=25, reserve_kept=0)]


def positions_of(rules: Rules, seed: int):
    """Every position of a seeded match where a seat is to move, as that seat knows it: its
    hand, the line, the sizes, the scores, and the voids its observer proved (the lead too,
    before the line has a tile). Not checked here (Position.check, a third of the cost):
    parse_string checks every position a test reads back."""
    for _, _, state, observers in plies(play_match(rules, [0] * rules.players, seed),
                                        observe=True):
        seat, obs = state.to_move, observers[state.to_move]
        voids = {s: frozenset(obs.proven_voids(s)) for s in obs.hist}
        yield Position(rules, tuple(state.scores), seat, state.hands[seat], tuple(state.line),
                       tuple(state.hand_size(s) for s in range(rules.players)),
                       state.reserve_size, {s: v for s, v in voids.items() if v})


@pytest.fixture(scope="module")
def cut_positions():
    out = []
    for i, variant in enumerate(VARIANTS):
        rules = Rules(**variant)
        for g in range(2 if rules.players == 2 else 1):
            out.extend(positions_of(rules, derive_seed(19, i * 10 + g)))
    return out


@pytest.mark.parametrize("stride", sizes(16, 1))
def test_thousands_of_positions_round_trip(cut_positions, stride):
    """Every `stride`-th of 11,000 positions (700 by default; all of them behind the slow
    marker); every variant written."""
    assert len(cut_positions) >= 3000, len(cut_positions)
    seen = {"voids": 0, "empty line": 0, "partnerships": 0, "non-default rules": 0}
    for pos in cut_positions[::stride]:
        s = to_string(pos)
        assert parse_string(s) == pos, s
        assert to_string(parse_string(s)) == s
        doc = write_position(pos)
        assert parse_position(json.loads(json.dumps(doc))) == pos
        assert write_position(parse_string(s)) == doc
        assert to_string(parse_position(doc)) == s
        # nothing to quote in a shell, nothing to escape in JSON
        assert shlex.quote(s) == s and json.dumps(s) == f'"{s}"'
        assert is_position_string(s) and s.startswith(TAG + "/")
        seen["voids"] += bool(pos.voids)
        seen["empty line"] += not pos.line
        seen["partnerships"] += pos.rules.partnerships
        seen["non-default rules"] += "=" in s.split("/")[1]
    assert all(n >= 20 // stride for n in seen.values()), seen
    # every variant, written with only what differs from the defaults for its player count
    assert {(p.rules.players, p.rules.partnerships) for p in cut_positions} == {
        (2, False), (3, False), (4, False), (4, True)}
    first = {p.rules: p for p in reversed(cut_positions)}
    assert len(first) == len(VARIANTS)
    for r, pos in first.items():
        head, *rest = to_string(pos).split("/")[1].split(",")
        assert head == f"{r.players}{'p' if r.partnerships else ''}"
        written = dict(item.split("=") for item in rest)
        assert set(written) == set(r.to_dict(full=False)) - {"players", "partnerships"}


def test_canonical_form():
    pos = parse_string(EXAMPLE)
    assert to_string(pos) == EXAMPLE
    assert pos.line == ((1, 1), (1, 4), (4, 4), (4, 6), (6, 3)) and pos.voids == {1: {1, 4}}
    # the hand in any order, the line as a list of tiles: the same position, written canonically
    other = "bergen1/2/4,7/0/5-6,2-5,1-2,0-3/1-1,1-4,4-4,4-6,6-3/4,5/14/1:41"
    assert parse_string(other) == pos and to_string(parse_string(other)) == EXAMPLE
    # no voids: the part is left out; an empty line is '-'
    lead = position_from_flags(hand="0-0 1-3 2-6 3-3 4-5 5-6")
    assert to_string(lead) == "bergen1/2/0,0/0/0-0,1-3,2-6,3-3,4-5,5-6/-/6,6/16"
    assert parse_string(" " + to_string(lead) + "\n") == lead
    # '4p' is partnerships, valid with 4 players (for contrast with BAD's '3p')
    assert parse_string("bergen1/4p/0,0/0/0-1,1-2,2-3,0-0,4-5/-/5,5,5,5/8").rules.partnerships
    # the fuzz below starts from valid strings
    assert [to_string(parse_string(s)) for s in SEEDS] == SEEDS


@pytest.mark.parametrize("n, stride", [pytest.param(0, 32, id="fast"), *(
    pytest.param(n, 4, id=f"full-{n}", marks=pytest.mark.slow) for n in range(4))])
def test_left_out_sizes_are_inferred(cut_positions, n, stride):
    """One unknown among the other seats' sizes and the reserve's follows from the 28 tiles,
    the seat to move's from its hand, and every size before the lead (every 32nd position
    by default; all of them, in four parts, behind the slow marker)."""
    checked = 0
    for pos in cut_positions[n::stride]:
        parts = to_string(pos).split("/")
        sizes, reserve = parts[6].split(","), parts[7]
        voids = parts[8:]
        own = ["" if s == pos.to_move else x for s, x in enumerate(sizes)]
        variants = [own + [reserve], own + [""]] + [
            ["" if i == s else x for i, x in enumerate(own)] + [reserve]
            for s in range(pos.rules.players) if s != pos.to_move]
        if not pos.line:
            variants.append([""] * (len(sizes) + 1))
        for v in variants:
            text = "/".join(parts[:6] + [",".join(v[:-1]), v[-1]] + voids)
            assert parse_string(text) == pos, text
            checked += 1
        if not voids:     # the trailing parts may be dropped entirely
            if pos.rules.players == 2 and pos.line:
                assert parse_string("/".join(parts[:7])) == pos
            if not pos.line:
                assert parse_string("/".join(parts[:6])) == pos
    assert checked > 4000 // stride


# ---- malformed strings: one line naming the part at fault ----------------------------------
BAD = [
    ("bergen2/2/0,0/0/0-0/-", "version bergen2 is not known"),
    ("bergen1/2/0,0", "the to-move part is missing"),
    ("bergen1/2/4,7/0/0-3/1-1-4/4,5/14/1:14/9", "at most 9"),
    ("bergen1/5/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "rules (part 2"),
    ("bergen1/2,target/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "key=value"),
    ("bergen1/2,colour=red/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "unknown rule 'colour'"),
    ("bergen1/2,target=5,target=6/4,3/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "given twice"),
    ("bergen1/2,partnerships=true/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "leading count"),
    ("bergen1/2,draw=two/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "rule 'draw' must be one of"),
    ("bergen1/2,endgame_cap=maybe/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "true or false"),
    ("bergen1/2,target=0/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "rules (part 2"),
    ("bergen1/3p/0,0/0/0-3/-", "rules (part 2"),
    ("bergen1/2/4/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "scores (part 3, '4'): needs 2"),
    ("bergen1/2/4,x/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "scores (part 3"),
    ("bergen1/2/4,15/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "reaches the target"),
    ("bergen1/2/4,7/2/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "to-move (part 4, '2'): seat 2"),
    ("bergen1/2/4,7/x/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14", "to-move (part 4"),
    ("bergen1/2/4,7/0//1-1-4-4-6-3/4,5/14", "hand (part 5, ''): the seat to move holds"),
    ("bergen1/2/4,7/0/0-3,1-2,7-5,5-6/1-1-4-4-6-3/4,5/14", "hand (part 5"),
    ("bergen1/2/4,7/0/0-3,0-3,2-5,5-6/1-1-4-4-6-3/4,5/14", "listed twice"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,1-4/1-1-4-4-6-3/4,5/14", "both in the hand and on the line"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-9/4,5/14", "line (part 6"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1/4,5/14", "line (part 6, '1')"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1,1-4,4-6,4-4/4,5/14", "does not touch"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-1-1/4,5/14", "laid twice"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4/14", "sizes (part 7, '4'): needs 2"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,6/14", "add up to 29"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/5,5/13", "hand_sizes[0] is 5"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3", "sizes (part 7, ''): 2 sizes are left out "
     "(seat 1's hand size, the reserve's size)"),
    ("bergen1/3/0,0,0/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,,/10", "seat 1's hand size, seat 2's"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/x", "reserve (part 8"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/17", "reserve (part 8"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1", "voids (part 9, '1')"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/2:14", "seat 2 does not exist"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:19", "numbers 0..6"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:11", "listed twice"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:1,1:4", "seat 1 is listed twice"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/0:3", "voids (part 9"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:012345", "no deal fits the voids"),
    ("bergen1/2/4,7/0/0-3 1-2/1-1-4-4-6-3/4,5/14", "character ' ' at column 20"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14\x00", "character '\\x00'"),
    ("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14é", "character 'é'"),
]


@pytest.mark.parametrize("text,message", BAD, ids=[b[1][:30] for b in BAD])
def test_malformed_strings(text, message):
    with pytest.raises(BergenError) as err:
        parse_string(text)
    assert message in str(err.value), str(err.value)
    assert "\n" not in str(err.value)
    res = run("best", "--position", text, "--iterations", "10")
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bergen: "), res.stderr
    assert "Traceback" not in res.stderr
    if text.startswith("bergen1/") and "version" not in message:
        assert "position string" in lines[0]


def test_error_names_the_part():
    """Every part has a message that names it by name and number, as docs/NOTATION.md lists."""
    for i, name in enumerate(PARTS[1:], start=2):
        assert any(f"{name} (part {i}" in m for _, m in BAD), name


# ---- fuzz ------------------------------------------------------------------------------------
FUZZ = settings(max_examples=FUZZ_EXAMPLES * 3, deadline=20_000, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])
SEEDS = [EXAMPLE, "bergen1/3,draw=one/0,0,2/0/1-2,1-5/2-5-6-4-4-2-2-6-3-3-4-0-3/2,2,3/9/2:23",
         "bergen1/4p,target=20/2,7/2/0-4,1-3,3-4/6-0-3-5-0-0-2-4-4/3,5,3,3/6/1:04",
         "bergen1/2/0,0/0/0-0,1-3,2-6,3-3,4-5,5-6/-/6,6/16"]
ALPHABET = "0123456789-,/:=pxbergn_ \x00é*"


@st.composite
def damaged(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "swap", "drop", "dup",
                                     "truncate"]))
        at = draw(st.integers(0, len(text)))
        if kind == "insert":
            text = text[:at] + draw(st.text(ALPHABET, min_size=1, max_size=3)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 3)):]
        elif kind == "replace":
            text = text[:at] + draw(st.sampled_from(ALPHABET)) + text[at + 1:]
        elif kind == "truncate":
            text = text[:max(at, len(TAG) + 1)]
        elif text.count("/") >= 1:
            parts = text.split("/")
            i = draw(st.integers(1, len(parts) - 1))
            j = draw(st.integers(1, len(parts) - 1))
            if kind == "swap":
                parts[i], parts[j] = parts[j], parts[i]
            elif kind == "drop":
                del parts[i]
            else:
                parts.insert(i, parts[j])
            text = "/".join(parts)
    if not text.startswith(TAG + "/"):
        text = TAG + "/" + text.partition("/")[2]
    return text


@FUZZ
@given(text=damaged())
def test_fuzz_the_reader(text):
    """A damaged string is either a position (which round-trips) or one BergenError line."""
    try:
        pos = parse_string(text)
    except BergenError as e:
        assert "\n" not in str(e)
        return
    assert parse_string(to_string(pos)) == pos


@settings(FUZZ, max_examples=FUZZ_EXAMPLES)
@given(text=damaged())
def test_fuzz_through_the_command_line(text):
    res = run("best", "--position", text, "--iterations", "5", "--json")
    assert res.exit_code in (0, 2), (res.exit_code, res.stderr, res.exception)
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    if res.exit_code == 2:
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr


# ---- wherever a GAME is read -------------------------------------------------------------------
def test_accepted_wherever_a_game_is_read(tmp_path):
    doc = write_position(parse_string(EXAMPLE))
    ref = run("best", "-", "--iterations", "50", "--seed", "4", "--json", input=json.dumps(doc))
    assert ref.exit_code == 0, ref.output
    want = json.loads(ref.stdout)
    path = tmp_path / "pos.txt"
    path.write_text(EXAMPLE + "\n")
    for args, stdin in [((EXAMPLE,), None), (("--position", EXAMPLE), None), (("-",), EXAMPLE),
                        ((str(path),), None)]:
        res = run("best", *args, "--iterations", "50", "--seed", "4", "--json", input=stdin)
        assert res.exit_code == 0, (args, res.output)
        got = json.loads(res.stdout)
        assert got["moves"] == want["moves"] and got["best"] == want["best"]
        assert got["position"] == EXAMPLE
    for command in ("eval", "show"):
        res = run(command, EXAMPLE, "--iterations", "100") if command == "eval" else \
            run(command, EXAMPLE)
        assert res.exit_code == 0, res.output
        assert f"position {EXAMPLE}" in res.stdout


def test_every_view_of_a_decision_prints_a_string_that_pastes_back(tmp_path, one_search):
    """best, eval, analyze (text, JSON, HTML) and play's hint print the position, which reads
    back as the decision's (pasting a string into best: test_accepted_wherever_a_game_is_read)."""
    rec = "examples/decision.json"
    best = json.loads(run("best", rec, "--iterations", "200", "--json").stdout)
    string = best["position"]
    assert re.fullmatch(r"bergen1/[0-9a-z_,:=/-]+", string)
    assert f"position {string}" in run("best", rec, "--iterations", "200").stdout
    ev = run("eval", rec, "--iterations", "300", "--json")
    assert json.loads(ev.stdout)["position"] == string
    assert f"position {string}" in run("eval", rec, "--iterations", "300").stdout
    assert parse_string(string) == load(open(rec).read()).position
    # analyze: every decision in JSON and HTML (one run writes both), the labelled ones in
    # the text
    html = tmp_path / "r.html"
    doc = json.loads(run("analyze", "examples/match.json", "--iterations", "300", "--quiet",
                         "--max-rechecks", "0", "--json", "--html", str(html)).stdout)
    assert doc["decisions"] and all(is_position_string(d["position"]) for d in doc["decisions"])
    for d in doc["decisions"][:6]:
        res = search(load_game(d["position"]), Limits(iterations=50), seed=1)
        assert d["played"] in [str(m.move) for m in res.moves]
        assert parse_string(d["position"]).to_move == d["seat"]
    text = run("analyze", "examples/match.json", "--iterations", "300", "--quiet",
               "--max-rechecks", "0").stdout
    labelled = [d for d in doc["decisions"] if d["label"]]
    assert labelled and all(f"position {d['position']}" in text for d in labelled)
    page = html.read_text()
    assert all(d["position"] in page for d in doc["decisions"])


def test_play_hint_prints_the_position(tmp_path):
    from bergen_search.cli.session import PlaySession
    from bergen_search.play.engines import parse_engine_spec
    session = PlaySession(Rules(), parse_engine_spec("greedy"), 0, 3)
    session.advance()
    hint = session.hint()
    head, line = hint.splitlines()
    assert head.startswith("hint: ") and line.startswith("position bergen1/")
    string = line.split()[1]
    pos = parse_string(string)
    assert pos.hand == session.state.hands[0] and pos.line == tuple(session.state.line)


