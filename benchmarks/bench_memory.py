"""The memory of a long search: ISMCTS's trees under the cap (`--memory`, Limits.memory_mb).

`python benchmarks/bench_memory.py [SECONDS]` (default 60) measures, on the first decision
after the lead (the biggest trees: every hand and the reserve hidden) and on
examples/decision.json:

- `bergen best GAME --time SECONDS` with the default cap (256 MB per process), with the
  cap out of the way (`--memory 1048576`), both with one tree for the whole budget
  (`--set replicates=1`, the biggest tree), and with `--workers 2`: the peak resident
  memory of the process and its pool processes, sampled every 0.1 s from /proc, and the
  iterations it ran (`BENCH_MEMORY_CASES=2,3` runs cases 2 and 3 alone; add `cluster` for
  the Dask worker);
- the same search as a task on a Dask worker process (a LocalCluster of one worker, as
  `--cluster` runs analyses): the worker's peak resident memory (getrusage).

The pytest-benchmark part (`pytest benchmarks/bench_memory.py --benchmark-only`) times
ISMCTS iterations on a tree that has reached a small cap against one that has not: at the
cap the iterations go on without adding nodes, and are no slower (faster, here: the small
tree stays in the caches).
"""
import json
import os
import resource
import subprocess
import sys
import threading
import time

FIRST = "bergen1/2/0,0/0/0-1,0-2,1-3,2-4,3-5,4-6/1-1/6,5/16"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECISION = os.path.join(ROOT, "examples", "decision.json")


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree(pid: int) -> list:
    """pid and its descendants, from /proc (no psutil)."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, ()))
    return out


def peak_rss(args) -> tuple:
    """(peak resident MB of the command and its descendants, its JSON output)."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def watch():
        while proc.poll() is None:
            peak[0] = max(peak[0], sum(_rss_kb(p) for p in _tree(proc.pid)))
            time.sleep(0.1)

    t = threading.Thread(target=watch)
    t.start()
    out, err = proc.communicate()
    t.join()
    if proc.returncode != 0:
        raise SystemExit(f"{args}: exit {proc.returncode}: {err}")
    return peak[0] / 1024, json.loads(out)


def cluster_worker_peak(seconds: float, game: str) -> tuple:
    """(the worker's peak resident MB, iterations) of `search(game, time=seconds)` run as a
    task on a one-worker LocalCluster."""
    from distributed import Client, LocalCluster

    def task():
        from bergen_search.formats.game import load_game
        from bergen_search.search.api import Limits, search
        r = search(load_game(game), Limits(time=seconds), seed=1)
        return r.info["iterations"], r.info["memory"]

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=50) as cluster, \
            Client(cluster) as client:
        before = list(client.run(peak).values())[0]
        iterations, memory = client.submit(task, pure=False).result()
        after = list(client.run(peak).values())[0]
    return before, after, iterations, memory


def main(seconds: float):
    # One tree for the whole budget (as before issue 22's replicates): the biggest tree.
    one_tree = ["--set", "replicates=1"]
    cases = [("first decision", FIRST, []),
             ("first decision", FIRST, ["--memory", "1048576"]),
             ("first decision", FIRST, one_tree),
             ("first decision", FIRST, one_tree + ["--memory", "1048576"]),
             ("first decision", FIRST, ["--workers", "2"]),
             ("examples/decision.json", DECISION, [])]
    only = os.environ.get("BENCH_MEMORY_CASES")      # e.g. "2,3": those cases alone
    if only:
        cases = [cases[int(i)] for i in only.split(",")]
    print(f"bergen best GAME --time {seconds:g}: peak resident memory (the process and its "
          f"pool processes)")
    for name, game, extra in cases:
        mb, doc = peak_rss(["bergen", "best", game, "--time", str(seconds), "--json",
                            *extra])
        mem = doc["memory"]
        print(f"  {name:<24} {' '.join(extra) or '(default cap)':<18} {mb:8.0f} MB peak, "
              f"{doc['iterations']:>11,} iterations, cap {mem['cap_mb']} MB, "
              f"{mem['full']} of {doc['replicates']} trees full"
              + (f" (the first after {mem['full_at']:,})" if mem["full"] else ""))
    if only and "cluster" not in only.split(","):
        return
    before, after, iterations, memory = cluster_worker_peak(seconds, FIRST)
    print(f"a Dask worker process running the same search as a task ({seconds:g} s, first "
          f"decision): peak {before:.0f} MB before, {after:.0f} MB after; {iterations:,} "
          f"iterations, {memory}")


# ---- pytest-benchmark --------------------------------------------------------------------------
#: Iterations that grow the tree before it is timed: 200,000; with `--benchmark-disable` (the
#: test suite's smoke run) 30,000, past where the 2 MB cap fills (about 20,000 here).
GROW, SMOKE_GROW = 200_000, 30_000


def _full_tree(cap_bytes):
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree
    from bergen_search.information._sampler import CoreSampler

    from bergen_search.formats.game import load_game
    return IsmctsTree(CoreSampler(load_game(FIRST)), 1, max_bytes=cap_bytes)


def test_iterations_at_the_cap(benchmark):
    """20,000 iterations on a tree already at a 2 MB cap (no node added)."""
    tree = _full_tree(2 << 20)
    tree.run(SMOKE_GROW if benchmark.disabled else GROW, 0)
    assert tree.full
    benchmark(tree.run, 20_000, 0)


def test_iterations_below_the_cap(benchmark):
    """20,000 iterations on a tree that still grows (the same position and seed)."""
    tree = _full_tree(0)
    tree.run(SMOKE_GROW if benchmark.disabled else GROW, 0)
    assert not tree.full
    benchmark(tree.run, 20_000, 0)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
