"""`bergen best`, `eval`, `analyze` and `bench` through the command line: reproducibility,
the time limit, bad input, planted errors."""
import json

import pytest
from support import bergen as run

from bergen_search.formats.record import parse_record
from bergen_search.formats.record_io import write_record
from bergen_search.formats.replay import walk
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import move_str
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines

DECISION = "examples/decision.json"


def _json(res):
    """The document without the seconds (its own and its bracket's: the clock's)."""
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    out.pop("seconds", None)
    out.get("endgame", {}).get("bracket", {}).pop("seconds", None)
    return out


def test_best_is_reproducible_byte_for_byte():
    """(Each engine's same bytes for the same seed: test_engine_contract.py; here the command
    with two workers.)"""
    args = ["--iterations", "4000", "--workers", "2", "--seed", "3"]
    a, b = (_json(run("best", DECISION, "--json", *args)) for _ in range(2))
    assert a == b and a["iterations"] == int(args[args.index("--iterations") + 1])
    assert a["moves"][0]["move"] == a["best"]
    assert {"to_move", "best", "moves", "objective", "algorithm", "iterations", "seed"} <= set(a)


def test_best_agrees_with_exhaustive_expectimax_on_the_example():
    """Exhaustive expectimax on decision.json ranks 0-2 first, as the default engine."""
    exact = _json(run("best", DECISION, "--json", "--algorithm", "expectimax", "--set", "depth=30"))
    assert exact["exact"] and exact["best"] in ("0-2:L", "0-2:R")


def test_best_time_limit_is_honoured(virtual_clock):
    """On a virtual clock `--time 0.3` stops near 0.3 s, and the same seed repeats."""
    step = 1 / 4096
    virtual_clock(step)
    runs = []
    for _ in range(2):
        out = json.loads(run("best", DECISION, "--json", "--time", "0.3").output)
        assert out["seconds"] < 0.3 + 16 * step
        assert out["iterations"] > 0
        runs.append(out)
    assert runs[0] == runs[1]


def _planted_record(seed=0):
    """A game cut right after a seat passed up a triple for a play that scored nothing."""
    rules = Rules()
    for g in range(200):
        log = play_engines(rules, parse_engine_list("greedy", 2), derive_seed(seed, g))
        rec = write_record(log)
        for item in walk(rec):
            if item.round != 0 or not item.before.led:
                continue
            st = item.before
            moves = st.legal_moves()
            values = {m: st.apply(m).scores[st.rules.side_of(st.to_move)]
                      - st.scores[st.rules.side_of(st.to_move)] for m in moves}
            if max(values.values()) == 3 and min(values.values()) == 0 and len(moves) > 1:
                bad = next(m for m in moves if values[m] == 0)
                rec["rounds"] = rec["rounds"][:1]
                ev = rec["rounds"][0]["events"]
                del ev[item.event:]
                ev.append({"seat": st.to_move, "play": move_str(bad)})
                return rec, st.to_move, len(ev) - 1
    raise AssertionError("no position with a triple found")


def test_analyze_labels_a_planted_blunder():
    rec, seat, event = _planted_record()
    out = _json(run("analyze", "-", "--json", "--iterations", "3000", "--quiet",
                    input=json.dumps(rec)))
    dec = next(d for d in out["decisions"] if d["event"] == event and d["round"] == 0)
    assert dec["seat"] == seat and dec["label"] in ("mistake", "blunder")
    assert dec["loss"] > 1.5
    assert {"round", "event", "seat", "played", "best", "loss", "label", "values"} <= set(dec)
    summary = {s["seat"]: s for s in out["summary"]}
    assert summary[seat]["mistakes"] + summary[seat]["blunders"] >= 1
    # FORMATS.md: a label is claimed where the decision is not borderline, and only those count
    for sm in out["summary"]:
        mine = [d for d in out["decisions"] if d["seat"] == sm["seat"]]
        for key, label in (("inaccuracies", "inaccuracy"), ("mistakes", "mistake"),
                           ("blunders", "blunder")):
            assert sm[key] == sum(d["label"] == label and not d["borderline"] for d in mine)
        assert sm["borderline"] == sum(d["borderline"] for d in mine)


def test_analyze_of_a_strong_self_play_has_few_labels():
    """At most a tenth of a strong self-play's decisions labelled (random's: 2 of 13, too many)."""
    rules = Rules(target=8)
    log = play_engines(rules, parse_engine_list("ismcts:iterations=2000", 2), derive_seed(1, 0))
    out = _json(run("analyze", "-", "--json", "--iterations", "1000", "--quiet",
                    input=json.dumps(write_record(log))))
    labelled = [d for d in out["decisions"] if d["label"] in ("mistake", "blunder")]
    assert len(out["decisions"]) >= 5
    assert len(labelled) <= max(1, len(out["decisions"]) // 10)


def test_analyze_a_file_of_matches():
    """Matches in a .jsonl are analysed as alone, summed by seat, under one progress over every
    record's decisions; a bad one named."""
    from bergen_search.analysis.review import analyze, analyze_all, count_decisions
    from bergen_search.search.api import Limits
    rules = Rules(target=3)         # two one-round matches, 9 decisions
    recs = [write_record(play_engines(rules, parse_engine_list("greedy,random", 2),
                                      derive_seed(4, g))) for g in range(2)]
    lines = [json.dumps(rec) for rec in recs]
    args = ["--json", "--iterations", "300", "--quiet", "--seed", "2"]
    alone = [_json(run("analyze", "-", *args, input=line)) for line in lines]
    both = _json(run("analyze", "-", *args, input="\n".join(lines) + "\n"))
    assert [d["match"] for d in both["decisions"]] == (
        [0] * len(alone[0]["decisions"]) + [1] * len(alone[1]["decisions"]))
    assert [{k: v for k, v in d.items() if k != "match"} for d in both["decisions"]] == (
        alone[0]["decisions"] + alone[1]["decisions"])
    assert [m["summary"] for m in both["matches"]] == [a["summary"] for a in alone]
    for sm in both["summary"]:
        parts = [s for a in alone for s in a["summary"] if s["seat"] == sm["seat"]]
        for key in ("decisions", "forced", "inaccuracies", "mistakes", "blunders"):
            assert sm[key] == sum(p[key] for p in parts)
        assert sm["total_loss"] == pytest.approx(sum(p["total_loss"] for p in parts), abs=1e-3)
    human = run("analyze", "-", "--iterations", "300", "--quiet", input="\n".join(lines))
    assert human.exit_code == 0 and "=== match 2 of 2" in human.output
    assert "=== all 2 matches" in human.output
    bad = json.loads(lines[1])
    bad["rounds"][0]["events"][3] = {"seat": 1, "play": "6-6:L"}
    res = run("analyze", "-", "--quiet", input=lines[0] + "\n" + json.dumps(bad))
    assert res.exit_code == 2 and "record 2: round 1, event 3" in res.output
    calls = []
    kw = dict(limits=Limits(iterations=200), seed=1, recheck=1)
    results = analyze_all(recs, progress=lambda d, t: calls.append((d, t)), **kw)
    total = sum(count_decisions(parse_record(r)) for r in recs)
    assert [d for d, _ in calls] == list(range(1, total + 1))
    assert {t for _, t in calls} == {total}
    assert [res.to_json() for res in results] == [analyze(r, **kw).to_json() for r in recs]


def test_bench_signature_is_stable():
    from bergen_search.play.bench import signature
    a = signature()
    # The known signature: it changes only when the sampler or a search changes (then update
    # it here and in docs/MEASUREMENTS.md and docs/GUIDE.md, in the same commit, saying why).
    assert a == {"sampler_checksum": 4168, "ismcts_nodes": 67340,
                 "ismcts_default_nodes": 61756, "expectimax_nodes": 7649,
                 "endgame_nodes": 9851, "endgame_iterations": 64}


def test_the_endgames_solve_time_summary_has_one_rule():
    """The solve-time summary: unsolved slowest, nearest-rank quantiles, shares within."""
    from bergen_search.play.bench import solve_time_summary
    inf = float("inf")
    out = solve_time_summary([0.2, 0.05, inf, 2.0, 0.5], within=(0.1, 1.0))
    assert out == {"positions": 5, "solved": 4, "median_s": 0.5, "p90_s": None,
                   "worst_solved_s": 2.0, "within_0.1s": 0.2, "within_1s": 0.6}
    assert solve_time_summary([0.3, 0.1, 0.2, 0.4], within=(0.25,)) == {
        "positions": 4, "solved": 4, "median_s": 0.3, "p90_s": 0.4, "worst_solved_s": 0.4,
        "within_0.25s": 0.5}
    assert solve_time_summary([inf], within=(1.0,)) == {
        "positions": 1, "solved": 0, "median_s": None, "p90_s": None, "worst_solved_s": None,
        "within_1s": 0.0}
    assert solve_time_summary([], within=(1.0,)) == {
        "positions": 0, "solved": 0, "median_s": None, "p90_s": None, "worst_solved_s": None,
        "within_1s": None}


def test_best_algorithms_settings_and_presets():
    """`classic` is the default with its settings off; --set sets them; the JSON says which."""
    classic = _json(run("best", DECISION, "--json", "--algorithm", "classic", "--iterations",
                        "2000", "--seed", "4"))
    by_set = _json(run("best", DECISION, "--json", "--iterations", "2000", "--seed", "4",
                       "--set", "inference=off", "--set", "playout=random", "--set",
                       "twins=off", "--set", "choose=visits", "--set", "endgame=off",
                       "--set", "bracket=off", "--set", "replicates=1", "--set", "stats=all", "--set", "root=ucb",
                       "--set", "settle=off"))
    assert classic["settings"] == by_set["settings"] == {
        "exploration": 0.7, "playout": "random", "inference": "off", "twins": False,
        "choose": "visits", "endgame": False, "bracket": False, "replicates": 1, "stats": "all",
        "root": "ucb", "settle": "off"}
    assert classic["moves"] == by_set["moves"]
    default = _json(run("best", DECISION, "--json", "--iterations", "2000", "--seed", "4"))
    assert default["settings"] == {"exploration": 0.7, "playout": "safe", "inference": "on",
                                   "twins": True, "choose": "value", "endgame": True,
                                   "bracket": True,
                                   "replicates": 8, "stats": "choices", "root": "halving",
                                   "settle": "best"}
    assert default["moves"] != classic["moves"]
    text = run("best", DECISION, "--iterations", "2000", "--algorithm", "classic",
               "--verbose").output
    assert "settings: exploration 0.7, playout random, inference off, twins off, " \
        "choose visits, endgame off, bracket off, replicates 1, stats all, root ucb" in text
    assert "\nclassic, 2000 iterations, " in text
    assert "2-2:L/R" not in text and "2-2:R" in text


# ---- the verdict first, and a sign of life on a terminal ----------------------------------
def _on_a_terminal(args, env):
    """(what a terminal shows, exit status) of the console script run on a pseudo-terminal."""
    import os
    import pty

    from support import console_script
    script = console_script()
    if script is None:
        pytest.skip("the console script is not installed")
    pid, fd = pty.fork()
    if pid == 0:                                       # the child: the command on the pty
        os.execve(script, [script, *args], env)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:                                # EIO: the child closed the pty
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return out.decode(), os.waitstatus_to_exitcode(status)


@pytest.mark.parametrize("command", ["best", pytest.param("eval", marks=pytest.mark.slow)])
def test_the_verdict_comes_first_and_a_terminal_sees_progress(command):
    """The answer first; a progress line on a terminal, wiped; none off one (in-process).
    (`eval`, whose progress line is `best`'s, behind slow.)"""
    import os
    args = [command, DECISION, "--iterations", "16000"]
    env = dict(os.environ, BERGEN_PROGRESS_AFTER="0")
    shown, status = _on_a_terminal(args, env)
    assert status == 0, shown
    assert "searching" in shown or "evaluating" in shown
    wiped, _, answer = shown.rpartition("\r\x1b[K")
    assert wiped and "\x1b" not in answer and "\r" not in answer.replace("\r\n", "")
    first = answer.splitlines()[0]
    assert first.startswith("best: 0-2:L/R   +4.181 ± 0.620" if command == "best"
                            else "value +4.181 ± 0.620"), first
    piped = run(*args)
    assert piped.exit_code == 0 and piped.stderr == ""
    assert piped.stdout.splitlines()[0] == first


def test_best_fits_one_screen_and_says_more_when_asked(one_search):
    """decision.json's answer fits about 20 lines (GUIDE.md's example, run by test_doc_examples,
    is its text); `--verbose` says more."""
    out = run("best", DECISION, "--iterations", "20000").output
    lines = out.rstrip().splitlines()
    assert len(lines) <= 20 and lines[0].startswith("best: ")     # the lines: GUIDE.md's
    assert "ceiling" not in out and "settings:" not in out and "exact: not solved" not in out
    verbose = run("best", DECISION, "--iterations", "20000", "--verbose").output
    no_clock = lambda text: [x for x in text.splitlines() if " s, seed " not in x]
    assert no_clock(verbose)[:len(no_clock(out))] == no_clock(out)
    assert "settings: exploration 0.7" in verbose and "exact: not solved" in verbose
    assert "ceiling if shown" in verbose and "a bound\n  of the other game only" in verbose


def test_the_match_objective_prints_chances_as_chances(one_search, tmp_path):
    """With `--objective match` chances print as percentages; --json keeps 0..1."""
    import re
    args = ["examples/decision.json", "--objective", "match", "--iterations", "2000"]
    best = run("best", *args)
    assert best.exit_code == 0, best.output
    head = best.stdout.splitlines()[0]
    assert re.fullmatch(r"best: \S+   \d+\.\d% ± \d+\.\d   \(side 0's chance to win the match; "
                        r"± and differences in percentage points\)", head), head
    rows = [x for x in best.stdout.splitlines()[3:] if re.match(r"  \d-\d", x)]
    assert rows and all(re.match(r"  \S+ +\d+\.\d% +\d+\.\d   ", x) for x in rows), rows
    assert all(re.search(r"   (best|[+-]\d+\.\d ± \d+\.\d)", x) for x in rows), rows
    doc = json.loads(run("best", *args, "--json").stdout)         # the same search
    assert 0 <= doc["value"] <= 1 and f"{100 * doc['value']:.1f}%" in head
    ev = run("eval", *args).stdout.splitlines()[0]
    assert re.match(r"value \d+\.\d% ± \d+\.\d   \(side 0's chance to win the match; ± in "
                    r"percentage points; best ", ev), ev
    points = run("best", "examples/decision.json", "--iterations", "2000").stdout
    assert re.match(r"best: \S+   [+-]\d+\.\d{3} ± \d+\.\d{3}   \(points", points)
    out = tmp_path / "m.html"
    # (seat 0 alone: its decisions print as every seat's, for a third of the work)
    analysis = ["analyze", "examples/match.json", "--objective", "match", "--iterations", "300",
                "--seat", "0", "--quiet"]
    text = run(*analysis).stdout
    assert run(*analysis, "--html", out).exit_code == 0           # the same analysis
    judged = [x for x in text.splitlines() if "(loss " in x]
    assert judged and all(re.search(r": \S+ \d+\.\d%, .*\d+\.\d% .*\(loss \d+\.\d+ ± "
                                    r"\d+\.\d+ pp", x) for x in judged), judged
    assert "thresholds 3/7/15 pp" in text and "percentage points" in text
    page = out.read_text(encoding="utf-8")
    said = re.findall(r'played <span class="move">[^<]+</span> ([^;]+); best '
                      r'<span class="move">[^<]+</span> ([^;]+); loss ([^,]+),', page)
    assert said and all(re.fullmatch(r"\d+\.\d%", a) and re.fullmatch(r"\d+\.\d%", b)
                        and re.fullmatch(r"\d+\.\d ± \d+\.\d pp", c) for a, b, c in said), said
    assert re.search(r'<td class="total_loss" data-value="[^"]+">\d+\.\d<', page)


# ---- the order of the moves (issue 48) -----------------------------------------------------
def test_rank_puts_a_move_never_measured_after_every_measured_one():
    """`rank` puts an unmeasured move last; a move valued by the pass alone by value."""
    from bergen_search.search.results import rank
    rows = [(0, 0, 0.0, float("inf")), (2, 5, -1.5, 0.2), (4, 3, -0.5, 0.3),
            (6, 0, 2.0, 0.1)]
    ranked = rank(rows, {}, False, samples={6: [1.9, 2.1]})
    assert [m.code for m in ranked] == [6, 4, 2, 0]
    assert [m.measured for m in ranked] == [True, True, True, False]
    assert [m.code for m in rank(rows, {}, True)] == [2, 4, 6, 0]
    assert [m.code for m in rank(rows, {}, False, measured=(0,))] == [0, 4, 2, 6]


def test_trees_of_one_iteration_value_every_move_best_first():
    """`best --json` values every move, best first, as the text prints them."""
    doc = _json(run("best", DECISION, "--iterations", "8", "--json"))
    values = [m["value"] for m in doc["moves"]]
    assert None not in values and values == sorted(values, reverse=True)
    assert any(m["visits"] == 0 for m in doc["moves"])
    assert doc["moves"][0]["move"] == doc["best"] and doc["moves"][0]["value"] == doc["value"]
    text = run("best", DECISION, "--iterations", "8").output
    assert text.startswith(f"best: {doc['best'].split(':')[0]}:L/R   {doc['value']:+.3f}")
