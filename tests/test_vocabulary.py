"""One vocabulary of options: the same word for the same thing in every command (`--time`,
`--engine`, `--external`, `--seat`, `iterations=`, `--set`); old spellings refused in one line
(and absent from every --help: test_docs.test_every_help_points_to_docs)."""
import click
import pytest
from support import bergen as run

from bergen_search.cli import main

DECISION = "examples/decision.json"
MATCH = "examples/match.json"
#: The old spellings, gone.
OLD = {"--time-per-decision", "--engines", "--engine-timeout", "--depth", "--exploration"}


@pytest.mark.parametrize("args,says", [
    (["analyze", MATCH, "--iterations", "40", "--time-per-decision", "60"],
     "No such option '--time-per-decision'"),
    (["selfplay", "--engines", "greedy,random"], "No such option '--engines'"),
    (["best", DECISION, "--algorithm", "expectimax", "--depth", "2"], "No such option '--depth'"),
    (["eval", DECISION, "--exploration", "0.5"], "No such option '--exploration'"),
    (["arena", "greedy", "random", "--engine-timeout", "5"],
     "No such option '--engine-timeout'"),
    (["arena", "greedy", "random", "--engine", "old=bergen engine"],
     "No such option '--engine'"),
    (["play", "--engine", "greedy", "--seat", "1"], "No such option '--seat'"),
    (["selfplay", "--engine", "expectimax:worlds=3,depth=2"],
     "engine 'expectimax': bad setting 'worlds=3' (settings: iterations,"),
    (["selfplay", "--engine", "ext=bergen engine", "--engine", "ext:iterations=50,greedy"],
     "ext=COMMAND registers an engine in another process: give it to --external"),
])
def test_an_old_spelling_is_refused_in_one_line(args, says):
    """Each old spelling is bad input: one line on standard error, exit 2."""
    res = run(*args)
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], res.stderr


def test_play_calls_your_seat_you(tmp_path):
    res = run("play", "--engine", "greedy", "--you", "1", "--seed", "3", "--out",
              tmp_path / "a.json", input="quit\n")
    assert res.exit_code == 0
    assert "you are seat 1" in res.stdout


def test_the_words_mean_one_thing():
    """No old spelling is taken; a word several commands take is one kind of value in each."""
    kinds = {}
    for name, command in main.commands.items():
        taken = {o for p in command.params if isinstance(p, click.Option) for o in p.opts}
        assert not taken & OLD, (name, taken & OLD)
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
