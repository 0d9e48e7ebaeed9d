"""Builds the Cython core: src_cython/bergen_search/LAYER/_name.pyx -> bergen_search.LAYER._name.

The sources mirror the package path, so that Cython finds each module's .pxd and each compiled
module lands in its layer, beside its Python and its pure-Python twin.
BERGEN_DEBUG_BUILD=1 turns bounds checking back on (a build for tests that hunt bugs);
BERGEN_SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer (-O1 -g; any
finding aborts the process): Python itself is not instrumented, so run it with the ASan
runtime preloaded, as .ci/run does:
    LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 python -m pytest ...
BERGEN_ONLY=_a,_b builds only the named modules. BERGEN_PLAIN_BITS=1 builds the bit helpers in
plain C (the fallback of a compiler with neither GCC's builtins nor MSVC's intrinsics:
_core.pxd), to check that fallback on this machine: the same results, bit for bit.

The modules are optional: without a working C compiler the build warns and installs the
package without them, and every command runs on the pure-Python reference (slowly, saying
so: docs/GUIDE.md, "Without a compiler"). `-ffp-contract=off` keeps the C arithmetic the plain IEEE
arithmetic of the Python oracles (no fused multiply-add on the platforms that have one), so
that the pure-Python ISMCTS (`search/engines/ismcts/reference.py`) builds the core's trees bit
for bit everywhere.
"""
import os
from glob import glob

from Cython.Build import cythonize
from setuptools import Extension, setup

debug = os.environ.get("BERGEN_DEBUG_BUILD") == "1"
sanitize = os.environ.get("BERGEN_SANITIZE") == "1"
plain_bits = [("BERGEN_PLAIN_BITS", "1")] if os.environ.get("BERGEN_PLAIN_BITS") == "1" else []
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
              "-fno-omit-frame-pointer"]
# BERGEN_ONLY=_ismcts,_sampler builds just those modules (for working on one of them).
only = {m for m in os.environ.get("BERGEN_ONLY", "").split(",") if m}
directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": debug,
    "initializedcheck": debug,
    "cdivision": True,
}
extensions = [
    Extension(
        os.path.splitext(os.path.relpath(path, "src_cython"))[0].replace(os.sep, "."),
        [path],
        extra_compile_args=(["-O1", "-g"] + SANITIZERS if sanitize
                            else ["-O0", "-g"] if debug else ["-O3"]) + ["-ffp-contract=off"],
        extra_link_args=SANITIZERS if sanitize else [],
        define_macros=plain_bits,
    )
    for path in sorted(glob(os.path.join("src_cython", "bergen_search", "**", "*.pyx"),
                            recursive=True))
    if not only or os.path.splitext(os.path.basename(path))[0] in only
]

ext_modules = cythonize(extensions, compiler_directives=directives, include_path=["src_cython"])
for ext in ext_modules:
    ext.optional = True     # a failed build is a warning, not an error (cythonize drops the flag)

setup(ext_modules=ext_modules)
