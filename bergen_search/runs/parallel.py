"""Independent tasks run here, in local worker processes, or on a Dask cluster (the optional
extra `cluster`, docs/GUIDE.md), results in the order of the tasks, so that a command's output
does not depend on how they ran. Ctrl-C ends a run within a second; the caller has been
handed every finished result.
"""
from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Callable

from ..errors import BergenError
from .threads import STOP_SIGNALS, parent_death_signal

#: How `--cluster` says what is missing.
CLUSTER_EXTRA = "pip install 'bergen_search[cluster]'"
#: Seconds to wait for a scheduler before giving up.
CONNECT_TIMEOUT = 10
#: Seconds without a finished task before the run says what it waits for (and again as often).
STALL_REPORT = 15
#: Seconds without an answer from the scheduler, or without a worker, before a run gives up.
STALL_TIMEOUT = 120
#: Seconds a question to the scheduler (how many workers?) may take before it counts as none.
PROBE_TIMEOUT = 5
POLL = 0.05         # seconds between two looks at the finished tasks


@dataclass(frozen=True)
class Cluster:
    """A Dask scheduler (an address or a `distributed.Client`), the seconds it may stall, and
    who hears what a stalled run waits for (`waiting(line)`)."""
    address: object
    timeout: float = STALL_TIMEOUT
    waiting: Callable[[str], None] | None = None


@contextmanager
def deferred_ctrl_c():
    """The stop signals held back while processes are forked (one in the fork's callbacks would
    be lost). Main thread only."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def die_with_parent(parent: int) -> None:
    """Ask the kernel to end this process when its parent dies (a no-op off Linux)."""
    import os
    arm = parent_death_signal()
    if arm is None:
        return
    arm()
    if os.getppid() != parent:                # the parent died before that
        os._exit(1)


_STOP = None        # in a worker of a `run_ordered(grace=)` run: its stop


def own_stop():
    """The stop of the `run_ordered(grace=)` run this process works for, or None."""
    return _STOP


def _worker_init(parent: int, stop=None) -> None:
    """A worker of `run_ordered`: the stop signals are the parent's; it dies with the parent."""
    import signal
    global _STOP
    _STOP = stop
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)    # forked under deferred_ctrl_c
    die_with_parent(parent)


def batches(indices, workers: int, fast: bool, cap: int) -> list:
    """The indices (a list, or a count) cut into tasks: one each for slow work, for fast work
    about eight per worker of at most `cap` indices."""
    indices = list(range(indices)) if isinstance(indices, int) else list(indices)
    count = len(indices)
    size = max(1, min(cap, count // (max(workers, 1) * 8))) if fast else 1
    return [indices[i:i + size] for i in range(0, count, size)]


def prefix(results: dict) -> list:
    """The results {index: result} of indices 0, 1, 2 ... up to the first missing one."""
    out: list = []
    while len(out) in results:
        out.append(results[len(out)])
    return out


def connect(address: str):
    """A `distributed.Client` on the scheduler at `address`, or a one-line BergenError."""
    try:
        from distributed import Client
        from distributed.comm import parse_address, parse_host_port
    except ImportError:
        raise BergenError(f"--cluster needs Dask, which is not installed: {CLUSTER_EXTRA}",
                          field="cluster") from None
    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls", "ws", "wss", "inproc"):
            raise ValueError(f"unknown scheme {scheme!r}")
        host, port = parse_host_port(location) if scheme != "inproc" else (None, None)
    except (ValueError, TypeError) as e:
        raise BergenError(f"--cluster: {address!r} is not a scheduler address like "
                          f"tcp://HOST:8786 ({e})", field="cluster") from None
    if host is not None:
        import socket
        try:
            socket.create_connection((host or "127.0.0.1", port),
                                     timeout=CONNECT_TIMEOUT).close()
        except OSError as e:
            why = "timed out" if isinstance(e, socket.timeout) else (e.strerror or str(e))
            raise BergenError(f"--cluster: no Dask scheduler answers at {address!r} "
                              f"({why})", field="cluster") from None

    class _Client(Client):
        def start(self, **kwargs):
            try:
                return super().start(**kwargs)
            except BaseException:
                # Closed at once: a half-made client would take 20 s and print a traceback.
                with suppress(BaseException):
                    self.close(timeout=1)
                raise

    with quiet_dask():                      # a failed connection is our one line, not a log
        try:
            return _Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError, MemoryError) as e:
            raise BergenError(f"--cluster: no Dask scheduler answers at {address!r} within "
                              f"{CONNECT_TIMEOUT} s ({type(e).__name__})",
                              field="cluster") from None


@contextmanager
def quiet_dask():
    """Dask's own logs held back; the command says what happened in one line."""
    import logging

    try:
        import distributed  # noqa: F401  (its import configures the loggers quieted below)
    except ImportError:
        pass                                # connect() says so, in one line
    # Some of Dask's loggers have levels of their own.
    names = ["distributed"] + [name for name in logging.root.manager.loggerDict
                               if name.startswith("distributed.")]
    logs = [logging.getLogger(name) for name in names]
    levels = [log.level for log in logs]
    for log in logs:
        log.setLevel(logging.CRITICAL + 1)
    yield
    # Restored only when the run ended well (a lost scheduler's client logs until exit).
    for log, level in zip(logs, levels):
        log.setLevel(level)


def run_ordered(fn: Callable, items, *, workers: int = 1, cluster=None,
                progress: Callable[[int, int], None] | None = None,
                units: Callable | None = None,
                on_result: Callable[[int, object], None] | None = None,
                grace: float | None = None) -> list:
    """`[fn(item) for item in items]`, serially, on `workers` forked processes, or on `cluster`
    (an address, a Client or a `Cluster`); `units(item)`: its share of `progress`. Ctrl-C kills
    the workers (or cancels the tasks) and raises KeyboardInterrupt; with a `grace` it sets
    `own_stop()` instead, and results sent within `grace` seconds are the run's.

    >>> run_ordered(abs, [-2, 3, -4])
    [2, 3, 4]
    """
    items = list(items)
    sizes = [1 if units is None else units(item) for item in items]
    total, counted = sum(sizes), 0

    def finished(i, result):
        nonlocal counted
        if on_result is not None:
            on_result(i, result)
        counted += sizes[i]
        if progress is not None:
            progress(counted, total)

    if cluster is not None:
        return _on_cluster(fn, items, cluster, finished)
    if workers <= 1 or len(items) <= 1:
        out = []
        for i, item in enumerate(items):
            out.append(fn(item))
            finished(i, out[-1])
        return out
    import os
    results = [None] * len(items)
    stop = None if grace is None else get_context("fork").Event()
    # Not multiprocessing.Pool: its daemonic workers could not start processes of their own.
    with deferred_ctrl_c():
        ex = ProcessPoolExecutor(max_workers=min(workers, len(items)),
                                 mp_context=get_context("fork"), initializer=_worker_init,
                                 initargs=(os.getpid(), stop))
    try:
        with deferred_ctrl_c():         # submit forks the workers
            pending = {ex.submit(fn, item): i for i, item in enumerate(items)}
        waiting = set(pending)
        while waiting:
            try:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:
                if stop is None:
                    raise
                stop.set()              # each task sends what it has within a slice
                done, waiting = wait(waiting, timeout=grace)
                if waiting:
                    raise
            for fut in done:
                i = pending[fut]
                results[i] = fut.result()
                finished(i, results[i])
    except BaseException:
        _kill_workers(ex)
        raise
    ex.shutdown(wait=True)
    return results


def _kill_workers(ex: ProcessPoolExecutor) -> None:
    """End a process pool at once, its workers killed."""
    import os
    import signal
    for proc in list((getattr(ex, "_processes", None) or {}).values()):
        with suppress(OSError, AttributeError):
            os.kill(proc.pid, signal.SIGKILL)
    manager = getattr(ex, "_executor_manager_thread", None)
    # A worker killed while it wrote a result leaves half a message in the results' pipe; with
    # the pool's own end for writing closed too, the manager thread reads the end of the pipe
    # there instead of waiting for the rest (and the interpreter's exit with it) forever.
    with suppress(OSError, AttributeError):
        ex._result_queue._writer.close()            # type: ignore[attr-defined]
    ex.shutdown(wait=False, cancel_futures=True)
    # The pool's manager thread sees its workers die before the exit hook wakes it (else it
    # may print "Exception ignored ... Bad file descriptor").
    if manager is not None:
        manager.join(timeout=1.0)


class ClusterLost(BergenError):
    """The scheduler went away during the run (what had finished was handed on)."""


class ClusterStalled(ClusterLost):
    """No answer from the scheduler, or no worker, for the cluster's `timeout` seconds."""


def _on_cluster(fn, items, cluster, finished):
    spec = cluster if isinstance(cluster, Cluster) else Cluster(cluster)
    if isinstance(spec.address, str):       # our own client: its logs are ours to quiet
        with quiet_dask():
            return _on_client(fn, items, connect(spec.address), finished, spec.address,
                              own=True, spec=spec)
    address = getattr(getattr(spec.address, "scheduler", None), "address", "?")
    return _on_client(fn, items, spec.address, finished, address, own=False, spec=spec)


class _Watch:
    """While no task finishes: say what the run waits for every STALL_REPORT seconds, and
    raise ClusterStalled past the cluster's timeout."""

    def __init__(self, client, address, spec: Cluster, futures):
        self.client, self.address, self.spec, self.futures = client, address, spec, futures
        now = time.monotonic()
        self.progress = self.answered = self.worker_seen = self.reported = self.probed = now
        self.in_flight = len(futures)
        # Asked at least four times within the timeout, so that giving up is not late.
        self.every = min(STALL_REPORT, max(1.0, spec.timeout / 4))

    def finished(self) -> None:
        now = time.monotonic()
        self.progress = self.answered = self.worker_seen = self.reported = self.probed = now
        self.in_flight -= 1

    def idle(self) -> None:
        now = time.monotonic()
        if now - self.probed < self.every:
            return
        self.probed = now
        workers = self._workers()
        now = time.monotonic()
        if workers is not None:
            self.answered = now
            if workers:
                self.worker_seen = now
        limit = self.spec.timeout
        quiet = now - self.progress
        if workers is None:
            silent = now - self.answered
            if silent >= limit:
                raise self._silent(silent)
            line = (f"waiting for the Dask scheduler at {self.address}: no answer for "
                    f"{silent:.0f} s (giving up after {limit:g} s)")
        elif not workers:
            alone = now - self.worker_seen
            if alone >= limit:
                raise ClusterStalled(f"--cluster: no worker has been connected to the Dask "
                                     f"scheduler at {self.address!r} for {alone:.0f} s")
            line = (f"waiting for a worker of the Dask scheduler at {self.address}: none "
                    f"connected, {self.in_flight} tasks in flight, none finished for "
                    f"{quiet:.0f} s (giving up after {limit:g} s without one)")
        else:
            line = (f"waiting for the Dask cluster at {self.address}: {workers} "
                    f"worker{'s' if workers != 1 else ''} connected, {self.in_flight} tasks "
                    f"in flight, none finished for {quiet:.0f} s")
        if self.spec.waiting is not None and now - self.reported >= STALL_REPORT:
            self.reported = now
            self.spec.waiting(line)

    def result_stalled(self) -> ClusterStalled:
        """The error of a finished task whose result was not handed over within the timeout."""
        if self._workers() is None:
            return self._silent(time.monotonic() - self.answered)
        return ClusterStalled(f"--cluster: the Dask cluster at {self.address!r} did not hand "
                              f"over a finished result within {self.spec.timeout:g} s")

    def _silent(self, seconds: float) -> ClusterStalled:
        return ClusterStalled(f"--cluster: the Dask scheduler at {self.address!r} has not "
                              f"answered for {seconds:.0f} s")

    def _workers(self) -> int | None:
        """How many workers the scheduler has, or None if it does not answer."""
        try:
            info = self.client.sync(self.client.scheduler.identity, n_workers=0,
                                    callback_timeout=PROBE_TIMEOUT)
            return int(info["n_workers"])
        except Exception:
            return None


def _on_client(fn, items, client, finished, address, own, *, spec: Cluster):
    from concurrent.futures import CancelledError

    from distributed import as_completed
    futures = []
    try:
        # pure=False: every task runs, even two equal ones; retries cover a sick worker.
        futures = [client.submit(fn, item, pure=False, retries=2) for item in items]
        index = {f.key: i for i, f in enumerate(futures)}
        results = [None] * len(items)
        watch = _Watch(client, address, spec, futures)
        pending = as_completed(futures, loop=client.loop)
        while not pending.is_empty():
            batch = pending.next_batch(block=False) if pending.has_ready() else []
            if not batch:
                watch.idle()
                time.sleep(POLL)
                continue
            for fut in batch:
                i = index[fut.key]
                try:
                    results[i] = fut.result(timeout=spec.timeout)
                except TimeoutError:        # (an OSError, so before the next clause)
                    raise watch.result_stalled() from None
                except (CancelledError, OSError) as e:      # the scheduler is gone
                    raise ClusterLost(f"--cluster: lost the Dask scheduler at {address!r} "
                                      f"({type(e).__name__})", field="cluster") from None
                watch.finished()
                finished(i, results[i])
        return results
    except ClusterLost:
        raise                           # nobody left to cancel the tasks with
    except BaseException:
        if futures:
            with suppress(Exception):
                client.cancel(futures, asynchronous=False)
        raise
    finally:
        if own:
            with suppress(Exception):
                client.close(timeout=2)
