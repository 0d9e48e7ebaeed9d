"""What a durable `--out` costs: `bergen selfplay --games N` with `--out` (its journal synced
once a second or every 256 lines, the output written atomically) against the same run
printing to standard output, each timed as a whole process, paired and alternated.

`python benchmarks/bench_selfplay_out.py [GAMES] [RUNS]` (default 1,000 games, 5 runs each)
prints every pair, the medians and the ratio of the medians (the aim: within 1.2 times).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

EXE = shutil.which("bergen") or sys.executable


def command(*args):
    return [EXE, *args] if EXE != sys.executable else [EXE, "-m", "bergen_search", *args]


def timed(args, **kwargs) -> float:
    start = time.perf_counter()
    subprocess.run(command(*args), check=True, **kwargs)
    return time.perf_counter() - start


def main(games: int, runs: int) -> None:
    base = ["selfplay", "--games", str(games), "--seed", "7", "--quiet"]
    with_out, without = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            out = os.path.join(tmp, f"o{i}.jsonl")
            with_out.append(timed(base + ["--out", out]))
            without.append(timed(base, stdout=subprocess.DEVNULL))
            print(f"run {i + 1}: --out {with_out[-1]:.2f} s, standard output "
                  f"{without[-1]:.2f} s")
    a, b = statistics.median(with_out), statistics.median(without)
    print(f"selfplay --games {games}: median {a:.2f} s with --out, {b:.2f} s without: "
          f"{a / b:.2f} times")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
         int(sys.argv[2]) if len(sys.argv) > 2 else 5)
