"""A record replayed through the reference `State` (a hidden seat's actions checked against
the deals still possible): its events, the FORMATS.md report (`replay`) and the next moves.
Errors are `BergenError`s located by `round`, `event` and `field`.

>>> from bergen_search.game.match import play_match
>>> from bergen_search.formats.record_io import write_record
>>> from bergen_search.game.rules import Rules
>>> log = play_match(Rules(), [1, 1], seed=7)
>>> first = [e for e in events(write_record(log)) if e.round == 0][:6]
>>> [type(e).__name__ for e in first]
['RoundStart', 'Play', 'Play', 'Play', 'Play', 'Draw']
>>> first[1].move, first[2].move, first[5].tile
(Move.parse('4-4'), Move.parse('3-4:L'), Tile.parse('3-3'))
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from ..errors import BergenError, Where
from ..game.state import DRAW, NO_TILE, PASS, State, move_str
from ..game.tiles import ALL_TILES, TILES_WITH, Tile, iter_mask, tile_str
from ..information.infoset import Observer
from ..information.sampler import count_worlds
from .notation import Move, resolve_move
from .record import Event, parse_record


@dataclass(frozen=True)
class RoundStart:
    """Round `round` as dealt: `state` after the deal (unshown hands empty, sizes kept)."""
    round: int
    state: State


@dataclass(frozen=True)
class RoundEnd:
    """The end of round `round`: `state` after its last event (`ended` None mid-round)."""
    round: int
    state: State


@dataclass(frozen=True)
class Step:
    """One event replayed: `round`, `event`, the `seat` that acted, `action` (the move int) and
    the states `before` and `after`; its class (`Play`, `Draw`, `Pass`) says what it was."""
    round: int
    event: int
    seat: int
    action: int
    before: State
    after: State

    #: "play", "draw" or "pass", as the record writes it.
    kind = ""


@dataclass(frozen=True)
class Play(Step):
    """A play: `move` as the record writes it (no end for the lead), `tile` the tile laid."""
    kind = "play"

    @property
    def move(self) -> Move:
        return Move.from_code(self.action, lead=not self.before.led)

    @property
    def tile(self) -> Tile:
        return Tile(self.action >> 1)


@dataclass(frozen=True)
class Draw(Step):
    """A draw: `tile` the `Tile` drawn, or None when the record does not show it."""
    kind = "draw"

    @property
    def tile(self) -> Tile | None:
        t = self.after.last_drawn
        return None if t == NO_TILE else Tile(t)


@dataclass(frozen=True)
class Pass(Step):
    """A pass."""
    kind = "pass"


_STEP: dict[str, type[Play] | type[Draw] | type[Pass]] = {"play": Play, "draw": Draw,
                                                          "pass": Pass}

#: What `events` yields.
ReplayEvent = Union[RoundStart, Play, Draw, Pass, RoundEnd]


def _action_of(ev: Event, state: State) -> int:
    if ev.kind == "draw":
        return DRAW
    if ev.kind == "pass":
        return PASS
    assert ev.tile is not None
    if state.over or (state.to_move >= 0 and ev.seat != state.to_move):
        return ev.tile * 2 + (ev.end or 0)      # State.apply names the real problem
    try:
        return resolve_move(ev.tile, ev.end, state)
    except BergenError as e:
        raise BergenError(e.message, field="play") from None


def _check_hidden(observer: Observer, seat: int, action: int):
    """BergenError unless what a hidden seat did fits some deal the proofs so far allow."""
    groups, free, _ = observer.constraints()
    if action < DRAW:
        t = action >> 1
        if dict(free).get(t, 1) == 0:
            raise BergenError(f"seat {seat} cannot hold {tile_str(t)}: "
                              f"{observer.why_not(seat, t)}", field="play")
    try:
        n = count_worlds(groups, free)
    except BergenError:
        return      # too unconstrained to tabulate: nothing provable is broken
    if n == 0:
        raise BergenError(f"no deal of the hidden tiles fits the events so far: seat {seat}'s "
                          f"draws, passes and plays contradict each other")


def events(record) -> Iterator[ReplayEvent]:
    """Per round of `record` a `RoundStart`, a step per event and a `RoundEnd`; a `BergenError`
    at the first broken rule."""
    record = parse_record(record)
    scores = record.start_scores
    last = len(record.rounds) - 1
    for r, rnd in enumerate(record.rounds):
        try:
            state = State.deal(record.rules, list(rnd.hands), rnd.reserve, scores)
        except BergenError as e:
            raise e.located(round=r) from None
        yield RoundStart(r, state)
        known = {s for s, h in enumerate(rnd.hands) if h is not None}
        observer = Observer(record.rules, known, state) if len(known) < len(rnd.hands) else None
        for j, ev in enumerate(rnd.events):
            try:
                action = _action_of(ev, state)
                tile = ev.tile if ev.kind == "draw" else None
                after = state.apply(action, seat=ev.seat, tile=tile)
                if observer is not None:
                    observer.step(ev.seat, action, after)
                    if ev.seat not in known:
                        _check_hidden(observer, ev.seat, action)
            except BergenError as e:
                raise e.located(round=r, event=j, field=ev.kind) from None
            yield _STEP[ev.kind](r, j, ev.seat, action, state, after)
            state = after
        if state.ended is None and r < last:
            raise BergenError(f"the round is unfinished after its {len(rnd.events)} events, but "
                              f"round {r + 2} follows: only the last round may stop mid-round",
                              round=r)
        if state.winner is not None and r < last:
            raise BergenError(f"the match ended in round {r + 1} (side {state.winner} reached the "
                              f"target {record.rules.target}), so no round may follow",
                              round=r + 1)
        yield RoundEnd(r, state)
        scores = state.scores


def seen_steps(record, seats=None) -> Iterator[tuple]:
    """(step, {seat: Observer}) for each `Step`: what each of `seats` had seen just before it."""
    record = parse_record(record)
    rules = record.rules
    seats = range(rules.players) if seats is None else seats
    observers: dict = {}
    for item in events(record):
        if isinstance(item, RoundStart):
            observers = {s: Observer(rules, {s}, item.state) for s in seats}
        elif isinstance(item, Step):
            yield item, observers
            for o in observers.values():
                o.step(item.seat, item.action, item.after)


def walk(record) -> Iterator[Step]:
    """The `Play`, `Draw` and `Pass` steps of `events(record)`, without the round marks."""
    return (item for item in events(record) if isinstance(item, Step))


def _replay(record):
    rounds = []
    for item in events(record):
        state = item.after if isinstance(item, Step) else item.state
        if isinstance(item, RoundStart):
            cur = {"round": item.round, "start_scores": list(state.scores), "events": []}
            rounds.append(cur)
        elif isinstance(item, Step):
            entry = {"event": item.event, "seat": item.seat,
                     "action": move_str(item.action, lead=not item.before.led)}
            if isinstance(item, Draw):
                entry["tile"] = None if item.tile is None else str(item.tile)
            entry.update(points=list(state.last_points), scores=list(state.scores))
            cur["events"].append(entry)
        else:
            cur.update(end=state.ended or "unfinished", scores=list(state.scores),
                       match_over=state.winner is not None,
                       to_move=None if state.ended is not None or state.to_move < 0
                       else state.to_move)
    report = {"ok": True, "rounds": rounds, "scores": list(state.scores),
              "winner": state.winner, "match_over": state.winner is not None}
    return report, state


def replay(record) -> dict:
    """The FORMATS.md report of a record checked and scored event by event."""
    return _replay(record)[0]


def final_state(record) -> State:
    """The `State` after the record's last event."""
    return _replay(record)[1]


@dataclass(frozen=True)
class NextMoves:
    """What the seat to move may do after a record's last event: the `moves` as written (`seen`:
    its hand is shown), `why` there are none, and before the lead the `leads` (seat, tile)."""
    round: int
    seat: int | None
    seen: bool | None
    moves: list
    why: str | None = None
    leads: list = field(default_factory=list)


def next_moves(record) -> NextMoves:
    """The events the rules (with the mover's hand hidden: some deal) allow next, each tried by
    replaying the record with it; `BergenError` for a broken record or a round over."""
    record = parse_record(record)
    last = len(record.rounds) - 1
    final = final_state(record)
    where: Where = {"round": last}
    if final.winner is not None:
        raise BergenError(f"the match is over: side {final.winner} reached the target "
                          f"{record.rules.target}, so no round follows", **where)
    if final.ended is not None:
        raise BergenError(f"the round is over ({final.ended}): start the next round", **where)
    rnd = record.rounds[last]
    base = record.to_dict()
    if not final.led:
        return _leads(record, base, last)
    seat = final.to_move
    seen = rnd.hands[seat] is not None and not final.hidden[seat]
    fits = (TILES_WITH[final.left] | TILES_WITH[final.right]) & ~final.line_mask()
    if seen:
        fits &= final.hands[seat]
    candidates = [(Event(seat, "play", t, end), move_str(t * 2 + end)) for t in iter_mask(fits)
                  for end, ok in enumerate(final.fits(t)) if ok]
    candidates += [(Event(seat, "draw"), "draw"), (Event(seat, "pass"), "pass")]
    moves, why = [], None
    for ev, text in candidates:
        refused = _refused(base, ev)
        if refused is None:
            moves.append(text)
        else:
            why = refused
    return NextMoves(last, seat, seen, moves, None if moves else why)


def _refused(base: dict, ev: Event) -> str | None:
    """Why the record dict `base` with `ev` added does not replay, or None."""
    trial = dict(base, rounds=base["rounds"][:-1] + [
        dict(base["rounds"][-1], events=base["rounds"][-1]["events"] + [ev.to_dict()])])
    try:
        for _ in events(trial):
            pass
    except BergenError as e:
        return e.message
    return None


def _leads(record, base: dict, last: int) -> NextMoves:
    rnd = record.rounds[last]
    shown = sum(h or 0 for h in rnd.hands)      # the hands dealt are disjoint
    leads, why = [], None
    for seat, hand in enumerate(rnd.hands):
        pool = hand if hand is not None else ALL_TILES & ~shown
        for t in iter_mask(pool):
            refused = _refused(base, Event(seat, "play", t, None))
            if refused is None:
                leads.append((seat, tile_str(t)))
            else:
                why = refused
    return NextMoves(last, None, None, [], None if leads else why, leads)
