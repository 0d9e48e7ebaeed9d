"""The `bergen` command line: it parses, calls the library, and formats. Nothing else.

`app` is the click group and how every command ends (exit 0 done; 2 bad input or usage, one
line on stderr; 130 Ctrl-C; 1 an internal failure); one module per command (`best`, `eval`,
`show`, `analyze`, `replay`, `selfplay`, `arena`, `play` with its `session`, `bench`,
`engine`); `options` the options they share, `output` how they print and write, `longrun`
the journal and the Ctrl-C of the long runs. What they print is in `bergen_search.views`.
"""
from .app import main

__all__ = ["main"]
