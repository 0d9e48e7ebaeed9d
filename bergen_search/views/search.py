"""A search's moves: `bergen best`'s text and JSON (also the protocol's `bestmove`), and the
pieces `bergen eval` shares."""
from __future__ import annotations

import math
from typing import Any

from .. import __version__
from ..formats.notation import format_hand, format_line
from ..formats.position_string import to_string
from ..game.tiles import tile_str
from ..search.api import choices, paired, setting_text
from ..search.before_lead import MEANING as BEFORE_LEAD_MEANING
from ..search.results import BracketReport, EndgameReport
from ..stats import interval_quantile, normal_quantile
from ..stats import json_number as num


def move_text(row) -> str:
    """A move or a `MoveValue`'s move in notation; `a-b:L/R` for both mirror twins."""
    move = getattr(row, "move", row)
    if getattr(row, "both_ends", False):
        return f"{tile_str(move.tile)}:L/R"
    return str(move)


def move_rows(moves) -> list:
    """`MoveValue`s as FORMATS.md's `moves` entries (a mirror twin names its twin)."""
    return [dict({"move": move_text(m), "value": num(m.value), "stderr": num(m.plus_minus),
                  "visits": m.visits},
                 **({"twin": move_text(m.twin)} if m.twin is not None else {}),
                 **({"raw": num(m.raw)} if m.raw is not None else {}),
                 **({"share": num(m.share)} if m.share is not None else {}))
            for m in moves]


def versus_best(result) -> dict:
    """{Move: (difference to the best, its error plus both bounds, whether its 95% interval
    holds 0)}."""
    if not result.moves:
        return {}
    best = next((m for m in result.moves if m.move == result.best), result.moves[0])
    reps = result.info.get("replicates") or 0
    out = {}
    for m in result.moves:
        d = m.value - best.value
        if m.move == best.move or m.code == best.code or m.twin == best.move \
                or best.twin == m.move:
            out[m.move] = (0.0, 0.0, True)
            continue
        (se, dof), bound = paired(m, best), m.bound + best.bound
        q = (interval_quantile(0.95, dof if math.isfinite(dof) else reps - 1)
             if reps >= 2 else normal_quantile(0.95))
        level = math.isfinite(se) and abs(d) <= q * se + bound
        out[m.move] = (d, se + bound, level)
    return out


def measured_rows(moves, exact: bool = False, nothing: bool = False) -> list:
    """`move_rows` with null figures where never measured (`exact`: the endgame's count)."""
    rows = move_rows(moves)
    for m, row in zip(moves, rows):
        if nothing or not (m.measured or exact):
            row["value"] = row["stderr"] = None
    return rows


#: The entries of the endgame's report keyed by moves.
_MOVE_MAPS = ("mix", "average", "refined", "floor", "ceiling", "horizon")


def endgame_json(eg: EndgameReport | BracketReport) -> dict:
    """The exact endgame's report for JSON: floats rounded, moves written."""
    out: dict = {}
    entries: dict[str, Any] = dict(eg)
    for k, v in entries.items():
        if k == "bracket":
            v = endgame_json(v)
        elif k in _MOVE_MAPS:
            v = dict(sorted((move_text(m), x if isinstance(x, (bool, dict)) else num(x))
                            for m, x in v.items()))
        elif k == "missing":
            v = [move_text(m) for m in v]
        elif k == "bounds":
            v = [num(x) for x in v]
        elif isinstance(v, float):
            v = num(v)
        out[k] = v
    return out


def best_document(game, result, *, seed: int, workers: int, objective: str,
                  algorithm: str) -> dict:
    """`bergen best --json` (FORMATS.md)."""
    ri = result.info
    rows = measured_rows(result.moves, exact=ri["exact"])
    vs = versus_best(result)
    lines = ri.get("lines") or {}
    for m, row in zip(result.moves, rows):
        if row["value"] is None:
            continue
        d, se, level = vs[m.move]
        row.update(vs_best=num(d), vs_best_stderr=num(se), level=level)
        line = lines.get(m.move) or lines.get(m.twin)
        if line:
            row["line"] = [move_text(x) for x in line]
    return {"to_move": game.info.seat,
            "best": None if result.best is None else move_text(result.best), "moves": rows,
            "value": num(result.value), "stderr": num(result.plus_minus),
            "objective": objective, "algorithm": algorithm,
            "iterations": ri["iterations"], "seconds": round(ri["seconds"], 3),
            "seed": seed, "workers": workers, "exact": ri["exact"],
            "worlds_consistent": ri["worlds_consistent"],
            "interrupted": ri.get("interrupted", False), "replicates": ri.get("replicates"),
            "settled": ri.get("settled"),
            "settings": dict(ri["settings"]), "memory": ri.get("memory"),
            "position": to_string(game.position), "backend": ri.get("backend", "core"),
            "version": __version__, **lead_fields(ri), **shallower_fields(ri),
            **({"endgame": endgame_json(ri["endgame"])} if "endgame" in ri else {})}


def lead_fields(ri) -> dict:
    """Before the lead, every lead possible with its chance and value; else nothing."""
    if "leads" not in ri:
        return {}
    return {"leads": [{"seat": s, "tile": tile_str(t), "chance": num(p),
                       "value": num(v) if n else None, "stderr": num(se), "playouts": n}
                      for s, t, p, v, se, n in ri["leads"]]}


def lead_lines(ri, objective: str) -> list:
    """The leads' table of a search before the lead."""
    out = [f"  {'lead':<12} {'chance':>7} {'value':>7} {'±':>6}"]
    for s, t, p, v, se, _ in ri["leads"]:
        out.append(f"  {f'seat {s} {tile_str(t)}':<12} {100 * p:>6.1f}% "
                   f"{value_text(v, objective):>7} {gap_text(se, objective):>6}")
    out.append("  (each lead's chance exact, from this hand alone; its value over the deals "
               "that lead it)")
    return out


def lead_how(ri, seed: int) -> str:
    return (f"before the lead: {ri['iterations']} playouts (playout {ri['playout']}), seed "
            f"{seed}{backend_text(ri)}; {BEFORE_LEAD_MEANING}")


def scores_text(scores, dash: str = "-") -> str:
    return dash.join(str(s) for s in scores)


def position_text(game) -> str:
    """The position for people, with its string to paste back."""
    info = game.info
    line = format_line(info.line) or "(empty)"
    return (f"seat {info.seat} to move   scores {scores_text(info.scores)}   reserve "
            f"{info.reserve_size}   hands {','.join(map(str, info.hand_sizes))}\n"
            f"line  {line}\nhand  {' '.join(format_hand(info.hand))}\n"
            f"position {to_string(game.position)}")


def exact_text(ri) -> str:
    eg = ri["endgame"]
    return (f"exact: equilibrium, {eg['deals']:,} deals ({eg['worlds']:,} with this hand), "
            f"exploitability ≤ {eg['exploitability']:.3g}, this hand's values "
            f"± {eg.get('hand_bound', eg['exploitability']):.3g} ({ri['algorithm']}: "
            f"{eg['iterations']} DCFR iterations, {eg['nodes']:,} nodes)")


def refined_note(refined: dict) -> str:
    """What the values of the moves outside a solved endgame's mix are."""
    note = ("  answered: a move outside the mix, valued against an opponent who answers it "
            "(the\n  round after it solved again, every hand that could play it believed)")
    if not all(refined.values()):
        note += ("\n  unrefined: the budget ran out before it was answered: its value is "
                 "against the\n  solve's answer, which can make a mistake look smaller")
    return note


def bracket_text(eg: dict, names: dict | None = None) -> list:
    """A declined endgame's bracket, or why there is none (`names`: Move -> its text)."""
    names = names or {}
    if "bracket_why" in eg:
        return [f"bracket: none, {eg['bracket_why']}"]
    b = eg.get("bracket")
    if b is None:
        return []
    out = [f"bracket: the round solved with this hand shown to the other side, "
           f"{b['deals']:,} deals, {b['seconds']:.2f} s",
           "  floor: what the move secures whatever the other side does, even seeing this hand:",
           "  a bound of the move's value in this round",
           "  ceiling if shown: what the other side, seeing this hand, holds the move to: a bound",
           "  of the other game only (this round's value, the search's above, may be higher)"]
    cut = b.get("horizon") or {}
    if cut:
        out += ["  cut at f/c: the floor's tree cut f decisions below the move (this hand "
                "playing a fixed",
                "  policy below, the other side answering each deal seeing both hands), the "
                "ceiling's c",
                "  (both hands seen below); end: solved to the round's end"]
    out.append(f"  {'move':<9} {'floor':>8} {'ceiling if shown':>17}"
               + ("  cut at" if cut else ""))

    def depth(h: int) -> str:
        return str(h) if h else "end"
    for m in sorted(b["floor"], key=lambda m: (-b["floor"][m], str(m))):
        out.append(f"  {names.get(m, move_text(m)):<9} {b['floor'][m]:>+8.3f} "
                   f"{b['ceiling'][m]:>+17.3f}"
                   + (f"  {depth(cut[m]['floor'])}/{depth(cut[m]['ceiling'])}" if m in cut
                      else "  end" if cut else ""))
    for m in b["missing"]:
        out.append(f"  {names.get(m, move_text(m)):<9} {'-':>8} {'-':>17}  (beyond the budget)")
    return out


def backend_text(ri) -> str:
    return "" if ri.get("backend", "core") == "core" else ", pure Python"


def values_note(ri, objective, alg) -> str:
    """What a value estimates and what its ± covers."""
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
    if ri.get("exact"):
        return " (all consistent worlds: exact)"
    if ri.get("all_worlds"):
        return " (all consistent worlds, random playouts at the horizon, solved more than once)"
    return ""


def shallower_fields(ri) -> dict:
    """Expectimax: the worlds valued shallower than `depth`, when there are any."""
    return {"worlds_shallower": ri["shallower"]} if ri.get("shallower") else {}


def shallower_lines(ri) -> list:
    """A line when expectimax valued worlds shallower than its depth, else none."""
    if not ri.get("shallower"):
        return []
    depth = dict(ri["settings"]).get("depth")
    n = ri["shallower"]
    return [f"depth: {n} world{'s' if n != 1 else ''} valued shallower than {depth}, the "
            f"search past one world's work budget (--set work=0 searches every world to "
            f"depth {depth}, however long)"]


def memory_lines(ri) -> list:
    """A line when the memory cap stopped a tree growing, else none."""
    mem = ri.get("memory") or {}
    if not mem.get("full"):
        return []
    trees = ri.get("replicates") or 1
    which = "the tree" if trees == 1 else f"{mem['full']} of the {trees} trees"
    return [f"memory: {which} reached the cap of {mem['cap_mb']} MB (the first after "
            f"{mem['full_at']:,} iterations) and stopped growing; the search went on sampling "
            f"within it (--memory raises the cap)"]


#: The expected line's actions `best`'s table shows (the JSON has them all).
LINE_SHOWN = 4


def value_unit(objective: str, side: int, sides: int, differences: bool = True) -> str:
    """What a value counts, for a verdict line."""
    if objective != "points":
        return (f"side {side}'s chance to win the match; ± "
                + ("and differences " if differences else "") + "in percentage points")
    others = f"side {1 - side}" if sides == 2 else "the others' mean"
    return f"points to come this round, side {side} minus {others}"


def value_text(x: float, objective: str = "points", places: int = 3) -> str:
    """Points signed (`+0.412`), or the match objective's chance (`71.2%`)."""
    return f"{100 * x:.1f}%" if objective == "match" else f"{x:+.{places}f}"


def gap_text(d: float, objective: str = "points", places: int = 3, sign: str = "") -> str:
    """A difference, error or bound in points (or percentage points); `n/a` if not finite."""
    if not math.isfinite(d):
        return "n/a"
    return f"{100 * d:{sign}.1f}" if objective == "match" else f"{d:{sign}.{places}f}"


def versus_text(d: float, se: float, level: bool, best: bool, objective: str = "points") -> str:
    """The "vs best" cell: `best`, or the difference ± its error, `level` when it holds 0."""
    if best:
        return "best"
    diff = gap_text(d, objective, sign="+")
    if not math.isfinite(se):
        return diff
    return f"{diff} ± {gap_text(se, objective)}" + (" level" if level else "")


def floor_lines(eg: dict, names: dict, best) -> list:
    """A blank line and what the best move secures whatever the other side holds; none
    without a bracket."""
    b = eg.get("bracket")
    if not b or not b["floor"]:
        return []
    top = max(b["floor"], key=lambda m: (b["floor"][m], str(m)))
    name = lambda m: names.get(m, move_text(m))
    if best in b["floor"]:
        text = (f"floor: {name(best)} secures at least {b['floor'][best]:+.3f} whatever the "
                f"other side holds")
        if b["floor"][top] > b["floor"][best]:
            text += f" ({name(top)} secures {b['floor'][top]:+.3f})"
    else:
        text = (f"floor: {name(top)} secures at least {b['floor'][top]:+.3f} whatever the "
                f"other side holds ({name(best)} was not bracketed)")
    return ["", text + "\n  (certified, against any play of the other side; --verbose: every "
            "move's bracket)"]


def best_text(game, result, alg, *, algorithm: str, objective: str, seed: int,
              verbose: bool = False) -> str:
    """`bergen best`'s text, the verdict first (`alg`: the registry's Algorithm)."""
    ri = result.info
    interrupted = bool(ri.get("interrupted"))
    info = game.info
    side = info.rules.side_of(info.seat)
    if "leads" in ri:
        head = "before the lead:" if result.best is None else f"best: {move_text(result.best)}"
        who = ("the lead, forced" if result.best is not None
               else "who leads is not known yet")
        return "\n".join([
            f"{head}   {value_text(result.value, objective)} ± "
            f"{gap_text(result.stderr, objective)}   "
            f"({value_unit(objective, side, info.rules.n_sides, differences=False)}; {who}"
            + ("; interrupted" if interrupted else "") + ")", "",
            *lead_lines(ri, objective), "", position_text(game), lead_how(ri, seed)])
    solved = ri.get("endgame", {}).get("solved")
    rows = choices(result.moves)
    names = choice_names(rows)
    best_row = next((c for c in rows if c.move == result.best or c.twin == result.best),
                    rows[0])
    out = [f"best: {names.get(result.best, move_text(result.best))}   "
           f"{value_text(result.value, objective)} "
           f"{'± ' + gap_text(result.stderr, objective) if not solved else ''}"
           .rstrip() + f"   ({value_unit(objective, side, info.rules.n_sides)}"
           + (f"; exact, ± {gap_text(result.bound)} a bound" if solved else "")
           + ("; interrupted" if interrupted else "") + ")"]
    out += settled_lines(ri)
    vs = versus_best(result)
    lines = ri.get("lines") or {}
    refined = ri.get("endgame", {}).get("refined", {}) if solved else {}
    out.append("")
    width = max(9, *(len(move_text(c)) for c in rows))
    if solved:
        out.append(f"  {'move':<{width}} {'value':>7} {'± ε':>6} {'mix':>6}   vs best")
    else:
        out.append((f"  {'move':<{width}} {'value':>7} {'±':>6}   {'vs best':<21}"
                    + ("expected line after it" if lines else "")).rstrip())
    for c in rows:
        d, se, level = vs[c.move]
        cell = versus_text(d, se, level, c is best_row, objective)
        if solved:
            flag = refined.get(c.twin or c.move)
            out.append(f"  {move_text(c):<{width}} {c.value:>+7.3f} {gap_text(c.bound):>6} "
                       f"{100.0 * c.share:>5.1f}%   {cell}"
                       + ("" if flag is None else "  answered" if flag else "  unrefined"))
            continue
        words = [move_text(x) for x in lines.get(c.move, ())]
        line = " ".join(words[:LINE_SHOWN]) + (" …" if len(words) > LINE_SHOWN else "")
        out.append((f"  {move_text(c):<{width}} {value_text(c.value, objective):>7} "
                    f"{gap_text(c.stderr, objective):>6}   "
                    f"{cell:<21}{line}").rstrip())
    if any(c.both_ends for c in rows):
        out.append("  a-b:L/R: either end, the same position mirrored (one choice)")
    if solved and refined:
        out.append(refined_note(refined))
    if not solved:
        out += floor_lines(ri.get("endgame", {}), names, result.best)
    out += ["", position_text(game)]
    if solved:
        out.append(f"{exact_text(ri)}, {ri['seconds']:.2f} s, seed {seed}" + backend_text(ri)
                   + f"; the move drawn from the mix with seed {seed}")
    else:
        reps = ri.get("replicates")
        spread = (f"; ± from {reps} independent {alg.replicate_noun}" if reps and reps > 1
                  else "")
        out.append(f"{algorithm}, {ri['iterations']} {alg.unit}{worlds_note(ri)}, "
                   f"{ri['seconds']:.2f} s, seed {seed}{backend_text(ri)}{spread}")
    out += memory_lines(ri) + shallower_lines(ri)
    if verbose:
        out += ["", *explain_lines(result, alg, algorithm=algorithm, objective=objective,
                                   names=names)]
    return "\n".join(out)


def choice_names(rows) -> dict:
    """Move -> its text in a table of `choices`, a mirror twin under its choice's text."""
    return {m: move_text(c) for c in rows for m in (c.move, c.twin) if m is not None}


def settled_lines(ri) -> list:
    """The line under a verdict that has not settled, else none."""
    if ri.get("settled") is not False:
        return []
    more = f"--iterations {4 * ri['iterations']}" if ri.get("iterations") else "more time"
    return [f"not settled: more time may re-rank ({more} searches 4 times as long)"]


def interrupted_note(ri, alg) -> str:
    """What `best` says on standard error after Ctrl-C."""
    return (f"interrupted (Ctrl-C) after {ri['iterations']} {alg.unit}: the values are the "
            f"search's so far")


def explain_lines(result, alg, *, algorithm: str, objective: str, names: dict) -> list:
    """What `--verbose` adds to `best`."""
    ri = result.info
    solved = ri.get("endgame", {}).get("solved")
    settings = ", ".join(f"{k} {setting_text(v)}" for k, v in ri["settings"].items())
    out = [f"settings: {settings}; objective {objective}"]
    if "endgame" in ri and not solved:
        out.append(f"exact: not solved, {ri['endgame']['why']}; {algorithm} instead")
        out.extend(bracket_text(ri["endgame"], names))
    if not solved:
        visits = alg.by_visits
        total = sum(m.visits for m in result.moves if m.twin is None) or 1
        out += ["", f"  {'move':<9} {'visits' if visits else 'worlds':>8}"
                + (f" {'share':>7}" if visits else "")]
        for m in choices(result.moves):
            out.append(f"  {move_text(m):<9} {m.visits:>8}"
                       + (f" {100.0 * m.visits / total:>6.1f}%" if visits else ""))
        out += ["  (visits: where the search spent its budget, not how good a move is)",
                "\n" + values_note(ri, objective, alg)]
    return out
