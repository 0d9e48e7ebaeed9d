"""The type check (mypy, in the test extra): pyproject.toml's `[tool.mypy]` covers the
pure-Python layers below the interfaces, .ci/run checks them, and here planted errors are
caught, so that a configuration that checks nothing cannot pass unseen. The package ships
its annotations (`py.typed`)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_planted_type_errors_fail_the_check_and_sound_code_passes(tmp_path):
    """One mypy run (the project's configuration, no cache written) over three files: a wrong
    argument and return type; a view reading a key `SearchResult.info`'s typed members
    (`EndgameReport`, ...) do not have, or one as another type; and sound code, which gets no
    error."""
    (tmp_path / "planted.py").write_text(
        "from bergen_search.errors import BergenError\n\n"
        "def where(e: BergenError) -> int:\n"
        "    return e.located(round='first').round\n")
    (tmp_path / "view.py").write_text(
        "from bergen_search.search.results import SearchResult\n\n"
        "def solved(r: SearchResult) -> bool:\n"
        "    return r.info['endgame']['solvd']\n\n"
        "def cap(r: SearchResult) -> str:\n"
        "    return r.info['memory']['cap_mb']\n")
    (tmp_path / "fine.py").write_text(
        "from bergen_search.errors import BergenError\n\n"
        "def where(e: BergenError) -> int | None:\n"
        "    return e.located(round=1).round\n")
    out = subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                          str(ROOT / "pyproject.toml"), "--cache-dir", "/dev/null",
                          *(str(tmp_path / n) for n in ("planted.py", "view.py", "fine.py"))],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 1, out.stdout + out.stderr
    assert 'planted.py:4: error: Argument "round" to "located" of "BergenError" has ' \
           'incompatible type "str"' in out.stdout
    assert "planted.py:4: error: Incompatible return value type" in out.stdout
    assert 'TypedDict "EndgameReport" has no key "solvd"' in out.stdout
    assert 'view.py:7: error: Incompatible return value type (got "int", expected "str")' \
        in out.stdout
    assert "fine.py" not in out.stdout and "Found 4 errors in 2 files (checked 3 source " \
        "files)" in out.stdout, out.stdout


def test_the_checked_layers_and_py_typed_are_configured():
    """Every pure-Python layer is checked, with no error code switched off (a finding is
    fixed, or ignored on its line with why), and `py.typed` ships."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for layer in ("bergen_search/game", "bergen_search/information", "bergen_search/formats",
                  "bergen_search/runs", "bergen_search/search", "bergen_search/analysis",
                  "bergen_search/play", "bergen_search/views", "bergen_search/errors.py",
                  "bergen_search/constants.py"):
        assert f'"{layer}"' in text
    assert "disable_error_code" not in text
    assert (ROOT / "bergen_search" / "py.typed").is_file() and '"py.typed"' in text
