"""Threads that leave the stop signals to the main thread: every helper thread the package
starts is a `QuietThread`, so that a signal interrupts the main thread's system call and its
handler runs at once.
"""
from __future__ import annotations

import signal
import threading

#: The signals every command stops on, where the platform has them.
STOP_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                         if hasattr(signal, name))


def parent_death_signal():
    """A call that makes the process calling it die with the thread that started it
    (PR_SET_PDEATHSIG), made ready before a fork (no import or dlopen after); None off Linux."""
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    import functools
    return functools.partial(prctl, 1, signal.SIGKILL)        # PR_SET_PDEATHSIG


class QuietThread(threading.Thread):
    """A `threading.Thread` (a daemon unless told otherwise) that never takes a stop signal."""

    def __init__(self, *args, daemon: bool = True, **kwargs):
        super().__init__(*args, daemon=daemon, **kwargs)

    def run(self) -> None:
        if hasattr(signal, "pthread_sigmask"):      # for this thread and those it starts
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        super().run()
