"""bergen_search: a search engine for the domino game Bergen, in layers that import only
those below them (docs/DESIGN.md); each compiled module has a pure-Python twin."""
__version__ = "0.1.0"
