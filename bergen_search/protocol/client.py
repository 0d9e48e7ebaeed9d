"""A Python client of `bergen engine` (docs/PROTOCOL.md, "The Python client"): one engine
process, kept running, asked many questions, one at a time. A game is a position string, a
record or a position (a dict, its JSON text, a `Record` or a `Position`)."""
from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import time
from dataclasses import dataclass, field

from ..errors import BergenError
from ..runs.threads import QuietThread, parent_death_signal

__all__ = ["EngineProcess", "PlayResult", "AnalysisStream", "GameAnalysis", "Decision",
           "Beliefs", "EngineError", "EngineTerminated", "EngineTimeout"]


class EngineError(BergenError):
    """The engine answered with an `error` line (its message), or spoke out of protocol."""


class EngineTerminated(EngineError):
    """The engine process has exited (or closed its output)."""


class EngineTimeout(EngineError, TimeoutError):
    """The engine did not answer in time."""


@dataclass(frozen=True)
class PlayResult:
    """The engine's move, its `value` and `stderr`, and the whole `bestmove` in `info`."""
    move: str
    value: float | None
    stderr: float | None
    info: dict = field(default_factory=dict)


_EOF = object()


def _game_object(game):
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


def _query(cmd: str, limits, seed, algorithm, objective, settings, **extra) -> dict:
    out = {"cmd": cmd, "seed": seed, "algorithm": algorithm, "objective": objective,
           "settings": dict(settings) if settings else None}
    if limits is not None:
        out.update(iterations=limits.iterations, time=limits.time)
    return {k: v for k, v in {**out, **extra}.items() if v is not None and v is not False}


def _wait_for(limits, timeout, default):
    if timeout is not None:
        return timeout
    if limits is not None and limits.time is not None:
        return limits.time + default
    return float("inf")


class EngineProcess:
    """A running `bergen engine` (`start()` and `quit()`, or a context manager); `tied`: in a
    session of its own, and dying with the thread that started it."""

    def __init__(self, command=None, *, timeout: float = 10.0, env=None, cwd=None,
                 tied: bool = False):
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
            text=True, encoding="utf-8", bufsize=1,
            start_new_session=tied, preexec_fn=parent_death_signal() if tied else None)
        self._reader = QuietThread(target=self._read, name="bergen-engine-reader")
        self._reader.start()

    @classmethod
    def start(cls, command=None, **kwargs) -> "EngineProcess":
        """Start `bergen engine` (by default `python -m bergen_search engine`) and ping it."""
        engine = cls(command, **kwargs)
        try:
            engine.ping()
        except BaseException:
            engine.close()
            raise
        return engine

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

    def _write(self, line: str) -> None:
        if self.process.poll() is not None:
            raise EngineTerminated(self._died())
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineTerminated(self._died()) from None

    def _send(self, cmd: dict) -> str:
        self._ids += 1
        ident = str(self._ids)
        self._write(json.dumps({**cmd, "id": ident}))
        return ident

    def _keep_stderr(self) -> None:
        if self.stderr is None:
            try:
                self.stderr = self.process.stderr.read()
            except (OSError, ValueError):
                self.stderr = ""

    def _died(self) -> str:
        code = self.process.poll()
        err = ""
        if code is not None:
            self._keep_stderr()
            last = self.stderr.strip().splitlines()[-1:]
            err = f": {last[0]}" if last else ""
        return f"the engine has exited (status {code}){err}"

    def _next(self, deadline):
        left = None if deadline is None else max(deadline - time.monotonic(), 0)
        try:
            item = self._lines.get(timeout=left)
        except queue.Empty:
            raise EngineTimeout("the engine did not answer within the timeout") from None
        if item is _EOF:
            self._lines.put(_EOF)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(1.0)
            raise EngineTerminated(self._died())
        return item

    def _await(self, ident: str, kind: str, timeout=None, on_line=None) -> dict:
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

    def raw(self, line: str, timeout=None) -> dict:
        """Send one line as it is (no id added) and return the next line the engine writes."""
        self._free()
        self._write(line.rstrip("\n"))
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

    def moves(self, record, timeout=None) -> dict:
        """The `moves` answer: what the seat to move may do after `record`'s last event."""
        if isinstance(record, str):
            record = json.loads(record)
        return self._request({"cmd": "moves", "record": record}, "moves", timeout)

    def show(self, game=None, weighting: str = "uniform", timeout=None) -> dict:
        """`bergen show --json` of `game`, or of the last position set."""
        cmd = {"cmd": "show", "weighting": weighting}
        if game is not None:
            cmd["game"] = _game_object(game)
        return self._request(cmd, "show", timeout)

    def beliefs(self, game=None, weighting: str = "uniform", timeout=None) -> "Beliefs":
        """Where the hidden tiles are, as the seat to move of `game` sees them."""
        return Beliefs.from_json(self.show(game, weighting, timeout))

    def analyse(self, game, limits=None, *, seed: int = 0, algorithm: str = "ismcts",
                objective: str = "points", settings=None, timeout=None, on_partial=None,
                report_every: float = 0.1, beliefs=None, priority: int = 0) -> dict:
        """The `bestmove` of a search of `game` (`limits` None: the default budget);
        `on_partial` hears each partial answer."""
        self._free()
        ident = self._send(_query("go", limits, seed, algorithm, objective, settings,
                                  game=_game_object(game), beliefs=beliefs,
                                  priority=priority or None,
                                  report_every=report_every if on_partial else None))
        try:
            return self._await(ident, "bestmove", _wait_for(limits, timeout, self.timeout),
                               on_partial)
        except EngineTimeout:
            self._send({"cmd": "terminate", "queries": [ident]})
            self._await(ident, "bestmove", self.timeout, on_partial)
            raise

    def play(self, game, limits=None, **kwargs) -> PlayResult:
        """The engine's move in `game` (see `analyse`)."""
        doc = self.analyse(game, limits, **kwargs)
        return PlayResult(doc["best"], doc.get("value"), doc.get("stderr"), doc)

    def analysis(self, game, limits=None, *, seed: int = 0, algorithm: str = "ismcts",
                 objective: str = "points", settings=None, report_every: float = 0.1,
                 timeout=None) -> "AnalysisStream":
        """A search of `game` streaming its partial answers (without `limits`: until `stop()`)."""
        self._free()
        ident = self._send(_query("go", limits, seed, algorithm, objective, settings,
                                  game=_game_object(game), report_every=report_every,
                                  infinite=limits is None))
        self._stream = AnalysisStream(self, ident, timeout)
        return self._stream

    def analyze_game(self, record, limits=None, *, seats=None, rounds=None, seed: int = 0,
                     algorithm: str = "ismcts", objective: str = "points", settings=None,
                     beliefs=None, timeout=None) -> "GameAnalysis":
        """Review a whole record, yielding each `Decision` as judged (`limits`: each
        decision's first search)."""
        self._free()
        ident = self._send(_query("analyze", limits, seed, algorithm, objective, settings,
                                  record=_game_object(record), seats=seats, rounds=rounds,
                                  beliefs=beliefs))
        self._stream = GameAnalysis(self, ident, timeout)
        return self._stream

    def quit(self, timeout=None) -> int:
        """Ask the engine to exit (killing it if it does not go); its exit status."""
        timeout = self.timeout if timeout is None else timeout
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                self.process.stdin.write('{"cmd": "quit"}\n')
                self.process.stdin.flush()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.close()
        return self.process.returncode

    def close(self) -> None:
        """End the process and its pipes, keeping what it wrote on standard error in `stderr`."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._keep_stderr()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def __enter__(self) -> "EngineProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.quit()


class AnalysisStream:
    """A search in progress: iterate it for the partial answers; `stop()` or `wait()`."""

    partial_type, final_type = "partial", "bestmove"

    def __init__(self, engine: EngineProcess, ident: str, timeout=None):
        self.engine, self.ident = engine, ident
        self.timeout = engine.timeout if timeout is None else timeout
        self.partial = None
        self.best = None

    def _take(self, deadline):
        while self.best is None:
            line = self.engine._next(deadline)
            if line.get("id") != self.ident:
                continue
            kind = line.get("type")
            if kind == self.partial_type:
                self.partial = line
                return self._partial(line)
            if kind == self.final_type:
                self.best = line
            elif kind == "error" and not line.get("in_flight"):
                self.best = {}
                raise EngineError(line.get("error", "the engine reported an error"))
        return None

    def _partial(self, line):
        return line

    def __iter__(self):
        return self

    def __next__(self):
        line = self._take(None)
        if line is None:
            raise StopIteration
        return line

    def next(self, timeout=None):
        """The next partial answer, or None once the query has answered."""
        timeout = self.timeout if timeout is None else timeout
        return self._take(time.monotonic() + timeout)

    def stop(self) -> dict:
        """End this query at once and return its final document."""
        if self.best is None:
            self.engine._send({"cmd": "terminate", "queries": [self.ident]})
        return self.wait(self.timeout)

    def wait(self, timeout=float("inf")) -> dict:
        """The final document, waited for at most `timeout` seconds."""
        deadline = None if timeout == float("inf") else time.monotonic() + timeout
        while self.best is None:
            self._take(deadline)
        return self.best

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self.best is None:
            try:
                self.stop()
            except EngineError:
                self.best = {}


@dataclass(frozen=True)
class Decision:
    """One decision of `analyze_game`, its whole JSON in `doc`."""
    index: int
    seat: int
    played: str
    best: str
    loss: float | None
    label: str | None
    doc: dict
    borderline: bool = False    # the interval straddles a threshold: `label` not claimed

    @classmethod
    def from_json(cls, line: dict) -> "Decision":
        doc = {k: v for k, v in line.items() if k not in ("type", "id", "index")}
        return cls(line["index"], line["seat"], line["played"], line["best"], line["loss"],
                   line["label"], doc, bool(line.get("borderline")))


class GameAnalysis(AnalysisStream):
    """A record under review: iterate it for the `Decision`s; then `analysis` is the whole."""

    partial_type, final_type = "decision", "analysis"

    def _partial(self, line):
        return Decision.from_json(line)

    @property
    def analysis(self) -> dict:
        return self.wait()


@dataclass(frozen=True)
class Beliefs:
    """Where the hidden tiles are: `p_hold` {seat: {tile: chance}}, the reserve's under None."""
    weighting: str
    p_hold: dict
    deals: int
    histories: int

    @classmethod
    def from_json(cls, doc: dict) -> "Beliefs":
        p = {h["seat"]: dict(h["p_hold"]) for h in doc["seats"]}
        p[None] = dict(doc["reserve"]["p_hold"])
        return cls(doc.get("weighting", "uniform"), p, doc["deals"], doc["histories"])
