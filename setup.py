"""Builds the Cython core: src_cython/bergen_search/*.pyx -> bergen_search._*.

The sources mirror the package path so that Cython finds each module's .pxd.
BERGEN_DEBUG_BUILD=1 turns bounds checking back on (a build for tests that hunt bugs);
BERGEN_ONLY=_a,_b builds only the named modules.
"""
import os
from glob import glob

from Cython.Build import cythonize
from setuptools import Extension, setup

debug = os.environ.get("BERGEN_DEBUG_BUILD") == "1"
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
        "bergen_search." + os.path.splitext(os.path.basename(path))[0],
        [path],
        extra_compile_args=["-O3"] if not debug else ["-O0", "-g"],
    )
    for path in sorted(glob(os.path.join("src_cython", "bergen_search", "*.pyx")))
    if not only or os.path.splitext(os.path.basename(path))[0] in only
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives,
                          include_path=["src_cython"]),
)
