"""A position scored for every side (`search.evaluate.Evaluation`), as `bergen eval` prints it:
the JSON document (`evaluation_document`) and the text for people (`evaluation_text`).
"""
from __future__ import annotations

import math

from ..formats.position_string import to_string
from .search import backend_text, bracket_text, endgame_json, exact_text, memory_note, \
    move_text, num, position_text


def side_rows(ev) -> list:
    """Every side's figures as the document's `sides` entries (None: not searched)."""
    return [{"side": s.side, "expected_points": num(s.expected_points),
             "p_win_match": num(s.p_win_match)} for s in ev.sides]


def evaluation_document(game, ev, *, algorithm: str, objective: str, seed: int) -> dict:
    """`bergen eval --json` (docs/FORMATS.md): the sides' figures, then the value of the
    chosen search and how it was searched (without the version, which the door adds)."""
    result = ev.result
    ri = result.info
    info = game.info
    return {"to_move": info.seat, "side_to_move": info.rules.side_of(info.seat),
            "sides": side_rows(ev), "value": num(result.value), "stderr": num(result.stderr),
            "best": move_text(result.best), "objective": objective,
            "algorithm": algorithm,
            "iterations": ri["iterations"], "seconds": round(ri["seconds"], 3),
            "seed": seed, "settings": dict(ri["settings"]), "exact": ri["exact"],
            "interrupted": ev.interrupted, "memory": ri.get("memory"),
            "position": to_string(game.position), "backend": ri["backend"],
            **({"endgame": endgame_json(ri["endgame"])} if "endgame" in ri else {})}


def floor_text(eg: dict) -> list:
    """A declined endgame's bracket in one line: what the hand secures at least (the best
    move's floor), or why there is none; no line when it was not tried."""
    b = eg.get("bracket")
    if not b:
        return bracket_text(eg)     # why there is none, or nothing
    best = max(b["floor"], key=lambda m: (b["floor"][m], str(m)))
    return [f"bracket: this hand secures at least {b['floor'][best]:+.3f} points "
            f"({move_text(best)}; the round solved with this hand shown to the other side, "
            f"{b['deals']:,} deals"
            + (f", {len(b['missing'])} move{'s' if len(b['missing']) > 1 else ''} beyond "
               "the budget" if b["missing"] else "") + ")"]


def evaluation_text(game, ev, alg, *, algorithm: str, objective: str, seed: int) -> str:
    """`bergen eval`'s text: the position, the value with its ± and how it was found, a table
    of every side's expected points and match chances, and the notes that apply. `alg`: the
    registry's Algorithm searched."""
    result = ev.result
    ri = result.info
    info = game.info
    rules = info.rules
    solved = ri.get("endgame", {}).get("solved")
    out = [position_text(game)]
    unit = "points" if objective == "points" else "probability of winning the match"
    err = "n/a" if not math.isfinite(result.stderr) else f"{result.stderr:.3f}"
    how = (exact_text(ri) if solved else
           f"{algorithm}, {ri['iterations']} {alg.unit}, seed {seed}{backend_text(ri)}")
    out.append(f"value {result.value:+.3f} ± {err} ({unit}, side "
               f"{rules.side_of(info.seat)}, best {move_text(result.best)}; {how})")
    if "endgame" in ri and not solved:
        out.append(f"exact: not solved, {ri['endgame']['why']}; {algorithm} instead")
        out.extend(floor_text(ri["endgame"]))
    out.append("")
    out.append(f"  {'side':<5} {'expected points':>16} {'p(win match)':>13}")
    for row in side_rows(ev):
        points = "n/a" if row["expected_points"] is None else f"{row['expected_points']:.3f}"
        chance = "n/a" if row["p_win_match"] is None else f"{100 * row['p_win_match']:.1f}%"
        out.append(f"  {row['side']:<5} {points:>16} {chance:>13}")
    if solved and objective == "points":
        out.append("\n  expected points: the solved equilibrium's; p(win match): ismcts (the "
                   "exact endgame solves the round's points only)")
    interrupted = ("interrupted (Ctrl-C): the figures are the searches' so far"
                   + ("; n/a: not searched" if len(ev.searched) < 2 else ""))
    for note in (memory_note(ri), interrupted if ev.interrupted else None):
        if note:
            out.append("\n" + note)
    if not math.isfinite(result.stderr):
        out.append("\n± n/a: not measured (one replicate, or too few worlds)")
    return "\n".join(out)
