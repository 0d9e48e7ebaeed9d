"""Where the exact solve is out of reach: a certified bracket of each move (`bracket`), the game
with the seat's own hand shown solved move by move; the moves too big even so bracketed
depth-limited (`limited`)."""
from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field

from ...errors import TooBig
from ...formats.notation import Move
from ...information.infoset import InfoSet
from . import deals, public, solving
from .budget import (BRACKET_MIN_ITERATIONS, BUILD_SHARE, BYTES_PER_WORK, FLOOR_POLICIES,
                     GROW_HIGH, GROW_LOW, LIMITED_TOLERANCE, MAX_HORIZON, MAX_ITERATIONS,
                     PLAYOUT_TABLE_BITS, PLAYOUT_WORK, PREDICT_WORK_PER_PAIR, TOLERANCE,
                     allowance)
from .deals import Endgame
from .deals import round_figure
from .solving import after


@dataclass
class Bracket:
    """The game with the seat's own hand shown, solved move by move, in points: `floors`, what
    each move secures for this hand even against an opponent seeing it, `ceilings`, what such
    an opponent holds it to; `exploitability`: the largest of the subgames'."""
    floors: dict
    ceilings: dict
    deals: int
    sizes: tuple
    iterations: int
    work: int
    seconds: float
    exploitability: float
    missing: tuple = ()
    interrupted: bool = False
    #: Moves bracketed depth-limited: move -> (floor's horizon, ceiling's); 0: whole.
    horizons: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Limited:
    """A move's depth-limited bracket (`floor` and `ceiling` None when not one decision fit)."""
    floor: float | None
    ceiling: float | None
    horizons: tuple
    spent: int
    iterations: int
    exploitability: float
    interrupted: bool


@dataclass(frozen=True)
class Deepened:
    """The deepest depth-limited tree that fits (`solver` None: none fits; `horizon` 0: whole)."""
    solver: solving.Solver | None
    work: int
    horizon: int
    spent: int


class Step(enum.Enum):
    """How a move's bracketing went."""
    DONE = "done"
    BIG = "big"
    OUT = "out"
    INTERRUPTED = "interrupted"


def deepen(sub: Endgame, greedy_seat: int | None, max_work: int, memory_bytes, stop,
           playouts, *, max_horizon: int = MAX_HORIZON) -> Deepened:
    """The deepest depth-limited tree of `sub` whose build and BRACKET_MIN_ITERATIONS of DCFR are
    predicted to fit `max_work`, deepened one decision at a time."""
    per = 2 * BRACKET_MIN_ITERATIONS + 8     # traversals the tree must afford after it
    best, spent = None, 0
    costs: list = []
    kept = 0                    # the work of the tree held (`best`) while the next is built
    for h in range(1, max_horizon + 1):
        left = max_work - spent
        # The next level's cost and tree, grown by the last step's ratios (clamped).
        grow_cost = grow_work = 2.0          # a guess before two levels are known
        if len(costs) >= 2:
            grow_cost = min(max(costs[-1][0] / max(costs[-2][0], 1), GROW_LOW), GROW_HIGH)
            grow_work = max(costs[-1][1] / max(costs[-2][1], 1), 1.0)
        work_next = costs[-1][1] * grow_work if costs else 0
        if costs and costs[-1][0] * grow_cost + per * work_next > left:
            break
        room = left - per * work_next
        # The tree held and the one built must fit the memory cap together.
        memory = None if memory_bytes is None else memory_bytes - BYTES_PER_WORK * kept
        _, cap = allowance(room, None, memory, BRACKET_MIN_ITERATIONS)
        # The play-outs get what the tree leaves of the room, less a build's overrun.
        steps = int((room - cap) / PLAYOUT_WORK) - 0x4000
        if stop is not None and stop.is_set() or cap <= 0 or steps <= 0:
            break
        try:
            solver, _, work = solving.build(sub, cap, horizon=h, greedy_seat=greedy_seat,
                                            max_steps=steps, playouts=playouts,
                                            policies=1 if greedy_seat is None
                                            else FLOOR_POLICIES, stop=stop)
        except TooBig:
            spent += min(room, steps * PLAYOUT_WORK + cap)     # what it may have cost
            break
        cost = work + PLAYOUT_WORK * solver.playout_steps
        spent += cost
        if per * work + cost > left:
            break
        costs.append((cost, work))
        best, kept = (solver, work, h if solver.n_leaves else 0), work
        if not solver.n_leaves:
            break                   # whole: deeper is the same tree
        del solver                  # held by `best` alone: freed when a deeper one replaces it
    return Deepened(None, 0, 0, spent) if best is None else Deepened(*best, spent)


def limited(sub: Endgame, *, max_work: int, memory_bytes, tolerance: float,
            max_iterations: int, clock, stop, playouts: tuple) -> Limited:
    """`sub` (the shown game after the seat's move) bracketed depth-limited, the ceiling's tree
    (both hands in view below it) given half of `max_work`, the floor's (the seat playing the
    best of FLOOR_POLICIES below it, answered perfectly) the rest."""
    p, spent, iterations, worst = sub.seat, 0, 0, 0.0
    out, horizons = [], []
    # One deal: nothing is hidden, and the ceiling's tree cut one decision deep is the shown
    # game itself.
    alone = len(sub.deals) == 1
    # The ceiling's first: it is the one that may not fit at all, and then the floor is not
    # worth its cost.
    for k, greedy in ((1, None),) if alone else ((1, None), (0, p)):
        share = (max_work - spent) // 2 if k == 1 and not alone else max_work - spent
        deepened = deepen(sub, greedy, share, memory_bytes, stop, playouts[k],
                          max_horizon=1 if alone else MAX_HORIZON)
        if deepened.solver is None:
            return Limited(None, None, (), spent + deepened.spent, iterations, worst, False)
        solver, work, h, built = (deepened.solver, deepened.work, deepened.horizon,
                                  deepened.spent)
        del deepened                # the solver's one reference: freed after its bounds
        loose = max(tolerance, LIMITED_TOLERANCE)
        run = solving.iterate(solver, work, total=sub.weight, share=1.0, seat=p,
                              tolerance=loose, hand_tolerance=loose, allowed=share - built,
                              deadline=None, max_iterations=max_iterations, clock=clock,
                              stop=stop, phases={"iterations": 0.0, "checks": 0.0})
        del solver
        spent += built + run.spent
        iterations += run.iterations
        if run.iterations == 0 or run.interrupted:
            return Limited(None, None, (), spent, iterations, worst, run.interrupted)
        worst = max(worst, run.exploitability)
        assert run.bounds is not None       # measured after the iterations run
        if alone:
            return Limited(run.bounds[0], run.bounds[1], (h, h), spent, iterations, worst, False)
        out.append(run.bounds[k])   # the ceiling's high bound, the floor's low one
        horizons.append(h)
    return Limited(out[1], out[0], (horizons[1], horizons[0]), spent, iterations, worst, False)


def bracket(info: InfoSet, *, max_work: int | None = None, seconds: float | None = None,
            memory_bytes: int | None = None, tolerance: float = TOLERANCE,
            max_iterations: int = MAX_ITERATIONS, clock=time.perf_counter,
            stop=None) -> Bracket:
    """A certified bracket of each legal move of `info`: each subgame of the shown game solved
    within a fair share of the budget (the moves too big depth-limited, under an iteration
    budget with the core). `TooBig` when it is beyond the budget."""
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes, BRACKET_MIN_ITERATIONS)
    affords = cap / PREDICT_WORK_PER_PAIR
    # Every walk the steps allow (no early stop): a shown game is often near the line.
    size = deals.predict(info, shown=True)
    cuts = deals.compiled() is not None and allowed is not None and seconds is None
    # The play-outs' two tables take at most a quarter of the memory cap, the trees the rest.
    table_bits, tree_bytes = PLAYOUT_TABLE_BITS, memory_bytes
    if memory_bytes is not None:
        while table_bits > 10 and 2 * 24 << table_bits > memory_bytes // 4:
            table_bits -= 1
        tree_bytes = memory_bytes - (2 * 24 << table_bits)
        cuts = cuts and 2 * 24 << table_bits <= memory_bytes // 4
    if size is not None and size.pairs > affords and not cuts:
        raise TooBig(f"with this hand shown its tree is still too big (about "
                     f"{round_figure(size.pairs)} ways to play out its deals, predicted; "
                     f"the budget affords {round_figure(affords)})")
    g = deals.game(info, max_deals=cap, shown=True, stop=stop)
    run = _Bracketing(g, allowed=allowed, seconds=seconds, memory_bytes=memory_bytes,
                      tree_bytes=tree_bytes, table_bits=table_bits, tolerance=tolerance,
                      max_iterations=max_iterations, clock=clock, stop=stop, t0=t0)
    run.size_moves(info)
    status = run.whole_moves()
    if cuts and status is not Step.INTERRUPTED:
        status = run.cut_moves()
    return run.result(status)


class _Bracketing:
    """One `bracket` under way: the shown game `g`, its moves, their bounds, the budget left."""

    def __init__(self, g: Endgame, *, allowed, seconds, memory_bytes, tree_bytes, table_bits,
                 tolerance, max_iterations, clock, stop, t0):
        self.g, self.allowed, self.seconds = g, allowed, seconds
        self.memory_bytes, self.tree_bytes, self.table_bits = memory_bytes, tree_bytes, table_bits
        self.tolerance, self.max_iterations = tolerance, max_iterations
        self.clock, self.stop, self.t0 = clock, stop, t0
        self.moves = public.public_moves(g.state(g.deals[0]), [g.hands[g.seat][g.hand_index]])
        self.floors: dict = {}
        self.ceilings: dict = {}
        self.horizons: dict = {}
        self.subs: dict = {}
        self.sizes: dict = {}
        self.spent = self.iterations = 0
        self.worst = 0.0
        self.tables: tuple = ()     # the play-outs' tables, shared by every move's cuts
        # The builds found too big may take BUILD_SHARE of the budget in all (of the time under
        # a clock, else of the work, so the bracket is the same on every machine).
        self.build_left = None if seconds is None else BUILD_SHARE * seconds
        self.failed_left = (None if allowed is None or seconds is not None
                            else BUILD_SHARE * allowed)

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def size_moves(self, info: InfoSet) -> None:
        """The moves that end the round valued exactly; the others' subgames and sizes predicted."""
        g = self.g
        for m in self.moves:
            sub = after(g, m)
            if sub is None:
                self.floors[Move.from_code(m)] = self.ceilings[Move.from_code(m)] = \
                    g.ended_value(m)
                continue
            self.subs[m] = sub
            size = deals.predict(info, shown=True, move=m)
            if size is not None:
                self.sizes[m] = size.pairs

    def whole_moves(self) -> Step:
        """Each move a fair share of what is left, smallest first, then those too big for it again
        with what the others left (`self.todo`: the moves of the last pass)."""
        self.todo = sorted(self.subs, key=lambda m: (self.sizes.get(m, 0.0), m))
        status = Step.DONE
        for _ in range(2):
            big = []
            for k, m in enumerate(self.todo):
                status = self.whole(m, len(self.todo) - k)
                if status is Step.BIG:
                    big.append(m)
                elif status is Step.INTERRUPTED:
                    break
            if status is Step.INTERRUPTED or not big or len(big) == len(self.todo):
                break
            self.todo = big
        return status

    def cut_moves(self) -> Step:
        """The moves still too big bracketed depth-limited, with what is left."""
        todo = [m for m in self.todo if Move.from_code(m) not in self.floors]
        status = Step.DONE
        for k, m in enumerate(todo):
            status = self.cut(m, len(todo) - k)
            # The first move's first horizon did not fit: the others, no smaller, would not.
            if status is Step.INTERRUPTED or (status is Step.OUT and not self.floors):
                break
        return status

    def whole(self, m: int, share: int) -> Step:
        """Bracket move `m` within 1/`share` of what is left, its subgame whole."""
        sub, clock = self.subs[m], self.clock
        left_work = None if self.allowed is None else (self.allowed - self.spent) // share
        left_seconds = (None if self.seconds is None
                        else (self.seconds - (clock() - self.t0)) / share)
        if (left_work is not None and left_work <= 0) or (
                left_seconds is not None and left_seconds <= 0) or self.stopped():
            return Step.OUT
        sub_allowed, sub_cap = allowance(left_work, left_seconds, self.memory_bytes,
                                         BRACKET_MIN_ITERATIONS)
        if self.sizes.get(m, 0.0) > sub_cap / PREDICT_WORK_PER_PAIR:
            return Step.BIG         # predicted: nothing built
        if (self.build_left is not None and self.build_left <= 0) or (
                self.failed_left is not None and self.failed_left <= 0):
            return Step.OUT
        t1 = clock()
        try:
            solver, _, work = solving.build(sub, sub_cap, self.build_left or 0.0,
                                            stop=self.stop)
        except TooBig:
            if self.failed_left is not None:
                self.failed_left -= sub_cap
                self.spent += sub_cap
            return Step.BIG
        except KeyboardInterrupt:   # heard inside the build: the moves bracketed are kept
            return Step.INTERRUPTED
        finally:
            if self.build_left is not None:
                self.build_left -= clock() - t1
        deadline = None if left_seconds is None else clock() + left_seconds
        run = solving.iterate(solver, work, total=sub.weight, share=1.0, seat=self.g.seat,
                              tolerance=self.tolerance, hand_tolerance=self.tolerance,
                              allowed=sub_allowed, deadline=deadline,
                              max_iterations=self.max_iterations, clock=clock, stop=self.stop,
                              phases={"iterations": 0.0, "checks": 0.0})
        self.spent += run.spent
        self.iterations += run.iterations
        if run.iterations == 0:
            return Step.INTERRUPTED if run.interrupted else Step.OUT
        # The bounds are exact best responses whatever the exploitability reached.
        assert run.bounds is not None
        moved = self.g.gained(sub.root.scores)
        self.floors[Move.from_code(m)] = moved + run.bounds[0]
        self.ceilings[Move.from_code(m)] = moved + run.bounds[1]
        self.worst = max(self.worst, run.exploitability)
        return Step.INTERRUPTED if run.interrupted else Step.DONE

    def cut(self, m: int, share: int) -> Step:
        """Bracket move `m` depth-limited (`limited`) within 1/`share` of what is left."""
        if self.stopped():
            return Step.OUT
        left_work = (self.allowed - self.spent) // share
        if not self.tables:         # shared by every move's trees (the same states recur)
            core, p = deals.compiled(), self.g.seat
            self.tables = tuple(core.PlayoutTable(self.g.rules, q, self.table_bits)
                                for q in (p, -1))
        try:
            got = limited(self.subs[m], max_work=left_work, memory_bytes=self.tree_bytes,
                          tolerance=self.tolerance, max_iterations=self.max_iterations,
                          clock=self.clock, stop=self.stop, playouts=self.tables)
        except KeyboardInterrupt:   # heard inside a build: the moves bracketed are kept
            return Step.INTERRUPTED
        self.spent += got.spent
        self.iterations += got.iterations
        if got.interrupted:
            return Step.INTERRUPTED
        if got.floor is None or got.ceiling is None:
            return Step.OUT
        self.horizons[Move.from_code(m)] = got.horizons
        moved = self.g.gained(self.subs[m].root.scores)
        self.floors[Move.from_code(m)] = moved + got.floor
        self.ceilings[Move.from_code(m)] = moved + got.ceiling
        self.worst = max(self.worst, got.exploitability)
        return Step.DONE

    def result(self, status: Step) -> Bracket:
        g = self.g
        missing = [Move.from_code(m) for m in self.moves if Move.from_code(m) not in self.floors]
        # Ctrl-C between DCFR iterations ends `solving.iterate` quietly: said here.
        interrupted = status is Step.INTERRUPTED or self.stopped()
        if not self.floors:
            raise TooBig("with this hand shown no move could be bracketed within the budget",
                         interrupted=interrupted)
        return Bracket(self.floors, self.ceilings, len(g.deals), g.root_sizes, self.iterations,
                       self.spent, self.clock() - self.t0, self.worst, tuple(missing),
                       interrupted, self.horizons)
