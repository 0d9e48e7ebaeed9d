"""The bit helpers of the compiled core on every compiler: one definition in
`_core.pxd` (GCC's and Clang's builtins, MSVC's intrinsics, or plain C), used by every module;
the plain C fallback, compiled in every build, agrees with the helpers the build chose."""
import re
from pathlib import Path

import pytest
from support import require_compiled

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "src_cython" / "bergen_search").rglob("*.p[xy][dx]"))
#: What only the one definition may name: a compiler's builtins, atomics and intrinsics, and
#: the POSIX clock (Windows has none).
COMPILER_SPECIFIC = re.compile(r"__builtin_|__atomic|__sync_|_BitScan|__popcnt|_Interlocked"
                               r"|posix\.|clock_gettime")


@pytest.fixture(scope="module")
def core():
    import bergen_search.game._core as core
    return require_compiled(core, "_core")


@pytest.mark.parametrize("seed, masks, bits", [pytest.param(48, 100_000, 24, id="fast"),
                                               pytest.param(49, 1_000_000, 28, id="full",
                                                            marks=pytest.mark.slow)])
def test_the_plain_c_fallback_agrees_with_the_helpers_the_build_chose(core, seed, masks, bits):
    """Every mask of 24 bits (in the slow run: of 28, every set of tiles) and 100,000 random
    64-bit masks (1,000,000), each with its lowest bits cleared one by one: popcount,
    trailing and leading zeros, 32- and 64-bit."""
    assert core.BIT_HELPERS in ("builtins", "MSVC intrinsics", "plain C")
    assert core.plain_bits_mismatches(seed, masks, bits) == 0


def test_no_source_names_a_compiler_s_intrinsic_outside_the_one_definition():
    """Only `_core.pxd`'s bit-helper block names compiler builtins, and `_core.pyx`'s clock
    block the POSIX clock."""
    assert len(SOURCES) >= 10
    for path in SOURCES:
        text = path.read_text()
        if path.name == "_core.pxd":
            start, end = text.index("# ---- bit helpers"), text.index("# ---- SplitMix64")
            assert COMPILER_SPECIFIC.search(text[start:end])
            text = text[:start] + text[end:]
        if path.name == "_core.pyx":
            start = text.index("#if defined(_WIN32)")
            end = text.index("#endif", start)
            text = text[:start] + text[end:]
        found = COMPILER_SPECIFIC.findall(text)
        assert not found, (path.name, found)
