"""A Python client of `bergen engine` (docs/PROTOCOL.md), after python-chess's
`chess.engine.SimpleEngine`: one engine process, kept running, asked many questions.

>>> from bergen_search.protocol.client import EngineProcess
>>> from bergen_search.search.api import Limits
>>> with EngineProcess.start() as engine:                           # doctest: +SKIP
...     result = engine.play("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14",
...                          Limits(iterations=20000), seed=1)
...     print(result.move, result.value)
...     with engine.analysis(open("examples/decision.json").read()) as analysis:
...         for info in analysis:
...             if info["iterations"] > 200_000:
...                 break
...     print(analysis.stop()["best"])

`play` returns a `PlayResult` (the move, its value and standard error, and the whole
`bestmove` document in `info`); `analyse` returns the `bestmove` document (`bergen best
--json`'s); `analysis` streams the `info` lines of a search (infinite unless limits are given)
until `stop()`. A game is a position string, a `bergen-record/1` or `bergen-position/1` (a
dict, or its JSON text), or a `record.Record` or `position.Position`.

Timeouts: every wait for an answer is bounded by `timeout` seconds (the constructor's, or a
call's), past the search's own time limit when it has one; a search with an iteration budget
only is waited for as long as it takes, unless the call gives `timeout`. An engine that dies
raises `EngineTerminated`; one that does not answer in time `EngineTimeout` (after it was
asked to stop); an `error` line from the engine `EngineError`. An `EngineProcess` runs one
search at a time and is not meant to be shared between threads (start one per thread).
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from ..errors import BergenError

__all__ = ["EngineProcess", "PlayResult", "AnalysisStream", "EngineError", "EngineTerminated",
           "EngineTimeout"]


class EngineError(BergenError):
    """The engine answered with an `error` line (its message), or spoke out of protocol."""


class EngineTerminated(EngineError):
    """The engine process has exited (or closed its output)."""


class EngineTimeout(EngineError, TimeoutError):
    """The engine did not answer in time."""


@dataclass(frozen=True)
class PlayResult:
    """The engine's move: `move` in FORMATS.md notation, its `value` and `stderr`, and the
    whole `bestmove` document in `info`."""
    move: str
    value: float | None
    stderr: float | None
    info: dict = field(default_factory=dict)


_EOF = object()


def _game_object(game):
    """A game as the protocol sends it: a position string, or a record or position object."""
    from ..formats.position import Position, write_position
    from ..formats.record import Record
    if isinstance(game, Position):
        return write_position(game)
    if isinstance(game, Record):
        return game.to_dict()
    if isinstance(game, str) and game.lstrip().startswith("{"):
        return json.loads(game)
    if isinstance(game, (str, dict)):
        return game
    raise TypeError(f"a game is a position string, a record or position (dict, JSON text, "
                    f"Record or Position), not {type(game).__name__}")


def _go_command(limits, seed, algorithm, objective, settings, info_every, infinite=False):
    cmd = {"cmd": "go", "seed": seed, "algorithm": algorithm, "objective": objective}
    if settings:
        cmd["settings"] = dict(settings)
    if limits is not None:
        if limits.iterations is not None:
            cmd["iterations"] = limits.iterations
        if limits.time is not None:
            cmd["time"] = limits.time
    if infinite:
        cmd["infinite"] = True
    if info_every is not None:
        cmd["info"] = info_every
    return cmd


class EngineProcess:
    """A running `bergen engine` process. Use `EngineProcess.start()` (or the constructor) and
    `quit()` it, or use it as a context manager."""

    def __init__(self, command=None, *, timeout: float = 10.0, env=None, cwd=None):
        if command is None:
            command = [sys.executable, "-m", "bergen_search", "engine"]
        self.command = list(command)
        self.timeout = timeout
        self._lines = queue.Queue()
        self._ids = 0
        self._stream = None       # the AnalysisStream still running, if any
        self.stderr = None        # what the engine wrote on standard error, once closed
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env if env is not None else dict(os.environ), cwd=cwd,
            text=True, encoding="utf-8", bufsize=1)
        self._reader = threading.Thread(target=self._read, name="bergen-engine-reader",
                                        daemon=True)
        self._reader.start()

    @classmethod
    def start(cls, command=None, **kwargs) -> "EngineProcess":
        """Start `bergen engine` (by default this Python's `python -m bergen_search engine`)
        and check that it answers."""
        engine = cls(command, **kwargs)
        try:
            engine.ping()
        except BaseException:
            engine.close()
            raise
        return engine

    # ---- the wire --------------------------------------------------------------------------
    def _read(self):
        for line in self.process.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                self._lines.put(json.loads(line))
            except ValueError:
                self._lines.put({"type": "error", "error": f"not a JSON line: {line[:200]!r}"})
        self._lines.put(_EOF)

    def _send(self, cmd: dict) -> str:
        self._ids += 1
        cmd = {**cmd, "id": str(self._ids)}
        if self.process.poll() is not None:
            raise EngineTerminated(self._died())
        try:
            self.process.stdin.write(json.dumps(cmd) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineTerminated(self._died()) from None
        return cmd["id"]

    def _died(self) -> str:
        code = self.process.poll()
        err = ""
        if code is not None:
            if self.stderr is None:
                try:
                    self.stderr = self.process.stderr.read()
                except (OSError, ValueError):
                    self.stderr = ""
            last = self.stderr.strip().splitlines()[-1:]
            err = f": {last[0]}" if last else ""
        return f"the engine has exited (status {code}){err}"

    def _next(self, deadline):
        """The next line from the engine, waiting until `deadline` (a clock value, or None)."""
        left = None if deadline is None else max(deadline - time.monotonic(), 0)
        try:
            item = self._lines.get(timeout=left)
        except queue.Empty:
            raise EngineTimeout("the engine did not answer within the timeout") from None
        if item is _EOF:
            self._lines.put(_EOF)
            try:
                self.process.wait(1.0)
            except subprocess.TimeoutExpired:
                pass
            raise EngineTerminated(self._died())
        return item

    def _await(self, ident: str, kind: str, timeout=None, on_line=None) -> dict:
        """The line of type `kind` that answers command `ident`; an error answering it raises
        EngineError. `on_line` sees the other lines answering it (info lines)."""
        timeout = self.timeout if timeout is None else timeout
        deadline = None if timeout == float("inf") else time.monotonic() + timeout
        while True:
            line = self._next(deadline)
            if line.get("id") != ident:
                continue          # a late answer to an earlier command
            if line.get("type") == "error":
                raise EngineError(line.get("error", "the engine reported an error"))
            if line.get("type") == kind:
                return line
            if on_line is not None:
                on_line(line)

    def _free(self) -> None:
        if self._stream is not None and self._stream.best is None:
            raise EngineError("an analysis is still running: stop() or wait() for it first")

    def _request(self, cmd: dict, kind: str, timeout=None) -> dict:
        self._free()
        return self._await(self._send(cmd), kind, timeout)

    # ---- the commands ----------------------------------------------------------------------
    def raw(self, line: str, timeout=None) -> dict:
        """Send one line as it is (no id added) and return the next line the engine writes:
        for driving the protocol by hand, or checking what it says to a malformed line."""
        self._free()
        if self.process.poll() is not None:
            raise EngineTerminated(self._died())
        try:
            self.process.stdin.write(line.rstrip("\n") + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineTerminated(self._died()) from None
        timeout = self.timeout if timeout is None else timeout
        return self._next(time.monotonic() + timeout)

    def ping(self, timeout=None) -> None:
        """`isready`, answered by `readyok` (also while a search runs)."""
        self._request({"cmd": "isready"}, "readyok", timeout)

    def hello(self, timeout=None) -> dict:
        """The engine's protocol, version, commands and algorithms with their settings."""
        return self._request({"cmd": "hello"}, "hello", timeout)

    def position(self, game, timeout=None) -> dict:
        """Set the position; returns its answer (the position string, the legal moves)."""
        return self._request({"cmd": "position", "game": _game_object(game)}, "position",
                             timeout)

    def show(self, game=None, timeout=None) -> dict:
        """What the seat to move knows (`bergen show --json`), of `game` or the last one."""
        if game is not None:
            self.position(game, timeout)
        return self._request({"cmd": "show"}, "show", timeout)

    def analyse(self, game, limits=None, *, seed: int = 0, algorithm: str = "ismcts",
                objective: str = "points", settings=None, timeout=None, on_info=None,
                info_every=None) -> dict:
        """Search `game` with `limits` (a `search.Limits`; None: the algorithm's default
        budget) and return the `bestmove` document, as `bergen best --json` prints it.
        `on_info` is called with each `info` line."""
        self.position(game, timeout)
        ident = self._send(_go_command(limits, seed, algorithm, objective, settings,
                                       info_every if on_info is not None else 0))
        if timeout is None:
            timeout = (limits.time + self.timeout if limits is not None and
                       limits.time is not None else float("inf"))
        try:
            return self._await(ident, "bestmove", timeout, on_info)
        except EngineTimeout:
            self._send({"cmd": "stop"})
            self._await(ident, "bestmove", self.timeout, on_info)
            raise

    def play(self, game, limits=None, **kwargs) -> PlayResult:
        """The engine's move in `game` (see `analyse`)."""
        doc = self.analyse(game, limits, **kwargs)
        return PlayResult(doc["best"], doc.get("value"), doc.get("stderr"), doc)

    def analysis(self, game, limits=None, *, seed: int = 0, algorithm: str = "ismcts",
                 objective: str = "points", settings=None, info_every: float = 0.1,
                 timeout=None) -> "AnalysisStream":
        """Start a search of `game` and stream its `info` lines: without `limits` it runs
        until `stop()` (infinite). Use it as a context manager (leaving it stops the search),
        iterate it for the info lines, and `stop()` or `wait()` for the `bestmove`."""
        self.position(game, timeout)
        ident = self._send(_go_command(limits, seed, algorithm, objective, settings,
                                       info_every, infinite=limits is None))
        self._stream = AnalysisStream(self, ident, timeout)
        return self._stream

    def quit(self, timeout=None) -> int:
        """Ask the engine to exit; return its exit status (killing it if it does not go)."""
        timeout = self.timeout if timeout is None else timeout
        if self.process.poll() is None:
            try:
                self.process.stdin.write('{"cmd": "quit"}\n')
                self.process.stdin.flush()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.close()
        return self.process.returncode

    def close(self) -> None:
        """End the process (if it still runs) and its pipes; what it wrote on its standard
        error is kept in `stderr`."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.stderr is None:
            try:
                self.stderr = self.process.stderr.read()
            except (OSError, ValueError):
                self.stderr = ""
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    def __enter__(self) -> "EngineProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.quit()


class AnalysisStream:
    """A search in progress (`EngineProcess.analysis`): iterate it for the `info` lines (the
    iteration ends with the search); `info` is the latest one, `stop()` asks for the answer
    at once and returns the `bestmove` document, `wait()` waits for it."""

    def __init__(self, engine: EngineProcess, ident: str, timeout=None):
        self.engine, self.ident = engine, ident
        self.timeout = engine.timeout if timeout is None else timeout
        self.info = None
        self.best = None

    def _take(self, deadline):
        while self.best is None:
            line = self.engine._next(deadline)
            if line.get("id") != self.ident:
                continue
            kind = line.get("type")
            if kind == "info":
                self.info = line
                return line
            if kind == "bestmove":
                self._finish(line)
            elif kind == "error":
                self._finish(None)
                raise EngineError(line.get("error", "the engine reported an error"))
        return None

    def _finish(self, best):
        self.best = best if best is not None else {}

    def __iter__(self):
        return self

    def __next__(self) -> dict:
        line = self._take(None)
        if line is None:
            raise StopIteration
        return line

    def next(self, timeout=None):
        """The next info line, or None once the search has answered; waits at most
        `timeout` seconds (the stream's timeout by default)."""
        timeout = self.timeout if timeout is None else timeout
        return self._take(time.monotonic() + timeout)

    def stop(self) -> dict:
        """Ask the search to stop and return its `bestmove` document."""
        if self.best is None:
            self.engine._send({"cmd": "stop"})
        return self.wait(self.timeout)

    def wait(self, timeout=float("inf")) -> dict:
        """The `bestmove` document, waiting at most `timeout` seconds for it."""
        deadline = None if timeout == float("inf") else time.monotonic() + timeout
        while self.best is None:
            self._take(deadline)
        return self.best

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, *exc) -> None:
        if self.best is None:
            try:
                self.stop()
            except EngineError:
                self._finish(None)
