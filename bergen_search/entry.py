"""The `bergen` console script: Ctrl-C while the program starts is exit 130 and one line, as
it is after (cli/app.py), not a traceback from an import."""
import os
import signal


def main():
    def early(signum, frame):
        os.write(2, b"bergen: interrupted\n")
        os._exit(130)

    signal.signal(signal.SIGINT, early)
    from .cli import main as cli_main
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return cli_main()
