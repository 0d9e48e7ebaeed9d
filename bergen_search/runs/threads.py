"""Threads that leave the stop signals to the main thread.

A signal sent to the process (Ctrl-C's SIGINT, SIGTERM, SIGHUP) is taken by any one of its
threads that does not block it; Python runs its handler in the main thread only, and only when
that thread next runs Python code. When a helper thread takes the signal while the main thread
sleeps in a system call (the engine reading its input, a server waiting on its socket), the
handler waits for that call to return, which may be never: the stop is lost. Every helper
thread the package starts is a `QuietThread`, which blocks those signals for itself, so the
kernel hands them to the main thread, whose call is interrupted and whose handler runs at once.
"""
from __future__ import annotations

import signal
import threading

#: The signals every command stops on (Ctrl-C, SIGTERM, SIGHUP), where the platform has them.
STOP_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                         if hasattr(signal, name))


def block_stop_signals() -> None:
    """Block the stop signals for the calling thread (and the threads it starts)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


class QuietThread(threading.Thread):
    """A `threading.Thread` (a daemon unless told otherwise) that never takes a stop signal:
    they reach the main thread, which runs the handlers."""

    def __init__(self, *args, daemon: bool = True, **kwargs):
        super().__init__(*args, daemon=daemon, **kwargs)

    def run(self) -> None:
        block_stop_signals()
        super().run()
