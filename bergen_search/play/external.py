"""Engines in other processes at the table (`ExternalSeat`), speaking the engine protocol
(docs/PROTOCOL.md); each process starts its own when first needed (`connection`), a failure
raises `ExternalEngineError`. `play_batches` runs a match's or an arena's tasks."""
from __future__ import annotations

import os
import warnings

from ..errors import BergenError
from ..formats.notation import parse_move
from ..formats.record_io import seat_record
from ..game.policy import greedy_choice
from ..game.rules import Rules
from ..game.state import DRAW, State, move_str
from ..protocol.client import EngineError, EngineProcess, EngineTerminated, EngineTimeout
from ..runs.parallel import batches, run_ordered
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

    def __reduce__(self):          # a worker's error crosses to the parent pickled
        return (ExternalEngineError, (self.message, self.engine, self.reason))


#: The engine processes this process (`_PID`) started; a forked child starts its own.
_PID: int | None = None
_RUNNING: dict = {}


def _running() -> dict:
    global _PID, _RUNNING
    if _PID != os.getpid():
        _PID, _RUNNING = os.getpid(), {}
        from multiprocessing.util import Finalize     # atexit, or a worker's finalizers
        Finalize(None, quit_engines, exitpriority=10)
    return _RUNNING


def connection(engine: ExternalEngine) -> EngineProcess:
    """The running process of `engine` here, started (and checked ready) when needed."""
    running = _running()
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


def play_batches(task, specs, count: int, finished: dict, *, workers: int, cluster, fast: bool,
                 cap: int, progress=None, on_result=None) -> None:
    """Fill `finished` {index: result} for every index of range(count) not in it yet, batch by
    batch (`task(indices)`, `run_ordered`); the engines in other processes among `specs` are
    started first to check they run, and quit at the end."""
    refuse_cluster(specs, cluster)
    todo = batches([i for i in range(count) if i not in finished], workers, fast, cap)

    def arrived(k, results):
        for i, result in zip(todo[k], results):
            finished[i] = result
            if on_result is not None:
                on_result(i, result)

    external = [s.engine for s in specs if s is not None and s.engine is not None]
    try:
        if external and todo:
            for engine in dict.fromkeys(external):
                connection(engine)
            if workers > 1 and len(todo) > 1:
                quit_engines()      # each worker process starts its own
        run_ordered(task, todo, workers=workers, cluster=cluster, units=len,
                    progress=None if progress is None else
                    (lambda n, total: progress(len(finished), count)), on_result=arrived)
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
    proc = _running().pop(engine, None)
    if proc is not None:
        proc.close()


def quit_engines() -> None:
    """Quit every engine this process started (killed after QUIT_TIMEOUT seconds)."""
    global _RUNNING
    if _PID != os.getpid():
        return
    running, _RUNNING = list(_RUNNING.values()), {}
    try:
        while running:
            running[0].quit(timeout=QUIT_TIMEOUT)
            running.pop(0)
    finally:
        for proc in running:        # a second Ctrl-C while quitting: the rest killed
            proc.close()


def engine_pids() -> list:
    """The process ids of the engines this process runs."""
    return [p.process.pid for p in _running().values() if p.process.poll() is None]


class ExternalSeat:
    """An engine in another process in `seat` for one match, told the round as the seat sees
    it."""

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
        if answer.move is None:             # as an engine of this program: the greedy move
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
        assert move is not None
        return move
