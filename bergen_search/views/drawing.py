"""What the HTML report and the board draw alike: the dominoes, the labels' marks, each side's
colour and dash, as one SVG sprite of `<symbol>`s (`sprite()`) and one stylesheet (`css()`)."""
from __future__ import annotations

import functools

SIDE_COLOURS = ("#1f5fa8", "#c0392b", "#1e8449", "#7d3c98")
SIDE_DASHES = ("", "7 4", "2 3", "9 3 2 3")
LABEL_COLOURS = {"inaccuracy": "#b7950b", "mistake": "#d35400", "blunder": "#a00000"}
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
#: The pips of each half, on a 20 x 20 square.
PIPS = {0: (), 1: ((10, 10),), 2: ((5, 5), (15, 15)), 3: ((5, 5), (10, 10), (15, 15)),
        4: ((5, 5), (15, 5), (5, 15), (15, 15)),
        5: ((5, 5), (15, 5), (10, 10), (5, 15), (15, 15)),
        6: ((5, 5), (5, 10), (5, 15), (15, 5), (15, 10), (15, 15))}
#: Each label's mark, drawn above the point (0, 0) in a 16 x 16 box (-8..8, -18..-2).
_MARK_SHAPES = {
    "inaccuracy": '<polygon points="0,-14 -6,-4 6,-4"',
    "mistake": '<rect x="-5.5" y="-15" width="11" height="11"',
    "blunder": '<polygon points="0,-18 7,-10 0,-2 -7,-10"',
}

def stylesheet(name: str) -> str:
    """The package's stylesheet `name` (views/report.css, views/drawing.css), read when a page
    is built: not at every command's start-up."""
    from importlib import resources
    return resources.files("bergen_search.views").joinpath(name).read_text(encoding="utf-8")


@functools.cache
def css() -> str:
    """The styles of the tiles and the graph (views/drawing.css; custom properties colour a
    tile drawn by `<use>`: --tile-fill, --tile-stroke, --tile-stroke-width, --pip), then each
    side's."""
    return stylesheet("drawing.css") + "\n".join(
        f"svg .curve.side{i} {{ stroke: {c};{f' stroke-dasharray: {d};' if d else ''} }} "
        f"svg circle.decision.side{i} {{ fill: {c}; }}"
        for i, (c, d) in enumerate(zip(SIDE_COLOURS, SIDE_DASHES)))


def sprite() -> str:
    """The symbols in a hidden `<svg>`: `half0`..`half6`, `tile-h`, `tile-v` and `mark-LABEL`."""
    face = ('class="face" rx="3" style="fill: var(--tile-fill, #fbfaf5); stroke: '
            'var(--tile-stroke, #333); stroke-width: var(--tile-stroke-width, 1.2); '
            'stroke-dasharray: var(--tile-dash, none)"')
    split = 'class="split" style="stroke: var(--tile-stroke, #333); stroke-width: 1"'
    out = ['<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>']
    for n, pips in PIPS.items():
        dots = "".join(f'<circle cx="{x}" cy="{y}" r="2.1" style="fill: var(--pip, #1b1b1b)"/>'
                       for x, y in pips)
        out.append(f'<symbol id="half{n}" viewBox="0 0 20 20">{dots}</symbol>')
    out.append(f'<symbol id="tile-h" viewBox="0 0 40 20" overflow="visible"><rect x="0.5" '
               f'y="0.5" width="39" height="19" {face}/><line x1="20" y1="2" x2="20" y2="18" '
               f'{split}/></symbol>')
    out.append(f'<symbol id="tile-v" viewBox="0 0 20 40" overflow="visible"><rect x="0.5" '
               f'y="0.5" width="19" height="39" {face}/><line x1="2" y1="20" x2="18" y2="20" '
               f'{split}/></symbol>')
    for label, shape in _MARK_SHAPES.items():
        out.append(f'<symbol id="mark-{label}" viewBox="-8 -18 16 16" overflow="visible">'
                   f'{shape} fill="{LABEL_COLOURS[label]}" stroke="#fff"/></symbol>')
    out.append("</defs></svg>")
    return "".join(out)


def tile(a: int, b: int, x: float, y: float, across: bool, cls: str = "") -> str:
    """A domino showing `a` then `b` (top to bottom when `across`), its top left at (x, y)."""
    klass = f' class="{cls}"' if cls else ""
    frame, size, second = (("tile-v", 'width="20" height="40"', 'y="20"') if across
                           else ("tile-h", 'width="40" height="20"', 'x="20"'))
    return (f'<g{klass} transform="translate({x},{y})"><use href="#{frame}" {size}/>'
            f'<use href="#half{a}" width="20" height="20"/>'
            f'<use href="#half{b}" {second} width="20" height="20"/></g>')


def marker(label: str, x: float, y: float, index: int, text: bool = True) -> str:
    """A label's mark with its bottom middle at (x, y), and its text (?!, ?, ??) beside it."""
    shape = (f'<use href="#mark-{label}" x="{x - 8:.1f}" y="{y - 18:.1f}" width="16" '
             f'height="16"/>')
    words = f'<text x="{x + 8:.1f}" y="{y - 8:.1f}">{MARKS[label]}</text>' if text else ""
    return f'<g class="marker {label}" data-decision="{index}">{shape}{words}</g>'
