"""`bergen bench`: throughput of the core and the reference (each figure the median over
`repeats` slices of its workload run for a fixed time), and the search signature: the node
counts of fixed-seed searches, which change only when a search does."""
from __future__ import annotations

import functools
import statistics
import time

from ..formats.record import parse_record
from ..formats.record_io import to_record
from ..formats.replay import seen_steps
from ..game.backend import REFERENCE, load_core
from ..game.match import ENGINE_RANDOM, play_match
from ..game.rng import Rng, derive_seed
from ..game.rules import Rules
from ..game.state import DRAW, State
from ..information.inference import TileModel, tile_factors
from ..information.infoset import from_state_and_events
from ..information.sampler import ReferenceSampler, WorldTable
from ..search import endgame
from ..search.api import Limits
from ..search.engines.ismcts.reference import IsmctsTree as ReferenceTree
from .engines import EngineSpec, parse_engine_spec
from .seats import play_engines as engine_match

SEED = 20261129


def _decisions(rules: Rules, rnd, cut: int):
    """The mover's information set at each decision with a choice of `rnd` after `cut` events."""
    state = State.deal(rules, rnd.hands, rnd.reserve)
    events: list = []
    for w, a, t in rnd.events:
        if len(events) >= cut and state.led and len(state.legal_moves()) > 1:
            seat = state.to_move
            public = [(ww, aa, tt if ww == seat else None) for ww, aa, tt in events]
            yield from_state_and_events(rules, seat, rnd.hands[seat], None, public)
        state = state.apply(a, w, t if a == DRAW else None)
        events.append((w, a, t))


def _position(cut: int, seed: int = SEED):
    """The first such decision of round 0 of a seeded random 2-player match."""
    rules = Rules()
    log = play_match(rules, [ENGINE_RANDOM, ENGINE_RANDOM], seed)
    for info in _decisions(rules, log.rounds[0], cut):
        return info
    raise RuntimeError("no decision after the cut")


def first_decision():
    """The first decision of a 2-player round with a choice (right after the lead)."""
    for i in range(100):
        try:
            info = _position(1, derive_seed(SEED, i))
        except RuntimeError:
            continue
        if len(info.line) == 1:
            return info
    raise RuntimeError("no first decision found")


def inference_position():
    """A 2-player decision where the other seat's plays give inference something to weigh."""
    rules = Rules()
    for i in range(100):
        log = engine_match(rules, [EngineSpec("greedy")] * 2, derive_seed(SEED + 1, i))
        for info in _decisions(rules, log.rounds[0], 8):
            if len(tile_factors(info, TileModel())) >= 5:
                return info
    raise RuntimeError("no position with evidence found")


def stage_decisions(record):
    """(round, event, information set, known State, move) of each decision with a choice at the
    exact endgame's stage in a complete record."""
    record = parse_record(record)
    rules = record.rules
    for step, observers in seen_steps(record):
        state = step.before
        if (state.led and state.reserve_size <= rules.reserve_kept and state.fully_known
                and step.action < DRAW and len(state.legal_moves()) > 1):
            yield (step.round, step.event, observers[step.seat].infoset(step.seat), state,
                   step.action)


def endgame_positions(rounds: int, seed: int = SEED, engines=("greedy", "greedy"),
                      rules: Rules | None = None):
    """(round, information set, State) of the stage decisions of `rounds` rounds of self-play."""
    rules = rules or Rules()
    specs = [parse_engine_spec(e) for e in engines]
    for i in range(rounds):
        log = engine_match(rules, specs, derive_seed(seed, i), max_rounds=1)
        for _, _, info, state, _ in stage_decisions(to_record(log)):
            yield i, info, state


def _weighted_table(info):
    """The world table the default engine searches (inference on)."""
    from ..search.registry import algorithms
    return algorithms()["ismcts"].table(info, {"inference": "on"})


def rate(work, seconds: float, repeats: int) -> float:
    """Median over `repeats` slices of units done per second (`work()` returns a batch's)."""
    rates = []
    for _ in range(repeats):
        done, t0 = 0, time.perf_counter()
        while True:
            done += work()
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
        rates.append(done / dt)
    return statistics.median(rates)


def signature() -> dict:
    """Node counts of fixed-seed searches and the sampler's checksum."""
    info = _position(12)            # a typical mid-round decision (after some draws)
    try:
        from ..information._sampler import CoreSampler  # here: the compiled modules are optional
    except ImportError:             # the reference's checksum is the same number
        return {"sampler_checksum": ReferenceSampler(info).sample_many(10000, SEED),
                "ismcts_nodes": None, "ismcts_default_nodes": None, "expectimax_nodes": None,
                "endgame_nodes": None, "endgame_iterations": None}
    sig = {"sampler_checksum": CoreSampler(info).sample_many(10000, SEED)}
    try:
        from ..search.engines.ismcts._ismcts import IsmctsTree
        tree = IsmctsTree(CoreSampler(first_decision()), SEED, playout=0)
        tree.run(20000, 0.0)
        sig["ismcts_nodes"] = tree.n_nodes
        # The default engine: safe playouts, mirror twins merged, worlds weighed by inference.
        evidence = inference_position()
        tree = IsmctsTree(CoreSampler(evidence, _weighted_table(evidence)), SEED,
                          playout="safe", merge_twins=True)
        tree.run(20000, 0.0)
        sig["ismcts_default_nodes"] = tree.n_nodes
    except ImportError:
        sig["ismcts_nodes"] = sig["ismcts_default_nodes"] = None
    try:
        from ..search.engines.expectimax._expectimax import ExpectimaxSearch
        ex = ExpectimaxSearch(CoreSampler(info), 4, SEED, 0, 2)
        ex.run_worlds(20, 0.0)
        sig["expectimax_nodes"] = ex.nodes
    except ImportError:
        sig["expectimax_nodes"] = None
    if endgame.compiled() is None:
        sig["endgame_nodes"] = sig["endgame_iterations"] = None
        return sig
    sol = endgame.solve(endgame.game(endgame_position()))
    sig["endgame_nodes"] = sol.nodes
    sig["endgame_iterations"] = sol.iterations
    return sig


@functools.lru_cache(maxsize=1)
def endgame_position():
    """A stage decision of greedy self-play with 2,000 to 20,000 nodes (a typical solve's)."""
    for _, info, _ in endgame_positions(100, 31):
        if sum(info.hand_sizes) <= 9:
            g = endgame.game(info)
            try:
                nodes = endgame.solve(g, max_work=3_000_000).nodes
            except endgame.TooBig:
                continue
            if 2000 <= nodes <= 20000:
                return info
    raise RuntimeError("no endgame position found")


def solve_time_summary(times, within=(0.1, 1.0)) -> dict:
    """Solve times (seconds, infinity: unsolved) summed up: median and 90th percentile by
    nearest rank (None if unsolved), the worst solved, the share within each of `within`."""
    inf = float("inf")
    ordered = sorted(times)
    n = len(ordered)
    solved = [t for t in ordered if t != inf]

    def rank(q):
        t = ordered[min(n - 1, int(round(q * (n - 1))))] if n else inf
        return None if t == inf else t
    out = {"positions": n, "solved": len(solved), "median_s": rank(0.5), "p90_s": rank(0.9),
           "worst_solved_s": solved[-1] if solved else None}
    for s in within:
        out[f"within_{s:g}s"] = sum(t <= s for t in ordered) / n if n else None
    return out


def endgame_times(rounds: int, seconds: float = 1.0, seed: int = SEED + 2) -> dict:
    """The default engine's solve times at the stage over `rounds` rounds of greedy self-play."""
    times, deals = [], []
    for _, info, _ in endgame_positions(rounds, seed):
        t0 = time.perf_counter()
        tried = endgame.attempt(info, Limits(time=seconds), seed=0, objective="points")
        dt = time.perf_counter() - t0
        if tried.result is not None:
            times.append(dt)
            deals.append(tried.result.info["endgame"]["deals"])
        else:
            times.append(float("inf"))
    return {**solve_time_summary(times, (0.1, seconds)),
            "largest_deals_solved": max(deals, default=None), "limit_s": seconds}


def _core_search_steps(info_mid, table, info_first) -> list:
    """The compiled searches' figures for `run_bench`, as (backend, name, work)."""
    from ..information._sampler import CoreSampler  # here: the compiled modules are optional
    sampler = CoreSampler(info_mid, table)
    steps = [("core", "sampler_worlds_per_s",
              lambda: (sampler.sample_many(100000, SEED), 100000)[1])]
    try:
        from ..search.engines.ismcts._ismcts import IsmctsTree
        first = CoreSampler(info_first)
        steps.append(("core", "ismcts_iterations_per_s",
                      lambda: IsmctsTree(first, SEED, playout=0).run(20000, 0.0)))
        steps.append(("core", "ismcts_default_iterations_per_s",     # the default engine's
                      lambda: IsmctsTree(first, SEED, playout="safe",
                                         merge_twins=True).run(20000, 0.0)))
    except ImportError:
        pass
    try:
        from ..search.engines.expectimax._expectimax import ExpectimaxSearch
        steps.append(("core", "determinizations_per_s",
                      lambda: ExpectimaxSearch(sampler, 6, SEED, 0, 2).run_worlds(0, 0.2)))
    except ImportError:
        pass
    return steps


def run_bench(seconds: float = 2.0, repeats: int = 3, progress=None) -> dict:
    """The figures of `bergen bench --json` (FORMATS.md)."""
    core = load_core()
    r2, r3, r4 = Rules(), Rules(players=3), Rules(players=4, partnerships=True)
    out: dict[str, dict] = {"core": {}, "reference": {}, "speedup": {}, "search": {}}
    steps: list = []
    counter = [0]

    def rounds_work(backend, rules, n):
        def work():
            counter[0] += 1
            backend.random_rounds(rules, n, derive_seed(SEED, counter[0]))
            return n
        return work

    def match_work(backend, n):
        def work():
            counter[0] += 1
            for i in range(n):
                backend.play_match(r2, [ENGINE_RANDOM, ENGINE_RANDOM], derive_seed(counter[0], i))
            return n
        return work

    for backend, key, big in ((core, "core", 20000), (REFERENCE, "reference", 50)):
        if backend is not None:
            steps += [(key, "playouts_per_s", rounds_work(backend, r2, big)),
                      (key, "playouts_3p_per_s", rounds_work(backend, r3, big)),
                      (key, "playouts_4p_per_s", rounds_work(backend, r4, big)),
                      (key, "match_playouts_per_s", match_work(backend, max(big // 5, 5)))]
    info_mid, info_first, info_evidence = _position(12), first_decision(), inference_position()
    table = WorldTable(info_mid)
    # The cost of inference per search: the world table with and without the weights.
    steps.append(("search", "world_tables_per_s", lambda: (WorldTable(info_evidence), 1)[1]))
    steps.append(("search", "weighted_world_tables_per_s",
                  lambda: (_weighted_table(info_evidence), 1)[1]))
    if endgame.compiled() is not None:     # the Python solver is the tests' oracle only
        eg_info = endgame_position()
        steps.append(("search", "endgame_solves_per_s",
                      lambda: (endgame.solve(endgame.game(eg_info)), 1)[1]))
    ref_rng = Rng(SEED)

    def ref_sample():
        for _ in range(200):
            table.sample(ref_rng)
        return 200
    ref_first = ReferenceSampler(info_first)
    # The pure-Python trees of the core's two ISMCTS figures (the same trees, node for node).
    steps += [("reference", "sampler_worlds_per_s", ref_sample),
              ("reference", "ismcts_iterations_per_s",
               lambda: ReferenceTree(ref_first, SEED, playout=0).run(200, 0.0)),
              ("reference", "ismcts_default_iterations_per_s",
               lambda: ReferenceTree(ref_first, SEED, playout="safe",
                                     merge_twins=True).run(200, 0.0))]
    if core is not None:
        steps += _core_search_steps(info_mid, table, info_first)
    for i, (key, name, work) in enumerate(steps):
        if progress:
            progress(i, len(steps), f"{key} {name}")
        out[key][name] = rate(work, seconds, repeats)
    for name, value in out["core"].items():
        ref = out["reference"].get(name)
        if ref:
            out["speedup"][name] = value / ref
    if endgame.compiled() is not None:
        if progress:
            progress(len(steps), len(steps) + 1, "endgame solve times")
        out["endgame"] = endgame_times(40 if seconds < 1 else 150)
    out["signature"] = signature()
    out["measured"] = {"seconds_per_figure": seconds, "repeats": repeats, "statistic": "median",
                       "seed": SEED}
    return out
