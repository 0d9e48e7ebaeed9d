"""Every command without the compiled core: with `BERGEN_PURE_PYTHON=1` ("pure") and with the
compiled modules hidden by an import hook ("hidden"), it works, prints the backend line on
standard error, says `"backend": "reference"` and gives the core's answer for the same seed and
budget, at default budgets divided by `backend.FALLBACK_DIVISOR`; expectimax is refused in one
line. The default run plays a table of commands in one process per mode; `analyze`, `arena`,
`selfplay` and `engine` are behind `slow`."""
import importlib
import json
import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
import support
from support import COMPILED, require_compiled

from bergen_search.analysis.review import DECISION_ITERATIONS
from bergen_search.search import backend
from bergen_search.search.registry import algorithms

ROOT = Path(__file__).resolve().parents[1]
DECISION = str(ROOT / "examples" / "decision.json")
PARTIAL = str(ROOT / "examples" / "partial.json")
#: Hides every compiled module of bergen_search (their import fails, as when nothing was built).
HIDE = """
import sys
from importlib.abc import MetaPathFinder
COMPILED = set(%r)
class Hidden(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("bergen_search.") and name.split(".", 1)[1] in COMPILED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hidden())
""" % (COMPILED,)
#: Runs the `bergen` command, the compiled modules hidden.
HIDDEN = HIDE + """
from bergen_search.cli import main
sys.argv[0] = "bergen"
main()
"""
#: Runs each command of the JSON table argv[1] (its arguments, its input) in this process and
#: prints the table of (exit status, stdout, stderr); argv[2] "hide" hides the compiled modules.
TABLE = """
import json, sys
if sys.argv[2] == "hide":
    exec(%r)
from click.testing import CliRunner
from bergen_search.cli import main
run = [CliRunner().invoke(main, a, input=i, prog_name="bergen") for a, i in json.loads(sys.argv[1])]
print(json.dumps([(r.exit_code, r.stdout, r.stderr) for r in run]))
""" % (HIDE,)
NOTE = "bergen: searching in pure Python ("
MODES = ("pure", "hidden")


def test_the_compiled_modules_the_tests_require_are_the_pyx_files():
    """conftest.py requires, and HIDE hides, one compiled module per .pyx file (support.COMPILED,
    read from them), all built."""
    assert {"game._core", "search.endgame._endgame", "play._luck"} <= set(COMPILED)
    if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
        return
    import bergen_search
    folder = Path(bergen_search.__file__).parent
    built = {".".join(f.relative_to(folder).parts[:-1] + (f.name.split(".")[0],))
             for f in folder.rglob("*") if any(f.name.endswith(s) for s in EXTENSION_SUFFIXES)}
    assert built == set(COMPILED)
    for name in COMPILED:
        assert require_compiled(importlib.import_module(f"bergen_search.{name}"), name)


def command(mode):
    """(command, environment) of `bergen` in a mode: "core", "pure" or "hidden"."""
    env = {k: v for k, v in os.environ.items() if k != "BERGEN_PURE_PYTHON"}
    if mode == "pure":
        env["BERGEN_PURE_PYTHON"] = "1"
    head = [sys.executable, "-c", HIDDEN] if mode == "hidden" else [sys.executable, "-m",
                                                                    "bergen_search"]
    return head, env


def backend_line(stderr, mode):
    """The one backend line of standard error, checked for the mode's reason."""
    lines = [x for x in stderr.splitlines() if x.startswith(NOTE)]
    assert len(lines) == 1, stderr
    why = "BERGEN_PURE_PYTHON=1" if mode == "pure" else "the compiled core is not built"
    assert why in lines[0], lines[0]
    return lines[0]


def without_timing(doc: dict) -> dict:
    """The document but what differs by backend: the time, the backend, and the exact endgame
    (the pure-Python fallback does not try it, its solver being a hundred times slower)."""
    return {k: v for k, v in doc.items() if k not in ("seconds", "backend", "endgame")}


#: The budget of the comparisons with the core: 150 runs the pure-Python tree through every
#: phase (expansion, playouts, the replicates' merge).
BEST = ["best", DECISION, "--iterations", "150", "--set", "replicates=2"]
#: The default run's commands, by name: (arguments, input, the modes that run it).
COMMANDS = {
    "best": (BEST + ["--json"], None, ("core", "pure", "hidden")),
    "text": (BEST + ["--verbose"], None, ("core", "pure")),
    # one replicate: its final pass in pure Python is most of the cost
    "eval": (["eval", DECISION, "--iterations", "60", "--set", "replicates=1", "--json"], None,
             ("hidden",)),
    "expectimax": (["best", DECISION, "--algorithm", "expectimax"], None, ("pure", "hidden")),
    "greedy": (["selfplay", "--games", "1", "--engine", "greedy"], None, ("hidden",)),
    "play": (["play", "--seed", "3", "--out", "{tmp}/game.json"], "hint\nquit\n", ("hidden",)),
    "bench": (["bench", "--quick", "--seconds", "0.01", "--json"], None, ("hidden",)),
}


def run_table(mode, table) -> list:
    """(status, stdout, stderr) of each (arguments, input) of `table`: the core's in this
    process, another mode's in one process of its own."""
    if mode == "core":
        return [(r.exit_code, r.stdout, r.stderr) for r in (support.bergen(*a, input=i)
                                                             for a, i in table)]
    _, env = command(mode)
    proc = subprocess.run([sys.executable, "-c", TABLE, json.dumps(table),
                           "hide" if mode == "hidden" else "no"], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """ran(mode, name): (status, stdout, stderr) of COMMANDS[name], a mode's in one process."""
    from bergen_search.search.engines.ismcts import _ismcts
    require_compiled(_ismcts, "bergen_search.search.engines.ismcts._ismcts")
    tmp, out = str(tmp_path_factory.mktemp("fallback")), {}

    def get(mode, name):
        if mode not in out:
            names = [n for n, (_, _, modes) in COMMANDS.items() if mode in modes]
            table = [([a.format(tmp=tmp) for a in COMMANDS[n][0]], COMMANDS[n][1]) for n in names]
            out[mode] = dict(zip(names, run_table(mode, table)))
        return out[mode][name]
    get.tmp = tmp
    return get


@pytest.mark.parametrize("mode", MODES)
def test_best_gives_the_core_answer(mode, ran):
    (code, stdout, stderr), (_, core, core_err) = ran(mode, "best"), ran("core", "best")
    assert code == 0 and NOTE not in core_err, stderr
    backend_line(stderr, mode)
    doc, core = json.loads(stdout), json.loads(core)
    assert doc["backend"] == "reference" and core["backend"] == "core"
    assert without_timing(doc) == without_timing(core)
    assert doc["endgame"] == {"solved": False, "why": "the exact endgame needs the compiled core"}
    assert "too big" in core["endgame"]["why"]


def test_text_output_is_the_core_output(ran):
    """The table of `best` without --json: the core's lines, the header aside."""
    (core_code, core, _), (pure_code, pure, _) = ran("core", "text"), ran("pure", "text")
    assert core_code == pure_code == 0

    def table(out):
        # (the bracket, as the exact endgame, is the compiled core's; the footer says
        # which backend ran)
        keep, lines = [], out.splitlines()
        bracket = False
        for x in lines:
            if x.startswith(("floor: ", "  (certified", "ismcts, ", "exact: ")):
                continue
            if x.startswith("bracket: "):
                bracket = True
            elif bracket and not x.startswith("  "):
                bracket = False
            if not bracket:
                keep.append(x)
        return keep
    assert table(core) == table(pure)
    assert ("exact: not solved, the exact endgame needs the compiled core; ismcts instead"
            in pure.splitlines())
    assert "pure Python" not in core


def test_eval_play_bench_and_a_run_without_a_search(ran):
    code, stdout, stderr = ran("hidden", "eval")
    assert code == 0, stderr
    backend_line(stderr, "hidden")
    doc = json.loads(stdout)
    assert doc["backend"] == "reference" and doc["iterations"] == 60 and len(doc["sides"]) == 2
    code, stdout, stderr = ran("hidden", "play")
    assert code == 0, stderr
    backend_line(stderr, "hidden")
    budget = 20000 // backend.FALLBACK_DIVISOR
    assert stdout.startswith(f"Bergen against ismcts:iterations={budget};"), stdout
    assert "hint: " in stdout
    assert json.loads(Path(ran.tmp, "game.json").read_text())["format"]
    code, stdout, stderr = ran("hidden", "bench")
    assert code == 0, stderr
    doc = json.loads(stdout)
    assert doc["core"] == {} and doc["reference"]["ismcts_iterations_per_s"] > 0
    assert doc["signature"]["ismcts_nodes"] is None
    assert doc["signature"]["sampler_checksum"] == 4168      # the core's (docs/MEASUREMENTS.md)
    code, _, stderr = ran("hidden", "greedy")
    assert code == 0 and NOTE not in stderr, stderr
    assert "(reference)" in stderr        # the rules ran on the reference too


@pytest.mark.parametrize("mode", MODES)
def test_expectimax_needs_the_core(mode, ran):
    code, _, stderr = ran(mode, "expectimax")
    assert code == 2
    errors = [x for x in stderr.splitlines() if not x.startswith(NOTE)]
    assert len(errors) == 1 and "expectimax needs the compiled core" in errors[0], stderr
    assert "Traceback" not in stderr


#: The slow run's commands, each mode's in one process: `best` at its default budget, and
#: analyze, arena and selfplay with a search engine (all but `best` compared with the core).
SLOW = {"best": ["best", DECISION],
        "analyze": ["analyze", PARTIAL, "--iterations", "60", "--set", "replicates=2", "--quiet",
                    "--json"],
        "arena": ["arena", "classic:iterations=25", "greedy", "--games", "2", "--round",
                  "--no-luck-adjust", "--seed", "4", "--json"],
        "selfplay": ["selfplay", "--games", "1", "--seed", "5", "--engine",
                     "ismcts:iterations=40,replicates=2,greedy"]}


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_best_at_its_default_budget_and_the_runs_give_the_core_answer(require_compiled, mode):
    """best at the fallback's budget, said; the same analysis, arena figures and selfplay
    records as the core, byte for byte."""
    table = [(args, None) for args in SLOW.values()]
    there = dict(zip(SLOW, run_table(mode, table)))
    here = dict(zip(SLOW, [None] + run_table("core", table[1:])))
    for code, _, stderr in there.values():
        assert code == 0, stderr
        backend_line(stderr, mode)
    _, stdout, stderr = there["best"]
    assert f"default budgets are 1/{backend.FALLBACK_DIVISOR} of the core's" in backend_line(
        stderr, mode)
    budget = algorithms()["ismcts"].default_budget // backend.FALLBACK_DIVISOR
    header = [x for x in stdout.splitlines() if x.startswith("ismcts, ")]
    assert header and f"{budget} iterations" in header[0] and header[0].endswith(
        "seed 0, pure Python; ± from 8 independent trees"), stdout
    assert stdout.splitlines()[0].startswith("best: ")
    a, b = json.loads(here["analyze"][1]), json.loads(there["analyze"][1])
    assert (a["settings"].pop("backend"), b["settings"].pop("backend")) == ("core", "reference")
    assert without_timing(a) == without_timing(b)
    a, b = json.loads(here["arena"][1]), json.loads(there["arena"][1])
    assert (a["backend"], b["backend"]) == ("core", "reference")
    drop = ("seconds", "backend", "seconds_per_search", "searches")
    assert {k: v for k, v in a.items() if k not in drop} == \
        {k: v for k, v in b.items() if k not in drop}
    assert here["selfplay"][1] == there["selfplay"][1] and here["selfplay"][1].strip()


def test_analyze_default_budget_is_the_fallback_one(monkeypatch):
    """At the fallback's default budget, on partial.json cut after its first decision (one
    search of a thousand iterations in pure Python instead of four)."""
    from bergen_search.analysis import review as analysis
    from bergen_search.formats.record_io import load_records
    ref = backend.reference_search("test")
    assert ref.budget(DECISION_ITERATIONS) == DECISION_ITERATIONS // backend.FALLBACK_DIVISOR
    monkeypatch.setattr(backend, "SEARCH", ref)
    doc = json.loads(Path(PARTIAL).read_text())
    del doc["rounds"][0]["events"][5:]          # seat 0's first decision is event 4
    record = load_records(json.dumps(doc))[0]
    result = analysis.analyze(record, seed=0, settings=analysis.Settings.of("classic"),
                              max_rechecks=0)
    assert result.settings["iterations"] == DECISION_ITERATIONS // backend.FALLBACK_DIVISOR
    assert result.settings["backend"] == "reference" and len(result.decisions) == 1


@pytest.mark.slow
def test_engine(require_compiled, mode="pure"):
    """Through the engine's client: `hello` names the backend and its default budgets, and
    `bestmove` is the core's."""
    from bergen_search.protocol.client import EngineProcess
    from bergen_search.search.api import Limits
    game = Path(DECISION).read_text()
    answers = {}
    for name in ("core", mode):
        head, env = command(name)
        with EngineProcess.start(head + ["engine"], env=env, cwd=ROOT, timeout=60) as engine:
            answers[name] = engine.hello(), engine.analyse(game, Limits(iterations=300), seed=2)
    (hello_core, a), (hello, b) = answers["core"], answers[mode]
    assert (hello_core["backend"], hello["backend"]) == ("core", "reference")
    assert hello["algorithms"]["ismcts"]["default_budget"] == \
        algorithms()["ismcts"].default_budget // backend.FALLBACK_DIVISOR
    assert (a["backend"], b["backend"]) == ("core", "reference")
    assert without_timing(a) == without_timing(b) and b["iterations"] == 300
