"""Every `$ bergen ...` example in README.md and docs/*.md, run and compared with what the
program prints (docs/TESTING.md, "Examples that run"), and the Python blocks of README.md,
docs/API.md and docs/PROTOCOL.md. `...` stands for any lines; durations, speeds and
`"seconds"` are masked."""
from __future__ import annotations

import os
import re
import shlex
import sysconfig
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner

from bergen_search.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
ELLIPSIS = "..."
SLOW = "<!-- slow -->"


@dataclass
class Command:
    argv: list
    input: str | None
    line: int                       # 1-based line of the `$ ` line in its file
    expected: list = field(default_factory=list)


@dataclass
class Example:
    path: str                       # relative to the project root
    line: int                       # of the opening fence
    slow: bool
    commands: list


def documents() -> list:
    """README.md and every Markdown file of docs/, relative to the project root."""
    return ["README.md"] + sorted(f"docs/{n}" for n in os.listdir(DOCS) if n.endswith(".md"))


def _command(text: str, line: int, where: str) -> Command:
    """`$ bergen ARGS` or `$ printf 'TEXT' | bergen ARGS` (a trailing `# comment` ignored)."""
    words = shlex.split(text, comments=True)
    given = None
    if words[:1] == ["printf"]:
        assert len(words) > 3 and words[2] == "|", f"{where}: printf 'TEXT' | bergen ..."
        given = words[1].encode().decode("unicode_escape")
        words = words[3:]
    assert words[:1] == ["bergen"], f"{where}: an example runs `bergen`, not {words[:1]}"
    return Command(words[1:], given, line)


def examples_in(rel: str) -> list:
    """The examples of one Markdown file."""
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        lines = f.read().splitlines()
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append((i + 1, lines[i]))
            i += 1
        i += 1                                           # the closing fence
        first = body[0][1] if body else ""
        if not re.match(r"\$ (bergen |printf .*\| *bergen )", first):
            continue
        commands = []
        for n, text in body:
            if text.startswith("$ "):
                commands.append(_command(text[2:], n, f"{rel}:{n}"))
            else:
                commands[-1].expected.append(text)
        slow = start > 0 and lines[start - 1].strip() == SLOW
        out.append(Example(rel, start + 1, slow, commands))
    return out


def all_examples() -> list:
    return [e for rel in documents() for e in examples_in(rel)]


# ---- comparing ---------------------------------------------------------------------------

_CLOCK = [
    (re.compile(r'"(seconds|speed)": ?[0-9.eE+-]+'), r'"\1": <t>'),
    (re.compile(r"\b\d[\d,]*(?:\.\d+)? ?(?:it/s|/s)"), "<rate>"),
    (re.compile(r"\b\d[\d,]*(?:\.\d+)? ?(?:ms|s)\b"), "<t>"),
]


def mask(line: str) -> str:
    """The line with every clock-dependent figure replaced by a placeholder."""
    for pattern, placeholder in _CLOCK:
        line = pattern.sub(placeholder, line)
    return line.rstrip()


def matches(expected: list, actual: list) -> bool:
    """Whether the printed lines fit the documented ones (`...` any lines; clocks masked)."""
    exp = [None if e.strip() == ELLIPSIS else mask(e) for e in expected]
    act = [mask(a) for a in actual]
    # the classic wildcard match, line by line: fits[i][j] = exp[i:] fits act[j:]
    fits = [[False] * (len(act) + 1) for _ in range(len(exp) + 1)]
    fits[len(exp)][len(act)] = True
    for i in range(len(exp) - 1, -1, -1):
        for j in range(len(act), -1, -1):
            if exp[i] is None:
                fits[i][j] = fits[i + 1][j] or (j < len(act) and fits[i][j + 1])
            else:
                fits[i][j] = j < len(act) and exp[i] == act[j] and fits[i + 1][j + 1]
    return fits[0][0]


def _runner():
    try:
        return CliRunner(mix_stderr=True)
    except TypeError:                    # click 8.2: `output` is both streams, interleaved
        return CliRunner()


def run(command: Command) -> list:
    res = _runner().invoke(main, command.argv, input=command.input)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.output.splitlines()


def _trim(lines: list) -> list:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def check(example: Example) -> None:
    for command in example.commands:
        actual = run(command)
        if not matches(_trim(command.expected), _trim(actual)):
            shown = "\n".join(["$ bergen " + shlex.join(command.argv)] + actual)
            pytest.fail(f"{example.path}:{command.line}: the example's output is no longer "
                        f"what the program prints; it prints (update the doc, or the "
                        f"program):\n{shown}", pytrace=False)


def _params():
    for e in all_examples():
        marks = [pytest.mark.slow] if e.slow else []
        yield pytest.param(e, id=f"{e.path}:{e.line}", marks=marks)


@pytest.mark.parametrize("example", list(_params()))
def test_example(example, tmp_path, monkeypatch):
    os.symlink(os.path.join(ROOT, "examples"), tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    # A command an example runs (`--engine old='bergen engine'`) is this installation's.
    monkeypatch.setenv("PATH", sysconfig.get_path("scripts") + os.pathsep
                       + os.environ.get("PATH", ""))
    check(example)


# ---- the Python blocks -------------------------------------------------------------------

PYTHON_DOCS = ("README.md", "docs/API.md", "docs/PROTOCOL.md")


@dataclass
class PythonBlock:
    path: str
    line: int
    slow: bool
    code: str
    expected: list | None          # the plain block right after it, if any


def python_blocks(rel: str) -> list:
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    for i, text in enumerate(lines):
        if text.strip() != "```python":
            continue
        end = lines.index("```", i + 1)
        expected = None
        if end + 1 < len(lines) and lines[end + 1] == "```":
            close = lines.index("```", end + 2)
            expected = lines[end + 2:close]
        slow = i > 0 and lines[i - 1].strip() == SLOW
        out.append(PythonBlock(rel, i + 1, slow, "\n".join(lines[i + 1:end]), expected))
    return out


def _python_params():
    for rel in PYTHON_DOCS:
        for b in python_blocks(rel):
            marks = [pytest.mark.slow] if b.slow else []
            yield pytest.param(b, id=f"{b.path}:{b.line}", marks=marks)


@pytest.mark.parametrize("block", list(_python_params()))
def test_python_block(block, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    exec(compile(block.code, f"{block.path}:{block.line}", "exec"), {"__name__": "__doc__"})
    printed = capsys.readouterr().out.splitlines()
    if block.expected is not None:
        assert printed == block.expected, (
            f"{block.path}:{block.line}: the block prints:\n" + "\n".join(printed))


# ---- the convention itself ---------------------------------------------------------------


def test_there_are_examples_where_promised():
    """The README shows `best` and `analyze`, and the guide tours every command."""
    found = {}
    for e in all_examples():
        for c in e.commands:
            found.setdefault(e.path, set()).add(c.argv[0] if c.argv else "")
    assert {"best", "analyze"} <= found["README.md"]
    # engine and serve run until stopped: the guide shows them without a transcript.
    assert set(main.commands) - {"engine", "serve"} <= found["docs/GUIDE.md"], \
        sorted(set(main.commands) - found["docs/GUIDE.md"])


def test_every_bergen_line_in_a_block_is_an_example():
    """Every `$ bergen` line in a block is in a collected example."""
    collected = {(e.path, c.line) for e in all_examples() for c in e.commands}
    for rel in documents():
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            lines = f.read().splitlines()
        fenced = False
        for n, text in enumerate(lines, 1):
            if text.startswith("```"):
                fenced = not fenced
            elif fenced and re.match(r"\$ .*\bbergen\b", text):
                assert (rel, n) in collected, f"{rel}:{n}: a `$ bergen` line not run"


def test_masking_and_elision():
    assert mask("objective points, 100000 iterations, 0.49 s, seed 0") == \
        "objective points, 100000 iterations, <t>, seed 0"
    assert mask("1000 matches in 0.58 s (core)") == "1000 matches in <t> (core)"
    assert mask("greedy 13.5 ms over 2758") == "greedy <t> over 2758"
    assert mask("| random round | 1,698,071/s |") == "| random round | <rate> |"
    assert mask('{"seconds":0.061,"seed":1}') == '{"seconds": <t>,"seed":1}'
    assert mask("scores 15-4, 3 sets") == "scores 15-4, 3 sets"
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["a", "..."], ["a"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert not matches(["a", "b"], ["a", "b", "c"])
    assert matches(["took 0.4 s"], ["took 12.25 s"])
    assert not matches(["value +5.876"], ["value +5.877"])


def test_a_changed_output_fails(tmp_path, monkeypatch):
    """The check fails when the documented output is not what the program prints."""
    monkeypatch.chdir(ROOT)
    command = Command(["replay", "examples/match.json"], None, 1,
                      ["round 1  start 0-0", "...", "side 0 wins: 15-5"])
    with pytest.raises(pytest.fail.Exception, match="side 0 wins: 15-4"):
        check(Example("doc.md", 1, False, [command]))
    command.expected[-1] = "side 0 wins: 15-4"
    check(Example("doc.md", 1, False, [command]))
