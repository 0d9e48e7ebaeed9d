"""Independent tasks run here, in local worker processes, or on a Dask cluster, results in order.

`run_ordered(fn, items, workers=1, cluster=None, progress=None)` returns
`[fn(item) for item in items]`, whatever ran them:

- `workers=1`, no cluster: in this process, one after the other;
- `workers=W`: W local processes (fork), as `concurrent.futures` gives them;
- `cluster="tcp://host:8786"`: the tasks go to a running Dask distributed scheduler
  (`dask scheduler` and `dask worker ADDRESS` start one; see the README), which spreads them
  over its workers and, when a worker dies, runs its tasks again elsewhere. Dask is optional
  (`pip install 'bergen_search[cluster]'`); without it `--cluster` is a clear error.

The results are gathered in the order of `items`, so the output of a command is the same,
byte for byte apart from wall times, however its tasks were run. `progress(done, total)` is
called in this process as tasks finish. Ctrl-C cancels what has not run (on a cluster, the
futures are cancelled on the scheduler) and raises KeyboardInterrupt to the caller, which
writes no output.

>>> run_ordered(abs, [-2, 3, -4])
[2, 3, 4]
"""
from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from typing import Callable

from .errors import BergenError

#: How `--cluster` says what is missing.
CLUSTER_EXTRA = "pip install 'bergen_search[cluster]'"
#: Seconds to wait for a scheduler before giving up.
CONNECT_TIMEOUT = 10


def batches(count: int, workers: int, fast: bool, cap: int) -> list:
    """Indices 0..count-1 cut into the batches sent as tasks: one index per batch for slow
    work (searching engines: fine progress, even spread), about eight batches per worker of
    at most `cap` indices for fast work (the simple engines), so that a task is not mostly
    overhead."""
    size = max(1, min(cap, count // (max(workers, 1) * 8))) if fast else 1
    return [range(i, min(count, i + size)) for i in range(0, count, size)]


def connect(address: str):
    """A `dask.distributed.Client` on the scheduler at `address`; a BergenError if the
    extra is not installed or the scheduler does not answer."""
    try:
        from distributed import Client
    except ImportError:
        raise BergenError(f"--cluster needs Dask, which is not installed: {CLUSTER_EXTRA}",
                          field="cluster") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise BergenError(f"--cluster: no Dask scheduler answers at {address!r} ({e})",
                          field="cluster") from None


def run_ordered(fn: Callable, items, *, workers: int = 1, cluster=None,
                progress: Callable[[int, int], None] | None = None,
                units: Callable | None = None) -> list:
    """`[fn(item) for item in items]`, run serially, on `workers` local processes, or on the
    Dask cluster `cluster` (an address, or a Client); see the module doc. `units(item)`: how
    much of the work an item is, for `progress` (default 1 each)."""
    items = list(items)
    sizes = [1 if units is None else units(item) for item in items]
    total = sum(sizes)
    tick = _Ticker(progress, total)
    if cluster is not None:
        return _on_cluster(fn, items, sizes, cluster, tick)
    if workers <= 1 or len(items) <= 1:
        out = []
        for item, size in zip(items, sizes):
            out.append(fn(item))
            tick(size)
        return out
    results = [None] * len(items)
    # Not multiprocessing.Pool: its daemonic workers could not start processes of their own
    # (a search with workers > 1).
    ex = ProcessPoolExecutor(max_workers=min(workers, len(items)),
                             mp_context=get_context("fork"))
    try:
        pending = {ex.submit(fn, item): i for i, item in enumerate(items)}
        waiting = set(pending)
        while waiting:
            finished, waiting = wait(waiting, return_when=FIRST_COMPLETED)
            for fut in finished:
                i = pending[fut]
                results[i] = fut.result()
                tick(sizes[i])
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)
    return results


class _Ticker:
    """Counts finished units and reports them to `progress(done, total)`."""

    def __init__(self, progress, total):
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, units):
        self.done += units
        if self.progress is not None:
            self.progress(self.done, self.total)


def _on_cluster(fn, items, sizes, cluster, tick):
    client = connect(cluster) if isinstance(cluster, str) else cluster
    from distributed import as_completed
    own = isinstance(cluster, str)
    futures = []
    try:
        # pure=False: every task runs, even two equal ones; retries: a task whose worker died
        # is rescheduled by the scheduler anyway, these cover a task that raised on a sick one.
        futures = [client.submit(fn, item, pure=False, retries=2) for item in items]
        index = {f.key: i for i, f in enumerate(futures)}
        results = [None] * len(items)
        for fut in as_completed(futures, loop=client.loop):
            i = index[fut.key]
            results[i] = fut.result()
            tick(sizes[i])
        return results
    except BaseException:
        if futures:
            client.cancel(futures)
        raise
    finally:
        if own:
            client.close()
