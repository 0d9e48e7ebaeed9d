"""Self-play: many matches between engines, each seeded from the run's seed, as record lines,
run serially, on local processes or on a Dask cluster.
"""
from __future__ import annotations

from functools import partial

from ..errors import Interrupted
from ..formats.record_io import dump_record, write_record
from ..game.rng import derive_seed
from ..game.rules import Rules
from ..runs.parallel import batches, run_ordered
from .external import ExternalEngineError, engines_for_run, refuse_cluster
from .seats import play_engines


def _match_records(rules: Rules, specs, seed: int, start_scores, indices) -> list:
    """(record line, winner) of matches `indices` of a self-play run seeded `seed`."""
    out = []
    for i in indices:
        try:
            log = play_engines(rules, specs, derive_seed(seed, i), start_scores)
        except ExternalEngineError as e:
            raise e.at(f"in match {i}") from None
        out.append((dump_record(write_record(log)), log.winner))
    return out


def selfplay(rules: Rules, specs, games: int, seed: int, start_scores=None, *, workers: int = 1,
             cluster=None, progress=None, done: dict | None = None, on_result=None) -> list:
    """[(record line, winner)] of `games` matches (match i seeded `derive_seed(seed, i)`), in
    order, however they were run: serially, on `workers` local processes, or on the Dask
    cluster `cluster` (`parallel.run_ordered`).

    `done` {match index: (record line, winner)}: matches already played (a resumed run),
    which are not played again; `on_result(i, row)` hears of each match as it finishes.
    Ctrl-C raises `errors.Interrupted` whose `partial` is the rows of the matches finished,
    in order, up to the first missing one. Engines in other processes play as in
    `arena.run_arena` (not on a cluster)."""
    rows = dict(done or {})
    simple = all(s.simple_code is not None for s in specs)
    refuse_cluster(specs, cluster)
    task = partial(_match_records, rules, list(specs), seed, start_scores)
    todo = batches([i for i in range(games) if i not in rows], workers, simple, 500)

    def finished(k, batch_rows):
        for i, row in zip(todo[k], batch_rows):
            rows[i] = row
            if on_result is not None:
                on_result(i, row)

    if progress is not None and rows:
        progress(len(rows), games)
    try:
        with engines_for_run(specs, todo, workers):
            run_ordered(task, todo, workers=workers, cluster=cluster, units=len,
                        progress=None if progress is None else
                        (lambda n, total: progress(len(rows), games)), on_result=finished)
    except KeyboardInterrupt:
        prefix: list = []
        while len(prefix) in rows:
            prefix.append(rows[len(prefix)])
        raise Interrupted(prefix, len(rows), games, "matches") from None
    return [rows[i] for i in range(games)]
