"""Section 4, the runs: `bergen analyze` of the 6 matches of corpus/records/analyze_*.jsonl,
once at the default budget (20,000 iterations per decision, seed 0) and once with the 16x
judge (--iterations 320000, seed 7), every other option at its default (rechecks included).

Each run writes `bergen analyze --out` (the `--json` document without its wall time) to
data/analyze/<match>_<default|judge>.json, atomically, with bergen's own journal beside it:
a killed run is resumed (--resume) where it stopped. Wall times go to
data/analyze/timings.jsonl. Resumable: a finished file is not run again.

    nice -n 5 python run_analyze.py          (from any directory but the snapshot's)
"""
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BERGEN = os.path.join(os.path.dirname(sys.executable), "bergen")
OUT = os.path.join(HERE, "data", "analyze")
RUNS = [("default", ["--seed", "0"]),
        ("judge", ["--iterations", "320000", "--seed", "7"])]


def main():
    os.makedirs(OUT, exist_ok=True)
    matches = sorted(glob.glob(os.path.join(HERE, "corpus", "records", "analyze_*.jsonl")))
    for kind, args in RUNS:                  # every default first: the cheap half
        for path in matches:
            name = os.path.basename(path)[len("analyze_"):-len(".jsonl")]
            out = os.path.join(OUT, f"{name}_{kind}.json")
            if os.path.exists(out):
                continue
            cmd = [BERGEN, "analyze", path, *args, "--quiet", "--out", out]
            if os.path.exists(out + ".journal"):
                cmd.append("--resume")
            t0 = time.time()
            print(f"{time.strftime('%H:%M:%S')} {' '.join(cmd)}", flush=True)
            rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
            wall = time.time() - t0
            print(f"{time.strftime('%H:%M:%S')} exit {rc} in {wall:.1f}s", flush=True)
            with open(os.path.join(OUT, "timings.jsonl"), "a") as fh:
                fh.write(json.dumps({"match": name, "kind": kind, "cmd": cmd[1:],
                                     "exit": rc, "wall": round(wall, 2)}) + "\n")
            if rc != 0:
                sys.exit(rc)


if __name__ == "__main__":
    main()
