"""The reference rules engine (RULES.md), the core's oracle: an immutable `State` of what is
known. Actions are the core's ints: a play `tile * 2 + end` (a lead `tile * 2`), DRAW, PASS."""
from __future__ import annotations

from ..errors import BergenError
from .rules import Rules
from .tiles import (
    ALL_TILES,
    DOUBLES,
    LOW_RANK,
    TILE_HIGH,
    TILE_LOW,
    TILES_WITH,
    is_double,
    iter_mask,
    mask_of,
    mask_pips,
    other_half,
    popcount,
    tile_index,
    tile_str,
)

LEFT, RIGHT = 0, 1
DRAW = 56
PASS = 57
NO_TILE = -1
#: Why a round ended (`State.ended`).
ENDS = (None, "out", "blocked", "target")


def move_str(move: int, lead: bool = False) -> str:
    """FORMATS.md notation of a play: `a-b` for the lead, else `a-b:L` / `a-b:R`."""
    if move == DRAW:
        return "draw"
    if move == PASS:
        return "pass"
    t = move >> 1
    return tile_str(t) if lead else f"{tile_str(t)}:{'LR'[move & 1]}"


def match_value(left: int, right: int, left_double: bool, right_double: bool) -> int:
    """Points of the ends after a play: 0 unless they match; 2 a double match; 3 a triple."""
    if left != right:
        return 0
    return 3 if (left_double or right_double) else 2


def mirror_twins(left: int, right: int, left_double: bool, right_double: bool,
                 moves) -> dict:
    """{right play: its left twin} among `moves` when both ends show the same number (both
    doubles or neither): laying a tile at the right mirrors laying it at the left."""
    if left < 0 or left != right or bool(left_double) != bool(right_double):
        return {}
    plays = set(moves)
    return {m: m - 1 for m in plays if m < DRAW and m & 1 and m - 1 in plays}


def fitting(hand: int, left: int, right: int) -> int:
    """The tiles of `hand` that fit an end of a line with ends `left` and `right`."""
    return hand & (TILES_WITH[left] | TILES_WITH[right])


def plays(hand: int, left: int, right: int) -> list:
    """Every play of `hand` at ends `left`, `right` in the core's order (by tile, left first)."""
    out = []
    for t in iter_mask(fitting(hand, left, right)):
        lo, hi = TILE_LOW[t], TILE_HIGH[t]
        if lo == left or hi == left:
            out.append(t * 2)
        if lo == right or hi == right:
            out.append(t * 2 + 1)
    return out


def actions(rules: Rules, hand: int, left: int, right: int, reserve_size: int,
            draws_this_turn: int) -> list:
    """The actions of `hand` on a led line: its plays, else a draw, else a pass."""
    return (plays(hand, left, right)
            or [DRAW if rules.may_draw(reserve_size, draws_this_turn) else PASS])


def may_take(hand: int, move: int, left: int, right: int) -> bool:
    """Whether a seat holding `hand` may take `move` (a fitting play, or PASS) at these ends."""
    if move == PASS:
        return not fitting(hand, left, right)
    return bool(hand >> (move >> 1) & 1)


def capped(value: int, score: int, target: int, endgame_cap: bool) -> int:
    """A match's value reduced near the target (RULES.md, `endgame_cap`)."""
    if value == 0 or not endgame_cap:
        return value
    need = target - score
    if need <= 2:
        return 1
    if need == 3:
        return min(value, 2)
    return value


def blocked_winner(rules: Rules, hands) -> int | None:
    """The side that scores a blocked round, or None for a full tie (RULES.md, `blocked`)."""
    n = rules.n_sides
    doubles, pips, lowest = [0] * n, [0] * n, [99] * n
    for seat, hand in enumerate(hands):
        side = rules.side_of(seat)
        d = hand & DOUBLES
        doubles[side] += popcount(d)
        pips[side] += mask_pips(hand)
        if d:
            lowest[side] = min(lowest[side], TILE_LOW[(d & -d).bit_length() - 1])

    def unique_min(cands, key):
        best = min(key[s] for s in cands)
        return [s for s in cands if key[s] == best]

    sides = list(range(n))
    if rules.blocked == "pips":
        w = unique_min(sides, pips)
    elif rules.blocked == "german":
        w = unique_min(sides, doubles)
        if len(w) > 1:
            w = unique_min(w, pips)
    else:  # american
        free = [s for s in sides if doubles[s] == 0]
        w = unique_min(free, pips) if free else unique_min(sides, lowest)
    return w[0] if len(w) == 1 else None


def find_leader(rules: Rules, hands) -> tuple[int, int] | None:
    """(seat, tile) of the forced lead for fully known hands, or None when a redeal is due."""
    best = None
    for seat, hand in enumerate(hands):
        d = hand & DOUBLES
        for t in iter_mask(d):
            key = TILE_LOW[t] if rules.lead == "lowest-double" else -TILE_LOW[t]
            if best is None or key < best[0]:
                best = (key, seat, t)
    if best is None and rules.no_double == "lowest-tile":
        for seat, hand in enumerate(hands):
            for t in iter_mask(hand):
                if best is None or LOW_RANK[t] < best[0]:
                    best = (LOW_RANK[t], seat, t)
    return None if best is None else (best[1], best[2])


def lead_rank(rules: Rules, t: int) -> int:
    """Lower is a stronger claim to the lead: doubles by the lead rule, then the lowest tile."""
    if is_double(t):
        return TILE_LOW[t] if rules.lead == "lowest-double" else 6 - TILE_LOW[t]
    return 100 + LOW_RANK[t]


class State:
    """A position in a round of a match. Build with `State.deal(...)`; advance with `apply`."""
    rules: Rules
    hands: tuple[int, ...]              # masks by seat
    hidden: tuple[int, ...]             # by seat, tiles held but not known to the viewer
    reserve: tuple[int, ...] | None     # the draw order, None when unknown
    reserve_size: int
    left: int
    right: int
    left_double: bool
    right_double: bool
    line: tuple[tuple[int, int], ...]
    scores: tuple[int, ...]             # by side
    to_move: int
    passes: int
    draws_this_turn: int
    last_drawn: int
    ended: str | None
    winner: int | None
    last_points: tuple[int, ...]
    __slots__ = tuple(__annotations__)

    @classmethod
    def deal(cls, rules: Rules, hands, reserve=None, scores=None, hidden=None,
             reserve_size=None) -> "State":
        """A round about to be led: `hands` masks (None: hidden), `reserve` the draw order."""
        n = rules.players
        if len(hands) != n:
            raise BergenError(f"expected {n} hands, got {len(hands)}", field="hands")
        s = cls.of(rules, [h or 0 for h in hands], (), scores, reserve=reserve,
                   reserve_size=rules.reserve_start if reserve_size is None else reserve_size,
                   hidden=[rules.hand_size if h is None else 0 for h in hands]
                   if hidden is None else hidden)
        if len(s.scores) != rules.n_sides:
            raise BergenError(f"expected {rules.n_sides} scores, got {len(s.scores)}",
                              field="scores")
        s._check_deal()
        lead = find_leader(rules, s.hands) if not any(s.hidden) else None
        s.to_move = lead[0] if lead else -1
        return s

    @classmethod
    def of(cls, rules: Rules, hands, line, scores=None, *, reserve, reserve_size: int,
           hidden=None, to_move: int = -1, passes: int = 0, draws_this_turn: int = 0,
           last_drawn: int = NO_TILE) -> "State":
        """A state from its parts, unchecked (`hidden` None: every hand known)."""
        s = cls.__new__(cls)
        s.rules, s.hands, s.line = rules, tuple(hands), tuple(line)
        s.hidden = (0,) * rules.players if hidden is None else tuple(hidden)
        s.reserve = None if reserve is None else tuple(reserve)
        s.reserve_size, s.to_move, s.passes = reserve_size, to_move, passes
        s.draws_this_turn, s.last_drawn = draws_this_turn, last_drawn
        s.left, s.right = (s.line[0][0], s.line[-1][1]) if s.line else (-1, -1)
        s.left_double = bool(s.line) and s.line[0][0] == s.line[0][1]
        s.right_double = bool(s.line) and s.line[-1][0] == s.line[-1][1]
        s.scores = (0,) * rules.n_sides if scores is None else tuple(scores)
        s.ended = s.winner = None
        s.last_points = (0,) * rules.n_sides
        return s

    def _check_deal(self):
        for side, score in enumerate(self.scores):
            if not isinstance(score, int) or score < 0:
                raise BergenError(f"side {side}'s score must be a non-negative integer, got "
                                  f"{score!r}", field="scores")
            if score >= self.rules.target:
                raise BergenError(f"side {side} already has {score}, the target is "
                                  f"{self.rules.target}: the match is over", field="scores")
        seen = 0
        for seat, hand in enumerate(self.hands):
            if hand & ~ALL_TILES or hand < 0:
                raise BergenError(f"seat {seat}'s hand is not a set of the 28 tiles",
                                  field=f"hands[{seat}]")
            size = popcount(hand) + self.hidden[seat]
            if size != self.rules.hand_size:
                raise BergenError(f"seat {seat}'s hand has {size} tile{'s' if size != 1 else ''}, "
                                  f"the rules deal {self.rules.hand_size}", field=f"hands[{seat}]")
            if hand & seen:
                raise BergenError(f"tile {tile_str((hand & seen).bit_length() - 1)} is held "
                                  f"twice", field=f"hands[{seat}]")
            seen |= hand
        if self.reserve is not None:
            if len(self.reserve) != self.rules.reserve_start:
                raise BergenError(f"the reserve has {len(self.reserve)} tiles, expected "
                                  f"{self.rules.reserve_start}", field="reserve")
            for t in self.reserve:
                if not (isinstance(t, int) and 0 <= t < 28):
                    raise BergenError(f"the reserve holds {t!r}, which is no tile",
                                      field="reserve")
                if seen >> t & 1:
                    where = "in the reserve twice" if self.reserve.count(t) > 1 else \
                        "both in a hand and in the reserve"
                    raise BergenError(f"tile {tile_str(t)} is {where}", field="reserve")
                seen |= 1 << t
        if not any(self.hidden) and find_leader(self.rules, self.hands) is None:
            raise BergenError("nobody holds a double: under no_double 'redeal' these tiles are "
                              "dealt again", field="hands")

    def _copy(self) -> "State":
        # Field by field: a loop over __slots__ is much slower.
        s = State.__new__(State)
        s.rules, s.hands, s.hidden, s.reserve = self.rules, self.hands, self.hidden, self.reserve
        s.reserve_size, s.left, s.right = self.reserve_size, self.left, self.right
        s.left_double, s.right_double = self.left_double, self.right_double
        s.line, s.scores, s.to_move, s.passes = self.line, self.scores, self.to_move, self.passes
        s.draws_this_turn, s.last_drawn = self.draws_this_turn, self.last_drawn
        s.ended, s.winner, s.last_points = self.ended, self.winner, self.last_points
        return s

    @property
    def fully_known(self) -> bool:
        return not any(self.hidden) and self.reserve is not None

    @property
    def led(self) -> bool:
        return bool(self.line)

    @property
    def over(self) -> bool:
        return self.ended is not None

    def hand_size(self, seat: int) -> int:
        return popcount(self.hands[seat]) + self.hidden[seat]

    def located(self) -> int:
        """Mask of the tiles whose place is known: line, known hand tiles, known reserve."""
        m = self.line_mask() | mask_of(self.reserve or ())
        for h in self.hands:
            m |= h
        return m

    def line_mask(self) -> int:
        return mask_of(tile_index(a, b) for a, b in self.line)

    def fits(self, t: int) -> tuple:
        """(fits left, fits right) for tile t on the current line."""
        if not self.line:
            return (True, False)
        lo, hi = TILE_LOW[t], TILE_HIGH[t]
        return (lo == self.left or hi == self.left, lo == self.right or hi == self.right)

    def legal_moves(self) -> list:
        """The actions of the seat to move in a fully known state, in the core's order."""
        if self.ended is not None:
            return []
        seat = self.to_move
        if not self.line:
            lead = find_leader(self.rules, self.hands)
            return [lead[1] * 2] if lead and lead[0] == seat else []
        return actions(self.rules, self.hands[seat], self.left, self.right, self.reserve_size,
                       self.draws_this_turn)

    def apply(self, action: int, seat: int | None = None, tile: int | None = None) -> "State":
        """The state after `seat` (default: the seat to move) takes `action`; for `DRAW`, `tile`
        is the tile drawn if the caller saw it. BergenError for anything the rules forbid."""
        if self.ended is not None:
            why = "the match ended" if self.winner is not None else \
                f"the round ended ({self.ended})"
            raise BergenError(f"no event may follow: {why}")
        seat = self.to_move if seat is None else seat
        if not 0 <= seat < self.rules.players:
            raise BergenError(f"seat {seat} does not exist with {self.rules.players} players",
                              field="seat")
        if self.to_move >= 0 and seat != self.to_move:
            raise BergenError(f"out of turn: seat {self.to_move} is to move, not seat {seat}",
                              field="seat")
        s = self._copy()
        s.to_move, s.last_points = seat, (0,) * self.rules.n_sides
        if action == DRAW:
            s._draw(seat, tile)
        elif action == PASS:
            s._pass(seat)
        elif 0 <= action < 56:
            if s.line:
                s._play(seat, action >> 1, action & 1)
            elif action & 1:
                raise BergenError(f"the lead {tile_str(action >> 1)} has no end: it is move "
                                  f"{action - 1}, not {action}", field="play")
            else:
                s._lead(seat, action >> 1)
        else:
            raise BergenError(f"unknown action {action}")
        return s

    def _no_play_possible(self, seat: int, what: str):
        fit = fitting(self.hands[seat], self.left, self.right)   # called after the lead
        if fit:
            t = (fit & -fit).bit_length() - 1
            raise BergenError(f"seat {seat} may not {what}: it holds {tile_str(t)}, which fits")

    def _draw(self, seat: int, tile):
        if not self.line:
            raise BergenError("a draw before the lead")
        self._no_play_possible(seat, "draw")
        if not self.rules.drawable(self.reserve_size):
            raise BergenError(f"seat {seat} may not draw: the reserve is down to "
                              f"{self.reserve_size} and the last {self.rules.reserve_kept} are "
                              f"never drawn")
        if self.rules.draw == "one" and self.draws_this_turn > 0:
            raise BergenError(f"seat {seat} may not draw twice in a turn under draw 'one'")
        if self.reserve is not None:
            nxt = self.reserve[0]
            if tile is not None and tile != nxt:
                raise BergenError(f"draw of {tile_str(tile)}, but the next reserve tile is "
                                  f"{tile_str(nxt)}", field="draw")
            tile = nxt
            self.reserve = self.reserve[1:]
        elif tile is not None and self.located() >> tile & 1:
            raise BergenError(f"draw of {tile_str(tile)}, which is already {self._where(tile)}",
                              field="draw")
        if tile is None:
            self.hidden = _added(self.hidden, seat, 1)
        else:
            self.hands = _added(self.hands, seat, 1 << tile)
        self.reserve_size -= 1
        self.draws_this_turn += 1
        self.last_drawn = NO_TILE if tile is None else tile

    def _pass(self, seat: int):
        if not self.line:
            raise BergenError("a pass before the lead")
        self._no_play_possible(seat, "pass")
        if self.rules.may_draw(self.reserve_size, self.draws_this_turn):
            raise BergenError(f"seat {seat} may not pass: it must draw (the reserve holds "
                              f"{self.reserve_size}, {self.rules.reserve_kept} kept)")
        self.passes += 1
        self._next_turn(seat)
        if self.passes >= self.rules.players and not self.rules.drawable(self.reserve_size):
            self._score_blocked()

    def _where(self, t: int) -> str:
        for seat, h in enumerate(self.hands):
            if h >> t & 1:
                return f"in seat {seat}'s hand"
        if self.line_mask() >> t & 1:
            return "on the line"
        return "in the reserve"

    def _take(self, seat: int, t: int):
        if self.hands[seat] >> t & 1:
            self.hands = _added(self.hands, seat, -(1 << t))
        elif self.hidden[seat] > 0 and not self.located() >> t & 1:
            self.hidden = _added(self.hidden, seat, -1)
        elif self.located() >> t & 1:
            raise BergenError(f"seat {seat} does not hold {tile_str(t)}: it is {self._where(t)}",
                              field="play")
        else:
            raise BergenError(f"seat {seat} does not hold {tile_str(t)}", field="play")

    def _lead(self, seat: int, t: int):
        rules = self.rules
        if not is_double(t) and rules.no_double == "redeal":
            raise BergenError(f"the lead must be a double, not {tile_str(t)}", field="play")
        if not any(self.hidden):
            leader = find_leader(rules, self.hands)
            # Fully known hands at the lead are the dealt ones (State.deal checks them).
            assert leader is not None
            seat_ok, tile_ok = leader
            if (seat, t) != (seat_ok, tile_ok):
                raise BergenError(f"wrong lead: seat {seat_ok} must lead {tile_str(tile_ok)}, "
                                  f"not seat {seat} {tile_str(t)}", field="play")
        else:
            for other, h in enumerate(self.hands):
                for u in iter_mask(h):
                    if u != t and lead_rank(rules, u) < lead_rank(rules, t):
                        raise BergenError(f"wrong lead: seat {other} holds {tile_str(u)}, which "
                                          f"leads before {tile_str(t)}", field="play")
        self._take(seat, t)
        a, b = TILE_LOW[t], TILE_HIGH[t]
        self.line = ((a, b),)
        self.left, self.right = a, b
        self.left_double = self.right_double = is_double(t)
        self._after_play(seat, 2 if is_double(t) else 0)

    def _play(self, seat: int, t: int, end: int):
        fl, fr = self.fits(t)
        if not (fl if end == LEFT else fr):
            side = "left" if end == LEFT else "right"
            raise BergenError(f"{tile_str(t)} does not fit the {side} end (ends {self.left} and "
                              f"{self.right})", field="play")
        if self.draws_this_turn and self.last_drawn not in (NO_TILE, t):
            raise BergenError(f"after drawing {tile_str(self.last_drawn)} seat {seat} must play "
                              f"it, not {tile_str(t)}", field="play")
        self._take(seat, t)
        if end == LEFT:
            v = other_half(t, self.left)
            self.line = ((v, self.left),) + self.line
            self.left, self.left_double = v, is_double(t)
        else:
            v = other_half(t, self.right)
            self.line = self.line + ((self.right, v),)
            self.right, self.right_double = v, is_double(t)
        self._after_play(seat, match_value(self.left, self.right, self.left_double,
                                           self.right_double))

    def _after_play(self, seat: int, value: int):
        self.passes = 0
        side = self.rules.side_of(seat)
        self._score(side, capped(value, self.scores[side], self.rules.target,
                                 self.rules.endgame_cap))
        if self.hand_size(seat) == 0:
            self._score(side, self.rules.out_bonus)
            self.ended = "out"
        elif self.winner is not None:
            self.ended = "target"
        self._next_turn(seat)

    def _next_turn(self, seat: int):
        self.draws_this_turn, self.last_drawn = 0, NO_TILE
        self.to_move = -1 if self.ended is not None else (seat + 1) % self.rules.players

    def _score(self, side: int, points: int):
        """Add points to a side; once a side reaches the target nothing more is scored."""
        if points <= 0 or self.winner is not None:
            return
        self.scores = _added(self.scores, side, points)
        self.last_points = _added(self.last_points, side, points)
        if self.scores[side] >= self.rules.target:
            self.winner = side

    def final_hands(self):
        """The hands as they are now when they can be known, by elimination if need be."""
        if not any(self.hidden):
            return self.hands
        hidden_seats = [s for s, h in enumerate(self.hidden) if h]
        if self.reserve is None or len(hidden_seats) != 1:
            return None
        seat = hidden_seats[0]
        rest = ALL_TILES & ~self.located()
        if popcount(rest) != self.hidden[seat]:
            return None
        return _added(self.hands, seat, rest)

    def _score_blocked(self):
        hands = self.final_hands()
        if hands is None:
            raise BergenError("the round is blocked but the hands are not all known, so it "
                              "cannot be scored; start the record at the next round with "
                              "start_scores")
        self.ended = "blocked"
        self.to_move = -1
        side = blocked_winner(self.rules, hands)
        if side is not None:
            self._score(side, 2)


def _added(values: tuple, i: int, amount: int) -> tuple:
    out = list(values)
    out[i] += amount
    return tuple(out)
