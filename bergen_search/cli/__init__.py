"""The `bergen` command line: it parses, calls the library, and formats (docs/DESIGN.md)."""
from .app import main

__all__ = ["main"]
