"""The views of an analysis: the annotated text listing, the JSON document, and a
self-contained HTML report (inline CSS and SVG, no script, nothing fetched; readable without
colour: dash patterns, markers and text marks)."""
from __future__ import annotations

import html
import math

from ..analysis.luck import identity_sum, rounds_of
from ..analysis.review import combined_summary
from ..analysis.verdicts import CONFIDENCE, LABELS
from ..formats.notation import Move
from ..game.state import LEFT
from ..game.tiles import TILE_HIGH, TILE_LOW, iter_mask, tile_str
from . import drawing, graph
from .search import gap_text, scores_text, value_text
from .drawing import MARKS, SIDE_COLOURS as _SIDE_COLOURS, SIDE_DASHES as _SIDE_DASHES

#: The report's Content-Security-Policy: the browser refuses any fetch or script.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


# ---- text -------------------------------------------------------------------------------


def gained(points) -> str:
    """What an event scored, by side: `+2` (or `+2 +3`), empty when nothing."""
    return " ".join(f"+{p}" for p in points if p)


def text(result, settings=True) -> str:
    """The annotated listing of one analysed match, then its summary and settings."""
    out = []
    objective = _objective(result)
    for r, events in enumerate(result.annotated):
        out.append(f"round {r + 1}")
        for event, seat, action, line, points, dec in events:
            out.append(f"  {event:>3}  seat {seat}  {str(action) + mark_of(dec):<11} "
                       f"{gained(points):<4} {line}" + ("   (exact)" if dec and dec.exact else ""))
            if dec and (dec.label or dec.borderline):
                out.append(f"        {verdict_text(dec)}: {dec.played} "
                           f"{value_text(dec.values[dec.played], objective, 2)}, "
                           f"{compared_text(dec, objective)} "
                           f"({loss_text(dec, objective=objective)})")
                if dec.position:
                    out.append(f"        position {dec.position}")
    out += ["", *summary_table(result.summary, objective, per_round=True)]
    exact = sum(d.exact for d in result.decisions)
    if exact:
        out.append(f"(exact: {exact} of {len(result.decisions)} decisions valued by the solved "
                   f"endgame, their losses within the two moves' bounds)")
    if settings:
        out.append(settings_line(result.settings))
    return "\n".join(out)


def mark_of(dec) -> str:
    """The mark after a play: `?!`, `?`, `??`; a borderline one in brackets (`[?!]`, `[-]`)."""
    if dec is None:
        return ""
    if dec.borderline:
        return f"[{MARKS.get(dec.label, '-')}]"
    return MARKS.get(dec.label, "")


def rival(dec):
    """The play a loss is measured against: the best, or the runner-up when the play made was
    best."""
    if dec.best != dec.played:
        return dec.best
    mine = dec.values[dec.played]
    others = [m for m in dec.values if m != dec.played
              and not (m.tile == dec.played.tile and dec.values[m] == mine)]
    return max(others, key=lambda m: (dec.values[m], str(m)), default=None)


def compared_text(dec, objective: str = "points") -> str:
    """`better 2-3:L +0.43`, or `the search's best; 1-2:R +0.40 may be better`."""
    other = rival(dec)
    if other is None:
        return "the only choice"
    # rounded as the documents are, so that the board says the same
    shown = value_text(round(dec.values[other], 4), objective, 2)
    if dec.best != dec.played:
        return f"better {other} {shown}"
    return f"the search's best; {other} {shown} may be better"


def verdict_text(dec) -> str:
    """`mistake`, or `borderline mistake` / `borderline (no label)`."""
    if dec.borderline:
        return f"borderline {dec.label}" if dec.label else "borderline (no label)"
    return dec.label


def loss_text(dec, exact: bool = True, objective: str = "points") -> str:
    """The loss with its error, interval and rechecks (`exact`: say when it is exact)."""
    lo, hi = dec.loss_interval
    pp = " pp" if objective == "match" else ""
    out = (f"loss {gap_text(dec.loss, objective, 2)} ± {gap_text(dec.loss_stderr, objective, 2)}"
           + pp)
    if getattr(dec, "exact", False):
        return out + (", exact (± the two moves' bounds)" if exact else "")
    if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
        out += (f", {100 * CONFIDENCE:g}% [{gap_text(lo, objective, 2)}, "
                f"{gap_text(hi, objective, 2)}]{pp}")
    if dec.rechecks:
        out += f", {dec.rechecks} recheck{'s' if dec.rechecks > 1 else ''}"
    return out


def text_all(results) -> str:
    """Several analysed matches (None: not analysed), numbered from 1, then the totals."""
    out = []
    done = [r for r in results if r is not None]
    total = len(results)
    for i, res in enumerate(results):
        if res is not None:
            out += [f"=== match {i + 1} of {total}", text(res, settings=False), ""]
    out.append(f"=== all {total} matches" if len(done) == total else
               f"=== the {len(done)} matches analysed, of {total}")
    out += summary_table(combined_summary(done), _objective(done[0]))
    out.append(settings_line(done[0].settings))
    return "\n".join(out)


def summary_table(summary, objective: str = "points", per_round: bool = False) -> list:
    """The seats' totals, then the luck identity."""
    out = [f"  {'seat':<5} {'decisions':>9} {'forced':>6} {'total loss':>10} {'mean':>6} "
           f"{'?!':>3} {'?':>3} {'??':>3} {'[ ]':>3} {'error rate':>10} {'luck':>7}"]
    for sm in summary:
        out.append(f"  {sm.seat:<5} {sm.decisions:>9} {sm.forced:>6} "
                   f"{gap_text(sm.total_loss, objective, 2):>10} "
                   f"{gap_text(sm.mean_loss, objective, 3):>6} {sm.counts['inaccuracy']:>3} "
                   f"{sm.counts['mistake']:>3} {sm.counts['blunder']:>3} {sm.borderline:>3} "
                   f"{100 * sm.error_rate:>9.1f}% "
                   f"{gap_text(sm.luck_deal + sm.luck_draws, objective, 2, sign='+'):>7}")
    if objective == "match":
        out.append("  (values are chances to win the match; losses, their ± and luck in "
                   "percentage points)")
    return out + identity_table(summary, objective, per_round)


def identity_table(summary, objective: str = "points", per_round: bool = False) -> list:
    """The luck identity of `summary` as a table a reader adds up (`per_round`: each round)."""
    rows = rounds_of(summary) if per_round else []
    sums = [(sm.seat, identity_sum(sm.rounds)) for sm in summary]
    if not rows and all(t is None for _, t in sums):
        return []

    def cell(x) -> str:
        return f"{'n/a' if x is None else gap_text(x, objective, 2, sign='+'):>8}"

    def line(where: str, x) -> str:
        return (f"  {where:<5} {x.seat:<4} {cell(x.result)} ={cell(x.start)} {cell(x.luck_deal)}"
                f" {cell(x.luck_draws)} {cell(0.0 - x.loss)} {cell(x.others)} {cell(x.residual)}")
    unit = ("the side's margin in points" if objective == "points"
            else "its chance to win at the next deal, in percentage points")
    out = ["", f"luck and play add up to the result ({unit}):",
           "  result = start + luck of the deal + of the draws - own losses + others' losses "
           "+ residual",
           f"  {'round':<5} {'seat':<4} {'result':>8}  {'start':>7} {'deal':>8} {'draws':>8} "
           f"{'-loss':>8} {'others':>8} {'residual':>8}"]
    out += [line(str(x.round + 1), x) for x in rows]
    out += [line("all", t) for _, t in sums if t is not None]
    return out


def settings_line(st) -> str:
    th = [st["thresholds"][k] for k in ("inaccuracy", "mistake", "blunder")]
    thresholds = ("/".join(f"{100 * x:g}" for x in th) + " pp" if st["objective"] == "match"
                  else "/".join(str(x) for x in th))
    return (f"({st['algorithm']}, objective {st['objective']}, "
            f"{st['iterations'] or ''}{' iterations' if st['iterations'] else ''}"
            f"{st['time'] or ''}{' s' if st['time'] else ''} per decision, seed {st['seed']}; "
            f"thresholds {thresholds}, labelled when the "
            f"{100 * st.get('confidence', CONFIDENCE):g}% interval is inside; [ ] borderline)")


# ---- JSON -------------------------------------------------------------------------------


def to_json(results, seconds: float | None) -> dict:
    """`analyze --json` (FORMATS.md), with the wall time unless `seconds` is None."""
    if len(results) == 1:
        out = results[0].to_json()
    else:
        out = {"decisions": [dict(d.to_json(), match=i) for i, res in enumerate(results)
                             for d in res.decisions],
               "summary": [sm.to_json() for sm in combined_summary(results)],
               "matches": [dict(match=i, **{k: res.to_json()[k] for k in ("summary", "rounds")})
                           for i, res in enumerate(results)],
               "settings": results[0].settings}
    if seconds is not None:
        out["seconds"] = round(seconds, 3)
    return out


# ---- HTML -------------------------------------------------------------------------------


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _f(x, fmt="+.2f") -> str:
    if x is None or (isinstance(x, float) and (math.isnan(x) or math.isinf(x))):
        return "–"
    return format(x, fmt).replace("-", "−")


def _objective(result) -> str:
    return result.settings.get("objective", "points")


def _value(x, objective: str) -> str:
    if objective != "match" or x is None or not math.isfinite(x):
        return _f(x)
    return value_text(x, objective)


def _gap(x, objective: str, fmt: str = ".2f") -> str:
    if objective != "match" or x is None or not math.isfinite(x):
        return _f(x, fmt)
    return gap_text(x, objective, sign="+" if fmt.startswith("+") else "").replace("-", "−")


#: Dominoes per drawing: a long line or hand wraps in drawings of at most this many.
WRAP_TILES = 4


def _row_svgs(tiles, kind: str, title: str) -> str:
    rows = []
    for start in range(0, max(len(tiles), 1), WRAP_TILES):
        parts, x = [], 1
        for a, b, across, cls in tiles[start:start + WRAP_TILES]:
            parts.append(drawing.tile(a, b, x, 1 if across else 11, across, cls))
            x += 26 if kind == "hand" else (22 if across else 42)
        width = max(x, 2)
        rows.append(f'<svg class="dominoes {kind}" aria-hidden="true" viewBox="0 0 {width} 42" '
                    f'width="{width}" height="42">{"".join(parts)}</svg>')
    return f'<div class="tiles" role="img" aria-label="{_e(title)}">{"".join(rows)}</div>'


def _line_svg(pairs, played_at=None, title="the line") -> str:
    return _row_svgs([(a, b, a == b, "played" if i == played_at else "")
                      for i, (a, b) in enumerate(pairs)], "line", title)


def _hand_svg(tiles, played=None, best=None, title="the hand") -> str:
    return _row_svgs([(TILE_LOW[t], TILE_HIGH[t], True, " ".join(
        c for c, on in (("played", t == played), ("best", t == best)) if on))
        for t in tiles], "hand", title)


def side_name(rules, side) -> str:
    """`seat 2`, or with partnerships `side 0 (seats 0 and 2)`."""
    if rules is not None and rules.partnerships:
        return f"side {side} (seats {side} and {side + 2})"
    return f"seat {side}"


def _summary_html(summary, table_id="summary", objective: str = "points") -> str:
    head = ("<tr><th>seat</th><th>decisions</th><th>forced</th><th>total loss</th>"
            "<th>mean loss</th><th>inaccuracies ?!</th><th>mistakes ?</th><th>blunders ??</th>"
            "<th>borderline [ ]</th>"
            "<th>error rate</th><th>luck, deal</th><th>luck, draws</th></tr>")
    rows = []
    for sm in summary:
        cells = [("seat", sm.seat, str(sm.seat)), ("decisions", sm.decisions, str(sm.decisions)),
                 ("forced", sm.forced, str(sm.forced)),
                 ("total_loss", round(sm.total_loss, 4), _gap(sm.total_loss, objective)),
                 ("mean_loss", round(sm.mean_loss, 4), _gap(sm.mean_loss, objective, ".3f")),
                 ("inaccuracies", sm.counts["inaccuracy"], str(sm.counts["inaccuracy"])),
                 ("mistakes", sm.counts["mistake"], str(sm.counts["mistake"])),
                 ("blunders", sm.counts["blunder"], str(sm.counts["blunder"])),
                 ("borderline", sm.borderline, str(sm.borderline)),
                 ("error_rate", round(sm.error_rate, 4), f"{100 * sm.error_rate:.1f}%"),
                 ("luck_deal", round(sm.luck_deal, 4), _gap(sm.luck_deal, objective, "+.2f")),
                 ("luck_draws", round(sm.luck_draws, 4), _gap(sm.luck_draws, objective, "+.2f"))]
        rows.append(f'<tr data-seat="{sm.seat}">' + "".join(
            f'<td class="{k}" data-value="{v}">{_e(t)}</td>' for k, v, t in cells) + "</tr>")
    return (f'<div class="scroll"><table class="summary" id="{table_id}">{head}'
            f'{"".join(rows)}</table></div>')


def _settings_html(st) -> str:
    budget = (f"{st['iterations']} iterations" if st.get("iterations") else
              f"{st.get('time')} s")
    th = st["thresholds"]
    items = [("algorithm", st["algorithm"]), ("budget per decision", budget),
             ("objective", st["objective"]), ("seed", st["seed"]),
             ("recheck", f"×{st['recheck']} budget before a label, up to "
                         f"{st.get('max_rechecks', 1)} times while undecided"),
             ("thresholds", f"inaccuracy {th['inaccuracy']}, mistake {th['mistake']}, "
                            f"blunder {th['blunder']}"),
             ("workers", st["workers"]), *(st.get("settings") or {}).items()]
    return ('<dl class="settings" id="settings">' + "".join(
        f'<dt>{_e(k)}</dt><dd data-key="{_e(k)}">{_e(v)}</dd>' for k, v in items) + "</dl>")


def _graph_svg(result, prefix: str) -> str:
    rules, objective = result.rules, _objective(result)
    p = graph.place(_graph_columns(result), rules.n_sides if rules is not None else 2,
                    objective)
    W, left, right, top, plot_h, lane_h = 900, 54, 12, 66, 230, 64
    H = top + plot_h + 28 + lane_h + 8
    step = (W - left - right) / max(p.columns, 1)

    def X(i):
        return left + (i + 0.5) * step

    def Y(v):
        v = min(max(v, p.lo), p.hi)
        return top + plot_h * (p.hi - v) / (p.hi - p.lo)

    out = [f'<svg class="graph" id="{prefix}graph" viewBox="0 0 {W} {H}" role="img" '
           f'aria-label="the value of every side after every decision">']
    for t, text in zip(p.ticks, p.tick_texts):
        out.append(f'<line class="grid" x1="{left}" y1="{Y(t):.1f}" x2="{W - right}" '
                   f'y2="{Y(t):.1f}"/><text x="{left - 6}" y="{Y(t) + 4:.1f}" '
                   f'text-anchor="end">{_e(text)}</text>')
    out.append(f'<line class="axis" x1="{left}" y1="{Y(p.axis):.1f}" x2="{W - right}" '
               f'y2="{Y(p.axis):.1f}"/>')
    unit = "chance of winning the match" if objective == "match" else \
        "expected round margin (points)"
    out.append(f'<text x="{left}" y="12">{_e(unit)}</text>')
    for i, r in p.boundaries:
        x = left + i * step
        scores = result.start_scores[r] if r < len(result.start_scores) else ()
        label = f"round {r + 1}  " + scores_text(scores, "–")
        out.append(f'<g class="round-boundary" data-round="{r}"><line class="boundary" '
                   f'x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{top + plot_h}"/>'
                   f'<text x="{x + 3:.1f}" y="{top - 9}">{_e(label)}</text></g>')
    if result.ends:
        scores, why = result.ends[-1]
        out.append(f'<text x="{W - right}" y="12" text-anchor="end">'
                   f'{_e("end  " + scores_text(scores, "–"))}</text>')
    for c in p.curves:
        d = " ".join(f"{X(i):.1f},{Y(v):.1f}" for i, v in c.points)
        out.append(f'<polyline class="curve side{c.side}" data-side="{c.side}" points="{d}"/>')
    out.extend(_graph_dots(result, p, prefix, X, Y))
    out.extend(_luck_lane(p, result, X, step, left, W - right, lane_top=top + plot_h + 28,
                          lane_h=lane_h))
    out.append("</svg>")
    return "".join(out)


def _graph_columns(result) -> list:
    rules, cols = result.rules, []
    for m in result.moments:
        dec = result.decisions[m.decision] if m.decision is not None else None
        cols.append(graph.Column(
            m.round, rules.side_of(m.seat) if rules is not None else m.seat, m.sides, m.value,
            m.decision, dec.label if dec else None, bool(dec and dec.borderline),
            bool(dec and dec.exact), m.luck, m.luck_kind))
    return cols


def _graph_dots(result, p, prefix: str, X, Y) -> list:
    out = []
    obj = _objective(result)
    for dot in p.dots:
        m, dec = result.moments[dot.column], result.decisions[dot.decision]
        x, y = X(dot.column), Y(dot.value)
        tip = (f"round {m.round + 1}, event {m.event}, seat {m.seat}: {dec.played} "
               f"{_value(dec.values[dec.played], obj)}; best {dec.best} "
               f"{_value(dec.values[dec.best], obj)}; loss {_gap(dec.loss, obj)}"
               + (f" — {verdict_text(dec)}" if dec.label or dec.borderline else ""))
        label_attr = (f' data-borderline="{dot.label or "none"}"' if dot.borderline else
                      f' data-label="{dot.label}"' if dot.label else "")
        out.append(f'<a href="#{prefix}d{dot.decision}"><circle class="decision '
                   f'side{dot.side}" data-decision="{dot.decision}"{label_attr} cx="{x:.1f}" '
                   f'cy="{y:.1f}" r="3.2"><title>{_e(tip)}</title></circle></a>')
        if dot.exact:
            out.append(f'<circle class="exact-ring" data-decision="{dot.decision}" '
                       f'cx="{x:.1f}" cy="{y:.1f}" r="6.5"/>')
        if dot.mark == "marker":
            out.append(f'<line class="leader" x1="{x:.1f}" y1="{MARKS_Y + 1}" x2="{x:.1f}" '
                       f'y2="{y - 5:.1f}"/>'
                       f'<a href="#{prefix}d{dot.decision}">'
                       f'{drawing.marker(dot.label, x, MARKS_Y, dot.decision)}</a>')
    return out


def _luck_lane(p, result, X, step, left, right_x, *, lane_top, lane_h) -> list:
    mid, obj = lane_top + lane_h / 2, _objective(result)
    scale = (lane_h / 2 - 4) / p.luck_top
    out = [f'<text x="{left - 6}" y="{mid + 4:.1f}" text-anchor="end">luck</text>'
           f'<line class="grid" x1="{left}" y1="{mid:.1f}" x2="{right_x}" y2="{mid:.1f}"/>'
           f'<text x="{left}" y="{lane_top - 8}">luck: ▮ the deal, ▯ the draws '
           f'(up good for the seat that moved)</text>']
    for b in p.luck:
        h = abs(b.value) * scale
        y = mid - h if b.value > 0 else mid
        fill = _SIDE_COLOURS[b.side] if b.kind == "deal" else "#fff"
        tip = (f"seat {result.moments[b.column].seat}, luck of the "
               f"{'deal' if b.kind == 'deal' else 'draws'}: {_gap(b.value, obj, '+.2f')}")
        out.append(f'<rect class="luckbar {b.kind}" data-luck="{round(b.value, 4)}" '
                   f'x="{X(b.column) - max(step * .3, 1.5):.1f}" y="{y:.1f}" '
                   f'width="{max(step * .6, 3):.1f}" height="{max(h, .8):.1f}" fill="{fill}" '
                   f'stroke="{_SIDE_COLOURS[b.side]}"><title>{_e(tip)}</title></rect>')
    return out


#: The baseline of the labels' markers, in the strip above the plot.
MARKS_Y = 44


def _legend(rules) -> str:
    n = rules.n_sides if rules is not None else 2
    items = []
    for sd in range(n):
        dash = f' stroke-dasharray="{_SIDE_DASHES[sd]}"' if _SIDE_DASHES[sd] else ""
        items.append(f'<span><svg width="34" height="10"><line x1="0" y1="5" x2="34" y2="5" '
                     f'stroke="{_SIDE_COLOURS[sd]}" stroke-width="2.5"{dash}/></svg> '
                     f'{_e(side_name(rules, sd))}</span>')
    for label in LABELS:
        shape = drawing.marker(label, 0, 0, -1, text=False)
        items.append(f'<span><svg width="16" height="16" viewBox="-8 -18 16 16">{shape}'
                     f'</svg> {MARKS[label]} {label}</span>')
    items.append('<span><svg width="16" height="16" viewBox="-8 -8 16 16"><circle r="3.2" '
                 'fill="#777"/><circle class="exact-ring" r="6.5"/></svg> exact (the '
                 'endgame solved)</span>')
    return f'<div class="legend">{"".join(items)}</div>'


#: How the HTML marks a decision valued by the exact endgame.
EXACT_NOTE = ('; <span class="exact">exact</span> (the endgame solved; ± the two moves\' '
              'bounds)')


def _decision_html(result, prefix, index, r, event, seat, *, line, points) -> str:
    dec = result.decisions[index]
    obj = _objective(result)
    pairs = line.pairs
    played_at = (None if dec.played.end is None
                 else 0 if dec.played.end == LEFT else len(pairs) - 1)
    kind = "borderline" if dec.borderline else dec.label
    label_cls = f" label-{kind}" if kind else ""
    badge = f' <span class="badge {kind}">{_e(verdict_text(dec))}</span>' if kind else ""
    label_attr = (f' data-borderline="{dec.label or "none"}"' if dec.borderline
                  else f' data-label="{dec.label}"' if dec.label else "")
    label_attr += ' data-exact="1"' if dec.exact else ""
    hand = result.hands[r].get(event) if r < len(result.hands) else None
    hand_svg = ""
    if hand is not None:
        tiles = list(iter_mask(hand))
        best_tile = dec.best.tile if dec.best != dec.played else None
        drawn = _hand_svg(tiles, dec.played.tile, best_tile, f"hand of seat {seat}")
        hand_svg = (f'<figure>{drawn}<figcaption>hand of seat {seat}: '
                    f'{_e(" ".join(tile_str(t) for t in tiles))}</figcaption></figure>')
    position = (f'<div class="position">position before the play: <code class="mono">'
                f'{_e(dec.position)}</code></div>' if dec.position else "")
    other = rival(dec)
    if dec.best != dec.played:
        best_note = (f'best <span class="move">{_e(dec.best)}</span> '
                     f'{_value(dec.values[dec.best], obj)}')
    elif dec.borderline and other is not None:
        best_note = (f'the search\'s best; <span class="move">{_e(other)}</span> '
                     f'{_value(dec.values[other], obj)} may be better')
    else:
        best_note = "the best play"
    loss = (_e(loss_text(dec, exact=False, objective=obj))
            if dec.best != dec.played or dec.borderline else "loss 0")
    rows = []
    for move, v in sorted(dec.values.items(), key=lambda kv: -kv[1]):
        cls = " ".join(c for c, on in (("isbest", move == dec.best),
                                       ("isplayed", move == dec.played)) if on)
        rows.append(f'<tr class="{cls}"><td class="mono">{_e(move)}</td><td>{_value(v, obj)}</td>'
                    f'<td>± {_gap(dec.stderrs.get(move), obj)}</td>'
                    f'<td>{_gap(dec.values[dec.best] - v, obj)}</td></tr>')
    details = (f'<details><summary>all {len(dec.values)} plays</summary>'
               f'<table class="moves"><tr><th>play</th><th>value</th><th>stderr</th>'
               f'<th>loss</th></tr>{"".join(rows)}</table></details>')
    return (f'<li class="decision{label_cls}" id="{prefix}d{index}" data-decision="{index}"'
            f'{label_attr}>'
            f'<div class="head"><span class="mono">event {event}</span><span>seat {seat}</span>'
            f'<span class="move">{_e(dec.played)}{mark_of(dec)}</span>{badge}'
            f'<span>{_e(gained(points))}</span></div>'
            f'<div class="values">played <span class="move">{_e(dec.played)}</span> '
            f'{_value(dec.values[dec.played], obj)}; {best_note}; {loss}'
            f'{EXACT_NOTE if dec.exact else ""}'
            f'</div>'
            f'<div class="board"><figure>{_line_svg(pairs, played_at, "the line after the play")}'
            f'<figcaption>line after the play</figcaption></figure>{hand_svg}</div>'
            f'{details}{position}</li>')


def _minor_html(event, seat, action, points, forced) -> str:
    scored = gained(points)
    if action == Move.DRAW:
        what = "draws"
    elif action == Move.PASS:
        what = "passes"
    else:
        what = f'plays <span class="move">{_e(action)}</span>' + (" (forced)" if forced else "")
    return (f'<li class="minor"><span class="mono">event {event}</span> · seat {seat} {what}'
            f'{" " + _e(scored) if scored else ""}</li>')


def _match_html(result, prefix="", title=None) -> str:
    rules = result.rules
    out = []
    if title:
        outcome = _outcome(result)
        out.append(f'<h2 id="{prefix}top">{_e(title)}{": " + _e(outcome) if outcome else ""}</h2>')
    out.append(f'<section class="chart"><h3>The match at a glance</h3>{_legend(rules)}'
               f'<p class="scroll-note">the graph is wider than the screen: scroll it '
               f'sideways for the whole match →</p>'
               f'<div class="scroll graph-scroll">{_graph_svg(result, prefix)}</div></section>')
    summary = _summary_html(result.summary, prefix + "summary", _objective(result))
    out.append(f'<h3>Summary per seat</h3>{summary}')
    forced = result.forced
    index = {id(d): i for i, d in enumerate(result.decisions)}
    for r, events in enumerate(result.annotated):
        start = result.start_scores[r] if r < len(result.start_scores) else ()
        end = result.ends[r] if r < len(result.ends) else None
        head = f"Round {r + 1}: from " + scores_text(start, "–")
        if end is not None:
            head += " to " + scores_text(end[0], "–")
            if end[1]:
                head += f" ({end[1]})"
        items = []
        for event, seat, action, line, points, dec in events:
            if dec is not None:
                items.append(_decision_html(result, prefix, index[id(dec)], r, event, seat,
                                            line=line, points=points))
            else:
                items.append(_minor_html(event, seat, action, points,
                                         (r, event) in forced))
        out.append(f'<section class="round" id="{prefix}r{r}"><h3>{_e(head)}</h3>'
                   f'<ol class="events">{"".join(items)}</ol></section>')
    return "".join(out)


def _outcome(result) -> str:
    if not result.ends:
        return ""
    scores, why = result.ends[-1]
    text = scores_text(scores, "–")
    if why == "target":
        best = max(range(len(scores)), key=lambda i: scores[i])
        return f"final {text}, {side_name(result.rules, best)} wins the match"
    return f"scores {text} when the record stops"


def html_report(results, *, title="Bergen analysis") -> str:
    """The self-contained HTML report of analysed matches: a function of them alone."""
    rules = results[0].rules
    players = f"{rules.players} players" + (", partnerships" if rules.partnerships else "") \
        if rules is not None else ""
    sub = [players, f'{len(results)} match{"es" if len(results) != 1 else ""}',
           f"{sum(len(r.decisions) for r in results)} decisions analysed"]
    if len(results) == 1:
        sub.append(_outcome(results[0]))
    body = [f"<h1>{_e(title)}</h1>", f'<p class="sub">{_e(" · ".join(sub))}</p>',
            "<h2>Settings</h2>", _settings_html(results[0].settings)]
    if len(results) == 1:
        body.append(_match_html(results[0]))
    else:
        body.append("<h2>All matches: summary per seat</h2>")
        body.append(_summary_html(combined_summary(results), objective=_objective(results[0])))
        body.append("<p>" + " · ".join(f'<a href="#m{i}-top">match {i}</a>'
                                       for i in range(len(results))) + "</p>")
        for i, res in enumerate(results):
            body.append(f'<section class="match" id="m{i}">'
                        f'{_match_html(res, f"m{i}-", f"Match {i}")}</section>')
    body.append(f"<footer>Written by bergen_search. Values are the mover's side's, in the "
                f"objective's unit; a loss is the best play's value minus the played one's, "
                f"labelled only when its {100 * CONFIDENCE:g}% interval lies within the "
                f"label's band; otherwise, after the rechecks, it is marked borderline.</footer>")
    css = drawing.stylesheet("report.css") + drawing.css()
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_e(title)}</title><style>\n{css}</style></head><body>"
            f"{drawing.sprite()}{''.join(body)}</body></html>\n")
