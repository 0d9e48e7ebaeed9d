"""`bergen engine`: a long-running engine that speaks JSON lines on standard input and
output, in the manner of UCI (docs/PROTOCOL.md is the contract).

Each input line is one command, a JSON object with `cmd`; each output line is one JSON object
with `type`. A command's `id`, if any, comes back in every line that answers it.

    {"cmd": "hello"}                              -> {"type": "hello", "protocol", "version", ...}
    {"cmd": "isready"}                            -> {"type": "readyok"}
    {"cmd": "position", "game": G}                -> {"type": "position", "position", ...}
    {"cmd": "go", "iterations": 20000, "seed": 1} -> {"type": "info", ...} ..., {"type": "bestmove", ...}
    {"cmd": "stop"}                               -> the running search's bestmove, at once
    {"cmd": "show"}                               -> {"type": "show", ...} (as `bergen show --json`)
    {"cmd": "quit"}                               -> (the engine exits)

G is a `bergen-record/1` or `bergen-position/1` object, or a position string. `go` takes
`iterations`, `time` (seconds), `infinite` (search until `stop`), `seed`, `algorithm`,
`objective`, `settings` (the algorithm's, as `bergen best --set`) and `info` (seconds between
info lines; 0 for none). The search runs in a thread, so `isready` and `stop` are answered
while it runs; its `bestmove` is `bergen best --json`'s document (views.best_document), so the
same seed and budget give the same answer as `bergen best`.

A malformed line gets `{"type": "error", "error": ...}` and the engine keeps running. It exits
with status 0 on `quit`, at the end of its input and on SIGTERM, stopping a running search.
"""
from __future__ import annotations

import json
import signal
import threading
import time

from .. import __version__
from ..errors import BergenError, one_line

PROTOCOL = "bergen-engine/1"
COMMANDS = ("hello", "isready", "position", "go", "stop", "show", "quit")
#: The iteration (or world) cap of an `infinite` search, which otherwise runs until `stop`:
#: the tree grows about 140 MB per million ISMCTS iterations. `iterations` overrides it.
INFINITE_CAP = 5_000_000
#: Seconds between info lines while a search runs (`go`'s `info` overrides it).
INFO_EVERY = 0.1
_GO_FIELDS = ("cmd", "id", "iterations", "time", "infinite", "seed", "algorithm", "objective",
              "settings", "info")


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread where the engine reads its input."""


def _int_field(obj, name, minimum=0, maximum=2 ** 64 - 1):
    v = obj.get(name)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not minimum <= v <= maximum:
        raise BergenError(f"'{name}' must be an integer {minimum}..{maximum}, got {v!r}")
    return v


def _number_field(obj, name):
    v = obj.get(name)
    if v is None:
        return None
    from ..search.api import MAX_SECONDS
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_SECONDS:
        raise BergenError(f"'{name}' must be a positive number of seconds, at most "
                          f"{MAX_SECONDS:,.0f}, got {v!r}")
    return float(v)


class EngineServer:
    """The engine's state between commands: the position, the running search (a thread), and
    the output (`write(line)`, called under a lock from both threads)."""

    def __init__(self, write, clock=time.perf_counter):
        self._write, self.clock = write, clock
        self.lock = threading.Lock()
        self.game = None
        self.thread = None
        self.stop_event = None
        self.held = None          # an infinite search's answer, held until `stop`
        self.running = False      # a search has started and not answered yet
        self.closed = False

    # ---- output ---------------------------------------------------------------------------
    def send(self, obj: dict, cmd: dict | None = None, last: bool = False) -> None:
        """Write one line (with `cmd`'s id); `last`: the answer that ends the search."""
        if cmd is not None and "id" in cmd:
            obj = {**obj, "id": cmd["id"]}
        line = json.dumps(obj, separators=(",", ":"))
        with self.lock:
            if last:
                self.running = False
            if not self.closed:
                try:
                    self._write(line)
                except (BrokenPipeError, OSError):
                    self.closed = True      # the other program has gone: write no more

    def error(self, message: str, cmd: dict | None = None) -> None:
        self.send({"type": "error", "error": one_line(message)}, cmd)

    # ---- input ----------------------------------------------------------------------------
    def handle_line(self, raw) -> bool:
        """One input line (bytes or text); False once the engine should exit."""
        from ..formats.jsondoc import parse_json
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                self.error(f"the line is not UTF-8 text (byte {e.start})")
                return True
        if not raw.strip():
            return True
        try:
            cmd = parse_json(raw, "command")
        except BergenError as e:
            self.error(str(e))
            return True
        if not isinstance(cmd, dict) or not isinstance(cmd.get("cmd"), str):
            self.error('a command is a JSON object with "cmd", like {"cmd": "isready"}')
            return True
        name = cmd["cmd"]
        if name not in COMMANDS:
            self.error(f"unknown command {name!r} (commands: {', '.join(COMMANDS)})", cmd)
            return True
        if name == "quit":
            return False
        try:
            getattr(self, "cmd_" + name)(cmd)
        except BergenError as e:
            self.error(str(e), cmd)
        except Exception as e:      # a bug: say so in one line and keep serving
            self.error(f"internal error: {type(e).__name__}: {e}", cmd)
        return True

    def _idle(self, name: str) -> None:
        if self.running:
            raise BergenError(f"a search is running: send stop before {name}")

    # ---- the commands ---------------------------------------------------------------------
    def cmd_hello(self, cmd):
        from ..search.backend import SEARCH
        from ..search.registry import default_iterations, names, resolve
        algorithms = {}
        DEFAULT_ITERATIONS = default_iterations()
        for name in names():
            alg, settings = resolve(name, {})
            algorithms[name] = {
                "help": alg.help, "unit": alg.unit, "default_budget": SEARCH.budget(DEFAULT_ITERATIONS[name]),
                "settings": {k: {"type": s.type.__name__, "default": settings[k],
                                 "help": s.help, **({"choices": list(s.choices)}
                                                    if s.choices else {})}
                             for k, s in alg.settings.items()}}
        self.send({"type": "hello", "protocol": PROTOCOL, "name": "bergen_search",
                   "version": __version__, "commands": list(COMMANDS),
                   "algorithms": algorithms, "backend": SEARCH.name}, cmd)

    def cmd_isready(self, cmd):
        self.send({"type": "readyok"}, cmd)

    def cmd_position(self, cmd):
        from ..formats.game import load
        from ..formats.notation import format_hand, format_line
        from ..formats.position_string import to_string
        from ..game.state import move_str
        from ..search.api import root_moves
        self._idle("position")
        unknown = [k for k in cmd if k not in ("cmd", "id", "game")]
        if unknown:
            raise BergenError(f"position: unknown field {unknown[0]!r} (fields: game, id)")
        if "game" not in cmd:
            raise BergenError('position needs "game": a record, a position or a position '
                              'string')
        game = cmd["game"]
        if not isinstance(game, (str, dict)):
            raise BergenError("position: 'game' must be a record or position object, or a "
                              "position string")
        game = load(game)
        info = game.info
        moves = [move_str(m, not info.line) for m in root_moves(info)] if info.line else []
        self.game = game
        self.send({"type": "position", "position": to_string(game.position),
                   "to_move": info.seat, "line": format_line(info.line),
                   "hand": format_hand(info.hand), "legal": moves,
                   "history": game.record is not None}, cmd)

    def cmd_show(self, cmd):
        from ..views.show import knowledge
        if self.game is None:
            raise BergenError("no position yet: send position first")
        self.send({"type": "show", **knowledge(self.game).to_json(), "version": __version__},
                  cmd)

    def cmd_go(self, cmd):
        from ..search.api import Limits, resolve, root_moves
        self._idle("go")
        if self.game is None:
            raise BergenError("no position yet: send position first")
        root_moves(self.game.info)            # the lead is forced: nothing to search
        unknown = [k for k in cmd if k not in _GO_FIELDS]
        if unknown:
            raise BergenError(f"go: unknown field {unknown[0]!r} (fields: "
                              f"{', '.join(_GO_FIELDS[1:])})")
        from ..search.api import MAX_ITERATIONS
        iterations = _int_field(cmd, "iterations", minimum=1, maximum=MAX_ITERATIONS)
        seconds = _number_field(cmd, "time")
        infinite = cmd.get("infinite", False)
        if not isinstance(infinite, bool):
            raise BergenError(f"'infinite' must be true or false, got {infinite!r}")
        if infinite and seconds is not None:
            raise BergenError("an infinite search takes no time limit: it runs until stop")
        seed = _int_field(cmd, "seed") or 0
        algorithm = cmd.get("algorithm", "ismcts")
        objective = cmd.get("objective", "points")
        if objective not in ("points", "match"):
            raise BergenError(f"'objective' must be points or match, got {objective!r}")
        settings = cmd.get("settings", {})
        if not isinstance(settings, dict):
            raise BergenError(f"'settings' must be an object like {{\"playout\": \"random\"}}, "
                              f"got {settings!r}")
        if not isinstance(algorithm, str):
            raise BergenError(f"'algorithm' must be a name, got {algorithm!r}")
        resolve(algorithm, settings)          # unknown algorithms and settings fail here
        every = cmd.get("info", INFO_EVERY)
        if isinstance(every, bool) or not isinstance(every, (int, float)) or not 0 <= every:
            raise BergenError(f"'info' must be seconds between info lines (0: none), got "
                              f"{every!r}")
        if infinite and iterations is None:
            iterations = INFINITE_CAP
        limits = Limits(iterations=iterations, time=seconds)
        self.stop_event = threading.Event()
        self.running = True
        self.thread = threading.Thread(
            target=self._search, name="bergen-search", daemon=True,
            args=(cmd, self.game, limits, seed, algorithm, objective, settings, every,
                  infinite, self.stop_event))
        self.thread.start()

    def cmd_stop(self, cmd):
        with self.lock:
            if self.stop_event is not None:
                self.stop_event.set()
            held, self.held = self.held, None
        if held is not None:
            self.send(held, last=True)

    # ---- the search thread ----------------------------------------------------------------
    def _search(self, cmd, game, limits, seed, algorithm, objective, settings, every,
                infinite, stop):
        from ..search.api import search
        from ..views.search import best_document, move_rows, move_text, num
        last = [self.clock()]

        def on_info(progress):
            now = self.clock()
            if every <= 0 or now - last[0] < every:
                return
            last[0] = now
            line = {"type": "info", "iterations": progress["iterations"],
                    "seconds": round(progress["seconds"], 3),
                    "speed": round(progress["speed"], 1)}
            if "best" in progress:
                line.update(best=move_text(progress["best"]), value=num(progress["value"]),
                            stderr=num(progress["stderr"]), moves=move_rows(progress["moves"]))
            self.send(line, cmd)

        try:
            result = search(game.info, limits, seed=seed, algorithm=algorithm,
                            objective=objective, stop=stop, on_info=on_info, **settings)
        except BergenError as e:
            self.send({"type": "error", "error": one_line(str(e))}, cmd, last=True)
            return
        except MemoryError as e:
            self.send({"type": "error", "error": f"the search ran out of memory: {e}"}, cmd,
                      last=True)
            return
        except Exception as e:      # a bug: the search is over all the same
            self.send({"type": "error", "error": one_line(f"internal error: "
                                                          f"{type(e).__name__}: {e}")},
                      cmd, last=True)
            return
        doc = {"type": "bestmove", **best_document(game, result, seed=seed, workers=1,
                                                   objective=objective, algorithm=algorithm),
               "stopped": stop.is_set()}
        if "id" in cmd:
            doc["id"] = cmd["id"]
        with self.lock:
            # An infinite search that reached its cap holds its answer until `stop`.
            if infinite and not stop.is_set():
                self.held = doc
                return
        self.send(doc, last=True)

    def close(self, wait: float = 5.0) -> None:
        """Stop a running search and write nothing more."""
        if self.stop_event is not None:
            self.stop_event.set()
        if self.thread is not None:
            self.thread.join(wait)
        with self.lock:
            self.closed = True


def serve(stdin, stdout) -> None:
    """Run the engine until `quit`, the end of `stdin` or SIGTERM (each a clean exit: 0), or
    Ctrl-C (130, as every command); a running search is stopped first. Returns the status."""

    def write(line):
        stdout.write(line + "\n")
        stdout.flush()

    server = EngineServer(write)
    previous = None
    if threading.current_thread() is threading.main_thread():
        def terminate(signum, frame):
            raise _Terminated()
        previous = signal.signal(signal.SIGTERM, terminate)
    source = getattr(stdin, "buffer", stdin)
    status = 0
    try:
        for raw in iter(source.readline, b"" if source is not stdin else ""):
            if not server.handle_line(raw):
                break
    except KeyboardInterrupt:
        status = 130
    except (_Terminated, BrokenPipeError):
        pass
    finally:
        try:
            server.close()
        except KeyboardInterrupt:
            status = 130            # Ctrl-C heard as the input ended: still an interruption
        except _Terminated:
            pass
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return status
