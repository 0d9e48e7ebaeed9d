"""`bergen engine`: the engine on standard input and output (docs/PROTOCOL.md)."""
from __future__ import annotations

import sys

import click

from ..protocol.server import serve
from .output import search_note


@click.command()
def engine():
    """Run the engine on standard input and output: one JSON object per line, in the manner
    of UCI (docs/PROTOCOL.md). Commands: isready, position, go, stop, show, hello, quit.

    It answers every command on standard output; a malformed line gets an error line and the
    engine keeps running. It exits cleanly on quit, at the end of its input and on SIGTERM.
    """
    search_note()
    return serve(sys.stdin, sys.stdout)
