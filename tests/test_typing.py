"""The type check (mypy, in the test extra): pyproject.toml's `[tool.mypy]` covers the
pure-Python layers below the interfaces, .ci/run checks them, and here a planted error is
caught, so that a configuration that checks nothing cannot pass unseen. The package ships
its annotations (`py.typed`)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mypy(*args, cwd=ROOT):
    """mypy with the project's configuration, its cache not written."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                           str(ROOT / "pyproject.toml"), "--cache-dir", os.devnull, *args],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def test_a_planted_type_error_fails_the_check(tmp_path):
    bad = tmp_path / "planted.py"
    bad.write_text("from bergen_search.errors import BergenError\n\n"
                   "def where(e: BergenError) -> int:\n"
                   "    return e.located(round='first').round\n")
    out = mypy(str(bad))
    assert out.returncode == 1, out.stdout + out.stderr
    assert 'planted.py:4: error: Argument "round" to "located" of "BergenError" has ' \
           'incompatible type "str"' in out.stdout
    assert "Incompatible return value type" in out.stdout
    good = tmp_path / "fine.py"
    good.write_text("from bergen_search.errors import BergenError\n\n"
                    "def where(e: BergenError) -> int | None:\n"
                    "    return e.located(round=1).round\n")
    out = mypy(str(good))
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_checked_layers_and_py_typed_are_configured():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for layer in ("bergen_search/game", "bergen_search/information", "bergen_search/formats",
                  "bergen_search/runs", "bergen_search/search", "bergen_search/analysis",
                  "bergen_search/play", "bergen_search/views", "bergen_search/errors.py",
                  "bergen_search/constants.py"):
        assert f'"{layer}"' in text
    assert (ROOT / "bergen_search" / "py.typed").is_file()
    assert '"py.typed"' in text


def test_no_module_has_an_error_code_switched_off():
    """The lower layers' overrides that switched codes off are gone (their findings fixed in
    the code): a new finding is fixed, or ignored on its line with why, not switched off."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "disable_error_code" not in text


def test_a_search_result_is_read_by_its_typed_keys(tmp_path):
    """`SearchResult.info`'s members are typed (`SearchInfo`, `EndgameReport`, ...): a view
    that reads a key the report does not have, or reads one as another type, fails the
    check (they were bare dicts, read by string keys unchecked)."""
    bad = tmp_path / "view.py"
    bad.write_text("from bergen_search.search.results import SearchResult\n\n"
                   "def solved(r: SearchResult) -> bool:\n"
                   "    return r.info['endgame']['solvd']\n\n"
                   "def cap(r: SearchResult) -> str:\n"
                   "    return r.info['memory']['cap_mb']\n")
    out = mypy(str(bad))
    assert out.returncode == 1, out.stdout + out.stderr
    assert 'TypedDict "EndgameReport" has no key "solvd"' in out.stdout
    assert 'view.py:7: error: Incompatible return value type (got "int", expected "str")' \
        in out.stdout
