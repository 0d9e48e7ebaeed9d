"""The `bergen` console script: Ctrl-C, SIGTERM or SIGHUP while the program starts is one line
and exit 130 (143, 129), as it is after (cli/app.py), not a traceback from an import or a
silent death."""
import os
import signal


def main():
    def early(signum, frame):
        os.write(2, b"bergen: interrupted\n")
        os._exit(128 + signum)

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):     # (SIGTERM and SIGHUP: until the command
        if hasattr(signal, name):                   # hears them itself, cli/app.py)
            signal.signal(getattr(signal, name), early)
    from .cli import main as cli_main
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return cli_main()
