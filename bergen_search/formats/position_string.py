"""The one-line position string, a `bergen-position/1` in one line (the grammar:
docs/NOTATION.md):

    bergen1/RULES/SCORES/TO_MOVE/HAND/LINE[/SIZES[/RESERVE[/VOIDS]]]

>>> from bergen_search.formats.position import position_from_flags
>>> pos = position_from_flags(hand="0-3 1-2 2-5 5-6", line="1-1 1-4 4-4 4-6 6-3",
...                           hand_sizes="4,5", scores="4,7", voids={"1": [1, 4]})
>>> to_string(pos)
'bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14'
>>> parse_string(to_string(pos)) == pos
True
>>> parse_string('bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3//14').hand_sizes  # inferred
(4, 5)
"""
from __future__ import annotations

import re
from dataclasses import fields
from typing import NamedTuple

from ..errors import BergenError
from ..game.rules import Rules
from ..game.tiles import N_TILES, format_mask, popcount
from .notation import parse_hand, parse_line
from .position import Position

#: The version tag the string starts with; a string is recognised by `bergen<digits>/`.
TAG = "bergen1"
_TAGGED = re.compile(r"^bergen(\d+)/")
#: The parts, in order, by the names error messages use.
PARTS = ("tag", "rules", "scores", "to-move", "hand", "line", "sizes", "reserve", "voids")
_REQUIRED = 6
_RULE_NAMES = tuple(f.name for f in fields(Rules) if f.name not in ("players", "partnerships"))
_NUMBER = re.compile(r"^[0-9]{1,6}$")
_BOOLS = {"true": True, "false": False, "on": True, "off": False}
#: Position.check()'s fields named otherwise here (the rest share their part's name).
_PART_OF_FIELD = {"to_move": "to-move", "hand_sizes": "sizes", "reserve_size": "reserve"}


def is_position_string(text) -> bool:
    """True when `text` (white space aside) starts like a position string, `bergen<N>/`."""
    return isinstance(text, str) and bool(_TAGGED.match(text.strip()))


def _rules_part(rules: Rules) -> str:
    head = f"{rules.players}{'p' if rules.partnerships else ''}"
    extra = [f"{name}={str(value).lower() if isinstance(value, bool) else value}"
             for name, value in rules.to_dict(full=False).items()
             if name not in ("players", "partnerships")]
    return ",".join([head] + extra)


def to_string(pos: Position) -> str:
    """The canonical string of a position: every size written, the voids when any."""
    line = "-".join([str(pos.line[0][0])] + [str(b) for _, b in pos.line]) if pos.line else "-"
    parts = [TAG, _rules_part(pos.rules), ",".join(map(str, pos.scores)), str(pos.to_move),
             ",".join(format_mask(pos.hand)), line,
             ",".join(map(str, pos.hand_sizes)), str(pos.reserve_size)]
    voids = ",".join(f"{s}:{''.join(map(str, sorted(v)))}"
                     for s, v in sorted(pos.voids.items()) if v)
    if voids:
        parts.append(voids)
    return "/".join(parts)


class _Part(NamedTuple):
    """Where a part sits, for error messages: `the hand (part 5, '0-3,7-1')`."""
    at: int
    text: str

    def error(self, message: str) -> BergenError:
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return BergenError(f"position string: {PARTS[self.at]} (part {self.at + 1}, "
                           f"{shown!r}): {message}")


def _number(part: _Part, text: str, what: str) -> int:
    if not _NUMBER.match(text):
        raise part.error(f"{what} must be a whole number, got {text!r}")
    return int(text)


def _parse_rules(part: _Part) -> Rules:
    items = part.text.split(",")
    head = items[0]
    if head not in ("2", "3", "4", "4p"):
        raise part.error(f"must start with the player count: 2, 3, 4, or 4p for partnerships; "
                         f"got {head!r}")
    d: dict[str, int | str] = {"players": int(head[0]), "partnerships": head == "4p"}
    for item in items[1:]:
        key, eq, value = item.partition("=")
        if not eq:
            raise part.error(f"a rule is written key=value, got {item!r}")
        if key in ("players", "partnerships"):
            raise part.error(f"{key} is given by the leading count (2, 3, 4 or 4p), not as "
                             f"{item!r}")
        if key not in _RULE_NAMES:
            raise part.error(f"unknown rule {key!r} (rules: {', '.join(_RULE_NAMES)})")
        if key in d:
            raise part.error(f"rule {key!r} is given twice")
        default = getattr(Rules(), key)
        if isinstance(default, bool):
            if value not in _BOOLS:
                raise part.error(f"rule {key} is true or false, got {value!r}")
            d[key] = _BOOLS[value]
        elif key in ("target", "hand_size", "reserve_kept", "out_bonus"):
            d[key] = _number(part, value, f"rule {key}")
        else:
            d[key] = value
    try:
        return Rules.from_dict(d)
    except BergenError as e:
        raise part.error(e.message) from None


def _parse_int_items(part: _Part, n: int, what: str, blanks: bool = False) -> list:
    items = part.text.split(",") if part.text else ([""] * n if blanks else [])
    if len(items) != n:
        raise part.error(f"needs {n} {what} separated by ',' (one per "
                         f"{'side' if what == 'scores' else 'seat'}), got {len(items)}")
    return [None if blanks and not it else _number(part, it, what[:-1] if what != "scores"
                                                   else "a score") for it in items]


def _parse_line_part(part: _Part):
    text = part.text
    if text == "-":
        return ()
    tiles: str | list[str]
    if "," in text:
        tiles = text
    else:
        nums = text.split("-")
        if len(nums) < 2 or not all(len(x) == 1 and x in "0123456" for x in nums):
            raise part.error("expected the line as a chain of numbers 0..6 like 5-3-3-6 (the "
                             "tiles 5-3 3-3 3-6), a list of tiles like 5-3,3-3,3-6, or - for "
                             "an empty line")
        tiles = [f"{a}-{b}" for a, b in zip(nums, nums[1:])]
    try:
        return parse_line(tiles, "line").pairs
    except BergenError as e:
        raise part.error(e.message.removeprefix("line: ")) from None


def _parse_voids(part: _Part, n: int) -> dict:
    if part.text in ("", "-"):
        return {}
    out = {}
    for item in part.text.split(","):
        seat, colon, nums = item.partition(":")
        if not colon or not _NUMBER.match(seat) or not nums:
            raise part.error(f"each seat's voids are written seat:numbers like 1:14, got "
                             f"{item!r}")
        s = int(seat)
        if s >= n:
            raise part.error(f"seat {s} does not exist with {n} players")
        if s in out:
            raise part.error(f"seat {s} is listed twice")
        if not all(c in "0123456" for c in nums):
            raise part.error(f"voids are numbers 0..6 written together like 14, got {nums!r}")
        if len(set(nums)) != len(nums):
            raise part.error(f"a number is listed twice in {nums!r}")
        out[s] = frozenset(int(c) for c in nums)
    return out


def _infer_sizes(rules: Rules, to_move: int, hand: int, line, sizes: list, reserve,
                 *, parts) -> tuple:
    """Fill the sizes left out: the seat to move's from its hand, every one before the lead,
    and one remaining unknown from the 28 tiles."""
    n = rules.players
    if sizes[to_move] is None:
        sizes[to_move] = popcount(hand)
    if not line:
        sizes = [rules.hand_size if s is None else s for s in sizes]
        if reserve is None:
            reserve = rules.reserve_start
    unknown: list[int | str] = [s for s in range(n) if sizes[s] is None] + (
        ["reserve"] if reserve is None else [])
    if len(unknown) > 1:
        named = ", ".join(f"seat {u}'s hand size" if u != "reserve" else "the reserve's size"
                          for u in unknown)
        raise parts["sizes"].error(f"{len(unknown)} sizes are left out ({named}); one at most "
                                   f"can be inferred from the 28 tiles")
    if unknown:
        rest = N_TILES - len(line) - sum(s for s in sizes if s is not None) - (reserve or 0)
        if rest < 0:
            raise parts["sizes"].error(f"the sizes given already add up to more than the "
                                       f"{N_TILES - len(line)} tiles off the line")
        if unknown[0] == "reserve":
            reserve = rest
        else:
            seat = unknown[0]
            assert isinstance(seat, int)
            sizes[seat] = rest
    return tuple(sizes), reserve


def parse_string(text) -> Position:
    """The `Position` of a string, checked; an error names the part at fault."""
    if not isinstance(text, str):
        raise BergenError(f"a position string must be text, got {type(text).__name__}")
    text = text.strip()
    m = _TAGGED.match(text)
    if not m:
        raise BergenError(f"position string: it must start with '{TAG}/', got "
                          f"{text[:20]!r}")
    if m.group(1) != TAG[len("bergen"):]:
        raise BergenError(f"position string: version bergen{m.group(1)} is not known (this "
                          f"program reads {TAG})")
    bad = re.search(r"[^0-9a-z_,:=/-]", text)
    if bad:
        raise BergenError(f"position string: character {bad.group()!r} at column "
                          f"{bad.start() + 1} cannot occur in it (parts are separated by '/', "
                          f"items by ',', and nothing is written with spaces)")
    raw = text.split("/")
    if len(raw) < _REQUIRED:
        raise BergenError(f"position string: it has {len(raw)} parts, but needs at least "
                          f"{_REQUIRED} ({'/'.join(p.upper() for p in PARTS[:_REQUIRED])}); "
                          f"the {PARTS[len(raw)]} part is missing")
    if len(raw) > len(PARTS):
        raise BergenError(f"position string: it has {len(raw)} parts, at most {len(PARTS)} "
                          f"({'/'.join(p.upper() for p in PARTS)})")
    raw += [""] * (len(PARTS) - len(raw))
    parts = {name: _Part(i, raw[i]) for i, name in enumerate(PARTS)}
    rules = _parse_rules(parts["rules"])
    scores = tuple(_parse_int_items(parts["scores"], rules.n_sides, "scores"))
    to_move = _number(parts["to-move"], parts["to-move"].text, "the seat to move")
    if to_move >= rules.players:
        raise parts["to-move"].error(f"seat {to_move} does not exist with {rules.players} "
                                     f"players")
    if not parts["hand"].text:
        raise parts["hand"].error("the seat to move holds at least one tile")
    try:
        hand = parse_hand(parts["hand"].text.split(","), "hand")
    except BergenError as e:
        raise parts["hand"].error(e.message.removeprefix("hand: ")) from None
    line = _parse_line_part(parts["line"])
    sizes = _parse_int_items(parts["sizes"], rules.players, "hand sizes", blanks=True)
    reserve_text = parts["reserve"].text
    reserve = None if reserve_text == "" else _number(parts["reserve"], reserve_text,
                                                      "the reserve's size")
    voids = _parse_voids(parts["voids"], rules.players)
    sizes, reserve = _infer_sizes(rules, to_move, hand, line, sizes, reserve, parts=parts)
    pos = Position(rules, scores, to_move, hand, line, sizes, reserve, voids)
    try:
        return pos.check()
    except BergenError as e:
        name = (e.field or "").split("[")[0].split(".")[0]
        part = parts.get(_PART_OF_FIELD.get(name, name))
        if part is None:
            raise BergenError(f"position string: {e.message}") from None
        raise part.error(e.message) from None
