"""What bounds a search: its budget (`Limits`), the clock every time limit reads, `Deadline`."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..constants import MAX_SECONDS
from ..errors import BergenError

#: The clock of every time limit (seconds; monotonic), read through `now()`: the tests replace
#: it with a virtual one.
clock = time.perf_counter

#: A search runs in slices this long so that Ctrl-C and the clock are heard promptly.
SLICE_SECONDS = 0.05
#: The slices of a search that can be stopped (`search(stop=...)`): a stop is heard within one.
STOP_SLICE_SECONDS = 0.01
#: The independent replicates of a replicated engine by default, and at most.
REPLICATES = 8
MAX_REPLICATES = 100_000
#: The largest budgets a search takes: iterations, and the memory cap of its trees in MB (1
#: TiB); DEFAULT_MEMORY_MB when not given (per search, in each of its processes).
MAX_ITERATIONS = 1_000_000_000
MAX_MEMORY_MB = 1 << 20
DEFAULT_MEMORY_MB = 256


def now() -> float:
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
    """The budget of a search: `iterations` (or worlds) and/or `time` in seconds, the first
    reached (neither: the default); `memory_mb` caps the memory of its trees."""
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
    """A point on the searches' clock `seconds` from now (None: none)."""

    def __init__(self, seconds):
        self.end = None if seconds is None else now() + seconds

    def left(self):
        """Seconds left (negative once past)."""
        return None if self.end is None else self.end - now()
