"""A position scored for every side, as `bergen eval` prints it: its document and text."""
from __future__ import annotations

import math

from ..formats.position_string import to_string
from ..search.api import choices
from .search import (backend_text, bracket_text, choice_names, endgame_json, exact_text,
                     floor_lines, gap_text, lead_fields, lead_how, lead_lines, memory_lines,
                     move_text, num, position_text, settled_lines, shallower_fields,
                     shallower_lines, value_text, value_unit)


def side_rows(ev) -> list:
    """Every side's figures as the document's `sides` (None: not searched)."""
    return [{"side": s.side, "expected_points": num(s.expected_points),
             "p_win_match": num(s.p_win_match)} for s in ev.sides]


def evaluation_document(game, ev, *, algorithm: str, objective: str, seed: int) -> dict:
    """`bergen eval --json` (FORMATS.md), without the version, which the door adds."""
    result = ev.result
    ri = result.info
    info = game.info
    return {"to_move": info.seat, "side_to_move": info.rules.side_of(info.seat),
            "sides": side_rows(ev), "value": num(result.value), "stderr": num(result.plus_minus),
            "best": None if result.best is None else move_text(result.best),
            "objective": objective,
            "algorithm": algorithm,
            "iterations": ri["iterations"], "seconds": round(ri["seconds"], 3),
            "seed": seed, "settings": dict(ri["settings"]), "exact": ri["exact"],
            "interrupted": ev.interrupted, "settled": ri.get("settled"), "memory": ri.get("memory"),
            "position": to_string(game.position), "backend": ri["backend"], **lead_fields(ri),
            **shallower_fields(ri),
            **({"endgame": endgame_json(ri["endgame"])} if "endgame" in ri else {})}


def interrupted_note(ev) -> str:
    """What `eval` says on standard error after Ctrl-C."""
    return ("interrupted (Ctrl-C): the figures are the searches' so far"
            + ("; n/a: not searched" if len(ev.searched) < 2 else ""))


def evaluation_text(game, ev, alg, *, algorithm: str, objective: str, seed: int,
                    verbose: bool = False) -> str:
    """`bergen eval`'s text, the verdict first (`alg`: the registry's Algorithm)."""
    result = ev.result
    ri = result.info
    info = game.info
    rules = info.rules
    solved = ri.get("endgame", {}).get("solved")
    side = rules.side_of(info.seat)
    names = choice_names(choices(result.moves))
    best = ("before the lead" if result.best is None
            else ("before the lead, best " if "leads" in ri else "best ")
            + names.get(result.best, move_text(result.best)))
    out = [f"value {value_text(result.value, objective)} ± "
           f"{gap_text(result.plus_minus, objective)}"
           + (" (a bound: exact)" if solved else "")
           + f"   ({value_unit(objective, side, rules.n_sides, differences=False)}; "
           + best
           + ("; interrupted" if ev.interrupted else "") + ")"]
    out += settled_lines(ri)
    out += ["", f"  {'side':<5} {'expected points':>16} {'p(win match)':>13}"]
    for row in side_rows(ev):
        points = "n/a" if row["expected_points"] is None else f"{row['expected_points']:.3f}"
        chance = "n/a" if row["p_win_match"] is None else f"{100 * row['p_win_match']:.1f}%"
        out.append(f"  {row['side']:<5} {points:>16} {chance:>13}")
    if solved and objective == "points":
        out.append("  expected points: the solved equilibrium's; p(win match): ismcts (the "
                   "exact endgame solves the round's points only)")
    if "endgame" in ri and not solved:
        out += floor_lines(ri["endgame"], names, result.best)
    if "leads" in ri:
        out += ["", *lead_lines(ri, objective), "", position_text(game), lead_how(ri, seed)]
        return "\n".join(out)
    out += ["", position_text(game)]
    how = (exact_text(ri) if solved else
           f"{algorithm}, {ri['iterations']} {alg.unit}, seed {seed}{backend_text(ri)}")
    out.append(how + ("; the sides' figures by " + ev.side_algorithm
                      if ev.side_algorithm != algorithm else ""))
    out += memory_lines(ri) + shallower_lines(ri)
    if not math.isfinite(result.plus_minus):
        out.append("± n/a: not measured (one replicate, or too few worlds)")
    if verbose and "endgame" in ri and not solved:
        out += ["", f"exact: not solved, {ri['endgame']['why']}; {algorithm} instead",
                *bracket_text(ri["endgame"], names)]
    return "\n".join(out)
