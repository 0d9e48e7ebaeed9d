"""bergen_search: a search engine for the domino game Bergen, in layers that import only
those below them (docs/DESIGN.md has the map): cli, protocol; views; analysis, play; search;
formats; information; game; errors, constants, stats, runs. Each compiled module has a
pure-Python twin it is tested against."""
__version__ = "0.1.0"
