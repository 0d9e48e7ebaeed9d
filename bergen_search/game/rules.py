"""The rule set (RULES.md): every variant is a field.

>>> Rules.from_dict({"players": 3}).target, Rules.from_dict({"players": 4}).hand_size
(10, 5)
>>> Rules(players=4, partnerships=True).n_sides
2
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import BergenError
from .tiles import N_TILES

LEADS = ("lowest-double", "highest-double")
NO_DOUBLES = ("redeal", "lowest-tile")
DRAWS = ("until-playable", "one")
BLOCKEDS = ("german", "pips", "american")

# Codes shared with the core (src_cython/bergen_search/game/_core.pxd).
LEAD_CODE = {v: i for i, v in enumerate(LEADS)}
NO_DOUBLE_CODE = {v: i for i, v in enumerate(NO_DOUBLES)}
DRAW_CODE = {v: i for i, v in enumerate(DRAWS)}
BLOCKED_CODE = {v: i for i, v in enumerate(BLOCKEDS)}

_CHOICES = {"lead": LEADS, "no_double": NO_DOUBLES, "draw": DRAWS, "blocked": BLOCKEDS}
_INTS = ("players", "target", "hand_size", "reserve_kept", "out_bonus")
_RANGES = {"target": (1, 10000), "reserve_kept": (0, N_TILES), "out_bonus": (0, 100)}


@dataclass(frozen=True)
class Rules:
    """A rule set. `target` and `hand_size` left as None take the defaults for the player count."""
    players: int = 2
    partnerships: bool = False
    target: int = None      # type: ignore[assignment]
    hand_size: int = None   # type: ignore[assignment]
    lead: str = "lowest-double"
    no_double: str = "redeal"
    draw: str = "until-playable"
    reserve_kept: int = 2
    out_bonus: int = 2
    blocked: str = "german"
    endgame_cap: bool = True

    def __post_init__(self):
        for name in _INTS:
            v = getattr(self, name)
            optional = name in ("target", "hand_size")
            if (v is not None or not optional) and (not isinstance(v, int) or isinstance(v, bool)):
                raise BergenError(f"rule '{name}' must be an integer, got {v!r}", field=name)
        for name in ("partnerships", "endgame_cap"):
            if not isinstance(getattr(self, name), bool):
                raise BergenError(f"rule '{name}' must be true or false, got "
                                  f"{getattr(self, name)!r}", field=name)
        for name, choices in _CHOICES.items():
            v = getattr(self, name)
            if v not in choices:
                raise BergenError(f"rule '{name}' must be one of {', '.join(choices)}; got {v!r}",
                                  field=name)
        if self.players not in (2, 3, 4):
            raise BergenError(f"rule 'players' must be 2, 3 or 4, got {self.players}",
                              field="players")
        if self.partnerships and self.players != 4:
            raise BergenError("partnerships need 4 players", field="partnerships")
        if self.target is None:
            object.__setattr__(self, "target", 15 if self.n_sides == 2 else 10)
        if self.hand_size is None:
            object.__setattr__(self, "hand_size", 5 if self.players == 4 else 6)
        for name, (lo, hi) in _RANGES.items():
            if not lo <= getattr(self, name) <= hi:
                raise BergenError(f"rule '{name}' must be {lo}..{hi}, got {getattr(self, name)}",
                                  field=name)
        if self.hand_size < 1:
            raise BergenError(f"rule 'hand_size' must be at least 1, got {self.hand_size}",
                              field="hand_size")
        if self.players * self.hand_size + self.reserve_kept > N_TILES:
            raise BergenError(
                f"rule 'hand_size' {self.hand_size} does not fit: {self.players} hands of "
                f"{self.hand_size} and {self.reserve_kept} kept tiles exceed 28", field="hand_size")

    @property
    def n_sides(self) -> int:
        return 2 if self.partnerships else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnerships else seat

    def drawable(self, reserve_size: int) -> int:
        """Tiles of a reserve of `reserve_size` that may still be drawn."""
        return max(reserve_size - self.reserve_kept, 0)

    def may_draw(self, reserve_size: int, draws_this_turn: int = 0) -> bool:
        """Whether a seat with no play draws (else it passes).

        >>> Rules().may_draw(3), Rules().may_draw(2), Rules(draw="one").may_draw(9, 1)
        (True, False, False)
        """
        return (self.drawable(reserve_size) > 0
                and not (self.draw == "one" and draws_this_turn > 0))

    @property
    def reserve_start(self) -> int:
        return N_TILES - self.players * self.hand_size

    @classmethod
    def from_dict(cls, d) -> "Rules":
        if d is None:
            return cls()
        if not isinstance(d, dict):
            raise BergenError(f"rules must be a JSON object, got {type(d).__name__}", field="rules")
        known = {f.name for f in fields(cls)}
        for k in d:
            if k not in known:
                raise BergenError(f"unknown rule {k!r} (known: {', '.join(sorted(known))})",
                                  field=f"rules.{k}")
        try:
            return cls(**d)
        except BergenError as e:
            raise BergenError(e.message, field=f"rules.{e.field}" if e.field else "rules")

    def to_dict(self, full: bool = True) -> dict:
        """The rule set as FORMATS.md writes it; `full=False` keeps only non-default fields."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        if not full:
            default = Rules(players=self.players, partnerships=self.partnerships)
            d = {k: v for k, v in d.items()
                 if k == "players" or getattr(default, k) != v}
        return d
