"""The type check (mypy, pyproject's `[tool.mypy]`) catches planted errors; `py.typed` ships."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_planted_type_errors_fail_the_check_and_sound_code_passes(tmp_path):
    """One mypy run: planted type errors are found, sound code passes (third-party packages
    left unread, `--no-site-packages`: the errors planted are in the package's own types)."""
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
                          "--no-site-packages",
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
    """Every pure-Python layer is checked with no error code off, and `py.typed` ships."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for layer in ("bergen_search/game", "bergen_search/information", "bergen_search/formats",
                  "bergen_search/runs", "bergen_search/search", "bergen_search/analysis",
                  "bergen_search/play", "bergen_search/views", "bergen_search/errors.py",
                  "bergen_search/constants.py"):
        assert f'"{layer}"' in text
    assert "disable_error_code" not in text
    assert (ROOT / "bergen_search" / "py.typed").is_file() and '"py.typed"' in text
