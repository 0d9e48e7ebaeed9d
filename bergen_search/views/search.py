"""The documents of a search that more than one front end prints: `bergen best --json` and
the engine protocol's `bestmove` (engine_protocol.py) are the same document, so that the
same seed and budget give the same answer through either.
"""
from __future__ import annotations

import math

from .. import __version__
from ..formats.position_string import to_string
from ..game.tiles import tile_str


def num(x):
    """A float for JSON: rounded to 6 places; infinity (one sample) and NaN as null."""
    return None if x is None or math.isinf(x) or math.isnan(x) else round(x, 6)


def move_text(row) -> str:
    """A search's move in FORMATS.md notation: a `notation.Move` as `str()` writes it, or a
    `search.MoveValue`'s move, written `a-b:L/R` when it is a row of `search.choices` that
    stands for both mirror twins (`both_ends`). The one place a search's moves become text,
    for `best`'s table, `play`'s hints and the JSON documents."""
    move = getattr(row, "move", row)
    if getattr(row, "both_ends", False):
        return f"{tile_str(move.tile)}:L/R"
    return str(move)


def move_rows(moves) -> list:
    """`MoveValue`s as FORMATS.md's `moves` entries (a mirror twin names its twin)."""
    return [dict({"move": move_text(m), "value": num(m.value), "stderr": num(m.stderr),
                  "visits": m.visits},
                 **({"twin": move_text(m.twin)} if m.twin is not None else {}),
                 **({"share": num(m.share)} if m.share is not None else {}))
            for m in moves]


def measured_rows(moves, exact: bool = False, nothing: bool = False) -> list:
    """`move_rows`, with `null` for every figure that was never measured: a move no
    iteration or world reached (0 visits, unless the values are exact: the exact endgame
    counts none), or every move of a search that measured nothing (`nothing`)."""
    rows = move_rows(moves)
    for row in rows:
        if nothing or (row["visits"] == 0 and not exact):
            row["value"] = row["stderr"] = None
    return rows


def endgame_json(eg: dict) -> dict:
    """The exact endgame's report (`info["endgame"]`) for JSON, floats rounded as elsewhere
    (its `mix`, {Move: share}, keyed by the moves written, in their written order)."""
    out = {}
    for k, v in eg.items():
        if isinstance(v, float):
            v = num(v)
        elif isinstance(v, list):
            v = [num(x) for x in v]
        elif isinstance(v, dict):
            v = dict(sorted((move_text(kk), num(vv)) for kk, vv in v.items()))
        out[k] = v
    return out


def best_document(game, result, *, seed: int, workers: int, objective: str,
                  algorithm: str) -> dict:
    """`bergen best --json`: FORMATS.md's fields, then the others (the position string of
    `game`, a `viewpoint.Game`, and the version)."""
    ri = result.info
    return {"to_move": game.info.seat, "best": move_text(result.best),
            "moves": measured_rows(result.moves, exact=ri["exact"]),
            "value": num(result.value), "stderr": num(result.stderr),
            "objective": objective, "algorithm": algorithm,
            "iterations": ri["iterations"], "seconds": round(ri["seconds"], 3),
            "seed": seed, "workers": workers, "exact": ri["exact"],
            "worlds_consistent": ri["worlds_consistent"],
            "interrupted": ri.get("interrupted", False), "replicates": ri.get("replicates"),
            "settings": dict(ri["settings"]), "memory": ri.get("memory"),
            "position": to_string(game.position), "backend": ri.get("backend", "core"),
            "version": __version__,
            **({"endgame": endgame_json(ri["endgame"])} if "endgame" in ri else {})}
