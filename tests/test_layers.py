"""The package's layers, as pyproject.toml's import-linter contracts state them, shown to bite
(a copy with one import planted against each is refused); the compiled modules held to the
same layers; and the size of the rooms."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "bergen_search")


def lint(cwd: str, pythonpath: str) -> subprocess.CompletedProcess:
    """`lint-imports` (no cache) on pyproject.toml's contracts in `cwd`, the package on
    `pythonpath`."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    code = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def importlinter():
    return pytest.importorskip("importlinter", reason="the test extra installs import-linter")


def test_the_contracts_are_kept(importlinter):
    run = lint(ROOT, ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 kept, 0 broken" in run.stdout, run.stdout


#: (the module, the import planted in it, the contract it breaks, what the report must say
#: under that contract: the planted import itself, at its line)
PLANTED = [
    ("game/state.py", "from ..search import api", "Each layer imports only the layers below it",
     "bergen_search.game.state -> bergen_search.search.api (l.{n})"),
    ("play/arena.py", "from ..analysis import review",
     "Each layer imports only the layers below it",
     "bergen_search.play.arena -> bergen_search.analysis.review (l.{n})"),
    ("search/engines/flat.py", "from . import ismcts",
     "Each search engine is one module that imports no other engine",
     "bergen_search.search.engines.flat -> bergen_search.search.engines.ismcts (l.{n})"),
    ("protocol/client.py", "from . import server",
     "The engine's client talks to the engine's process, not to its code",
     "bergen_search.protocol.client -> bergen_search.protocol.server (l.{n})"),
    ("search/endgame/deals.py", "from . import reference",
     "Only its engine (as the fallback) and the bench import a pure-Python twin",
     "bergen_search.search.endgame.deals -> bergen_search.search.endgame.reference (l.{n})"),
    ("formats/notation.py", "from . import position",
     "No package's modules import each other in a circle",
     "No cycles are allowed in bergen_search.formats. It could be made acyclic by removing 1 "
     "dependency: - .notation -> .position (1 import)"),
]


def test_a_planted_import_is_refused(importlinter, tmp_path):
    """A copy of the package (sources only) and pyproject.toml with an import planted against
    each contract, linted once: every contract is broken, and each one's section of the report
    names the import planted against it, at its line."""
    shutil.copytree(PACKAGE, tmp_path / "bergen_search",
                    ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path)
    wanted: dict = {}
    for path, line, broken, named in PLANTED:
        target = tmp_path / "bergen_search" / path
        text = target.read_text(encoding="utf-8") + "\n" + line + "\n"
        target.write_text(text, encoding="utf-8")
        wanted.setdefault(broken, []).append(named.format(n=len(text.splitlines())))
    run = lint(str(tmp_path), str(tmp_path))
    assert run.returncode != 0 and "0 kept, 5 broken" in run.stdout, run.stdout
    report = " ".join(run.stdout.split("Broken contracts", 1)[1].split())
    parts = re.split(" (%s) -+ " % "|".join(map(re.escape, wanted)), report)
    sections = dict(zip(parts[1::2], parts[2::2]))
    for broken, named in wanted.items():
        assert all(n in sections[broken] for n in named), (broken, run.stdout)


def test_no_code_decides_by_an_error_message_text():
    """Control flow by an exception's type and fields, never by matching its words."""
    import pathlib

    import bergen_search
    root = pathlib.Path(bergen_search.__file__).parent
    pattern = re.compile(r'"[^"]*" (not )?in (str\((e|err|exc|error)\)|(e|err|exc|error)\.message)')
    sources = sorted(root.rglob("*.py")) + sorted(root.parent.glob("src_cython/**/*.pyx"))
    found = [(p.name, line.strip()) for p in sources
             for line in p.read_text(encoding="utf-8").splitlines() if pattern.search(line)]
    # Python's own ValueError for an integer of thousands of digits has no type of its own.
    assert found == [("jsondoc.py", 'if "digits" in str(e):')]


# ---- the compiled modules inside the layers ---------------------------------------------------
# import-linter cannot read Cython: a compiled module's layer is its source's package
# (src_cython mirrors the package), and its imports and cimports (read from the .pyx and .pxd)
# are held to the layers contract, a compiled engine to the engines contract.
SRC = os.path.join(ROOT, "src_cython", "bergen_search")
ENGINES = "bergen_search.search.engines"


def _layers() -> list:
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["id"] == "layers")["layers"]
    return [[m.strip() for m in layer.split("|")] for layer in layers]


def _compiled_imports(text: str) -> list:
    """The bergen_search modules a Cython source imports or cimports."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"(?:from\s+(bergen_search[\w.]*)\s+c?import\b|c?import\s+(bergen_search[\w.]*))",
                     line)
        if m:
            found.append(m.group(1) or m.group(2))
    return found


def _where(module: str, layers: list):
    """(layer index from the top, member) of a module; None for the package itself."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    member = f"bergen_search.{parts[1]}"
    for i, layer in enumerate(layers):
        if member in layer:
            return i, member
    raise AssertionError(f"{module} is in no layer of pyproject.toml")


def _engine(module: str):
    """The engine a module belongs to (`bergen_search.search.engines.ismcts`), or None."""
    if not module.startswith(ENGINES + "."):
        return None
    return ".".join(module.split(".")[:4])


def compiled_breaches(sources: dict) -> list:
    """Each import in `sources` ({module: its .pyx and .pxd text}) that the contracts refuse: up
    the layers, across peers of one layer, or from one engine into another."""
    layers = _layers()
    out = []
    for module, text in sources.items():
        own, own_member = _where(module, layers)
        for target in _compiled_imports(text):
            where = _where(target, layers)
            if where is None:
                continue
            layer, member = where
            if layer < own or (layer == own and member != own_member):
                out.append(f"{module} imports {target}")
            elif _engine(module) and _engine(target) and _engine(target) != _engine(module):
                out.append(f"{module} imports {target}")
    return out


def _compiled_sources() -> dict:
    out: dict = {}
    for folder, _, files in os.walk(SRC):
        for f in sorted(files):
            if f.endswith((".pyx", ".pxd")):
                rel = os.path.relpath(os.path.join(folder, f[:-4]), SRC).replace(os.sep, ".")
                text = open(os.path.join(folder, f), encoding="utf-8").read()
                out[f"bergen_search.{rel}"] = out.get(f"bergen_search.{rel}", "") + "\n" + text
    return out


def test_every_compiled_module_keeps_to_its_layer():
    sources = _compiled_sources()
    assert "bergen_search.game._core" in sources and len(sources) == 8, sorted(sources)
    assert compiled_breaches(sources) == []
    assert "bergen_search.game.match" in _compiled_imports(sources["bergen_search.game._core"])


@pytest.mark.parametrize("module, line", [
    ("game._core", "from bergen_search.search.api import search"),
    ("information._sampler", "from bergen_search.search.engines.ismcts._ismcts cimport Tree"),
    ("play._luck", "from bergen_search.analysis import review"),
    ("search.engines.ismcts._ismcts",
     "from bergen_search.search.engines.expectimax._expectimax cimport ExpectimaxSearch"),
])
def test_a_planted_compiled_import_is_refused(module, line):
    sources = _compiled_sources()
    sources[f"bergen_search.{module}"] += "\n" + line + "\n"
    assert compiled_breaches(sources) == [f"bergen_search.{module} imports {line.split()[1]}"]


def test_no_engine_reaches_another_through_the_registry():
    """`algorithms()["endgame"]` in an engine would go around the engines contract."""
    folder = os.path.join(PACKAGE, "search", "engines")
    found = [os.path.join(d, n) for d, _, files in os.walk(folder) for n in sorted(files)
             if n.endswith(".py") and re.search(r"algorithms\(\)\s*\[", open(
                 os.path.join(d, n), encoding="utf-8").read())]
    assert found == []


# ---- the size of the rooms ---------------------------------------------------------------------
#: No module over 700 lines, no function over 100, none with more than 6 positional parameters
#: (`self`, `cls` aside; the compiled modules' `def`s too). OVER lists a room over the bar at
#: its size (a ratchet, with a reason).
MAX_MODULE, MAX_FUNCTION, MAX_POSITIONAL = 700, 100, 6
OVER: dict = {}


def _rooms():
    """({module or module:function: lines}, [functions with too many positional parameters])."""
    import ast
    sizes, positional = {}, []
    for folder, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, PACKAGE).replace(os.sep, "/")
            text = open(path, encoding="utf-8").read()
            sizes[rel] = len(text.splitlines())
            for node in ast.walk(ast.parse(text)):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    continue
                where = f"{rel} {getattr(node, 'name', 'lambda')}"
                names = [a.arg for a in node.args.posonlyargs + node.args.args]
                if names[:1] in (["self"], ["cls"]):
                    names = names[1:]
                if len(names) > MAX_POSITIONAL:
                    positional.append(f"{where}:{node.lineno} ({len(names)})")
                if not isinstance(node, ast.Lambda):
                    key = f"{rel}:{node.name}"
                    sizes[key] = max(sizes.get(key, 0), node.end_lineno - node.lineno + 1)
    return sizes, positional


def _compiled_positional() -> list:
    """The compiled modules' Python-callable functions (`def`, `cpdef`) with more than
    MAX_POSITIONAL parameters before a `*`."""
    import re
    out = []
    for module, text in _compiled_sources().items():
        for m in re.finditer(r"^[ \t]*(?:def|cpdef)[ \t]+(?:\w+[ \t]+)?(\w+)\((.*?)\):", text,
                             re.S | re.M):
            names = []
            for part in m.group(2).split(","):
                part = part.split("=")[0].strip()
                if part == "*" or part.startswith("*"):
                    break
                if part:
                    names.append(part.split()[-1])
            if names[:1] in (["self"], ["cls"]):
                names = names[1:]
            if len(names) > MAX_POSITIONAL:
                out.append(f"{module} {m.group(1)} ({len(names)})")
    return out


def test_no_room_outgrows_the_bar():
    sizes, positional = _rooms()
    assert positional == [] and _compiled_positional() == []
    over = {k: n for k, n in sizes.items()
            if n > (MAX_FUNCTION if ":" in k else MAX_MODULE)}
    grown = {k: (n, OVER.get(k)) for k, n in over.items() if n > OVER.get(k, 0)}
    assert grown == {}, "split it, or (when it shrank) lower its entry in OVER"
    # an entry that no longer applies goes, so that the list says what is left to do
    assert set(OVER) <= set(over), set(OVER) - set(over)
