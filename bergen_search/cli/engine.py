"""`bergen engine`: the engine on standard input and output (docs/PROTOCOL.md)."""
from __future__ import annotations

import sys

import click

from ..protocol.server import serve
from .options import workers_option
from .output import search_note


@click.command()
@workers_option("Queries run at once (threads); the others wait in the queue.")
@click.option("--stop-at-eof", is_flag=True,
              help="At the end of the input stop the queries in flight and exit at once, as "
                   "quit does (by default they finish and answer first).")
def engine(workers, stop_at_eof):
    """Run the engine on standard input and output: one JSON object per line
    (docs/PROTOCOL.md). Commands: hello, isready, position, go, analyze, stop, terminate,
    show, quit.

    Queries (go, analyze) carry an id, wait in a queue and answer with partial lines, then
    exactly one final line; a malformed line gets an error line and the engine keeps
    running. At the end of its input it lets the queries in flight finish and answer, then
    exits (an infinite search is stopped first); quit, SIGTERM and SIGHUP exit at once.
    """
    search_note()
    return serve(sys.stdin, sys.stdout, workers=workers, stop_at_eof=stop_at_eof)
