"""What a long-running `bergen engine` saves and costs: the answer time for many positions
through one engine process (client.EngineProcess) against one `bergen best` process per
position, at the same iteration budget and seeds (and the same answers, checked); how soon
the first partial answer comes after a `go`, and how soon `stop` answers during an infinite
search; the engine's memory over many queries; the time of the beliefs of
`examples/decision.json`, uniform and weighted by inference.

`python benchmarks/bench_engine.py [POSITIONS] [ITERATIONS] [STOPS] [QUERIES]` (default 100
positions, 2,000 iterations, 20 stops, 10,000 queries) prints each figure. Latencies are from
writing the line to reading the answer, as the client sees them. The positions are decisions
cut from seeded 2-, 3- and 4-player self-play, given as position strings.

The pytest-benchmark times a session of a few positions through one engine (CI runs it once
with timing disabled, so that it cannot rot).
"""
import json
import statistics
import subprocess
import sys
import time

from bergen_search.formats.position import Position
from bergen_search.formats.position_string import to_string
from bergen_search.formats.record_io import write_record
from bergen_search.formats.replay import walk
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.information.infoset import Observer
from bergen_search.protocol.client import EngineProcess
from bergen_search.search.api import Limits

SEED = 1919


def positions(n: int) -> list:
    """`n` position strings: decisions (two legal moves or more) of seeded self-play, in turn
    from 2-, 3- and 4-player matches."""
    out = []
    tables = [Rules(), Rules(players=3), Rules(players=4), Rules(players=4, partnerships=True)]
    g = 0
    while len(out) < n:
        rules = tables[g % len(tables)]
        log = play_match(rules, [0] * rules.players, derive_seed(SEED, g))
        g += 1
        observers = {}
        for step in walk(write_record(log)):
            before = step.before
            if step.event == 0:
                observers = {s: Observer(rules, {s}, before) for s in range(rules.players)}
            if before.led and before.to_move == step.seat and len(before.legal_moves()) > 1 \
                    and step.event % 3 == 0 and len(out) < n:
                obs = observers[step.seat]
                voids = {s: frozenset(obs.proven_voids(s)) for s in obs.hist}
                out.append(to_string(Position(
                    rules, tuple(before.scores), step.seat, before.hands[step.seat],
                    tuple(before.line), tuple(before.hand_size(s) for s in range(rules.players)),
                    before.reserve_size, {s: v for s, v in voids.items() if v}).check()))
            for o in observers.values():
                o.step(step.seat, step.action, step.after)
    return out


def through_the_engine(strings, iterations):
    """(seconds including the start, the answers) for every position through one engine."""
    start = time.perf_counter()
    with EngineProcess.start() as engine:
        answers = [engine.analyse(s, Limits(iterations=iterations), seed=i)
                   for i, s in enumerate(strings)]
    return time.perf_counter() - start, answers


def one_process_each(strings, iterations):
    """(seconds, the answers) for `bergen best STRING --json` once per position."""
    start = time.perf_counter()
    answers = []
    for i, s in enumerate(strings):
        out = subprocess.run([sys.executable, "-m", "bergen_search", "best", s, "--iterations",
                              str(iterations), "--seed", str(i), "--json"],
                             capture_output=True, text=True, check=True)
        answers.append(json.loads(out.stdout))
    return time.perf_counter() - start, answers


def stop_latencies(trials: int) -> list:
    """Seconds from writing `stop` to reading the `bestmove`, during infinite searches."""
    game = open("examples/decision.json", encoding="utf-8").read()
    out = []
    with EngineProcess.start() as engine:
        for _ in range(trials):
            with engine.analysis(game, report_every=0.02) as analysis:
                for k, _info in enumerate(analysis):
                    if k == 4:
                        break
                start = time.perf_counter()
                engine._send({"cmd": "stop"})
                analysis.wait()
                out.append(time.perf_counter() - start)
    return out


def first_partials(trials: int) -> list:
    """Seconds from writing a `go` (report_every 0.01 s) to reading its first partial."""
    out = []
    strings = positions(trials)
    with EngineProcess.start() as engine:
        for s in strings:
            start = time.perf_counter()
            with engine.analysis(s, report_every=0.01) as analysis:
                next(analysis)
                out.append(time.perf_counter() - start)
    return out


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def memory_over_queries(queries: int) -> list:
    """(queries answered, the engine's resident MB) every tenth of `queries` go queries of
    200 iterations, sent 100 at a time."""
    strings = positions(50)
    out = []
    with EngineProcess.start() as engine:
        done = 0
        while done < queries:
            ids = [engine._send({"cmd": "go", "game": strings[(done + k) % len(strings)],
                                 "iterations": 200, "seed": done + k}) for k in range(100)]
            for ident in ids:
                engine._await(ident, "bestmove", float("inf"))
            done += 100
            if done % max(queries // 10, 100) == 0:
                out.append((done, _rss_mb(engine.process.pid)))
    return out


def beliefs_seconds(weighting: str, repeat: int = 20) -> float:
    """The median seconds of the beliefs of examples/decision.json, in the library."""
    from bergen_search.formats.game import load
    from bergen_search.information.beliefs import beliefs
    game = load(open("examples/decision.json", encoding="utf-8").read())
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        beliefs(game.info, game.observer, round_index=len(game.record.rounds) - 1,
                weighting=weighting)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def timeless(doc: dict) -> dict:
    """A `bestmove` or `best --json` document without its clock readings (`seconds`, the
    exact endgame's `solve_seconds`) and the protocol's own fields."""
    out = {k: v for k, v in doc.items()
           if k not in ("seconds", "type", "id", "stopped", "terminated")}
    if "endgame" in out:
        out["endgame"] = {k: v for k, v in out["endgame"].items() if k != "solve_seconds"}
    return out


def test_a_session_through_one_engine(benchmark):
    strings = positions(4)
    _, answers = benchmark.pedantic(through_the_engine, args=(strings, 500), rounds=1,
                                    iterations=1)
    assert [a["position"] for a in answers] == strings
    benchmark.extra_info["positions"] = len(strings)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    stops = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    queries = int(sys.argv[4]) if len(sys.argv) > 4 else 10_000
    strings = positions(n)
    engine_s, via_engine = through_the_engine(strings, iterations)
    process_s, via_processes = one_process_each(strings, iterations)
    same = all(timeless(a) == timeless(b) for a, b in zip(via_engine, via_processes))
    print(f"{n} positions at {iterations} iterations: one engine {engine_s:.2f} s "
          f"({1000 * engine_s / n:.1f} ms a position, the start included), one bergen best "
          f"process each {process_s:.2f} s ({1000 * process_s / n:.1f} ms a position): "
          f"{process_s / engine_s:.1f} times faster through the engine; the same answers: "
          f"{same}")
    lat = sorted(stop_latencies(stops))
    print(f"stop during an infinite search, {stops} trials: median "
          f"{1000 * statistics.median(lat):.1f} ms, max {1000 * lat[-1]:.1f} ms")
    first = sorted(first_partials(stops))
    print(f"first partial answer after go, {stops} positions: median "
          f"{1000 * statistics.median(first):.1f} ms, max {1000 * first[-1]:.1f} ms")
    rss = memory_over_queries(queries)
    print(f"engine memory over {queries} queries of 200 iterations: " +
          ", ".join(f"{q}: {mb:.1f} MB" for q, mb in rss))
    for weighting in ("uniform", "inference"):
        print(f"beliefs of examples/decision.json ({weighting}): "
              f"{1000 * beliefs_seconds(weighting):.2f} ms (median of 20)")
