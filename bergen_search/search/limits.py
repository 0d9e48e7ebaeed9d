"""What bounds a search: its budget (`Limits`: iterations, time, memory), the clock every
time limit reads, and a `Deadline` on it; the largest budgets a search takes.

>>> Limits(iterations=2000).memory_bytes == DEFAULT_MEMORY_MB << 20
True
>>> Deadline(None).left() is None
True
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..constants import MAX_SECONDS
from ..errors import BergenError

#: The clock of every time limit here (seconds; monotonic). The tests replace it with a virtual
#: one (`_core.clock_reading` under `_core.set_test_clock`), so that a time limit is tested
#: by readings counted, not by the machine's speed. Read it through `now()`.
clock = time.perf_counter

#: A search runs in slices this long so that Ctrl-C and the clock are heard promptly.
SLICE_SECONDS = 0.05
#: The slices of a search that can be stopped (`search(stop=...)`): a stop is heard within one.
STOP_SLICE_SECONDS = 0.01
#: The independent replicates of a replicated engine (ISMCTS's setting `replicates`): the
#: budget is shared by this many units, each with its own seed; a move's value is their mean,
#: its error their spread.
REPLICATES = 8
#: The most replicates a search takes (each costs a table walk and a tree of its own).
MAX_REPLICATES = 100_000
#: The largest budgets a search takes: iterations (or expectimax worlds), seconds (a day:
#: `constants.MAX_SECONDS`), and the memory cap of ISMCTS's trees in MB (1 TiB);
#: DEFAULT_MEMORY_MB when not given, safe on a small machine (per search, in each of its
#: processes: `--workers` processes take it each).
MAX_ITERATIONS = 1_000_000_000
MAX_MEMORY_MB = 1 << 20
DEFAULT_MEMORY_MB = 256

__all__ = ["DEFAULT_MEMORY_MB", "Deadline", "Limits", "MAX_ITERATIONS", "MAX_MEMORY_MB",
           "MAX_REPLICATES", "MAX_SECONDS", "REPLICATES", "SLICE_SECONDS",
           "STOP_SLICE_SECONDS", "clock", "now"]


def now() -> float:
    """The searches' clock now (`clock`, which the tests may replace)."""
    return clock()


def _check_count(name: str, value, low: int, high: int):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BergenError(f"{name} must be an integer {low}..{high:,}, got {value!r}",
                          field=name)
    return value


@dataclass(frozen=True)
class Limits:
    """The budget of a search: `iterations` (ISMCTS iterations, or expectimax worlds,
    1..MAX_ITERATIONS) and/or `time` in seconds (above 0, at most MAX_SECONDS); the search
    stops at the first reached. Neither: the default budget. `memory_mb` caps the memory of
    the search's ISMCTS trees (its own alone, those alive at once in one of its processes;
    another search's never count; default DEFAULT_MEMORY_MB): at the
    cap a tree stops growing and the search goes on sampling within it (`info["memory"]`).
    The exact endgame's tree is held to the same cap; a live search (`endgame.step.Beside`) holds
    both at once, so its peak is up to twice the cap. Infinite, NaN, negative or oversized values are refused (BergenError)."""
    iterations: int | None = None
    time: float | None = None
    memory_mb: int | None = None

    def __post_init__(self):
        _check_count("iterations", self.iterations, 1, MAX_ITERATIONS)
        _check_count("memory_mb", self.memory_mb, 1, MAX_MEMORY_MB)
        if self.time is not None:
            if (isinstance(self.time, bool) or not isinstance(self.time, (int, float))
                    or not 0 < self.time <= MAX_SECONDS):
                raise BergenError(f"time must be a number of seconds above 0 and at most "
                                  f"{MAX_SECONDS:,.0f}, got {self.time!r}", field="time")

    @property
    def memory_bytes(self) -> int:
        return (DEFAULT_MEMORY_MB if self.memory_mb is None else self.memory_mb) << 20


class Deadline:
    """A point on the searches' clock `seconds` from now (None: no deadline)."""

    def __init__(self, seconds):
        self.end = None if seconds is None else now() + seconds

    def left(self):
        """Seconds left (negative once past; None without a deadline)."""
        return None if self.end is None else self.end - now()
