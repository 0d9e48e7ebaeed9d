"""The `bergen` command line: it parses, calls the library, and formats. Nothing else.

`app` is the click group and the exit statuses; one module per command; `options` the options
they share, `output` how they print and write, `longrun` the long runs' journal and Ctrl-C.
"""
from .app import main

__all__ = ["main"]
