"""FORMATS.md notation of tiles, hands, lines and moves, parsed and written, on the ints of
`tiles` and `state`; a parse error is a `BergenError` saying what was expected.

>>> line = parse_line("5-3 3-3 3-6")
>>> line.ends, line.left_double, line.right_double, format_line(line)
((5, 6), False, False, '5-3 3-3 3-6')
>>> format_move(parse_move("6-4", line), lead=False)
'4-6:R'
>>> Move.parse("5-3:L")
Move.parse('3-5:L')
>>> eval(repr(Move.parse("5-3:R"))) == Move.parse("5-3:R")
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering
from typing import ClassVar

from ..errors import BergenError
from ..game.state import DRAW, LEFT, PASS, RIGHT, move_str
from ..game.tiles import (
    N_TILES,
    TILE_HIGH,
    TILE_LOW,
    LineEnds,
    format_mask,
    is_double,
    mask_of,
    parse_halves,
    parse_tile,
    tile_index,
    tile_str,
)

_SEPARATORS = re.compile(r"[\s,]+")
#: Between two integers of a list: one comma (spaces around it) or spaces.
_INT_SEPARATORS = re.compile(r"\s*,\s*|\s+")
_MOVE = re.compile(r"^(?P<tile>[^:]*?)\s*(?::\s*(?P<end>.*))?$")


#: `a-b` with the smaller half first; the tiles of a mask, lowest first; a move's notation.
format_tile, format_hand, format_move = tile_str, format_mask, move_str


def _tokens(value, what: str) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [tok for tok in _SEPARATORS.split(value.strip()) if tok]
    if isinstance(value, (list, tuple)):
        for i, tok in enumerate(value):
            if not isinstance(tok, str):
                raise BergenError(f"{what}: entry {i} must be a tile string like '3-5', "
                                  f"got {tok!r}")
        return list(value)
    raise BergenError(f"{what} must be tiles like '0-3 1-2' (a string or a list of strings), "
                      f"got {value!r}")


def parse_tiles(value, what: str = "tiles") -> list:
    """Tile indices of `"0-3 1-2"` or `["0-3", "1-2"]`, in the order written; no tile twice."""
    out, seen = [], 0
    for tok in _tokens(value, what):
        try:
            t = parse_tile(tok)
        except BergenError as e:
            raise BergenError(f"{what}: {e.message}") from None
        if seen >> t & 1:
            raise BergenError(f"{what}: tile {tile_str(t)} is listed twice")
        seen |= 1 << t
        out.append(t)
    return out


def parse_hand(value, what: str = "hand") -> int:
    """The mask of a hand written `"0-3 1-2"` or `["0-3", "1-2"]` (no tile twice)."""
    return mask_of(parse_tiles(value, what))


@dataclass(frozen=True)
class Line(LineEnds):
    """The laid tiles, left to right, each as its oriented pair `(left half, right half)`."""
    pairs: tuple = ()

    @property
    def empty(self) -> bool:
        return not self.pairs

    @property
    def _pairs(self) -> tuple:
        return self.pairs

    @property
    def ends(self):
        """`(left, right)`, or None for an empty line."""
        return (self.left, self.right) if self.pairs else None

    @property
    def mask(self) -> int:
        return self.line_mask

    @property
    def tiles(self) -> list:
        return [tile_index(a, b) for a, b in self.pairs]

    def __len__(self) -> int:
        return len(self.pairs)

    @classmethod
    def parse(cls, value, what: str = "line") -> "Line":
        return parse_line(value, what)

    def __str__(self) -> str:
        return format_line(self.pairs)

    def __repr__(self) -> str:
        return f"Line.parse({format_line(self.pairs)!r})"


def parse_line(value, what: str = "line") -> Line:
    """A line from `"5-3 3-3 3-6"` or a list of tiles (oriented, adjacent halves equal)."""
    if isinstance(value, Line):
        return value
    pairs: list[tuple[int, int]] = []
    seen = 0
    for tok in _tokens(value, what):
        try:
            a, b = parse_halves(tok)
        except BergenError as e:
            raise BergenError(f"{what}: {e.message}") from None
        t = tile_index(a, b)
        if seen >> t & 1:
            raise BergenError(f"{what}: tile {tile_str(t)} is laid twice")
        if pairs and pairs[-1][1] != a:
            p = pairs[-1]
            raise BergenError(
                f"{what}: {p[0]}-{p[1]} is followed by {a}-{b}, but {p[1]} does not touch {a} "
                f"(adjacent halves must be equal, written in the orientation laid)")
        seen |= 1 << t
        pairs.append((a, b))
    return Line(tuple(pairs))


def format_line(line) -> str:
    """`"5-3 3-3 3-6"` from a `Line` or a sequence of oriented pairs."""
    pairs = line.pairs if isinstance(line, Line) else line
    return " ".join(f"{a}-{b}" for a, b in pairs)


def parse_move_text(text) -> tuple:
    """`(tile, end)` of `a-b`, `a-b:L` or `a-b:R`; end is None for a bare `a-b`."""
    expected = "expected a move 'a-b' (the lead, or a tile that fits one end), 'a-b:L' or 'a-b:R'"
    if not isinstance(text, str):
        raise BergenError(f"{expected}, got {text!r}")
    m = _MOVE.match(text.strip())
    if m is None:                   # a line break after the ':'
        raise BergenError(f"bad move {text!r}: {expected}")
    tile_text, end_text = m.group("tile"), m.group("end")
    try:
        t = parse_tile(tile_text)
    except BergenError:
        raise BergenError(f"bad move {text!r}: {expected}, with digits 0..6") from None
    if end_text is None:
        return t, None
    end_text = end_text.strip()
    if end_text not in ("L", "R"):
        raise BergenError(f"bad move {text!r}: the end after ':' must be L or R")
    return t, LEFT if end_text == "L" else RIGHT


def _ends_of(line):
    if line is None:
        return None
    if isinstance(line, tuple) and len(line) == 2 and all(isinstance(v, int) for v in line):
        return None if line[0] < 0 else line
    return None if line.left < 0 else (line.left, line.right)    # a Line, State or InfoSet


def resolve_move(t: int, end, line) -> int:
    """The move int of tile `t` laid at `end` (None: bare, which must fit exactly one end) on
    `line` (a `Line`, `State` or `(left, right)`; empty: the lead)."""
    ends = _ends_of(line)
    name = tile_str(t)
    if ends is None:
        if line is not None and end is not None:
            raise BergenError(f"the lead is written '{name}', without an end; got "
                              f"'{name}:{'LR'[end]}'")
        return t * 2 + (end or 0)
    left, right = ends
    fits = (left in (TILE_LOW[t], TILE_HIGH[t]), right in (TILE_LOW[t], TILE_HIGH[t]))
    if end is None:
        if fits[0] and fits[1]:
            raise BergenError(f"{name} fits both ends ({left} and {right}): write {name}:L or "
                              f"{name}:R")
        if not (fits[0] or fits[1]):
            raise BergenError(f"{name} fits neither end (ends {left} and {right})")
        return t * 2 + (LEFT if fits[0] else RIGHT)
    if not fits[end]:
        side = "left" if end == LEFT else "right"
        raise BergenError(f"{name} does not fit the {side} end (ends {left} and {right})")
    return t * 2 + end


def parse_move(text, line=None) -> int:
    """The move int of `a-b`, `a-b:L` or `a-b:R`, resolved on `line` (`resolve_move`; None: a
    bare tile is a lead).

    >>> parse_move("3-3") // 2 == parse_tile("3-3")
    True
    >>> parse_move("1-3", parse_line("3-3 3-6")) % 2   # fits the left end only
    0
    """
    t, end = parse_move_text(text)
    return resolve_move(t, end, line)


@total_ordering
@dataclass(frozen=True)
class Move:
    """An action of the seat to move: a play (`tile`, `end` LEFT, RIGHT or None for the lead), or
    `Move.DRAW`, `Move.PASS`. `.code` is the core's move int (`Move.from_code` makes one back),
    `str()` the notation, `repr()` the expression that makes it. Equal, hashable, ordered by
    `.code`.

    >>> Move.parse("draw"), Move.from_code(PASS), str(Move.parse("6-4:L"))
    (Move.parse('draw'), Move.parse('pass'), '4-6:L')
    >>> Move.DRAW.code == DRAW and Move.from_code(DRAW) is Move.DRAW
    True
    """
    DRAW: ClassVar[Move]
    PASS: ClassVar[Move]
    tile: int | None
    end: int | None = None
    kind: str = "play"

    def __post_init__(self):
        if self.kind == "play":
            if isinstance(self.tile, bool) or not isinstance(self.tile, int) \
                    or not 0 <= self.tile < N_TILES:
                raise BergenError(f"a play's tile is an index 0..{N_TILES - 1}, got "
                                  f"{self.tile!r}")
            if self.end not in (None, LEFT, RIGHT) or isinstance(self.end, bool):
                raise BergenError(f"a play's end is LEFT (0), RIGHT (1) or None (the lead), got "
                                  f"{self.end!r}")
        elif self.kind in ("draw", "pass"):
            if self.tile is not None or self.end is not None:
                raise BergenError(f"a {self.kind} has no tile or end, got {self.tile!r}, "
                                  f"{self.end!r}")
        else:
            raise BergenError(f"a move's kind is play, draw or pass, got {self.kind!r}")

    @classmethod
    def parse(cls, text: str, line=None) -> "Move":
        """`a-b`, `a-b:L`, `a-b:R`, `draw` or `pass`; with `line`, resolved as `parse_move`."""
        word = text.strip() if isinstance(text, str) else None
        if word in _FORCED:
            return _FORCED[word]
        t, end = parse_move_text(text)
        if line is not None:
            ends = _ends_of(line)
            code = resolve_move(t, end, line)
            end = None if ends is None else code & 1
        return cls(t, end)

    @classmethod
    def from_code(cls, code: int, lead: bool = False) -> "Move":
        """The Move of a core move int (`lead`: a play is the lead, written without an end)."""
        if code == DRAW:
            return cls.DRAW
        if code == PASS:
            return cls.PASS
        return cls(code >> 1, None if lead else code & 1)

    @property
    def _laid(self) -> int:
        assert self.tile is not None
        return self.tile

    @property
    def code(self) -> int:
        if self.kind == "play":
            return self._laid * 2 + (self.end or 0)
        return DRAW if self.kind == "draw" else PASS

    @property
    def is_play(self) -> bool:
        return self.kind == "play"

    @property
    def is_lead(self) -> bool:
        """A play written without an end (the lead)."""
        return self.kind == "play" and self.end is None

    @property
    def is_double(self) -> bool:
        return self.kind == "play" and is_double(self._laid)

    def _key(self) -> tuple:
        return self.code, self.end is not None

    def __lt__(self, other):
        return self._key() < other._key() if isinstance(other, Move) else NotImplemented

    def __str__(self) -> str:
        if self.kind != "play":
            return self.kind
        name = tile_str(self._laid)
        return name if self.end is None else f"{name}:{'LR'[self.end]}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


Move.DRAW = Move(None, None, "draw")
Move.PASS = Move(None, None, "pass")
_FORCED = {"draw": Move.DRAW, "pass": Move.PASS}


def parse_int_list(value, what: str, n: int | None = None) -> list:
    """Integers from `"4,7"` (commas or spaces) or a list of ints; `n` entries when given."""
    if isinstance(value, str):
        out = []
        if "" in _INT_SEPARATORS.split(value.strip()) and value.strip():
            raise BergenError(f"expected {what} as integers separated by commas like '4,7', "
                              f"got {value!r}, with an empty entry")
        for tok in _tokens(value, what):
            try:
                out.append(int(tok))
            except ValueError:
                raise BergenError(f"expected {what} as integers separated by commas like "
                                  f"'4,7', got {value!r}") from None
    elif isinstance(value, (list, tuple)):
        out = list(value)
        for v in out:
            if not isinstance(v, int) or isinstance(v, bool):
                raise BergenError(f"{what} must be a list of integers, got {value!r}")
    else:
        raise BergenError(f"{what} must be a list of integers, got {value!r}")
    if n is not None and len(out) != n:
        raise BergenError(f"expected {n} {what}, got {len(out)}")
    return out
