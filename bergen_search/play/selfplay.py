"""Self-play: many matches between engines, each seeded from the run's seed, as record lines,
run serially, on local processes or on a Dask cluster.
"""
from __future__ import annotations

from functools import partial

from ..errors import Interrupted
from ..formats.record_io import dump_record
from ..game.rng import derive_seed
from ..game.rules import Rules
from ..runs.parallel import prefix
from .external import ExternalEngineError, play_batches
from .seats import play_engines


def _match_records(rules: Rules, specs, seed: int, start_scores, indices) -> list:
    """(record line, winner) of matches `indices` of a self-play run seeded `seed`."""
    out = []
    for i in indices:
        try:
            log = play_engines(rules, specs, derive_seed(seed, i), start_scores)
        except ExternalEngineError as e:
            raise e.at(f"in match {i}") from None
        out.append((dump_record(log), log.winner))
    return out


def selfplay(rules: Rules, specs, games: int, seed: int, start_scores=None, *, workers: int = 1,
             cluster=None, progress=None, done: dict | None = None, on_result=None) -> list:
    """[(record line, winner)] of `games` matches (match i seeded `derive_seed(seed, i)`), in
    order. `done` {match index: row}: already played; `on_result(i, row)` hears of each.
    Ctrl-C raises `errors.Interrupted` with the rows up to the first missing."""
    rows = dict(done or {})
    simple = all(s.simple_code is not None for s in specs)
    if progress is not None and rows:
        progress(len(rows), games)
    task = partial(_match_records, rules, list(specs), seed, start_scores)
    try:
        play_batches(task, specs, games, rows, workers=workers, cluster=cluster, fast=simple,
                     cap=500, progress=progress, on_result=on_result)
    except KeyboardInterrupt:
        raise Interrupted(prefix(rows), len(rows), games, "matches") from None
    return [rows[i] for i in range(games)]
