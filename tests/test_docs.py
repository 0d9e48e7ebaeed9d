"""docs/ against the code: FORMATS.md's fields are the outputs' and the readers'; COMMANDS.md's
commands, options and settings are the app's; links, history, packaging. Tables are parsed
as written: one per heading, the field's `path` in the first cell, "optional" in its type."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import click
import pytest
from support import bergen as run

from bergen_search import __version__
from bergen_search.cli import main
from bergen_search.game.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# ---- parsing the docs -------------------------------------------------------------------


def sections(text: str) -> dict:
    """Heading -> the lines under it, to the next heading (code blocks skipped)."""
    out, current, fenced = {}, None, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = re.match(r"#{1,6} (.+)$", line)
        if m:
            current = m.group(1).strip()
            assert current not in out, f"heading {current!r} twice"
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def table_rows(lines) -> list:
    """The body rows of the tables in `lines`, as lists of cells (`\\|` kept as `|`)."""
    rows = []
    for line in lines:
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|")
                 for c in re.split(r"(?<!\\)\|", line.strip("|"))]
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        rows.append(cells)
    return [r for r in rows if r[0] not in ("field", "option", "algorithm", "command", "module")]


class Field:
    def __init__(self, path, type_, meaning):
        self.path, self.type, self.meaning = path, type_, meaning
        self.optional = "optional" in type_


def format_tables() -> dict:
    """docs/FORMATS.md: heading -> {path: Field} for every heading with a field table."""
    out = {}
    for heading, lines in sections(_doc("FORMATS.md")).items():
        fields = {}
        for cells in table_rows(lines):
            m = re.fullmatch(r"`([a-z_0-9.\[\]]+)`", cells[0])
            assert m, f"{heading}: a field table's first cell must be one `path`: {cells[0]!r}"
            assert m.group(1) not in fields, f"{heading}: {m.group(1)} twice"
            fields[m.group(1)] = Field(m.group(1), cells[1], cells[2])
        if fields:
            out[heading] = fields
    return out


FORMATS = format_tables()


def paths_of(doc, prefix="", opaque=()):
    """Every field path in `doc` (lists as `name[]`), not below a path in `opaque`."""
    out = set()
    if isinstance(doc, dict):
        for k, v in doc.items():
            p = f"{prefix}.{k}" if prefix else k
            out.add(p)
            if p not in opaque:
                out |= paths_of(v, p, opaque)
    elif isinstance(doc, list):
        for x in doc:
            if isinstance(x, dict):
                out |= paths_of(x, prefix + "[]", opaque)
    return out


def holders(doc, path: str, fields) -> tuple:
    """(the objects of `doc` that must hold `path`, its key); the parent is the longest path."""
    parents = [p for p in fields if path.startswith(p + ".") or path.startswith(p + "[].")]
    if not parents:
        return [doc], path
    parent = max(parents, key=len)
    in_list = path.startswith(parent + "[].")
    key = path[len(parent) + (3 if in_list else 1):]
    up, parent_key = holders(doc, parent, fields)
    values = [h[parent_key] for h in up if parent_key in h]
    if in_list:
        return [x for v in values if isinstance(v, list) for x in v if isinstance(x, dict)], key
    return [v for v in values if isinstance(v, dict)], key


def check_documents(heading: str, docs: list, every_field=True) -> None:
    """The documents have every required field of `heading`'s table, and no other."""
    fields = FORMATS[heading]
    opaque = {p for p in fields
              if not any(q.startswith(p + ".") or q.startswith(p + "[].") for q in fields)}
    seen = set()
    for doc in docs:
        found = paths_of(doc, opaque=opaque)
        seen |= found
        extra = sorted(found - set(fields))
        assert not extra, f"{heading}: fields the docs do not name: {extra}"
        for path, f in fields.items():
            if f.optional:
                continue
            objects, key = holders(doc, path, fields)
            missing = [h for h in objects if key not in h]
            assert not missing, f"{heading}: `{path}` is missing from {missing[0]!r:.200}"
    never = sorted(set(fields) - seen) if every_field else []
    assert not never, f"{heading}: documented fields no run produced: {never}"


# ---- running the commands ---------------------------------------------------------------


def bergen(*args, input=None, status=0) -> str:
    """The standard output of `bergen ARGS` run in this process (its exit status checked)."""
    res = run(*args, input=input)
    assert res.exit_code == status, (args, res.exit_code, res.stdout, res.stderr)
    return res.stdout


def bergen_json(*args, **kw) -> dict:
    """One line of JSON, which says the program's version (every `--json` document does)."""
    out = bergen(*args, **kw)
    assert len(out.strip().splitlines()) == 1, out
    doc = json.loads(out)
    assert doc["version"] == __version__, args
    return doc


def ex(name: str) -> str:
    return str(ROOT / "examples" / name)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Records the program writes: two short selfplay matches and an arena's."""
    d = tmp_path_factory.mktemp("docs")
    two = d / "two.jsonl"
    bergen("selfplay", "--games", 2, "--seed", 1, "--engine", "greedy", "--target", 4,
           "--out", two, "--quiet")
    arena = d / "arena.jsonl"
    bergen("arena", "greedy", "random", "--games", 1, "--out", arena, "--quiet",
           "--no-luck-adjust")
    bergen("arena", "greedy", "random", "--games", 1, "--quiet")     # one set, luck-adjusted
    saved = d / "game.json"
    bergen("play", "--engine", "greedy", "--seed", 3, "--out", saved, input="quit\n")
    return {"two": two, "arena": arena, "play": saved, "dir": d}


def _lines(path) -> list:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def _record_docs(played):
    """What the program writes, the examples, and what the reader accepts."""
    docs = [json.load(open(ex(n))) for n in ("match.json", "decision.json", "partial.json",
                                             "voids.json")]
    written = _lines(played["two"]) + _lines(played["arena"]) + [json.load(open(played["play"]))]
    assert {d["version"] for d in written} == {__version__}
    return docs + written


def _analyze_docs(played):
    out = played["dir"] / "analysis.json"
    bergen("analyze", ex("partial.json"), "--iterations", 200, "--quiet", "--out", out,
           "--force")
    written = json.load(open(out))
    assert "seconds" not in written
    return [bergen_json("analyze", ex("match.json"), "--iterations", 200, "--quiet",
                        "--max-rechecks", 0, "--json"),
            bergen_json("analyze", played["two"], "--iterations", 100, "--seat", 0, "--quiet",
                        "--set", "playout=random", "--json"), written]


def _replay_error():
    bad = ('{"format": "bergen-record/1", "rounds": [{"hands": [null, null], "events": '
           '[{"seat": 0, "play": "1-1"}, {"seat": 0, "play": "1-2:R"}]}]}')
    doc = bergen_json("replay", "-", "--json", input=bad, status=2)
    assert doc["ok"] is False and doc["round"] == 0 and doc["event"] == 1
    return [doc]


def _journal(tmp_path):
    from bergen_search.runs.journal import FORMAT, Journal
    j = Journal.start(str(tmp_path / "games.jsonl"), "selfplay", 1, {"games": 3},
                      resume=False)
    j.add(0, "a result")
    j.close()
    first, second = (tmp_path / "games.jsonl.journal").read_text().splitlines()
    assert first.startswith(FORMAT + " ")
    assert set(json.loads(second.split(" ", 1)[1])) == {"key", "data"}
    return [json.loads(first.split(" ", 2)[2])]


SMALL = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"
#: Three tiles a hand: one world at expectimax's default depth is past its work budget.
X3 = "bergen1/2,hand_size=3/0,2/0/0-3,1-3,4-5/6-6/3,2/22"
#: Each FORMATS.md document, and the real outputs it is checked against.
CHECKED = {
    "`rules`": lambda p: [Rules(players=n).to_dict() for n in (2, 3, 4)],
    "`bergen-record/1`": _record_docs,
    "`bergen-position/1`": lambda p: [json.load(open(ex("position.json"))), *_shown()],
    "`bergen best --json`": lambda p: [
        bergen_json("best", ex("decision.json"), "--iterations", 200, "--json"),
        bergen_json("best", ex("decision.json"), "--algorithm", "expectimax", "--iterations",
                    20, "--json"),
        bergen_json("best", ex("position.json"), "--algorithm", "classic", "--iterations",
                    200, "--json"),
        bergen_json("best", ex("endgame.json"), "--iterations", 200, "--json"),
        bergen_json("best", ex("endgame.json"), "--algorithm", "endgame", "--json"),
        bergen_json("best", ex("bracket.json"), "--iterations", 20000, "--json"),
        bergen_json("best", "bergen1/2/0,0/0/1-2,2-2,2-3,3-4,4-5,5-6/-", "--iterations", 40,
                    "--json"),
        bergen_json("best", X3, "--algorithm", "expectimax", "--iterations", 1, "--json")],
    "`bergen eval --json`": lambda p: [
        bergen_json("eval", ex("decision.json"), "--iterations", 200, "--json"),
        bergen_json("eval", "--position", SMALL, "--algorithm", "expectimax", "--iterations",
                    10, "--json"),
        bergen_json("eval", ex("endgame.json"), "--iterations", 200, "--json"),
        bergen_json("eval", "bergen1/2/0,0/0/0-0,1-2,2-3,3-4,4-5,5-6/-", "--iterations", 40,
                    "--json"),
        bergen_json("eval", X3, "--algorithm", "expectimax", "--iterations", 1, "--json")],
    "`bergen show --json`": lambda p: [bergen_json("show", ex(n), "--json") for n in
                                       ("voids.json", "position.json", "decision.json")],
    "`bergen analyze --json`": _analyze_docs,
    "`bergen replay --json`": lambda p: [bergen_json("replay", ex(n), "--json") for n in (
        "match.json", "partial.json", "decision.json")] + _several(p)["records"],
    "`bergen replay --json`, a `.jsonl` file": lambda p: [_several(p)],
    "`bergen replay --json`, an illegal record": lambda p: _replay_error(),
    "`bergen arena --json`": lambda p: [
        bergen_json("arena", "greedy", "random", "--games", 2, "--quiet", "--json"),
        bergen_json("arena", "ismcts:iterations=50", "greedy", "--games", 1, "--round",
                    "--quiet", "--json")],
    "`bergen-journal/2`: a long run's journal": lambda p: _journal(p["dir"]),
}


def _shown():
    """show's `position_json`, as written and as another version wrote it."""
    shown = bergen_json("show", ex("voids.json"), "--json")["position_json"]
    return [shown, {**shown, "version": "0.1.0"}]


def _several(played):
    doc = bergen_json("replay", played["two"], "--json")
    assert len(doc["records"]) == 2
    return doc


@pytest.mark.parametrize("heading", list(CHECKED))
def test_the_documented_fields_are_the_outputs(played, heading):
    docs = CHECKED[heading](played)
    check_documents(heading, docs)
    assert {d.get("version", __version__) for d in docs} == {__version__}


def _json_blocks():
    """Every ```json block of the docs: (where, its text)."""
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md"):
            lines = _doc(name).splitlines()
            for i, text in enumerate(lines):
                if text.strip() == "```json":
                    end = lines.index("```", i + 1)
                    yield f"docs/{name}:{i + 1}", "\n".join(lines[i + 1:end])


def test_the_documents_shown_are_legal():
    """A record or a position printed in the docs reads, and replays (FORMATS.md's record had
    a seat pass with 15 tiles to draw: `replay` refused it)."""
    from bergen_search.formats.game import load_game
    from bergen_search.formats.record_io import load_record
    seen = set()
    for where, text in _json_blocks():
        doc = json.loads(text)
        seen.add(doc["format"])
        if doc["format"] == "bergen-record/1":
            res = run("replay", "-", input=text)
            assert res.exit_code == 0, (where, res.output)
            assert load_record(text).rounds
        else:
            assert load_game(text), where
    assert seen == {"bergen-record/1", "bergen-position/1"}


def test_the_readers_take_the_documented_fields():
    """The record's, position's and rules' readers take exactly FORMATS.md's fields; every
    document FORMATS.md has a table for is checked here (bench's: test_bench_fields)."""
    from bergen_search.formats import position, record
    assert set(FORMATS) == set(CHECKED) | {"`bergen bench --json`"}
    fields = FORMATS["`bergen-record/1`"]
    assert {p for p in fields if "." not in p} == set(record._TOP_FIELDS)
    assert {p.split(".")[1] for p in fields if p.count(".") == 1} == set(record._ROUND_FIELDS)
    assert {p.split(".")[2] for p in fields if p.count(".") == 2} == set(record._EVENT_FIELDS)
    fields = FORMATS["`bergen-position/1`"]
    assert set(fields) == set(position._FIELDS)
    required = {p for p, f in fields.items() if f.type.startswith("required")
                or f.meaning.startswith("required")}
    assert required == set(position._REQUIRED)
    fields = FORMATS["`rules`"]
    assert list(fields) == list(Rules().to_dict())
    for path, f in fields.items():
        for choice in re.findall(r'`"([a-z-]+)"`', f.type):
            Rules.from_dict({path: choice})


def test_engine_bestmove_is_the_best_document():
    """The engine's `bestmove` is `best --json`'s document plus type, id, stopped, terminated
    (the engine's server in this process: what it writes is checked, not its pipes)."""
    from support import InProcessEngine
    engine = InProcessEngine()
    try:
        engine.send({"cmd": "go", "id": "1", "game": json.load(open(ex("decision.json"))),
                     "settings": {"endgame": False}, "infinite": True, "report_every": 0.01})
        assert engine.until("partial")[-1]["type"] == "partial"
        engine.send({"cmd": "terminate", "queries": ["1"]})
        doc = engine.until("bestmove")[-1]
    finally:
        engine.close()
    assert (doc.pop("type"), doc.pop("stopped"), doc.pop("terminated")) == \
        ("bestmove", True, True)
    doc.pop("id")
    check_documents("`bergen best --json`", [doc], every_field=False)


def test_bench_fields(quick_bench):
    """`bench --json`'s fields at the smallest slices, and the figures the prose names."""
    doc = bergen_json("bench", "--seconds", 0.01, "--repeats", 1, "--json")
    check_documents("`bergen bench --json`", [doc])
    # the figure names the prose lists are the ones measured
    text = "\n".join(sections(_doc("FORMATS.md"))["`bergen bench --json`"])
    named = set(re.findall(r"`([a-z0-9_]+_per_s)`", text))
    assert named == set(doc["core"]) | set(doc["reference"]) | set(doc["search"])


# ---- the commands -----------------------------------------------------------------------


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.lower()).replace(" ", "-")


def documented_commands() -> dict:
    """docs/COMMANDS.md: command name -> (its arguments, its options)."""
    secs = sections(_doc("COMMANDS.md"))
    by_anchor = {_anchor(h): lines for h, lines in secs.items()}

    def options(lines):
        opts = set()
        for cells in table_rows(lines):
            link = re.search(r"\]\(#([a-z0-9-]+)\)", cells[0])
            if link:
                assert link.group(1) in by_anchor, f"no section #{link.group(1)}"
                opts |= options(by_anchor[link.group(1)])
            else:
                code = re.fullmatch(r"`([^`]+)`", cells[0])
                assert code, f"an option row's first cell must be `--option ...`: {cells[0]!r}"
                opts |= set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z](?![\w-]))",
                                       code.group(1)))
        return opts

    out = {}
    for heading, lines in secs.items():
        m = re.fullmatch(r"`bergen(?: ([a-z]+))?((?: [A-Z\[\]]+)*)`", heading)
        if m:
            out[m.group(1) or ""] = (m.group(2).split(), options(lines))
    return out


def _click_options(command) -> set:
    """The options a command shows in its --help."""
    return {o for p in command.params if isinstance(p, click.Option) and not p.hidden
            for o in p.opts + p.secondary_opts} | {"--help"}


def test_one_version():
    from importlib import metadata
    assert metadata.version("bergen_search") == __version__
    assert bergen("--version").strip() == f"bergen, version {__version__}"


def test_the_words_mean_one_thing_and_none_is_hidden():
    """Every option is in its --help (and so in COMMANDS.md); a word several commands take is
    one kind of value in each (old spellings: refused, test_messages; in no --help, below)."""
    kinds = {}
    for name, command in main.commands.items():
        for p in command.params:
            if isinstance(p, click.Option):
                assert not p.hidden, (name, p.opts)
                for o in p.opts:
                    kind = (type(p.type).__name__, getattr(p.type, "min", None),
                            getattr(p.type, "max", None), p.multiple if o != "--engine" else None)
                    kinds.setdefault(o, {}).setdefault(kind, []).append(name)
    assert list(kinds["--time"]) == [("FiniteFloat", 0.001, 86400.0, False)], kinds["--time"]
    for word in ("--seed", "--workers", "--out", "--force", "--json", "--iterations",
                 "--external", "--external-timeout", "--cluster", "--quiet", "--resume"):
        assert len(kinds[word]) == 1, (word, kinds[word])
        assert len(next(iter(kinds[word].values()))) >= 2, (word, kinds[word])
    assert {n for names in kinds["--external"].values() for n in names} == {"arena", "selfplay"}
    assert "play" in next(iter(kinds["--you"].values()))


def test_commands_and_options_match_the_app():
    docs = documented_commands()
    assert set(docs) - {""} == set(main.commands), sorted(set(docs) ^ set(main.commands))
    group_args, group_opts = docs[""]
    assert group_opts == _click_options(main)
    for name, command in main.commands.items():
        args, opts = docs[name]
        real_args = [p.make_metavar(click.Context(command)) if hasattr(p, "make_metavar")
                     else p.human_readable_name for p in command.params
                     if isinstance(p, click.Argument)]
        assert [a.strip("[]") for a in args] == [a.strip("[]") for a in real_args], name
        real = _click_options(command) - {"--help"}
        assert opts == real, (name, "undocumented:", sorted(real - opts),
                              "not in the app:", sorted(opts - real))


def test_settings_table_is_the_programs():
    """COMMANDS.md's settings table is the engine's `hello`: every setting and its default."""
    rows, alg = {}, None
    for cells in table_rows(sections(_doc("COMMANDS.md"))["Search settings"]):
        alg = cells[0].strip("`") or alg
        rows[(alg, cells[1].strip("`"))] = cells[2].strip("`")
    hello = json.loads(bergen("engine", input='{"cmd": "hello"}\n{"cmd": "quit"}\n').split("\n")[0])
    assert rows == {(a, s): ("on" if v else "off") if isinstance(v := d["default"], bool)
                    else str(v) for a, spec in hello["algorithms"].items()
                    for s, d in spec["settings"].items()}


#: The budgets' maxima each --help states (test_limits: every budget beyond them refused).
MAXIMA = {"best": ["at most 1,000,000,000", "0.001 to 86,400", "at most 1,048,576"],
          "analyze": ["at most 1,000,000,000", "86,400"], "arena": ["at most 10,000,000"]}


def test_every_help_points_to_docs():
    """Every --help names the docs/ files, never ../shared, and no old spelling (vocabulary);
    the budgets' maxima are stated."""
    text = bergen("--help")
    for name in ("docs/RULES.md", "docs/FORMATS.md", "docs/COMMANDS.md"):
        assert name in text
    for name in main.commands:
        help_text = bergen(name, "--help")
        assert "docs/COMMANDS.md" in help_text, name
        assert "shared" not in help_text, name
        for old in ("worlds=", "--time-per-decision", "--engines", "--engine-timeout",
                    "--depth", "--exploration"):
            assert old not in help_text, (name, old)
        for w in MAXIMA.get(name, []):
            assert w in " ".join(help_text.split()), (name, w)


def test_readme_is_a_front_door_with_the_test_command_ci_runs():
    """README.md gets a player going in one screen or so (the rest lives in docs/); its test
    command is the one .ci/run runs, character for character, and every test file .ci/run
    names exists (a missing one makes a job run no test)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 300, f"README.md has {len(readme)} lines"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    command = ci[ci.index("# The README's test command:") + 1].strip()
    assert command.startswith("pip install -e ") and "python -m pytest" in command
    assert command in readme, command
    named = set(re.findall(r"\b(?:tests|benchmarks|lab)/[\w/]+\.py\b", "\n".join(ci)))
    assert named and not [p for p in sorted(named) if not (ROOT / p).is_file()]


#: History in user-facing text: an issue number (`issue 17`, `#17`), a commit hash (seven
#: hex digits or more, one a letter and one a digit at least), a date (2026-11-30, or
#: "30 November 2026").
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December")
HISTORY = [
    ("an issue number", re.compile(r"\b[Ii]ssues? \d+|(?<![\w&/])#\d+\b")),
    ("a commit hash", re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")),
    ("a date", re.compile(r"\b(19|20)\d\d-\d\d-\d\d\b|\b\d{1,2} (" + _MONTHS + r") \d{4}\b")),
]


def history_in(text: str) -> list:
    """(what, the matched text) for every piece of history in `text`."""
    return [(what, m.group(0)) for what, pattern in HISTORY for m in pattern.finditer(text)]


def test_the_history_check_can_fail():
    assert [w for w, _ in history_in("as issue 22 found")] == ["an issue number"]
    assert [w for w, _ in history_in("fixed in #17.")] == ["an issue number"]
    assert [w for w, _ in history_in("at 8b484f4, slower")] == ["a commit hash"]
    assert [w for w, _ in history_in("on 2026-11-30 at 19:36")] == ["a date"]
    assert [w for w, _ in history_in("on 30 November 2026")] == ["a date"]
    # not history: numbers, seeds, positions, anchors, colours
    assert history_in("seed 2204, 1,000 sets, 0.5 s; [x](GUIDE.md#best) 1000000 #fff") == []
    assert history_in("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14") == []


def test_the_pages_links_resolve_and_they_hold_no_history():
    """Every relative link in docs/ and the README resolves, anchors included; no page (nor a
    top-level module) points outside the repository; no issue number, commit hash or date but
    in CHANGELOG.md."""
    pages = ["README.md"] + [f"docs/{p.name}" for p in sorted(DOCS.iterdir())]
    modules = [f"bergen_search/{p.name}" for p in sorted((ROOT / "bergen_search").glob("*.py"))]
    found = []
    for rel in pages + modules:
        path = os.path.join(ROOT, rel)
        text = Path(path).read_text(encoding="utf-8")
        found += [f"{rel} points to {bad}" for bad in ("../shared", "shared/spec", "../seeds")
                  if bad in text]
        if rel not in pages:
            continue
        if rel.endswith(".md") and rel != "docs/CHANGELOG.md":
            found += [f"{rel}:{n}: {what} ({hit!r})" for n, line in enumerate(text.split("\n"), 1)
                      for what, hit in history_in(line)]
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(full):
                found.append(f"{rel}: {target}")
            elif anchor and full.endswith(".md") and anchor not in {
                    _anchor(h) for h in sections(Path(full).read_text(encoding="utf-8"))}:
                found.append(f"{rel}: {target}")
    assert not found, "\n".join(found)


def test_rules_variants_table():
    """RULES.md's variants table names every rule and every choice the reader takes."""
    from bergen_search.game.rules import BLOCKEDS, DRAWS, LEADS, NO_DOUBLES
    rows = table_rows(sections(_doc("RULES.md"))["The variants and the text each follows"])
    assert [r[0].strip("`") for r in rows] == list(Rules().to_dict())
    named = set()
    for field, values, _ in rows:
        for choice in re.findall(r"`([a-z-]+)`", values):
            Rules.from_dict({field.strip("`"): choice})
            named.add(choice)
    assert set(LEADS + NO_DOUBLES + DRAWS + BLOCKEDS) <= named


def test_module_map_names_every_module():
    """DESIGN.md's module map has one row per module of the package, and no other."""
    rows = table_rows(sections(_doc("DESIGN.md"))["Module map"])
    mapped = [r[0].strip("`") for r in rows]
    assert len(mapped) == len(set(mapped))
    real = {p.relative_to(ROOT).as_posix() for p in [*(ROOT / "bergen_search").rglob("*.py"),
                                                      *(ROOT / "src_cython").rglob("*.pyx")]}
    assert set(mapped) == real, sorted(set(mapped) ^ real)


def test_the_wheel_and_the_sdist_take_docs_and_the_assets(monkeypatch):
    """pyproject's data-files put every file of docs/ into a wheel (share/doc/bergen-search);
    the sdist's file list (MANIFEST.in) holds docs/ and the board's and views' assets."""
    import glob
    import warnings

    from setuptools.command.egg_info import FileList
    from setuptools.config.pyprojecttoml import read_configuration
    with warnings.catch_warnings():      # setuptools calls [tool.setuptools] "beta"
        warnings.simplefilter("ignore")
        config = read_configuration(str(ROOT / "pyproject.toml"), expand=False)
    docs = {f"docs/{p.name}" for p in DOCS.iterdir()}
    assert docs == {Path(p).relative_to(ROOT).as_posix() for pattern in
                    config["tool"]["setuptools"]["data-files"]["share/doc/bergen-search"]
                    for p in glob.glob(str(ROOT / pattern))}
    monkeypatch.chdir(ROOT)
    files = FileList()
    files.findall(".")
    for line in (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines():
        if line.strip():
            files.process_template_line(line.strip())
    assets = {f"bergen_search/board/static/{p.name}"
              for p in (ROOT / "bergen_search" / "board" / "static").iterdir()}
    assets |= {"bergen_search/views/report.css", "bergen_search/views/drawing.css"}
    assert docs and assets and docs | assets <= {f.replace(os.sep, "/") for f in files.files}


@pytest.mark.slow
def test_wheel_takes_docs(tmp_path):
    """A wheel of the checkout holds docs/, every module and the board's assets."""
    import subprocess
    import sys
    import zipfile
    env = dict(os.environ, BERGEN_ONLY="_none")
    subprocess.run([sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "-q", "-w",
                    str(tmp_path)], check=True, env=env, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    got = {n.rsplit("/", 1)[1] for n in names if "/data/share/doc/bergen-search/" in n}
    assert got == set(os.listdir(DOCS))
    # ... and every module of the package, every subpackage of the layers included.
    assert {p.relative_to(ROOT).as_posix() for p in (ROOT / "bergen_search").rglob("*.py")} \
        - set(names) == set()
    # ... and the board's assets (`bergen serve` works offline: nothing from a CDN).
    static = os.path.join(ROOT, "bergen_search", "board", "static")
    assert {f"bergen_search/board/static/{n}" for n in os.listdir(static)} <= set(names)
    assert {"bergen_search/views/report.css", "bergen_search/views/drawing.css"} <= set(names)


def _python_files(folder: str) -> list:
    return sorted(os.path.join(d, n) for d, dirs, names in os.walk(folder)
                  for n in names if n.endswith(".py") and "__pycache__" not in d)


def test_benchmarks_is_the_speed_suite_and_no_test_imports_the_lab():
    """benchmarks/ holds bench_*.py alone; no test function in benchmarks/ or lab/ that pytest
    does not collect; no test imports a script of either."""
    bench = os.path.join(ROOT, "benchmarks")
    assert [os.path.basename(p) for p in _python_files(bench)
            if not os.path.basename(p).startswith("bench_")] == ["conftest.py"]
    scripts = _python_files(bench) + _python_files(os.path.join(ROOT, "lab"))
    found = []
    for path in scripts:
        if not os.path.basename(path).startswith(("bench_", "test_", "conftest")):
            with open(path, encoding="utf-8") as f:
                found += [f"{os.path.relpath(path, ROOT)}: {m} is not collected"
                          for m in re.findall(r"^def (test_\w+)", f.read(), re.M)]
    scripts = {os.path.splitext(os.path.basename(p))[0] for p in scripts}
    assert {"gauntlet", "endgame_stage", "bench_core", "belief_value"} <= scripts
    import ast
    named = re.compile(r"\b(?:import|from)\b.*\b(?:%s)\b" % "|".join(sorted(scripts)))
    for path in _python_files(os.path.join(ROOT, "tests")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if path != os.path.abspath(__file__) and ("spec_from_file_location" in text
                                                  or "run_path(" in text):
            found.append(f"{os.path.basename(path)} loads a file as a module")
        if not named.search(text):      # no line imports a name of theirs: spare the parse
            continue
        for node in ast.walk(ast.parse(text)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.module
                     and not node.level else [])
            found += [f"{os.path.basename(path)} imports {n}" for n in names
                      if n.split(".")[0] in scripts]
    assert found == []


def test_stated_figures_are_the_codes():
    """The docs' figures (work per iteration, the engines `search()` takes) are the code's;
    every file of bergen_search/data/ names the lab script that made it (`made_by`)."""
    from bergen_search.search.endgame.budget import WORK_PER_ITERATION
    from bergen_search.search.registry import algorithms, presets
    assert re.findall(r"each buys ([\d,]+) units of solver work", _doc("COMMANDS.md")) == \
        [f"{WORK_PER_ITERATION:,}"]
    listed = re.search(r'algorithm=((?:"\w+"\|?)+)', _doc("API.md")).group(1)
    assert set(re.findall(r'"(\w+)"', listed)) == set(algorithms()) | set(presets())
    data = sorted((ROOT / "bergen_search" / "data").iterdir())
    assert [p.name for p in data] == ["luck_model.json"]
    for path in data:
        python, script, *_ = (made_by := json.loads(path.read_text())["made_by"]).split()
        assert python == "python" and script.startswith("lab/"), made_by
        assert (ROOT / script).exists(), made_by
