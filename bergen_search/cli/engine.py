"""`bergen engine`: the engine on standard input and output (docs/PROTOCOL.md)."""
from __future__ import annotations

import sys

import click

from ..protocol.server import serve
from .output import search_note


@click.command()
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Queries run at once (threads); the others wait in the queue.")
def engine(workers):
    """Run the engine on standard input and output: one JSON object per line
    (docs/PROTOCOL.md). Commands: hello, isready, position, go, analyze, stop, terminate,
    show, quit.

    Queries (go, analyze) carry an id, wait in a queue and answer with partial lines, then
    exactly one final line; a malformed line gets an error line and the engine keeps
    running. It exits cleanly on quit, at the end of its input, on SIGTERM and on SIGHUP.
    """
    search_note()
    return serve(sys.stdin, sys.stdout, workers=workers)
