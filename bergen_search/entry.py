"""The `bergen` console script (and `python -m bergen_search`): Ctrl-C while the program
starts, before the command line is read, is exit 130 and one line, as it is everywhere
after (cli/app.py), not a traceback from the middle of an import."""
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
