"""`bergen serve`: the board, a local web page on the engine protocol (bergen_search.board)."""
from __future__ import annotations

import re

import click

from ..board import LOCAL_HOSTS
from ..errors import BergenError

#: The packages of the `board` extra (pyproject.toml), checked before the server starts.
BOARD_PACKAGES = ("starlette", "uvicorn", "websockets")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; another than this machine's own (127.0.0.1) "
                   "lets anyone who reaches it use the engine, with a warning.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The port to listen on (0: any free one; the address is printed).")
@click.option("--open", "open_browser", is_flag=True,
              help="Open the board in the web browser once the server is up.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Also answer requests naming this host (a deliberate remote setup: the "
                   "name other machines reach this one by). Repeatable. Without it only this "
                   "machine's own names (127.0.0.1, localhost, ::1, and --host) are answered.")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="URL",
              help="Also let a page from this origin (scheme://host[:port]) use the engine. "
                   "Repeatable. Without it only the board's own page may.")
def serve(host, port, open_browser, allow_hosts, allow_origins):
    """Serve the board: a local web page to set up a position by clicking or pasting its
    string, watch the engine rank every move live, see where the hidden tiles are, enter a
    game as it is played, and review a record decision by decision (docs/GUIDE.md).

    The page speaks the engine protocol (docs/PROTOCOL.md) over a WebSocket, one engine per
    page. It serves its own page only: a request naming another host (DNS rebinding) or a
    WebSocket from another site's page is refused (--allow-host and --allow-origin for a
    deliberate remote setup). Ctrl-C stops the server. Needs the optional extra: pip install
    'bergen_search[board]'.
    """
    import importlib.util
    missing = [name for name in BOARD_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        click.echo(f"bergen: serve needs {', '.join(missing)}: "
                   f"pip install 'bergen_search[board]'", err=True)
        return 2
    from ..board.app import listen, run
    if not host.strip():
        raise BergenError("--host is empty: 0.0.0.0 listens on every address of this machine, "
                          "127.0.0.1 on its own only")
    for origin in allow_origins:    # what a browser sends: scheme://host[:port], no path
        if not re.fullmatch(r"https?://[^/\s?#@]+/?", origin, flags=re.IGNORECASE):
            raise BergenError(f"--allow-origin {origin!r}: an origin is scheme://host[:port], "
                              f"like http://example.org:8000, as a browser sends it")
    sock = listen(host, port)       # a port in use or an address not ours: one line, before
    if host not in LOCAL_HOSTS:
        click.echo(f"bergen: warning: serving on {host}: anyone who can reach this address "
                   f"can use the engine", err=True)

    def announce(url):
        click.echo(f"bergen: the board is at {url} (Ctrl-C stops it)", err=True)

    return run(host, port, open_browser=open_browser, announce=announce, hosts=allow_hosts,
               origins=allow_origins, sock=sock)
