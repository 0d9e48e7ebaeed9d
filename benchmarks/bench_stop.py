"""How soon each command stops on Ctrl-C: SIGINT sent to the real installed `bergen` while it
works, the time until it has exited (status 130), measured here.

`python benchmarks/bench_stop.py [REPEATS]` (default 5) runs each command REPEATS times,
sends SIGINT once it is well into its work (after its journal holds a task, or after a fixed
delay), and prints the median and the largest time to exit. tests/test_interrupt.py asserts
the exit for every command at several moments, and (behind the `slow` marker only, with a
generous 3 s bound) how soon; this gives the figures.
"""
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECISION = os.path.join(ROOT, "examples", "decision.json")
MATCH = os.path.join(ROOT, "examples", "match.json")
FIRST = "bergen1/2/0,0/0/0-1,0-2,1-3,2-4,3-5,4-6/1-1/6,5/16"
EXE = shutil.which("bergen") or sys.executable
ARENA = ["arena", "ismcts:iterations=1500", "classic:iterations=1500", "--games", "100"]

#: (name, arguments, seconds to wait before the signal; None: until the journal has a task)
CASES = [
    ("best (ISMCTS)", ["best", DECISION, "--time", "30"], 2.0),
    ("best --workers 2", ["best", DECISION, "--time", "30", "--workers", "2"], 2.0),
    ("best (expectimax, in a world)", ["best", FIRST, "--algorithm", "expectimax",
                                       "--set", "depth=10", "--iterations", "50"], 2.0),
    ("arena --out", ARENA + ["--out", "a.jsonl"], None),
    ("arena --out --workers 2", ARENA + ["--out", "a.jsonl", "--workers", "2"], None),
    ("selfplay --out --workers 2", ["selfplay", "--games", "100", "--engine",
                                    "ismcts:iterations=1500", "--workers", "2", "--out",
                                    "a.jsonl"], None),
    ("analyze --out", ["analyze", MATCH, "--iterations", "20000", "--quiet", "--out",
                       "a.jsonl"], None),
    ("play (the engine thinking)", ["play", "--engine", "expectimax:iterations=50,depth=8",
                                    "--seed", "3", "--seat", "1", "--out", "g.json",
                                    "--force"], 2.0),
]


def once(args, delay, cwd) -> float:
    cmd = [EXE] + args if EXE.endswith("bergen") else [EXE, "-m", "bergen_search"] + args
    stdin = subprocess.PIPE if args[0] == "play" else None
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=stdin, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True)
    if stdin is not None:
        proc.stdin.write("hint\n")
        proc.stdin.flush()
    journal = os.path.join(cwd, "a.jsonl.journal")
    if delay is None:
        while not (os.path.exists(journal) and open(journal, "rb").read().count(b"\n") >= 2):
            time.sleep(0.02)
    else:
        time.sleep(delay)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    took = time.monotonic() - t0
    if proc.returncode != 130:
        raise SystemExit(f"{args}: exit {proc.returncode}, not 130")
    for name in ("a.jsonl", "a.jsonl.journal", "g.json"):
        if os.path.exists(os.path.join(cwd, name)):
            os.unlink(os.path.join(cwd, name))
    return took


def main(repeats: int):
    print(f"SIGINT to exit (status 130), {repeats} runs each: median and largest")
    with tempfile.TemporaryDirectory() as cwd:
        for name, args, delay in CASES:
            times = [once(args, delay, cwd) for _ in range(repeats)]
            print(f"  {name:<32} {1000 * statistics.median(times):7.0f} ms  "
                  f"{1000 * max(times):7.0f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
