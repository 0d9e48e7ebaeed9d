"""Every message for bad input, in one place: exit 2 and the exact one line on standard error.
`$P` stands for a legal position string."""
import json
import shlex

import pytest
from click.testing import CliRunner

from bergen_search import __version__
from bergen_search.cli import main
from bergen_search.search.registry import names

#: The engines a message lists, from the registry (a new engine changes them with no edit here).
KNOWN_ENGINES = ", ".join(("random", "greedy") + names())
ALGORITHM_CHOICES = ", ".join(f"'{n}'" for n in names())

P = "bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14"

#: (the command line, standard input or None, the one line it must print)
BAD_INPUTS = [
    ('best -', 'NaN', 'bergen: standard input: bad JSON: NaN is not a JSON number'),
    ('best -', '{"a": Infinity}',
     'bergen: standard input: bad JSON: Infinity is not a JSON number'),
    ('best -', '', 'bergen: standard input: the game is empty'),
    ('eval -', '   ', 'bergen: standard input: the game is empty'),
    ('show -', '', 'bergen: standard input: the game is empty'),
    ('replay -', '', 'bergen replay: standard input: the record is empty'),
    ('analyze -', '\n',
     'bergen: standard input: the record is empty'),
    ('replay -', '{"a": 1, "a": 2}',
     "bergen replay: standard input: bad JSON: duplicate key 'a' in a JSON object"),
    ('replay -', '[1,',
     'bergen replay: standard input: bad JSON at line 1, column 4: expecting value'),
    ('replay -', '{} {}',
     'bergen replay: standard input: bad JSON at line 1, column 4: extra data after the first '
     'JSON value (a .jsonl file holds one record per line)'),
    # a record over several lines, then more: where the more is, not its first line's "{"
    ('analyze -', '{\n  "format": "bergen-record/1"\n}\nx',
     'bergen: standard input: bad JSON at line 4, column 1: extra data after the first JSON '
     'value (a .jsonl file holds one record per line)'),
    ("best --hand 0-3 --rules ' '", None, 'bergen: --rules: the value is empty'),
    ("best --hand 0-3 --rules '{'", None,
     'bergen: --rules: bad JSON at line 1, column 2: expecting property name enclosed in double '
     'quotes'),
    ("best --hand 0-3 --rules '[1]'", None, 'bergen: --rules must be a JSON object, got a list'),
    ("best --hand 0-3 --voids '{'", None,
     'bergen: --voids: bad JSON at line 1, column 2: expecting property name enclosed in double '
     'quotes'),
    ("best --hand 0-3 --voids ' '", None, 'bergen: --voids: the value is empty'),
    ('best $P --set exploration=abc', None, "bergen: exploration must be a number, got 'abc'"),
    ('best $P --algorithm expectimax --set depth=x', None,
     "bergen: depth must be an integer, got 'x'"),
    ('best $P --set inference=maybe', None, "bergen: inference must be on or off, got 'maybe'"),
    ('best $P --set twins=maybe', None, "bergen: twins must be on or off, got 'maybe'"),
    ('best $P --set playout=nope', None,
     "bergen: playout must be one of random, scoring, safe, got 'nope'"),
    ('best $P --set foo=1', None,
     "bergen: ismcts has no setting 'foo' (settings: exploration, playout, inference, twins, "
     "choose, endgame, bracket, replicates, stats, root, settle)"),
    ('best $P --set nokey', None, "bergen: --set needs KEY=VALUE, got 'nokey'"),
    ('selfplay --engine ismcts:iterations=x', None,
     "bergen: engine 'ismcts': iterations must be an integer, got 'x'"),
    ('selfplay --engine ismcts:exploration=x', None,
     "bergen: engine 'ismcts': exploration must be a number, got 'x'"),
    ('selfplay --engine ismcts:time=-1', None,
     "bergen: engine 'ismcts': time must be positive and at most 86,400 seconds, got '-1'"),
    ('selfplay --engine ismcts:bogus=1', None,
     "bergen: engine 'ismcts': bad setting 'bogus=1' (settings: iterations, time, objective, "
     "workers, memory, exploration, playout, inference, twins, choose, endgame, bracket, "
     "replicates, "
     "stats, root, settle)"),
    ('selfplay --engine nonsense', None,
     f"bergen: unknown engine 'nonsense' (known: {KNOWN_ENGINES}; or a NAME registered "
     f"with --external NAME=COMMAND)"),
    ('selfplay --engine random,random,random', None,
     'bergen: --engine gives 3 engines for 2 seats (give one for all seats or one per seat)'),
    ('best examples/match.json', None,
     'bergen: examples/match.json: round 4: the record ends when the match is over: it describes no position and no '
     'decision'),
    ("best 'bergen1/2'", None,
     'bergen: position string: it has 2 parts, but needs at least 6 '
     '(TAG/RULES/SCORES/TO-MOVE/HAND/LINE); the scores part is missing'),
    ("best 'bergen1/2/4,7/0'", None,
     'bergen: position string: it has 4 parts, but needs at least 6 '
     '(TAG/RULES/SCORES/TO-MOVE/HAND/LINE); the hand part is missing'),
    ('best --position nonsense', None,
     "bergen: --position: a position string starts with 'bergen1/', got 'nonsense'"),
    ("best 'bergen9/2/4,7/0/0-3/1-1'", None,
     'bergen: position string: version bergen9 is not known (this program reads bergen1)'),
    ('best --hand 0-3 --scores 1', None, 'bergen: --scores: expected 2 scores, got 1'),
    ('best --hand 0-3 --scores a,b', None,
     "bergen: --scores: expected scores as integers separated by commas like '4,7', got 'a,b'"),
    ('best --hand 0-3 --scores 1,,2', None,     # (an empty entry had been dropped: 1-2)
     "bergen: --scores: expected scores as integers separated by commas like '4,7', got '1,,2', "
     "with an empty entry"),
    ('best --hand 0-3 --hand-sizes 1', None, 'bergen: --hand-sizes: expected 2 hand sizes, got 1'),
    ('best --hand 0-3 --hand-sizes ,4,5,', None,
     "bergen: --hand-sizes: expected hand sizes as integers separated by commas like '4,7', got "
     "',4,5,', with an empty entry"),
    ('best --hand 0-3 --hand-sizes 2,x', None,
     "bergen: --hand-sizes: expected hand sizes as integers separated by commas like '4,7', got "
     "'2,x'"),
    ('best --hand zz', None, "bergen: --hand: bad tile 'zz': expected 'a-b' with digits 0..6"),
    ('best --hand 0-3 --line q', None,
     "bergen: --line: bad tile 'q': expected 'a-b' with digits 0..6"),
    ('best --hand 0-3 --line 0-3', None,
     'bergen: --hand: tile 0-3 is both in the hand and on the line'),
    ('best --hand 0-3 --reserve-size x', None,
     "bergen best: Invalid value for '--reserve-size': 'x' is not a valid integer. (see 'bergen "
     "best --help')"),
    ('selfplay --resume', None,
     "bergen selfplay: --resume needs --out: the journal lives beside the output file (see "
     "'bergen selfplay --help')"),
    ('arena random random --resume', None,
     "bergen arena: --resume needs --out: the journal lives beside the output file (see 'bergen "
     "arena --help')"),
    ('analyze examples/match.json --resume', None,
     "bergen analyze: --resume needs --out or --html: the journal lives beside the output file "
     "(see 'bergen analyze --help')"),
    ('selfplay --start-scores 1', None,
     "bergen: --start-scores must be 2 non-negative integers, got '1'"),
    ('selfplay --start-scores a,b', None,
     "bergen: --start-scores must be 2 integers separated by commas, got 'a,b'"),
    ('selfplay --start-scores 20,0', None,
     'bergen: --start-scores: a side already has the target 15'),
    ('selfplay --target -1', None, "bergen: rule 'target' must be 1..10000, got -1"),
    ('selfplay --hand-size 99', None,
     "bergen: rule 'hand_size' 99 does not fit: 2 hands of 99 and 2 kept tiles exceed 28"),
    ('selfplay --hand-size 0', None,      # (had said that 2 hands of 0 exceed 28)
     "bergen: rule 'hand_size' must be at least 1, got 0"),
    ('selfplay --rules \'{"players": 9}\'', None,
     "bergen: rule 'players' must be 2, 3 or 4, got 9"),
    ('selfplay --rules \'{"bogus": 1}\'', None,
     "bergen: unknown rule 'bogus' (known: blocked, draw, endgame_cap, hand_size, lead, "
     "no_double, out_bonus, partnerships, players, reserve_kept, target)"),
    ('selfplay --rules @/nonexistent', None,
     'bergen: cannot read /nonexistent: No such file or directory'),
    ('best /nonexistent', None, 'bergen: cannot read /nonexistent: No such file or directory'),
    ('analyze -', '{}', "bergen: standard input: a record has no 'format' field"),
    ('analyze -', '[]', 'bergen: standard input: a record must be a JSON object, got a list'),
    ('replay -', '{"format": "bergen-record/1"}',
     "bergen replay: standard input: a record has no 'rounds' field"),
    ('replay -', '{"format": "nope"}',
     "bergen replay: standard input: field 'format': expected 'bergen-record/1', got 'nope'"),
    ('replay examples/position.json', None,
     "bergen replay: examples/position.json: field 'format': this is a bergen-position/1 (a "
     "position, with no history); replay needs a record (bergen-record/1: the game as it "
     "happened)"),
    ('show -', '{"format": "bergen-position/1"}',
     "bergen: standard input: the 'to_move' field is missing: a position needs 'to_move', 'hand', 'hand_sizes', "
     "'reserve_size'"),
    ('analyze examples/match.json --inaccuracy 2 --mistake 1', None,
     "bergen analyze: thresholds must satisfy inaccuracy <= mistake <= blunder (see 'bergen "
     "analyze --help')"),
    # ---- more options, files that cannot be written --------------------------------------
    ("show 'bergen1/2/0,0/0/0-0,1-3,2-6,3-3,4-5,5-6/-'", None,   # (had said: no decision to search)
     "bergen: the round has not been led: before the lead the seat to move knows its own hand "
     "only, every other tile as likely anywhere (bergen best and eval value the hand before "
     "the lead)"),
    ('analyze examples/partial.json --seat 1', None,      # (had printed an empty table, 0)
     "bergen analyze: Invalid value for --seat: the record hides seat 1's hand in every "
     "round: none of its plays can be judged (see 'bergen analyze --help')"),
    ('analyze examples/match.json --seat 3', None,
     "bergen analyze: Invalid value for --seat: seat 3 does not exist with 2 players (see "
     "'bergen analyze --help')"),
    ('play --engine bogus', None,
     f"bergen: unknown engine 'bogus' (known: {KNOWN_ENGINES})"),
    ('best --hand 0-3 --to-move 9', None,
     "bergen: --to-move: 'to_move' must be a seat 0..1 with 2 players, got 9"),
    ('best examples', None, 'bergen: cannot read examples: Is a directory'),
    ('selfplay --out /nonexistent/dir/x.jsonl', None,
     "bergen selfplay: Invalid value for --out: cannot write /nonexistent/dir/x.jsonl: no "
     "folder /nonexistent/dir (see 'bergen selfplay --help')"),
    ('analyze examples/match.json --html /nonexistent/x.html', None,
     "bergen analyze: Invalid value for --html: cannot write /nonexistent/x.html: no folder "
     "/nonexistent (see 'bergen analyze --help')"),
    ('best $P --algorithm nope', None,
     f"bergen best: Invalid value for '--algorithm': 'nope' is not one of "
     f"{ALGORITHM_CHOICES}. (see 'bergen best --help')"),
    ('eval $P --set nokey', None, "bergen: --set needs KEY=VALUE, got 'nokey'"),
    ('best $P --set playout=safe --set playout=random', None,      # (the last had won)
     "bergen: --set playout is given twice ('safe' and 'random'): give it once"),
    ('selfplay --engine ismcts:iterations=5,iterations=6', None,
     "bergen: engine 'ismcts': iterations is given twice: give it once"),
    ("show --hand 0-3 --voids '[1]'", None,
     'bergen: \'voids\' must be an object like {"1": [1, 4]}, got a list'),
    ('best examples/decision.json --iterations', None,      # (had pointed to 'bergen --help')
     "bergen best: Option '--iterations' requires an argument. (see 'bergen best --help')"),
    ('replay examples/match.json --json --bogus', None,
     "bergen replay: No such option '--bogus'. (see 'bergen replay --help')"),
    ('selfplay --engine ismcts:iterations=0', None,
     "bergen: engine 'ismcts': iterations must be at least 1 and at most 1,000,000,000, got '0'"),
    ('best $P --set exploration=-1', None,
     "bergen: exploration must be a finite number >= 0, got '-1'"),
    # ---- the budget and the options click checks ----------------------------------------
    ("best $P --time nan", None,
     "bergen best: Invalid value for '--time': 'nan' is not a finite number "
     "(see 'bergen best --help')"),
    ("best $P --hand 0-3", None,
     "bergen best: give either GAME or the position flags, not both (got GAME and --hand) "
     "(see 'bergen best --help')"),
    ("best $P --position $P", None,
     "bergen best: give either GAME or --position, not both (see 'bergen best --help')"),
    ("best --position $P --hand 0-1", None,
     "bergen best: give either GAME or the position flags, not both (got GAME and --hand) "
     "(see 'bergen best --help')"),
    ("best $P --players 3", None,
     "bergen best: the rules of a GAME come from the game; rule flags go with the position "
     "flags (see 'bergen best --help')"),
    # no slash: not a position string, and no such file
    ("best bergen1", None, "bergen: cannot read bergen1: No such file or directory"),
    ("play --you 3", None,
     "bergen play: Invalid value for --you: seat 3 does not exist with 2 players "
     "(see 'bergen play --help')"),
    ("play --out examples/match.json", None,
     "bergen play: Invalid value for --out: examples/match.json exists: give --force to "
     "replace it, or another --out (see 'bergen play --help')"),
    # ---- a document's version: any string is read, nothing else ----------------------------
    ('replay -', '{"format": "bergen-record/1", "version": 15, "rounds": []}',
     "bergen replay: standard input: 'version' must be the version string of the program that "
     "wrote the document, got a number"),
    ('best -', json.dumps(dict(json.load(open("examples/position.json")), version=15)),
     "bergen: standard input: 'version' must be the version string of the program that wrote "
     "the document, got a number"),
    # ---- old spellings: one word for one thing (none is in a --help: test_docs) -------------
    ('analyze examples/match.json --iterations 40 --time-per-decision 60', None,
     "bergen analyze: No such option '--time-per-decision'. (see 'bergen analyze --help')"),
    ('selfplay --engines greedy,random', None,
     "bergen selfplay: No such option '--engines'. (Did you mean one of: '--engine', "
     "'--games'?) (see 'bergen selfplay --help')"),
    ('best $P --algorithm expectimax --depth 2', None,
     "bergen best: No such option '--depth'. Did you mean '--set'? (see 'bergen best --help')"),
    ('eval $P --exploration 0.5', None,
     "bergen eval: No such option '--exploration'. (Did you mean one of: '--iterations', "
     "'--position'?) (see 'bergen eval --help')"),
    ('arena greedy random --engine-timeout 5', None,
     "bergen arena: No such option '--engine-timeout'. (Did you mean one of: "
     "'--cluster-timeout', '--external-timeout'?) (see 'bergen arena --help')"),
    ("arena greedy random --engine 'old=bergen engine'", None,
     "bergen arena: No such option '--engine'. (see 'bergen arena --help')"),
    ('play --engine greedy --seat 1', None,
     "bergen play: No such option '--seat'. (Did you mean one of: '--lead', '--seed'?) "
     "(see 'bergen play --help')"),
    ('selfplay --engine expectimax:worlds=3,depth=2', None,
     "bergen: engine 'expectimax': bad setting 'worlds=3' (settings: iterations, time, "
     "objective, workers, memory, depth, playouts, work, inference)"),
    ("selfplay --engine 'ext=bergen engine' --engine ext:iterations=50,greedy", None,
     "bergen selfplay: Invalid value for --engine: ext=COMMAND registers an engine in another "
     "process: give it to --external, and its name to --engine (see 'bergen selfplay --help')"),
]


def _run(command, stdin):
    args = [a.replace("$P", P) for a in shlex.split(command)]
    return CliRunner().invoke(main, args, input=stdin, prog_name="bergen")


#: A subject said twice, or words that do not read: in no message.
STUTTERS = ("bad JSON: bad JSON", "bad the ", "needs a int", "needs a float",
            "ends with the match", "scores is missing", "to-move is missing",
            "field 'cluster': --cluster", "field 'rules': --rules", "--rules: bad --rules",
            "line 1: bad JSON at line 1")


@pytest.mark.parametrize("command, stdin, message", BAD_INPUTS,
                         ids=[f"{i}:{c[:40]}" for i, (c, _, _) in enumerate(BAD_INPUTS)])
def test_bad_input_is_one_sentence_and_exit_2(command, stdin, message):
    res = _run(command, stdin)
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    assert res.stderr == message + "\n"
    assert not [bad for bad in STUTTERS if bad in message], message


def test_replay_json_of_a_missing_file_prints_its_document_too():
    """--json: the refusal as a document on standard output, as for an illegal record."""
    res = _run("replay --json no-such-file.json", None)
    assert res.exit_code == 2 and res.stderr == ("bergen: cannot read no-such-file.json: No "
                                                 "such file or directory\n")
    assert json.loads(res.stdout) == {"ok": False, "error": "cannot read no-such-file.json: No "
                                      "such file or directory", "round": None, "event": None,
                                      "field": None, "version": __version__}


def test_bergen_alone_prints_its_help_as_it_is():
    res = _run("", None)
    assert res.exit_code == 2 and res.stderr.startswith("Usage: bergen [OPTIONS] COMMAND")
    assert "(see 'bergen --help')" not in res.stderr and "Commands:" in res.stderr


def test_the_cluster_option_is_named_once():
    pytest.importorskip("distributed")
    res = _run("selfplay --cluster nonsense", None)
    assert res.exit_code == 2
    assert res.stderr == ("bergen: --cluster: 'nonsense' is not a scheduler address like "
                          "tcp://HOST:8786 (missing port number in address 'nonsense')\n")


def test_bench_says_what_an_unsolved_percentile_is(monkeypatch):
    """`bench` says a time the limit cut is `over 1 s (unsolved)`, never `-`."""
    out = {"core": {"playouts/s": 1000.0}, "reference": {"playouts/s": 10.0},
           "speedup": {"playouts/s": 100.0}, "search": {},
           "endgame": {"positions": 10, "solved": 8, "median_s": 0.05, "p90_s": None,
                       "worst_solved_s": 0.7, "within_0.1s": 0.6, "within_1s": 0.8,
                       "largest_deals_solved": 4620, "limit_s": 1.0},
           "signature": {"ismcts": 123}}
    monkeypatch.setattr("bergen_search.cli.bench.run_bench", lambda *a, **k: out)
    res = _run("bench --quick", None)
    assert res.exit_code == 0, res.output
    line = next(x for x in res.stdout.splitlines() if x.startswith("exact endgame"))
    assert line == ("exact endgame: 10 stage decisions of greedy self-play attempted as the "
                    "engine does at 1 s: median 50 ms, 90th percentile over 1 s (unsolved), "
                    "worst solved 700 ms; solved within 100 ms 60%, within 1 s 80%; largest "
                    "solved 4620 deals")
    out["endgame"].update(median_s=None, worst_solved_s=None, largest_deals_solved=None,
                          solved=0)
    line = next(x for x in _run("bench --quick", None).stdout.splitlines()
                if x.startswith("exact endgame"))
    assert ("median over 1 s (unsolved), 90th percentile over 1 s (unsolved), none solved; "
            in line and line.endswith("largest solved none"))


def test_one_match_is_a_match():
    res = CliRunner().invoke(main, ["selfplay", "--quiet"], prog_name="bergen")
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith("1 match in ") and "wins by side: " in res.stderr


@pytest.mark.parametrize("command, message", [
    ("best FILE", "FILE: the game is empty"),       # the game's reader (show's, eval's)
    ("replay FILE", "FILE: the record is empty"),   # the records' (analyze's)
    ("selfplay --rules @FILE", "--rules FILE: the file is empty"),    # every --rules @FILE
])
def test_an_empty_file_is_one_sentence_as_a_file_of_spaces_is(command, message, tmp_path):
    """An empty file says what a file of spaces (and an empty standard input: above) says."""
    for name, content in (("empty.json", ""), ("spaces.json", "  \n")):
        path = tmp_path / name
        path.write_text(content)
        args = [str(path) if a == "FILE" else "@" + str(path) if a == "@FILE" else a
                for a in shlex.split(command)]
        res = CliRunner().invoke(main, args, input="", prog_name="bergen")
        assert res.exit_code == 2, res.output
        assert res.stdout == ""
        prefix = "bergen replay: " if command.startswith("replay") else "bergen: "
        assert res.stderr == prefix + message.replace("FILE", str(path)) + "\n"


def test_a_round_is_numbered_in_a_message_as_the_listings_number_it(tmp_path):
    """Every command's error numbers the round as the listings do (from 1), events from 0."""
    rec = json.load(open("examples/match.json"))
    listing = CliRunner().invoke(main, ["replay", "examples/match.json"]).stdout.splitlines()
    second = listing.index(next(x for x in listing if x.startswith("round 2 ")))
    assert listing[second + 2].split()[:4] == ["1", "seat", "1", "2-3:L"]
    rec["rounds"][1]["events"][1] = {"seat": 1, "play": "6-6:L"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    for command in ("replay", "analyze", "best", "show", "eval"):
        res = CliRunner().invoke(main, [command, str(bad)], prog_name="bergen")
        assert res.exit_code == 2
        assert res.stderr.endswith(f"{bad}: round 2, event 1, field 'play': 6-6 does not fit "
                                   f"the left end (ends 2 and 2)\n"), res.stderr
    doc = json.loads(CliRunner().invoke(main, ["replay", "--json", str(bad)]).stdout)
    assert (doc["round"], doc["event"]) == (1, 1)       # JSON: the record's indices
