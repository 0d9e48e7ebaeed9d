"""`bergen-position/1` (FORMATS.md): what the seat to move knows, without the history: its
hand, the line, the sizes, the scores and the numbers other seats hold none of (`voids`).

>>> pos = position_from_flags(hand="0-3 1-2 2-5 5-6", line="1-1 1-4 4-4 4-6 6-3",
...                           hand_sizes="4,5", scores="4,7")
>>> pos.ends, pos.reserve_size, write_position(pos)["line"]
((1, 3), 14, '1-1 1-4 4-4 4-6 6-3')
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import reduce
from itertools import combinations
from operator import or_

from ..errors import BergenError
from ..game.rules import Rules
from ..information.infoset import numbers_mask
from ..game.tiles import (
    ALL_TILES,
    DOUBLES,
    N_TILES,
    TILES_WITH,
    LineEnds,
    format_mask,
    popcount,
    tile_str,
)
from .jsondoc import check_fields, is_int, parse_header, parse_json, parse_scores, type_name
from .notation import format_line, parse_hand, parse_int_list, parse_line
from .record import POSITION_FORMAT

FORMAT = POSITION_FORMAT
_FIELDS = ("format", "version", "rules", "scores", "to_move", "hand", "line", "hand_sizes",
           "reserve_size", "voids")
_REQUIRED = ("format", "to_move", "hand", "hand_sizes", "reserve_size")


@dataclass(frozen=True)
class Position(LineEnds):
    """A position: `hand` a mask, `line` oriented pairs, `voids` seat -> numbers it lacks."""
    rules: Rules
    scores: tuple
    to_move: int
    hand: int
    line: tuple
    hand_sizes: tuple
    reserve_size: int
    voids: dict = field(default_factory=dict)
    ends: tuple | None = field(init=False, default=None)

    def __post_init__(self):
        object.__setattr__(self, "ends",
                           (self.line[0][0], self.line[-1][1]) if self.line else None)

    def __hash__(self):
        return hash((self.rules, self.scores, self.to_move, self.hand, self.line,
                     self.hand_sizes, self.reserve_size,
                     tuple(sorted((s, tuple(sorted(v))) for s, v in self.voids.items()))))

    @property
    def unseen(self) -> int:
        """Mask of the tiles in other hands and the reserve."""
        return ALL_TILES & ~self.hand & ~self.line_mask

    def check(self) -> "Position":
        """Raise `BergenError` (with `field`) unless the position is possible; return self."""
        _check(self)
        return self


def _seat_list(seats) -> str:
    seats = list(seats)
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"


def _check(pos: Position):
    rules, n = pos.rules, pos.rules.players
    if not is_int(pos.to_move) or not 0 <= pos.to_move < n:
        raise BergenError(f"'to_move' must be a seat 0..{n - 1} with {n} players, got "
                          f"{pos.to_move!r}", field="to_move")
    parse_scores(list(pos.scores), rules, "scores")
    hand_n = popcount(pos.hand)
    if hand_n == 0:
        raise BergenError("the hand is empty: the seat to move holds at least one tile (with "
                          "none the round is over)", field="hand")
    line_mask = pos.line_mask
    _check_apart(pos.hand, line_mask)
    if not is_int(pos.reserve_size) or pos.reserve_size < 0:
        raise BergenError(f"'reserve_size' must be a non-negative integer, got "
                          f"{pos.reserve_size!r}", field="reserve_size")
    start = rules.reserve_start
    if pos.reserve_size > start:
        raise BergenError(f"the reserve holds {pos.reserve_size} tiles, more than the {start} it "
                          f"starts with ({n} hands of {rules.hand_size})", field="reserve_size")
    if pos.reserve_size < rules.reserve_kept:
        raise BergenError(f"the reserve holds {pos.reserve_size} tiles, fewer than the "
                          f"{rules.reserve_kept} the rules keep (reserve_kept: nobody draws "
                          f"them)", field="reserve_size")
    sizes = pos.hand_sizes
    if len(sizes) != n:
        raise BergenError(f"'hand_sizes' needs {n} entries (one per seat), got {len(sizes)}",
                          field="hand_sizes")
    drawn = start - pos.reserve_size
    for seat, k in enumerate(sizes):
        f = f"hand_sizes[{seat}]"
        if not is_int(k):
            raise BergenError(f"seat {seat}'s hand size must be an integer, got {k!r}", field=f)
        if k < 1:
            raise BergenError(f"seat {seat} holds {k} tiles: with an empty hand the round is "
                              f"over", field=f)
        if k > rules.hand_size + drawn:
            raise BergenError(f"seat {seat} holds {k} tiles, more than the {rules.hand_size} "
                              f"dealt plus the {drawn} drawn from the reserve so far", field=f)
    if sizes[pos.to_move] != hand_n:
        raise BergenError(f"hand_sizes[{pos.to_move}] is {sizes[pos.to_move]}, but the hand of "
                          f"seat {pos.to_move} (to move) holds {hand_n} tiles",
                          field=f"hand_sizes[{pos.to_move}]")
    laid, others = len(pos.line), sum(sizes) - hand_n
    total = hand_n + laid + others + pos.reserve_size
    if total != N_TILES:
        raise BergenError(f"the tiles add up to {total}, not 28: {hand_n} in the hand, {laid} on "
                          f"the line, {others} in the other hands, {pos.reserve_size} in the "
                          f"reserve", field="hand_sizes")
    if not pos.line:
        if pos.reserve_size != start:
            raise BergenError(f"no tile is laid yet, so nobody has drawn: the reserve must hold "
                              f"{start}, not {pos.reserve_size}", field="reserve_size")
    elif rules.no_double == "redeal" and not line_mask & DOUBLES:
        raise BergenError("the line holds no double, but under no_double 'redeal' the lead "
                          "is a double", field="line")
    _check_turns(pos)
    _check_voids(pos)


def _check_apart(hand: int, line_mask: int):
    both = hand & line_mask
    if both:
        raise BergenError(f"tile {tile_str((both & -both).bit_length() - 1)} is both in the hand "
                          f"and on the line", field="hand")


def _check_turns(pos: Position):
    """Some leader and number of turns T (without passes, the tiles laid) must leave every hand
    size possible: a seat plays at most one tile a turn and draws only on its own turns."""
    rules, n = pos.rules, pos.rules.players
    laid, sizes, h, t = len(pos.line), pos.hand_sizes, rules.hand_size, pos.to_move
    if not laid:
        for seat, k in enumerate(sizes):
            if k != h:
                raise BergenError(f"no tile is laid yet, so every hand holds the {h} tiles "
                                  f"dealt; seat {seat} holds {k}", field=f"hand_sizes[{seat}]")
        return
    # A seat may have passed: after its one draw of a turn, or with nothing left to draw.
    passes = not rules.may_draw(pos.reserve_size, draws_this_turn=1)
    problem: tuple[int, int, bool] | None = None     # (seat, its turns, it led)
    for leader in range(n):
        turns = laid + (t - leader - laid) % n
        while turns <= (laid * n + n if passes else laid):
            had = [len(range((j - leader) % n, turns, n)) for j in range(n)]
            # Tiles seat j has played: enough to come down from h to its size, at least the
            # lead for the leader, at most one a turn; exactly h - size with no turn to draw.
            low = [max(h - sizes[j], 1 if j == leader else 0) for j in range(n)]
            high = [had[j] if j == t or had[j] > (j == leader) else min(had[j], h - sizes[j])
                    for j in range(n)]
            bad = next((j for j in range(n) if low[j] > high[j]), None)
            if bad is None and sum(low) <= laid <= sum(high):
                return
            if problem is None and bad is not None:
                problem = (bad, had[bad], bad == leader)
            turns += n
    if problem is not None and not passes:
        seat, n_turns, led = problem
        turns_had = f"{n_turns} turn{'s' if n_turns != 1 else ''}" + (
            " (the lead among them)" if led else "")
        if n_turns - led < 1 and seat != t:
            why = f"no turn to draw on, so it holds exactly {h - n_turns} of its {h} tiles"
        else:
            why = f"so it holds at least {h - n_turns} of its {h} tiles"
        raise BergenError(
            f"the hand sizes do not fit the turn order: with {laid} tile"
            f"{'s' if laid != 1 else ''} laid and seat {t} to move (no pass yet: the reserve "
            f"is above {rules.reserve_kept}), seat {seat} has had {turns_had}, {why}, not "
            f"{sizes[seat]}", field=f"hand_sizes[{seat}]")
    raise BergenError(f"the hand sizes {','.join(map(str, sizes))} do not fit the turn order: "
                      f"no leader and no sequence of turns from the lead to seat {t} with "
                      f"{laid} tiles laid leaves them", field="hand_sizes")


def _check_voids(pos: Position):
    n = pos.rules.players
    if not isinstance(pos.voids, dict):
        raise BergenError(f"'voids' must map seats to lists of numbers, got {pos.voids!r}",
                          field="voids")
    for seat, nums in pos.voids.items():
        if not is_int(seat) or not 0 <= seat < n:
            raise BergenError(f"voids: seat {seat!r} does not exist with {n} players",
                              field="voids")
        for v in nums:
            if not is_int(v) or not 0 <= v <= 6:
                raise BergenError(f"voids of seat {seat}: {v!r} is not a number 0..6",
                                  field=f"voids.{seat}")
    for v in sorted(pos.voids.get(pos.to_move, ())):
        held = pos.hand & TILES_WITH[v]
        if held:
            raise BergenError(f"seat {pos.to_move} is listed void in {v}, but its hand holds "
                              f"{tile_str((held & -held).bit_length() - 1)}",
                              field=f"voids.{pos.to_move}")
    # Some deal must give every other seat its size avoiding its voids: Hall's condition.
    allowed = {seat: pos.unseen & ~numbers_mask(pos.voids.get(seat, ()))
               for seat in range(n) if seat != pos.to_move}
    seats = sorted(allowed)
    for k in range(1, len(seats) + 1):
        for group in combinations(seats, k):
            union = reduce(or_, (allowed[s] for s in group))
            need = sum(pos.hand_sizes[s] for s in group)
            if popcount(union) < need:
                nums = sorted(set().union(*(pos.voids.get(s, ()) for s in group)))
                raise BergenError(
                    f"no deal fits the voids: {_seat_list(group)} must hold {need} tiles, but "
                    f"only {popcount(union)} unseen tiles avoid their voids "
                    f"({', '.join(map(str, nums))})", field="voids")


def _parse_voids(obj, n: int) -> dict:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise BergenError(f"'voids' must be an object like {{\"1\": [1, 4]}}, got "
                          f"{type_name(obj)}", field="voids")
    out = {}
    for key, nums in obj.items():
        if is_int(key):
            seat = key
        elif isinstance(key, str) and key.strip().isdigit():
            seat = int(key)
        else:
            raise BergenError(f"voids: {key!r} is not a seat number", field="voids")
        if not 0 <= seat < n:
            raise BergenError(f"voids: seat {seat} does not exist with {n} players",
                              field=f"voids.{key}")
        if seat in out:
            raise BergenError(f"voids: seat {seat} is listed twice", field=f"voids.{key}")
        if not isinstance(nums, (list, tuple, set, frozenset)):
            raise BergenError(f"voids of seat {seat} must be a list of numbers 0..6, got "
                              f"{type_name(nums)}", field=f"voids.{key}")
        for v in nums:
            if not is_int(v) or not 0 <= v <= 6:
                raise BergenError(f"voids of seat {seat}: {v!r} is not a number 0..6",
                                  field=f"voids.{key}")
        if nums:
            out[seat] = frozenset(nums)
    return out


@contextmanager
def _at(field_name):
    """Re-raise a notation error (whose message starts `what: `) with its field instead."""
    try:
        yield
    except BergenError as e:
        if e.field is not None:
            raise
        msg = e.message
        for prefix in (field_name + ": ", field_name.replace("_", " ") + ": "):
            msg = msg.removeprefix(prefix)
        raise BergenError(msg, field=field_name) from None


def _read(value, name, like, parse, types=(list, str)):
    if not isinstance(value, types):
        raise BergenError(f"'{name}' must be {like}, got {type_name(value)}", field=name)
    with _at(name):
        return parse(value, name)


def parse_position(obj) -> Position:
    """Check a decoded `bergen-position/1` and return it as a `Position`."""
    if isinstance(obj, Position):
        return obj.check()
    check_fields(obj, _FIELDS, "a position", required=("format",))
    fmt = obj["format"]
    if fmt != FORMAT:
        hint = " (this is a record: use it as a record)" if fmt == "bergen-record/1" else ""
        raise BergenError(f"expected {FORMAT!r}, got {fmt!r}{hint}", field="format")
    for k in _REQUIRED:
        if k not in obj:
            raise BergenError(f"the {k!r} field is missing: a position needs "
                              f"{', '.join(repr(f) for f in _REQUIRED[1:])}", field=k)
    _, rules, scores = parse_header(obj, "scores")
    to_move = obj["to_move"]
    if not is_int(to_move):
        raise BergenError(f"'to_move' must be a seat number, got {to_move!r}", field="to_move")
    hand = _read(obj["hand"], "hand", 'a list of tiles like ["0-3", "1-2"]', parse_hand)
    line_obj = obj.get("line", "")
    line = _read("" if line_obj is None else line_obj, "line",
                 'a string like "5-3 3-3 3-6" or a list of tiles', parse_line)
    sizes = _read(obj["hand_sizes"], "hand_sizes", "a list of integers, one per seat",
                  lambda v, _: v, list)
    voids = _parse_voids(obj.get("voids"), rules.players)
    pos = Position(rules, scores, to_move, hand, line.pairs, tuple(sizes), obj["reserve_size"],
                   voids)
    return pos.check()


def load_position(text) -> Position:
    """Parse JSON text holding one `bergen-position/1`."""
    return parse_position(parse_json(text, "position"))


def write_position(pos: Position) -> dict:
    """The `bergen-position/1` dict of a position (rules in full; `voids` when any)."""
    d = {"format": FORMAT, "rules": pos.rules.to_dict(), "scores": list(pos.scores),
         "to_move": pos.to_move, "hand": format_mask(pos.hand), "line": format_line(pos.line),
         "hand_sizes": list(pos.hand_sizes), "reserve_size": pos.reserve_size}
    voids = {str(s): sorted(v) for s, v in sorted(pos.voids.items()) if v}
    if voids:
        d["voids"] = voids
    return d


_FLAGS = {"hand": "--hand", "line": "--line", "hand_sizes": "--hand-sizes",
          "reserve_size": "--reserve-size", "scores": "--scores", "to_move": "--to-move",
          "voids": "voids", "format": "format"}


def _flag_of(name):
    if name is None:
        return None
    if name.startswith("rules."):
        return "--" + name[len("rules."):].replace("_", "-")
    head, sep, rest = name.partition("[")
    head = head.split(".")[0]
    return _FLAGS.get(head, name) + (sep + rest if sep else "")


def position_from_flags(hand, *, line=None, hand_sizes=None, reserve_size=None, scores=None,
                        players=None, partnerships=None, to_move=None, rules=None,
                        voids=None) -> Position:
    """A position from the command-line flags (strings as typed, or parsed values), `rules` (a
    `Rules` or dict) with `players` and `partnerships` over it; what can be derived is, and
    errors name the flag in `field`."""
    try:
        return _from_flags(hand, line=line, hand_sizes=hand_sizes, reserve_size=reserve_size,
                           scores=scores, players=players, partnerships=partnerships,
                           to_move=to_move, rules=rules, voids=voids)
    except BergenError as e:
        raise BergenError(e.message, field=_flag_of(e.field)) from None


def _from_flags(hand, *, line, hand_sizes, reserve_size, scores, players, partnerships, to_move,
                rules, voids):
    rules = Rules() if rules is None else rules
    over = {k: v for k, v in (("players", players), ("partnerships", partnerships))
            if v is not None}
    if over:
        rules = {**(rules.to_dict(full=False) if isinstance(rules, Rules) else rules), **over}
    if not isinstance(rules, Rules):
        rules = Rules.from_dict(rules)
    n = rules.players
    to_move = 0 if to_move is None else to_move
    if isinstance(to_move, str):
        if not to_move.strip().isdigit():
            raise BergenError(f"expected a seat number, got {to_move!r}", field="to_move")
        to_move = int(to_move)
    if hand is None:
        raise BergenError("the hand of the seat to move is needed", field="hand")
    with _at("hand"):
        hand_mask = parse_hand(hand, "hand")
    with _at("line"):
        line_obj = parse_line(line or "", "line")
    _check_apart(hand_mask, line_obj.mask)
    score_list = [0] * rules.n_sides
    if scores is not None:
        with _at("scores"):
            score_list = parse_int_list(scores, "scores", rules.n_sides)
    if isinstance(reserve_size, str):
        try:
            reserve_size = int(reserve_size)
        except ValueError:
            raise BergenError(f"expected a number of tiles, got {reserve_size!r}",
                              field="reserve_size") from None
    unseen = N_TILES - popcount(hand_mask) - len(line_obj)
    if hand_sizes is not None:
        with _at("hand_sizes"):
            sizes = parse_int_list(hand_sizes, "hand sizes", n)
        if reserve_size is None and 0 <= to_move < n:
            reserve_size = unseen - (sum(sizes) - sizes[to_move])
            if not 0 <= reserve_size <= rules.reserve_start:
                raise BergenError(
                    f"the hand sizes {','.join(map(str, sizes))} leave {reserve_size} tiles for "
                    f"the reserve, which holds 0..{rules.reserve_start} with {n} players",
                    field="hand_sizes")
    elif not line_obj.pairs:
        sizes = [rules.hand_size] * n
        if reserve_size is None:
            reserve_size = rules.reserve_start
    elif reserve_size is not None and n == 2:
        sizes = [0, 0]
        if 0 <= to_move < n:
            sizes[to_move] = popcount(hand_mask)
            sizes[1 - to_move] = unseen - reserve_size
    else:
        need = "--hand-sizes or --reserve-size" if n == 2 else "--hand-sizes"
        raise BergenError(f"the other hands' sizes cannot be derived: give {need}",
                          field="hand_sizes")
    pos = Position(rules, tuple(score_list), to_move, hand_mask, line_obj.pairs, tuple(sizes),
                   reserve_size, _parse_voids(voids, n))
    return pos.check()


def position_from_infoset(info, voids: dict) -> Position:
    """The position of an information set with `voids` {seat: numbers} (its history left out)."""
    return Position(info.rules, tuple(info.scores), info.seat, info.hand, tuple(info.line),
                    tuple(info.hand_sizes), info.reserve_size,
                    {s: frozenset(v) for s, v in voids.items() if v}).check()
