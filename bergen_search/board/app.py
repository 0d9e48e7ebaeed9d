"""The board's server: the page's own assets (`static/`) and one WebSocket, `/engine`, each
message a line of the engine protocol. Each connection gets its own `EngineServer`, fed in
order on its own thread; closing the socket stops its searches."""
from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import os
import queue
import signal
import threading

from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from ..errors import BergenError
from ..protocol.server import EngineServer
from ..runs.threads import QuietThread
from ..views import drawing
from . import LOCAL_HOSTS
from .review_graph import ReviewGraphs

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
#: The largest message read: a long match record is a few hundred kilobytes.
MAX_MESSAGE = 4 * 1024 * 1024
#: A connection's workers: the live analysis's search and a review's, at once.
WORKERS = 2
#: Commands waiting for a connection's thread; past this the connection is too far behind.
MAX_PENDING = 1000


def _split_host(value: str) -> tuple:
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        name, _, port = value.partition(":")
    else:
        name, port = value, ""
    return name, (int(port) if port.isdigit() else None)


class OwnPageOnly:
    """ASGI middleware: the board serves its own page only. A Host not among this machine's
    names (or `hosts`) is refused (400), an Origin other than the page's own (or `origins`)
    too (403; a WebSocket closed unaccepted); a request without an Origin is let through."""

    def __init__(self, app, hosts=(), origins=()):
        self.app = app
        self.hosts = {h.lower().strip("[]") for h in (*LOCAL_HOSTS, *hosts)}
        self.origins = {o.lower().rstrip("/") for o in origins}

    def allowed(self, scope) -> str | None:
        """Why the request is refused, or None."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", ())}
        name, _ = _split_host(headers.get("host", ""))
        if name not in self.hosts:
            return f"host {headers.get('host', '')!r} is not this server's"
        origin = headers.get("origin")
        if origin is None:
            return None
        origin = origin.lower().rstrip("/")
        if origin in self.origins:
            return None
        scheme, sep, rest = origin.partition("://")
        oname, oport = _split_host(rest)
        port = (scope.get("server") or (None, None))[1]
        if scheme == "http" and sep and oname in self.hosts and (oport or 80) == port:
            return None
        return f"origin {origin!r} is not this page's"

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            why = self.allowed(scope)
            if why is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008, "reason": why})
                    return
                body = f"refused: {why}\n".encode()
                await send({"type": "http.response.start",
                            "status": 400 if why.startswith("host") else 403,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class Connection:
    """One WebSocket's engine, the thread feeding it the commands, and its lines' outbox."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.graphs = ReviewGraphs()
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.inbox: queue.Queue = queue.Queue()
        self.server = EngineServer(self._write, workers=WORKERS)
        self.quit = False
        self.thread = QuietThread(target=self._feed, name="bergen-board-connection")
        self.thread.start()

    def _write(self, line: str) -> None:
        line = self.graphs.line(line)
        try:
            self.loop.call_soon_threadsafe(self.outbox.put_nowait, line)
        except RuntimeError as e:       # the loop is closed
            raise OSError(str(e)) from None

    def _feed(self) -> None:
        for raw in iter(self.inbox.get, None):
            if not self.server.handle_line(raw):        # quit: close the socket
                self.quit = True
                with contextlib.suppress(RuntimeError):     # the loop is closed
                    self.loop.call_soon_threadsafe(self.outbox.put_nowait, None)
                return

    def submit(self, raw) -> None:
        if self.inbox.qsize() >= MAX_PENDING:
            self.server.error("too many commands waiting: wait for the answers")
            return
        if len(raw) > MAX_MESSAGE:
            self.server.error(f"the message is too long ({len(raw):,} characters; "
                              f"at most {MAX_MESSAGE:,})")
            return
        self.graphs.command(raw)
        self.inbox.put(raw)

    def close(self) -> None:
        """Stop every query and the feeding thread, and give the searches' memory back."""
        self.inbox.put(None)
        self.server.close()
        self.thread.join(5.0)
        trim = _malloc_trim()
        if trim is not None:
            trim(0)


@functools.cache
def _malloc_trim():
    """glibc's `malloc_trim`, which hands free pages back to the system; None elsewhere."""
    try:
        import ctypes
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def page() -> str:
    """static/index.html with `views.drawing`'s sprite and stylesheet put in."""
    with open(os.path.join(STATIC, "index.html"), encoding="utf-8") as f:
        text = f.read()
    return (text.replace("<!--bergen:drawing-css-->", drawing.css())
            .replace("<!--bergen:drawing-sprite-->", drawing.sprite()))


async def index(request):
    return HTMLResponse(page())


async def engine_socket(websocket):
    await websocket.accept()
    loop = asyncio.get_running_loop()
    conn = Connection(loop)
    connections = websocket.app.state.connections
    connections.add(conn)

    async def send_lines():
        while True:
            line = await conn.outbox.get()
            if line is None:
                await websocket.close()
                return
            await websocket.send_text(line)

    sender = asyncio.create_task(send_lines())
    try:
        while not sender.done():
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            conn.submit(raw)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        sender.cancel()
        await asyncio.get_running_loop().run_in_executor(None, conn.close)
        connections.discard(conn)


def create_app(hosts=(), origins=()) -> Starlette:
    """The board's ASGI app; `app.state.connections` holds the open connections."""
    app = Starlette(routes=[
        Route("/", index),
        WebSocketRoute("/engine", engine_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.add_middleware(OwnPageOnly, hosts=tuple(hosts), origins=tuple(origins))
    app.state.connections = set()
    return app


def listen(host: str, port: int):
    """A socket listening on `host`:`port` (0: any free port), or BergenError in one line: a
    port in use, an address not this machine's, a name that resolves to none."""
    import socket
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as e:
        raise BergenError(f"--host {host!r}: no address of that name "
                          f"({getattr(e, 'strerror', None) or e})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        hint = ("another server has it: --port 0 picks a free one"
                if e.errno == errno.EADDRINUSE else "--host must be an address of this machine")
        raise BergenError(f"cannot listen on {where}: {e.strerror} ({hint})") from None
    return sock


def run(host: str = "127.0.0.1", port: int = 8765, *, open_browser: bool = False,
        announce=print, hosts=(), origins=(), sock=None) -> int:
    """Serve the board on `sock` (else one listening on `host`:`port`) until Ctrl-C (130),
    SIGTERM or SIGHUP (0)."""
    import uvicorn
    from uvicorn.config import WS_PROTOCOLS
    sock = listen(host, port) if sock is None else sock

    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "websockets"
    named = () if host in ("0.0.0.0", "::", "") else (host,)
    config = uvicorn.Config(create_app((*named, *hosts), origins), host=host, port=port,
                            log_level="warning",
                            ws=ws, lifespan="off", timeout_graceful_shutdown=0.5,
                            ws_max_size=MAX_MESSAGE + 1024)
    server = uvicorn.Server(config)
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"

    def hang_up(signum, frame):
        server.should_exit = True

    bound = url.replace(f":{port}/", f":{sock.getsockname()[1]}/")

    def on_start():
        while not server.started and not server.should_exit:
            threading.Event().wait(0.02)
        if server.started:
            announce(bound)
            if open_browser:
                import webbrowser
                webbrowser.open(bound)

    previous = signal.signal(signal.SIGHUP, hang_up) \
        if threading.current_thread() is threading.main_thread() else None
    QuietThread(target=on_start).start()
    status = 0
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        status = 130
    finally:
        sock.close()
        if previous is not None:
            signal.signal(signal.SIGHUP, previous)
    return status
