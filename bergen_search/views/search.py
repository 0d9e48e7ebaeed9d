"""A search's moves, as the doors print them: `bergen best`'s text (`best_text`) and its
JSON document (`best_document`), which is also the engine protocol's `bestmove`, so that the
same seed and budget give the same answer through either; and the pieces `bergen eval`'s
view shares with it (the position, a solved endgame's header, the memory note).
"""
from __future__ import annotations

import math

from .. import __version__
from ..formats.notation import Move, format_hand, format_line
from ..formats.position_string import to_string
from ..game.tiles import tile_str
from ..search.api import choices, setting_text


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
    (its `mix`, {Move: share}, keyed by the moves written, in their written order; its
    `refined`, {Move: bool}, for the moves outside the mix; its `bracket`, a report of its
    own, the same way: `floor` and `ceiling` {Move: points}, `horizon` {Move: {"floor": n,
    "ceiling": n}}, `missing` [Move])."""
    out = {}
    for k, v in eg.items():
        if isinstance(v, float):
            v = num(v)
        elif isinstance(v, list):
            v = [move_text(x) if isinstance(x, Move) else num(x) for x in v]
        elif isinstance(v, dict) and all(isinstance(kk, str) for kk in v):
            v = endgame_json(v)
        elif isinstance(v, dict):
            v = dict(sorted((move_text(kk), vv if isinstance(vv, (bool, dict)) else num(vv))
                            for kk, vv in v.items()))
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


def scores_text(scores) -> str:
    """Scores by side as `3-7`."""
    return "-".join(str(s) for s in scores)


def position_text(game) -> str:
    """The position of a `formats.game.Game` for people, with its string to paste back."""
    info = game.info
    line = format_line(info.line) or "(empty)"
    return (f"seat {info.seat} to move   scores {scores_text(info.scores)}   reserve "
            f"{info.reserve_size}   hands {','.join(map(str, info.hand_sizes))}\n"
            f"line  {line}\nhand  {' '.join(format_hand(info.hand))}\n"
            f"position {to_string(game.position)}")


def exact_text(ri) -> str:
    """The header of a solved endgame: what was solved and how exactly."""
    eg = ri["endgame"]
    return (f"exact: equilibrium, {eg['deals']:,} deals ({eg['worlds']:,} with this hand), "
            f"exploitability ≤ {eg['exploitability']:.3g}, this hand's values "
            f"± {eg.get('hand_bound', eg['exploitability']):.3g} ({ri['algorithm']}: "
            f"{eg['iterations']} DCFR iterations, {eg['nodes']:,} nodes)")


def refined_note(refined: dict) -> str:
    """What the values of the moves outside a solved endgame's mix are (`refined`: per such
    move, whether its value is refined)."""
    note = ("  answered: a move outside the mix, valued against an opponent who answers it "
            "(the\n  round after it solved again, every hand that could play it believed)")
    if not all(refined.values()):
        note += ("\n  unrefined: the budget ran out before it was answered: its value is "
                 "against the\n  solve's answer, which can make a mistake look smaller")
    return note


def bracket_text(eg: dict, names: dict | None = None) -> list:
    """The lines of a declined endgame's bracket (`eg["bracket"]`), or why there is none
    (`eg["bracket_why"]`); no lines when it was not tried. `names`: Move -> its text in the
    search's table (a row standing for both mirror twins is written `a-b:L/R`)."""
    names = names or {}
    if "bracket_why" in eg:
        return [f"bracket: none, {eg['bracket_why']}"]
    b = eg.get("bracket")
    if b is None:
        return []
    out = [f"bracket: the round solved with this hand shown to the other side, "
           f"{b['deals']:,} deals, {b['seconds']:.2f} s",
           "  floor: what the move secures whatever the other side does, even seeing this hand",
           "  ceiling: what the other side holds it to when it sees this hand (it does not: only",
           "  the floors bound this round's values)",
           ]
    cut = b.get("horizon") or {}
    if cut:
        out += ["  cut at f/c: the floor's tree cut f decisions below the move (this hand "
                "playing a fixed",
                "  policy below, the other side answering each deal seeing both hands), the "
                "ceiling's c",
                "  (both hands seen below); end: solved to the round's end"]
    out.append(f"  {'move':<9} {'floor':>8} {'ceiling':>8}" + ("  cut at" if cut else ""))

    def depth(h: int) -> str:
        return str(h) if h else "end"
    for m in sorted(b["floor"], key=lambda m: (-b["floor"][m], str(m))):
        out.append(f"  {names.get(m, move_text(m)):<9} {b['floor'][m]:>+8.3f} "
                   f"{b['ceiling'][m]:>+8.3f}"
                   + (f"  {depth(cut[m]['floor'])}/{depth(cut[m]['ceiling'])}" if m in cut
                      else "  end" if cut else ""))
    for m in b["missing"]:
        out.append(f"  {names.get(m, move_text(m)):<9} {'-':>8} {'-':>8}  (beyond the budget)")
    return out


def backend_text(ri) -> str:
    """`, pure Python` in a search's header when it ran without the compiled core."""
    return "" if ri.get("backend", "core") == "core" else ", pure Python"


def values_note(ri, objective, alg) -> str:
    """What a value estimates and what its ± covers, in two short lines (`alg`: the
    registry's Algorithm, which says what its values are)."""
    what = ("points still to come in the round (the mover's side's minus the others' mean)"
            if objective == "points" else "the mover's side's chance to win the match")
    reps = ri.get("replicates")
    if ri.get("exact"):
        return f"  value: {what},\n  exact over every consistent world (± 0)"
    if reps is not None:
        if reps < 2:
            return (f"  value: {what},\n  {alg.value_meaning}; ± not measured: one "
                    f"{alg.replicate_noun[:-1]} (replicates=1)")
        per = ri["iterations"] // reps
        return (f"  value: {what},\n  {alg.value_meaning}; ± from the spread of {reps} "
                f"independent\n  {alg.replicate_noun} of about {per} {alg.unit} each")
    return (f"  value: {what},\n  {alg.value_meaning}; ± over the {alg.unit} and the "
            f"horizon's playouts")


def worlds_note(ri) -> str:
    """What the worlds of a header covered, when they were all of them."""
    if ri.get("exact"):
        return " (all consistent worlds: exact)"
    if ri.get("all_worlds"):
        return " (all consistent worlds, random playouts at the horizon, solved more than once)"
    return ""


def settings_text(settings: dict) -> str:
    """An algorithm's settings for a header line: `playout safe, inference on, ...`."""
    return ", ".join(f"{k} {setting_text(v)}" for k, v in settings.items())


def memory_note(ri) -> str | None:
    """A line when the memory cap stopped a tree growing (None otherwise)."""
    mem = ri.get("memory") or {}
    if not mem.get("full"):
        return None
    trees = ri.get("replicates") or 1
    which = "the tree" if trees == 1 else f"{mem['full']} of the {trees} trees"
    return (f"memory: {which} reached the cap of {mem['cap_mb']} MB (the first after "
            f"{mem['full_at']:,} iterations) and stopped growing; the search went on sampling "
            f"within it (--memory raises the cap)")


def best_text(game, result, alg, *, algorithm: str, objective: str, seed: int) -> str:
    """`bergen best`'s text: the position, the search's header, every choice best first
    with its value, ± and visits (or a solved endgame's mix), what the values mean, and the
    best move. `alg`: the registry's Algorithm searched."""
    ri = result.info
    interrupted = bool(ri.get("interrupted"))
    unit = alg.unit
    out = [position_text(game)]
    solved = ri.get("endgame", {}).get("solved")
    if solved:
        out.append(f"{exact_text(ri)}, objective {objective}, {ri['seconds']:.2f} s, "
                   f"seed {seed}" + backend_text(ri) + (", interrupted" if interrupted else ""))
    else:
        out.append(f"{algorithm} ({settings_text(ri['settings'])}), objective {objective}, "
                   f"{ri['iterations']} {unit}{worlds_note(ri)}, "
                   f"{ri['seconds']:.2f} s, seed {seed}" + backend_text(ri)
                   + (", interrupted" if interrupted else ""))
        if "endgame" in ri:
            out.append(f"exact: not solved, {ri['endgame']['why']}; {algorithm} instead")
            names = {}
            for c in choices(result.moves):
                names[c.move] = move_text(c)
                if c.twin is not None:
                    names[c.twin] = move_text(c)
            out.extend(bracket_text(ri["endgame"], names))
    total = sum(m.visits for m in result.moves if m.twin is None) or 1
    ismcts = alg.by_visits and not solved
    out.append("")
    refined = ri.get("endgame", {}).get("refined", {}) if solved else {}
    if solved:
        out.append(f"  {'move':<9} {'value':>8} {'± ε':>9} {'mix':>8}")
    else:
        out.append(f"  {'move':<9} {'value':>8} {'± stderr':>9} "
                   f"{'visits' if ismcts else 'worlds':>8}" + (f" {'share':>7}" if ismcts else ""))
    for m in choices(result.moves):
        se = "" if math.isinf(m.stderr) else f"{m.stderr:.3f}"
        if solved:
            flag = refined.get(m.twin or m.move)
            out.append(f"  {move_text(m):<9} {m.value:>+8.3f} {se:>9} {100.0 * m.share:>7.1f}%"
                       + ("" if flag is None else "  answered" if flag else "  unrefined"))
            continue
        out.append(f"  {move_text(m):<9} {m.value:>+8.3f} {se:>9} {m.visits:>8}"
                   + (f" {100.0 * m.visits / total:>6.1f}%" if ismcts else ""))
    if any(m.twin for m in result.moves):
        out.append("\n  a-b:L/R: either end, the same position mirrored (one choice)")
    if not solved:
        out.append("\n" + values_note(ri, objective, alg))
    elif refined:
        out.append("\n" + refined_note(refined))
    interrupted_note = (f"interrupted (Ctrl-C) after {ri['iterations']} {unit}: the values are "
                        f"the search's so far")
    for note in (memory_note(ri), interrupted_note if interrupted else None):
        if note:
            out.append("  " + note)
    if solved:
        out.append(f"\nbest: {move_text(result.best)} (drawn from the mix with seed {seed})")
    else:
        out.append(f"\nbest: {move_text(result.best)}")
    return "\n".join(out)
