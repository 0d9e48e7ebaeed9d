"""The `bergen` console script: Ctrl-C, SIGTERM or SIGHUP while the program starts is one line
and exit 130 (143, 129), as it is after (cli/app.py), not a traceback from an import or a
silent death. A standard stream closed (`>&-`): its descriptor is held on /dev/null, so that
no file the program opens takes its number. Standard output then fails when written
(cli/app.py: one line, exit 74), as on a full disk, and a command that writes nothing there
runs as it would; standard error's lines are lost, as asked; standard input is at its end."""
import errno
import io
import os
import signal
import sys


class ClosedOutput(io.TextIOBase):
    """Standard output when the program was started with it closed: every write fails."""

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        raise OSError(errno.EBADF, "it is closed")


def _hold_closed_descriptors() -> None:
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)      # the lowest free number: this one
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stdout is None:
        sys.stdout = ClosedOutput()
    if sys.stderr is None:      # its messages go where the user sent them: nowhere
        sys.stderr = open(2, "w", closefd=False)
    if sys.stdin is None:       # read: at its end at once
        sys.stdin = open(0, closefd=False)


def main():
    _hold_closed_descriptors()
    def early(signum, frame):
        os.write(2, b"bergen: interrupted\n")
        os._exit(128 + signum)

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):     # (SIGTERM and SIGHUP: until the command
        if hasattr(signal, name):                   # hears them itself, cli/app.py)
            signal.signal(getattr(signal, name), early)
    from .cli import main as cli_main
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return cli_main()
