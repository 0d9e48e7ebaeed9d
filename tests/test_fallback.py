"""Every command without the compiled core: the pure-Python searches (`ismcts_ref`), slowly,
saying so.

Each command runs in a subprocess three ways: on the core; with `BERGEN_PURE_PYTHON=1`; and
with the compiled modules hidden by an import hook (their import fails, as when nothing was
built). Without the core it must work, print the backend line on standard error, say
`"backend": "reference"` in its JSON, and give the core's answer for the same seed and
budget; its default budgets are the core's divided by `backend.FALLBACK_DIVISOR`, and
expectimax, which has no pure-Python twin, is refused in one line (exit 2).

`analyze`, `arena` with `selfplay`, and `engine` (a few seconds each) are behind the `slow`
marker, which CI runs (`python -m pytest tests -m slow`).
"""
import importlib
import json
import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from support import COMPILED, require_compiled

from bergen_search.analysis.review import DECISION_ITERATIONS
from bergen_search.search import backend
from bergen_search.search.registry import algorithms

ROOT = Path(__file__).resolve().parents[1]
DECISION = str(ROOT / "examples" / "decision.json")
PARTIAL = str(ROOT / "examples" / "partial.json")
#: Runs the `bergen` command with every compiled module of bergen_search failing to import.
HIDDEN = """
import sys
from importlib.abc import MetaPathFinder
COMPILED = set(%r)
class Hidden(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("bergen_search.") and name.split(".", 1)[1] in COMPILED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hidden())
from bergen_search.cli import main
sys.argv[0] = "bergen"
main()
""" % (COMPILED,)
NOTE = "bergen: searching in pure Python ("
MODES = ("pure", "hidden")


def test_the_compiled_modules_the_tests_require_are_the_pyx_files():
    """conftest.py requires, and HIDDEN hides, one compiled module per .pyx file (support's
    COMPILED, read from src_cython/): each is built beside the bergen_search the tests import,
    and nothing else compiled is there, so that a module whose build failed stops the run
    instead of skipping its tests."""
    src = ROOT / "src_cython" / "bergen_search"
    pyx = sorted(".".join(p.relative_to(src).with_suffix("").parts) for p in src.rglob("*.pyx"))
    assert list(COMPILED) == pyx
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
    """(command, environment) of `bergen` on the core ("core"), with BERGEN_PURE_PYTHON=1
    ("pure") or with the compiled modules hidden ("hidden")."""
    env = {k: v for k, v in os.environ.items() if k != "BERGEN_PURE_PYTHON"}
    if mode == "pure":
        env["BERGEN_PURE_PYTHON"] = "1"
    head = [sys.executable, "-c", HIDDEN] if mode == "hidden" else [sys.executable, "-m",
                                                                    "bergen_search"]
    return head, env


def bergen(mode, *args, stdin=None):
    """`bergen args` in a subprocess, in a mode of `command`."""
    head, env = command(mode)
    return subprocess.run(head + list(args), input=stdin, capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)


def backend_line(proc, mode):
    """The one backend line of standard error, checked for the mode's reason."""
    lines = [x for x in proc.stderr.splitlines() if x.startswith(NOTE)]
    assert len(lines) == 1, proc.stderr
    why = "BERGEN_PURE_PYTHON=1" if mode == "pure" else "the compiled core is not built"
    assert why in lines[0], lines[0]
    return lines[0]


def without_timing(doc: dict) -> dict:
    """The document but what differs by backend: the time, the backend, and why the exact
    endgame did not solve (the core tries it; the pure-Python fallback does not, its solver
    being about 100 times slower: a test oracle, endgame_ref.py)."""
    return {k: v for k, v in doc.items() if k not in ("seconds", "backend", "endgame")}


#: The budget of the comparisons with the core: the same answer at any budget, and 150 runs
#: the pure-Python tree through every phase (expansion, playouts, the replicates' merge).
BUDGET = "150"


@pytest.fixture(scope="module")
def core_best():
    from bergen_search.search.engines.ismcts import _ismcts
    require_compiled(_ismcts, "bergen_search.search.engines.ismcts._ismcts")
    proc = bergen("core", "best", DECISION, "--iterations", BUDGET, "--set", "replicates=2",
                  "--json")
    assert proc.returncode == 0 and NOTE not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("mode", MODES)
def test_best_gives_the_core_answer(mode, core_best):
    proc = bergen(mode, "best", DECISION, "--iterations", BUDGET, "--set", "replicates=2",
                  "--json")
    assert proc.returncode == 0, proc.stderr
    backend_line(proc, mode)
    doc = json.loads(proc.stdout)
    assert doc["backend"] == "reference" and core_best["backend"] == "core"
    assert without_timing(doc) == without_timing(core_best)
    assert doc["endgame"] == {"solved": False, "why": "the exact endgame needs the compiled core"}
    assert "too big" in core_best["endgame"]["why"]


@pytest.mark.slow
def test_best_at_its_default_budget_with_the_core_removed():
    """`bergen best examples/decision.json` with the compiled modules unimportable: it works,
    at the fallback's default budget, and says so."""
    proc = bergen("hidden", "best", DECISION)
    assert proc.returncode == 0, proc.stderr
    line = backend_line(proc, "hidden")
    assert f"default budgets are 1/{backend.FALLBACK_DIVISOR} of the core's" in line
    budget = algorithms()["ismcts"].default_budget // backend.FALLBACK_DIVISOR
    header = [x for x in proc.stdout.splitlines() if x.startswith("ismcts, ")]
    assert header and f"{budget} iterations" in header[0] and header[0].endswith(
        "seed 0, pure Python; ± from 8 independent trees"), proc.stdout
    assert proc.stdout.splitlines()[0].startswith("best: ")


def test_text_output_is_the_core_output(require_compiled):
    """The table of `best` without --json: the core's lines, the header aside."""
    from bergen_search.search.engines.ismcts import _ismcts
    require_compiled(_ismcts, "bergen_search.search.engines.ismcts._ismcts")
    core = bergen("core", "best", DECISION, "--iterations", BUDGET, "--set", "replicates=2",
                  "--verbose")
    pure = bergen("pure", "best", DECISION, "--iterations", BUDGET, "--set", "replicates=2",
                  "--verbose")
    assert core.returncode == pure.returncode == 0

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
    assert table(core.stdout) == table(pure.stdout)
    assert ("exact: not solved, the exact endgame needs the compiled core; ismcts instead"
            in pure.stdout.splitlines())
    assert "pure Python" not in core.stdout


def test_eval(mode="hidden"):
    # One replicate: its final pass (PASS_MIN worlds played out, in pure Python) is most of
    # the cost; two replicates and their spread are test_best_gives_the_core_answer's.
    proc = bergen(mode, "eval", DECISION, "--iterations", "60", "--set", "replicates=1",
                  "--json")
    assert proc.returncode == 0, proc.stderr
    backend_line(proc, mode)
    doc = json.loads(proc.stdout)
    assert doc["backend"] == "reference" and doc["iterations"] == 60
    assert len(doc["sides"]) == 2


@pytest.mark.parametrize("mode", MODES)
def test_expectimax_needs_the_core(mode):
    proc = bergen(mode, "best", DECISION, "--algorithm", "expectimax")
    assert proc.returncode == 2
    errors = [x for x in proc.stderr.splitlines() if not x.startswith(NOTE)]
    assert len(errors) == 1 and "expectimax needs the compiled core" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_analyze(require_compiled):
    args = ("analyze", PARTIAL, "--iterations", "60", "--set", "replicates=2", "--quiet",
            "--json")
    core, pure = bergen("core", *args), bergen("hidden", *args)
    assert core.returncode == pure.returncode == 0, pure.stderr
    backend_line(pure, "hidden")
    a, b = json.loads(core.stdout), json.loads(pure.stdout)
    assert (a["settings"].pop("backend"), b["settings"].pop("backend")) == ("core", "reference")
    assert without_timing(a) == without_timing(b)


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
def test_arena_and_selfplay_with_a_search_engine(require_compiled, mode="pure"):
    """The same arena figures and the same selfplay records as the core, byte for byte."""
    arena = ("arena", "classic:iterations=25", "greedy", "--games", "2", "--round",
             "--no-luck-adjust", "--seed", "4", "--json")
    core, pure = bergen("core", *arena), bergen(mode, *arena)
    assert core.returncode == pure.returncode == 0, pure.stderr
    backend_line(pure, mode)
    a, b = json.loads(core.stdout), json.loads(pure.stdout)
    assert (a["backend"], b["backend"]) == ("core", "reference")
    drop = ("seconds", "backend", "seconds_per_search", "searches")
    assert {k: v for k, v in a.items() if k not in drop} == \
        {k: v for k, v in b.items() if k not in drop}
    selfplay = ("selfplay", "--games", "1", "--seed", "5", "--engine",
                "ismcts:iterations=40,replicates=2,greedy")
    core, pure = bergen("core", *selfplay), bergen(mode, *selfplay)
    assert core.returncode == pure.returncode == 0, pure.stderr
    backend_line(pure, mode)
    assert core.stdout == pure.stdout and core.stdout.strip()


def test_no_backend_line_without_a_search(mode="hidden"):
    proc = bergen(mode, "selfplay", "--games", "1", "--engine", "greedy")
    assert proc.returncode == 0 and NOTE not in proc.stderr, proc.stderr
    assert "(reference)" in proc.stderr        # the rules ran on the reference too


def test_play(tmp_path, mode="hidden"):
    out = tmp_path / "game.json"
    proc = bergen(mode, "play", "--seed", "3", "--out", str(out), stdin="hint\nquit\n")
    assert proc.returncode == 0, proc.stderr
    backend_line(proc, mode)
    budget = 20000 // backend.FALLBACK_DIVISOR
    assert proc.stdout.startswith(f"Bergen against ismcts:iterations={budget};"), proc.stdout
    assert "hint: " in proc.stdout and json.loads(out.read_text())["format"]


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


def test_bench_without_the_core():
    proc = bergen("hidden", "bench", "--quick", "--seconds", "0.01", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["core"] == {} and doc["reference"]["ismcts_iterations_per_s"] > 0
    assert doc["signature"]["ismcts_nodes"] is None
    assert doc["signature"]["sampler_checksum"] == 4168      # the core's (docs/MEASUREMENTS.md)
