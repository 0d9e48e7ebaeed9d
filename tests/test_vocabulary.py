"""One vocabulary of options (issue 41): the same word for the same thing in every command,
and the old spellings kept, hidden, for a release, each saying so in one line.

- `--time SECONDS`: seconds of search (per decision in `analyze`; `--time-per-decision` was
  its old spelling there);
- `--engine SPEC`: the engine(s) that play (`selfplay`'s per seat, `play`'s opponent;
  `--engines` was selfplay's old spelling);
- `--external NAME=COMMAND`, `--external-timeout SECONDS`: an engine in another process
  registered (arena, selfplay; `--engine NAME=COMMAND` and `--engine-timeout` were the old
  spellings);
- `--seat` is the seat a command judges (`analyze`); `play` names yours `--you`;
- engine specs count every search's budget with `iterations=` (expectimax's worlds too;
  `worlds=` was the old spelling);
- `--set KEY=VALUE` for every algorithm setting (`--depth` and `--exploration` were old
  spellings of two of them).
"""
import json

import click
import pytest
from click.testing import CliRunner

from bergen_search.cli import main

DECISION = "examples/decision.json"
MATCH = "examples/match.json"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.parametrize("old,new,note", [
    (["analyze", MATCH, "--iterations", "40", "--time-per-decision", "60", "--quiet",
      "--json"],
     ["analyze", MATCH, "--iterations", "40", "--time", "60", "--quiet", "--json"],
     "--time-per-decision is now --time"),
    (["selfplay", "--engines", "greedy,random", "--seed", "3"],
     ["selfplay", "--engine", "greedy,random", "--seed", "3"],
     "--engines is now --engine"),
    (["best", DECISION, "--algorithm", "expectimax", "--iterations", "4", "--depth", "2",
      "--json"],
     ["best", DECISION, "--algorithm", "expectimax", "--iterations", "4", "--set", "depth=2",
      "--json"],
     "--depth is now --set depth=..."),
    (["eval", DECISION, "--iterations", "300", "--exploration", "0.5", "--json"],
     ["eval", DECISION, "--iterations", "300", "--set", "exploration=0.5", "--json"],
     "--exploration is now --set exploration=..."),
    (["arena", "greedy", "random", "--games", "2", "--engine-timeout", "5", "--json"],
     ["arena", "greedy", "random", "--games", "2", "--external-timeout", "5", "--json"],
     "--engine-timeout is now --external-timeout"),
    (["selfplay", "--engine", "expectimax:worlds=3,depth=2", "--seed", "1"],
     ["selfplay", "--engine", "expectimax:iterations=3,depth=2", "--seed", "1"],
     "engine 'expectimax': worlds= is now iterations="),
])
def test_an_old_spelling_still_works_and_says_so(old, new, note):
    """The old spelling gives what the new one gives (a time limit that never binds, so the
    same analysis), with one more line on standard error saying what it is now."""
    was, now = run(*old), run(*new)
    assert was.exit_code == now.exit_code == 0, (was.output, now.output)
    notes = [line for line in was.stderr.splitlines() if note in line]
    assert len(notes) == 1 and "later release" in notes[0], was.stderr
    rest = [line for line in was.stderr.splitlines() if note not in line]
    assert _no_clock("\n".join(rest)) == _no_clock(now.stderr)
    assert _no_clock(was.stdout) == _no_clock(now.stdout)


def _no_clock(text: str):
    try:
        doc = json.loads(text)
    except ValueError:
        return [line for line in text.splitlines() if " s " not in line and "/s" not in line]
    drop = ("seconds", "speed")
    def clean(o):
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items() if k not in drop}
        if isinstance(o, list):
            return [clean(v) for v in o]
        return o
    return clean(doc)


def test_play_calls_your_seat_you(tmp_path):
    new = run("play", "--engine", "greedy", "--you", "1", "--seed", "3", "--out",
              tmp_path / "a.json", input="quit\n")
    old = run("play", "--engine", "greedy", "--seat", "1", "--seed", "3", "--out",
              tmp_path / "b.json", input="quit\n")
    assert new.exit_code == old.exit_code == 0
    assert "you are seat 1" in new.stdout and "you are seat 1" in old.stdout
    assert "--seat is now --you" in old.stderr


def test_selfplay_engine_registers_in_its_old_meaning_and_names_in_the_new(tmp_path):
    """selfplay's --engine names the engines that play; a NAME=COMMAND there is the old
    meaning (--external's), still registered, with the note."""
    import sys
    command = f"{sys.executable} -m bergen_search engine"
    old = run("selfplay", "--engine", f"ext={command}", "--engine", "ext:iterations=50,greedy",
              "--seed", "2")
    new = run("selfplay", "--external", f"ext={command}", "--engine", "ext:iterations=50,greedy",
              "--seed", "2")
    assert old.exit_code == new.exit_code == 0, (old.output, new.output)
    assert "--engine NAME=COMMAND is now --external NAME=COMMAND" in old.stderr
    assert old.stdout == new.stdout


def test_both_spellings_at_once_are_a_usage_error():
    res = run("analyze", MATCH, "--time", "0.01", "--time-per-decision", "0.02")
    assert res.exit_code == 2
    assert "--time-per-decision is the old spelling of --time: give --time only" in res.stderr


def test_the_old_spellings_are_hidden_and_the_words_mean_one_thing():
    """--help lists none of the old spellings; each word that several commands take is the
    same kind of value in each: the same type, range and repetition (a word missing from
    every command, or taken by one only, is an error of this list)."""
    old = {"--time-per-decision", "--engines", "--engine-timeout", "--depth", "--exploration"}
    kinds = {}
    for name, command in main.commands.items():
        shown = {o for p in command.params if isinstance(p, click.Option) and not p.hidden
                 for o in p.opts}
        assert not shown & old, (name, shown & old)
        for p in command.params:
            if isinstance(p, click.Option) and not p.hidden:
                for o in p.opts:
                    kind = (type(p.type).__name__, getattr(p.type, "min", None),
                            getattr(p.type, "max", None), p.multiple if o != "--engine" else None)
                    kinds.setdefault(o, {}).setdefault(kind, []).append(name)
    assert list(kinds["--time"]) == [("FiniteFloat", 0.001, 86400.0, False)], kinds["--time"]
    for word in ("--seed", "--workers", "--out", "--force", "--json", "--iterations",
                 "--external", "--external-timeout", "--cluster", "--quiet", "--resume"):
        assert word in kinds, word
        assert len(kinds[word]) == 1, (word, kinds[word])
        assert len(next(iter(kinds[word].values()))) >= 2, (word, kinds[word])
    externals = {n for n, c in main.commands.items()
                 if any("--external" in p.opts for p in c.params if isinstance(p, click.Option))}
    assert externals == {"arena", "selfplay"}
    assert "--you" in {o for p in main.commands["play"].params for o in getattr(p, "opts", ())}


def test_no_help_text_uses_an_old_spelling():
    """The commands' help says the words of today (an engine spec counts worlds with
    `iterations=`, never `worlds=`)."""
    for name in main.commands:
        res = run(name, "--help")
        assert res.exit_code == 0
        for old in ("worlds=", "--time-per-decision", "--engines", "--engine-timeout"):
            assert old not in res.output, (name, old)
