"""bergen_search: a search engine for the domino game Bergen."""
__version__ = "0.1.0"
