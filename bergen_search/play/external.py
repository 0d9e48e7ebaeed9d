"""Engines in other processes at the table: a seat (`ExternalSeat`) whose moves come from a
program speaking the engine protocol (docs/PROTOCOL.md), as cutechess-cli plays its engines.

At each decision the seat sends its round as it alone saw it (`record_io.seat_record`), with
the spec's limits and settings and the seed this program's engine would get, and plays the
answer once checked legal. Each process starts its own engine per registered engine when
first needed (`connection`), `tied`, and `quit_engines` quits them. A failure to start, a
death, a timeout, a refusal or an illegal move raises `ExternalEngineError` naming the engine."""
from __future__ import annotations

import os
import warnings
from contextlib import contextmanager

from ..errors import BergenError
from ..formats.notation import parse_move
from ..formats.record_io import seat_record
from ..game.policy import greedy_choice
from ..game.rules import Rules
from ..game.state import DRAW, State, move_str
from ..protocol.client import EngineError, EngineProcess, EngineTerminated, EngineTimeout
from .engines import EngineSpec, EngineWarning, ExternalEngine

#: Seconds an engine may take to start and say it is ready.
START_TIMEOUT = 30.0
#: Seconds an engine is given to quit before it is killed.
QUIT_TIMEOUT = 5.0


class ExternalEngineError(BergenError):
    """An engine in another process failed: `engine`'s name and command, and the reason."""

    def __init__(self, message: str, engine: ExternalEngine | None = None,
                 reason: str | None = None):
        super().__init__(message)
        self.engine, self.reason = engine, reason

    @classmethod
    def of(cls, engine: ExternalEngine, reason: str, where: str = "") -> "ExternalEngineError":
        return cls(f"engine {engine.name!r} ({engine.command_text}){where}: {reason}", engine,
                   reason)

    def at(self, where: str) -> "ExternalEngineError":
        """The same error said to happen `where` ("in set 3")."""
        if self.engine is None:
            return self
        return ExternalEngineError.of(self.engine, self.reason or "", " " + where)

    def __reduce__(self):
        # A worker's error crosses to the parent pickled.
        return (ExternalEngineError, (self.message, self.engine, self.reason))


# ---- the engines of this process ------------------------------------------------------------
class _Engines:
    """The engine processes this process started, by engine (a forked child starts its own:
    the ones it inherited belong to its parent)."""

    def __init__(self):
        self.pid = None
        self.running: dict = {}

    def here(self) -> dict:
        if self.pid != os.getpid():
            self.pid, self.running = os.getpid(), {}
            # Quit them when the process ends (atexit, or a worker's finalizers).
            from multiprocessing.util import Finalize
            Finalize(None, quit_engines, exitpriority=10)
        return self.running


_ENGINES = _Engines()


def connection(engine: ExternalEngine) -> EngineProcess:
    """The running process of `engine` in this process, started (and checked ready) on first
    use or after it failed."""
    running = _ENGINES.here()
    proc = running.get(engine)
    if proc is not None and proc.process.poll() is None:
        return proc
    wait = min(START_TIMEOUT, engine.timeout)
    try:
        proc = EngineProcess.start(engine.command, timeout=wait, tied=True)
    except EngineTimeout:       # (a TimeoutError, so before OSError)
        raise ExternalEngineError.of(engine, f"it did not answer isready within {wait:g} s "
                                             f"of starting (--external-timeout sets how long, "
                                             f"up to {START_TIMEOUT:g} s)") from None
    except OSError as e:
        raise ExternalEngineError.of(engine, f"cannot start it: {e.strerror or e}") from None
    except EngineError as e:
        raise ExternalEngineError.of(engine, f"it did not start: {e.message}") from None
    proc.timeout = engine.timeout
    running[engine] = proc
    return proc


def check_engines(specs) -> list:
    """Start the engines in other processes among `specs` in this process (each once),
    which checks that they run and answer; returns them."""
    engines = []
    for spec in specs:
        if spec is not None and spec.engine is not None and spec.engine not in engines:
            connection(spec.engine)
            engines.append(spec.engine)
    return engines


@contextmanager
def engines_for_run(specs, tasks: list, workers: int):
    """Around a run's tasks with the engine specs `specs`: the external engines among them started
    here first to check they run (quit before the tasks go to workers), and every engine this
    process started quit at the end."""
    external = any(s is not None and s.engine is not None for s in specs)
    try:
        if external and tasks:
            check_engines(specs)
            if workers > 1 and len(tasks) > 1:
                quit_engines()      # each worker process starts its own
        yield
    finally:
        if external:
            quit_engines()


def refuse_cluster(specs, cluster) -> None:
    """A run on a cluster (`cluster` not None) cannot play engines in other processes."""
    if cluster is not None and any(s is not None and s.engine is not None for s in specs):
        raise BergenError("--cluster cannot play engines in other processes (--engine): their "
                          "commands may not exist on the cluster's workers (use --workers)",
                          field="cluster")


def _drop(engine: ExternalEngine) -> None:
    """Kill an engine that failed (a later `connection` starts it again)."""
    proc = _ENGINES.here().pop(engine, None)
    if proc is not None:
        proc.close()


def quit_engines() -> None:
    """Quit every engine this process started (killing those that do not go in
    QUIT_TIMEOUT seconds)."""
    if _ENGINES.pid != os.getpid():
        return
    running, _ENGINES.running = list(_ENGINES.running.values()), {}
    try:
        while running:
            running[0].quit(timeout=QUIT_TIMEOUT)
            running.pop(0)
    finally:
        for proc in running:        # a second Ctrl-C while quitting: the rest killed
            proc.close()


def engine_pids() -> list:
    """The process ids of the engines this process runs (for tests and diagnostics)."""
    return [p.process.pid for p in _ENGINES.here().values() if p.process.poll() is None]


# ---- the seat -------------------------------------------------------------------------------
class ExternalSeat:
    """An engine in another process in `seat` for one match: it follows each round (its own
    hand, draws and every action) and chooses the seat's moves by asking the engine."""

    def __init__(self, rules: Rules, seat: int, spec: EngineSpec):
        self.rules, self.seat, self.spec = rules, seat, spec
        self.limits, self.algorithm, self.objective, self.settings = spec.query_args()
        self.start_scores: tuple = ()
        self.dealt = self.hand = 0
        self.events: list = []

    def new_round(self, state: State) -> None:
        self.start_scores = tuple(state.scores)
        self.dealt = self.hand = state.hands[self.seat]
        self.events = []

    def observe(self, seat: int, move: int, after: State) -> None:
        tile = -1
        if move == DRAW and seat == self.seat:
            tile = (after.hands[seat] & ~self.hand).bit_length() - 1
        self.events.append((seat, move, tile))
        self.hand = after.hands[self.seat]

    def record(self) -> dict:
        """The round so far as this seat sees it: what the engine is sent."""
        return seat_record(self.rules, self.start_scores, self.seat, self.dealt,
                           self.events).to_dict()

    def choose(self, state: State, moves: list, seed: int) -> int:
        """The engine's move (one of `moves`, the legal moves) with `seed`."""
        engine = self.spec.engine
        assert engine is not None
        wait = (self.limits.time or 0.0) + engine.timeout
        try:
            answer = connection(engine).play(
                self.record(), self.limits, seed=seed, algorithm=self.algorithm,
                objective=self.objective, settings=self.settings, timeout=wait)
        except EngineTimeout:
            _drop(engine)
            raise ExternalEngineError.of(engine, f"it did not answer a move within {wait:g} s "
                                                 f"(its time limit and --external-timeout)") \
                from None
        except EngineTerminated as e:
            _drop(engine)
            raise ExternalEngineError.of(engine, e.message) from None
        except EngineError as e:
            raise ExternalEngineError.of(engine, f"it refused the search: {e.message}") from None
        if answer.move is None:
            # Nothing measured in the time: the greedy move, as an engine of this program.
            warnings.warn(EngineWarning(
                f"engine {self.spec} measured nothing within its time limit at a move, and "
                f"the greedy move was played there (give it more time)"), stacklevel=2)
            return greedy_choice(state, moves)
        try:
            move = parse_move(answer.move, state if state.led else None)
        except (BergenError, TypeError):
            move = None
        if move not in moves:
            _drop(engine)
            legal = ", ".join(move_str(m, not state.led) for m in moves)
            raise ExternalEngineError.of(engine, f"it played {answer.move!r}, which is not "
                                                 f"legal there (legal: {legal})")
        assert move is not None             # one of `moves`
        return move
