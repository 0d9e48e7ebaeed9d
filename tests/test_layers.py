"""The package's layers, as pyproject.toml's import-linter contracts state them: each layer
imports only those below it, the search engines import none of each other, the client knows
the engine only through its process, and no package's modules import each other in a circle.

The contracts are also shown to bite: a copy of the package with one import planted against
each of them is refused, naming the import.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "bergen_search")


def lint(cwd: str, pythonpath: str) -> subprocess.CompletedProcess:
    """`lint-imports` on pyproject.toml's contracts, in `cwd`, the package found on
    `pythonpath` (no cache: each run reads the code as it is)."""
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
    assert "4 kept, 0 broken" in run.stdout, run.stdout


def _planted(tmp_path, path: str, line: str):
    """A copy of the package (sources only) and pyproject.toml with `line` added to `path`."""
    shutil.copytree(PACKAGE, tmp_path / "bergen_search",
                    ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path)
    target = tmp_path / "bergen_search" / path
    target.write_text(target.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")
    return lint(str(tmp_path), str(tmp_path))


@pytest.mark.parametrize("path, line, broken", [
    # the rules engine asking the search: an import up the layers
    ("game/state.py", "from ..search import api", "Each layer imports only the layers below it"),
    # one door importing another's view of the world from below: analysis and play are peers
    ("play/arena.py", "from ..analysis import review",
     "Each layer imports only the layers below it"),
    # an engine reaching into another engine
    ("search/algorithms/flat.py", "from . import ismcts",
     "Each search engine is one module that imports no other engine"),
    # the client reading the server's code instead of talking to its process
    ("protocol/client.py", "from . import server",
     "The engine's client talks to the engine's process, not to its code"),
    # two modules of one package importing each other
    ("formats/notation.py", "from . import position",
     "No package's modules import each other in a circle"),
])
def test_a_planted_import_is_refused(importlinter, tmp_path, path, line, broken):
    run = _planted(tmp_path, path, line)
    assert run.returncode != 0, run.stdout
    assert f"{broken} BROKEN" in run.stdout, run.stdout


def test_no_code_decides_by_an_error_message_text():
    """Control flow by an exception's type and fields (`TooBig.interrupted`,
    `JSONError.extra_data`, `NotApplicable`), never by matching its words: a reworded message
    would silently change what the program does."""
    import pathlib
    import re

    import bergen_search
    root = pathlib.Path(bergen_search.__file__).parent
    pattern = re.compile(r'"[^"]*" (not )?in (str\((e|err|exc|error)\)|(e|err|exc|error)\.message)')
    sources = sorted(root.rglob("*.py")) + sorted(root.parent.glob("src_cython/**/*.pyx"))
    found = [(p.name, line.strip()) for p in sources
             for line in p.read_text(encoding="utf-8").splitlines() if pattern.search(line)]
    # Python's own ValueError for an integer of thousands of digits has no type of its own.
    assert found == [("jsondoc.py", 'if "digits" in str(e):')]

