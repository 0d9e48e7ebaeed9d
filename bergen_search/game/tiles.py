"""Tiles of the double-six set as indices 0..27 (0-0, 0-1, ..., 0-6, 1-1, ..., 6-6) and sets
of tiles as 28-bit masks.

>>> Tile.parse(" 5-3 ")
Tile.parse('3-5')
>>> str(Tile.parse("3-5")), Tile.parse("6-6").is_double
('3-5', True)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import or_

from ..errors import BergenError

N_TILES = 28
ALL_TILES = (1 << N_TILES) - 1

#: TILE_LOW[t], TILE_HIGH[t]: the two halves of tile t, low <= high.
TILE_LOW: tuple = tuple(a for a in range(7) for b in range(a, 7))
TILE_HIGH: tuple = tuple(b for a in range(7) for b in range(a, 7))
_INDEX = {pair: t for t, (a, b) in enumerate(zip(TILE_LOW, TILE_HIGH)) for pair in ((a, b), (b, a))}

#: TILES_WITH[v]: mask of the tiles showing v on either half.
TILES_WITH: tuple = tuple(
    sum(1 << t for t in range(N_TILES) if v in (TILE_LOW[t], TILE_HIGH[t])) for v in range(7))
#: DOUBLE_OF[v]: the tile index of the double v-v.
DOUBLE_OF: tuple = tuple(_INDEX[(v, v)] for v in range(7))
DOUBLES = sum(1 << t for t in DOUBLE_OF)
PIPS: tuple = tuple(TILE_LOW[t] + TILE_HIGH[t] for t in range(N_TILES))
#: LOW_RANK[t]: order for the `lowest-tile` lead: lowest pip total, ties by the lower half.
LOW_RANK: tuple = tuple(
    sorted(range(N_TILES), key=lambda t: (PIPS[t], TILE_LOW[t])).index(t) for t in range(N_TILES))


def tile_index(a: int, b: int) -> int:
    return _INDEX[(a, b)]


class LineEnds:
    """The ends of a line of oriented pairs in `_pairs` (default `line`); -1 when empty."""
    __slots__ = ()
    line: tuple[tuple[int, int], ...]

    @property
    def _pairs(self) -> tuple:
        return self.line

    @property
    def left(self) -> int:
        pairs = self._pairs
        return pairs[0][0] if pairs else -1

    @property
    def right(self) -> int:
        pairs = self._pairs
        return pairs[-1][1] if pairs else -1

    @property
    def left_double(self) -> bool:
        pairs = self._pairs
        return bool(pairs) and pairs[0][0] == pairs[0][1]

    @property
    def right_double(self) -> bool:
        pairs = self._pairs
        return bool(pairs) and pairs[-1][0] == pairs[-1][1]

    @property
    def line_mask(self) -> int:
        return mask_of(_INDEX[(a, b)] for a, b in self._pairs)


def is_double(t: int) -> bool:
    return TILE_LOW[t] == TILE_HIGH[t]


def other_half(t: int, v: int) -> int:
    """The half of tile t opposite a half showing v."""
    return TILE_HIGH[t] if TILE_LOW[t] == v else TILE_LOW[t]


def tile_str(t: int) -> str:
    return f"{TILE_LOW[t]}-{TILE_HIGH[t]}"


def iter_mask(mask: int):
    """Tile indices of a mask, lowest first (python-chess `scan_forward`)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def mask_pips(mask: int) -> int:
    return sum(PIPS[t] for t in iter_mask(mask))


def parse_halves(text) -> tuple:
    """(a, b) of `a-b` (digits 0..6, spaces around allowed), in written order."""
    if not isinstance(text, str):
        raise BergenError(f"expected a tile like '3-5', got {text!r}")
    s = text.strip()
    if len(s) != 3 or s[1] != "-" or not s[0].isdigit() or not s[2].isdigit():
        raise BergenError(f"bad tile {text!r}: expected 'a-b' with digits 0..6")
    a, b = int(s[0]), int(s[2])
    if a > 6 or b > 6:
        raise BergenError(f"bad tile {text!r}: halves must be 0..6")
    return a, b


def parse_tile(text) -> int:
    a, b = parse_halves(text)
    return _INDEX[(a, b)]


def mask_of(tiles) -> int:
    return reduce(or_, (1 << t for t in tiles), 0)


def format_mask(mask: int) -> list:
    return [tile_str(t) for t in iter_mask(mask)]


@dataclass(frozen=True)
class Tile:
    """A tile, as at the edge of the library."""
    index: int

    @classmethod
    def parse(cls, text: str) -> "Tile":
        return cls(parse_tile(text))

    @property
    def low(self) -> int:
        return TILE_LOW[self.index]

    @property
    def high(self) -> int:
        return TILE_HIGH[self.index]

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    def __str__(self) -> str:
        return tile_str(self.index)

    def __repr__(self) -> str:
        return f"Tile.parse({tile_str(self.index)!r})"
