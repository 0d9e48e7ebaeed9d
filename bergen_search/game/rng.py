"""SplitMix64, the seeded RNG the core (`_core.pxd`) implements bit for bit the same.

>>> r = Rng(1); [r.below(28) for _ in range(5)]
[15, 20, 27, 12, 12]
"""
from __future__ import annotations

from typing import Any

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """The SplitMix64 finaliser: a bijection of 64-bit words."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def derive_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a run seeded with `seed`."""
    return mix64((seed + (index + 1) * GOLDEN) & MASK64)


class Rng:
    __slots__ = ("state",)

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """A number in 0..n-1 (n < 2**32): the high 32 bits scaled, Lemire's multiply-shift."""
        return ((self.next64() >> 32) * n) >> 32

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates, from the top down: the order the core uses."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
