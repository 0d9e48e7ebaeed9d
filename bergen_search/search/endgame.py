"""The exact endgame: the end of a two-player round solved as the game it is.

Once the reserve is down to the tiles that are never drawn (`reserve_kept`; under `draw:
one` likewise), no chance is left but the deal itself. With two players the rest of the
round is then a finite two-player zero-sum game with hidden hands:

- chance deals the tiles nobody has seen into both hands and the kept tiles, uniformly over
  the deals consistent with what *everyone* saw (hand sizes, the lead, the voids proved by
  draws and passes: `infoset.PublicView`), each deal weighted by its number of histories, as
  the exact sampler counts them (`sampler.WorldTable`); with `inference`, also by the
  inference model's factors (`inference.tile_factors`, for both seats' plays);
- each player knows its own hand; every action is public. The seat to move holds one of the
  dealt hands, and the other player does not know which: a seat's value is the value of its
  own hand under an equilibrium of that game, not of a game where its hand were shown.

The solver (`_endgame.pyx`, its oracle `endgame_ref.py`) builds the public tree and runs
discounted CFR (Brown & Sandholm 2019) over hand vectors until the *exploitability* of the
average strategy pair, measured exactly by a best response for each side, is below the
tolerance: `exploitability` = (what the seat's side gets best-responding to the other's
strategy) - (what it gets when the other best-responds to its strategy), over the whole
game (every deal); the game's value lies between the two. Each legal move's value is the
seat's best-response value after it against the other's solved strategy, for the seat's own
hand; the mix is the seat's average strategy there (a mixed equilibrium is an answer: "0-2
70%, 2-2 30%"). Values of single hands are not unique across the equilibria of a game with
hidden information (as in poker); those printed are the solved strategy's.

*The bound printed with a hand's values* (`Solution.hand_bound`, the "± ε" of `best`,
`analyze` and the protocol) is the game's exploitability divided by the hand's share of the
deals' weight: the whole game's error put on this one hand. The solver iterates until that
bound is within HAND_TOLERANCE and the game's exploitability within TOLERANCE, or prints the
bound reached when the budget runs out. It is not a theorem for every game (a hand's values are not
unique across equilibria, and a solved opponent may answer one hand better than an
equilibrium does): it is the error allotment of the issue that asked for it, checked against
solves at tolerance 1e-5 (`tests/test_endgame.py`, `benchmarks/endgame_stage.py --bounds`)
for the moves the solution plays.

*A move outside the played mix's support* is a deviation, and the solve's own value of it is
too kind: the other side's strategy after it is weighted by how often the seat takes it, which
goes to 0, so CFR never has to answer it well (on the issue's example 1-6:L read +1.993 where
a good answer holds it to -2.0). Each such move is valued again (`value_after`): the subgame
after it is solved as a game of its own, the other side believing every hand that could have
taken the move as likely as the prior makes it (a uniform tremble: the deals where the seat's
hand could have taken it, with their prior weights), both sides playing an equilibrium of it;
the move's value is the seat's hand's best response there against the other side's solved
strategy, with the subgame's own hand bound (`Solution.move_bounds`). It is the value of the
mistake against an opponent who answers it as well as it can without knowing the seat's
hand: checked against a sequence-form LP of that subgame, which gives the least the hand gets
against any of the other side's equilibrium answers (`tests/test_endgame_deviations.py`).
The subgames are solved after the root game, best valued first, each with a fair share of
what is left of the budget (their work is the search's); a move the budget did not reach
keeps the solve's value and is flagged unrefined (`Solution.refined`, "refined" in the JSON,
"unrefined" in `best`'s text). The mix is the root solve's.
The mix played leaves out every move whose value is below the best's by more than twice the
bound (the two values' bounds together: such a move is worse whichever way the errors fall);
the average strategy keeps a trace of every move CFR tried on the way.

It applies to two players with objective `points` (the margin of the round); three or four
players are not a zero-sum game, partnerships are a team game, and the match objective needs
match-win values at the leaves (not built): there, and where the public tree is too big for
the budget, the search falls back to today's engine and says so (`Attempt.why`).

>>> from bergen_search.formats.game import load_game
>>> info = load_game('{"format":"bergen-position/1","rules":{"players":2},"scores":[5,3],'
...     '"to_move":1,"hand":["1-2","1-5"],"line":"6-4 4-0 0-1 1-3 3-2 2-4 4-4 4-3 3-3 3-6 '
...     '6-5 5-0 0-6 6-6 6-2 2-5 5-5 5-4 4-1 1-1","hand_sizes":[4,2],"reserve_size":2,'
...     '"voids":{"0":[4,6],"1":[3]}}')
>>> sol = solve(game(info), tolerance=1e-6)
>>> [(m, round(v, 3)) for m, v in sorted(sol.values.items())]
[(Move.parse('1-2:R'), -0.4), (Move.parse('1-5:R'), 1.2)]
>>> sol.exploitability <= sol.tolerance
True
"""
from __future__ import annotations

import dataclasses
import math
import os
import threading
import time
from dataclasses import dataclass, field

from ..constants import MIX_STREAM
from ..errors import BergenError, NotApplicable, TooBig
from ..formats.notation import Move
from ..game.rng import Rng, derive_seed
from ..game.state import PASS, may_take
from ..game.tiles import popcount
from ..information.inference import TileModel, tile_factors
from ..information.infoset import InfoSet
from ..information.sampler import WorldTable, merge_groups
from ..runs.threads import QuietThread
from . import endgame_ref

#: The exploitability the solver stops at, in points (the unit of the values)...
TOLERANCE = 0.01
#: ... once the bound on the seat's hand's values (the exploitability over the hand's share
#: of the deals' weight, `Solution.hand_bound`) is within this too. At 0.01, as the game's,
#: the solves of hands holding a small share of the deals ran to the budget: over the stage
#: of `benchmarks/endgame_stage.py`'s corpus the share answered within 1 s fell from 67.6% to
#: 61.1% and the median went from 0.029 s to 0.076 s.
HAND_TOLERANCE = 0.05
#: A solution whose exploitability is still above this when the budget runs out is not
#: used (the search falls back to today's engine).
ACCEPT = 0.25
#: When the exploitability is measured: after these iterations, then every CHECK_EVERY.
CHECK_AT = (4, 8, 12, 16, 24, 32, 48, 64)
CHECK_EVERY = 32
#: The solver stops after this many iterations whatever the exploitability (it reports it).
MAX_ITERATIONS = 2000
#: Solver work is counted in nodes, entries (hand, legal action) and terminal deals
#: touched: a DCFR iteration touches its tree's twice, an exploitability check twice.
#: A search's iteration budget (the default engine's iterations) buys this much work each:
#: the default 100,000 iterations buy about a second of solving on this project's machine.
WORK_PER_ITERATION = 600
#: Work per second, to size the tree under a time limit before it is built (measured on
#: this project's machine, one core, `python benchmarks/bench_endgame.py`).
WORK_PER_SECOND = 60e6
#: The least DCFR iterations a tree must afford within the budget to be attempted.
MIN_ITERATIONS = 24
#: ... and a bracket's (`bracket`): its floors and ceilings are exact best responses after
#: any number of iterations (only their gap narrows with more), so it takes trees three
#: times larger than a solve, at 8 iterations: on the stage corpora, 10 more positions of
#: 143 declined were bracketed (a shown game is often just past the solve's line).
BRACKET_MIN_ITERATIONS = 8
#: A move whose shown subgame is too big for its share even so is bracketed depth-limited
#: (`_limited`): the subgame cut HORIZON decisions below the move, each deal at a leaf played
#: out with both hands in view; the horizon is deepened one decision at a time while the
#: next one is predicted to fit (its cost grows by the last step's ratio), up to
#: MAX_HORIZON. A play-out's state is counted as this much solver work (33 ns on this
#: project's machine) in the budget; single builds take 0.6-2.2 times that
#: (benchmarks/BRACKET.md, "The cost model").
PLAYOUT_WORK = 2
MAX_HORIZON = 24
GROW_LOW, GROW_HIGH = 1.5, 3.0
#: The play-outs' tables (one for the floors, one for the ceilings) hold 2^this entries of 24
#: bytes each (12.6 MB), fewer under a small memory cap (`bracket`).
PLAYOUT_TABLE_BITS = 19
#: A depth-limited tree's DCFR stops at this exploitability (or the solve's tolerance, if
#: larger): its bounds are exact best responses whatever it reaches, and the gap its
#: horizon leaves (points, not hundredths) is what a deeper horizon narrows; on
#: examples/decision.json the floors' DCFR had spent more than their builds at 0.01.
LIMITED_TOLERANCE = 0.05
#: Below a floor's horizon the seat plays one of the first this many fixed policies, the
#: one best over each leaf's deals (`endgame_ref.floor_choice`: greedy; doubles first;
#: keeping tiles that fit the ends). Over the depth-limited brackets of the two stage
#: corpora tuned on (34 and 23 decisions), the widest ceiling - floor of a decision, on
#: average: greedy alone 1.368 and 0.905, two policies 1.130 and 0.899 (each policy is
#: played out: three cost a horizon's depth; on examples/decision.json the best move's floor
#: was +2.781 with one, +3.157 with two, +2.524 with three).
FLOOR_POLICIES = 2
#: Under a time limit, the share of it that finding the deals and building the tree may
#: take (past it the attempt stops, and today's engine has the rest).
BUILD_SHARE = 0.25
#: Under a time limit, the share of it the solve leaves unspent, so that when it fails (the
#: budget ran out before ACCEPT) today's engine still has time for a search: without it, a
#: solve that ran to the limit left ISMCTS no iteration and the move was the greedy one
#: (the arena of seed 2111 warned of it from both of its processes, benchmarks/STRENGTH.md).
SEARCH_SHARE = 0.25
#: Moves of the average strategy below this share are not played (CFR's average keeps a
#: trace of every action it tried on the way).
MIN_SHARE = 0.01
#: Trees beyond this work (nodes, entries and terminal deals: 35-50 bytes each) are never
#: built, whatever the budget: at most about 400 MB, and a few seconds an iteration.
MAX_WORK = 8_000_000
#: Before anything is built, the size of the public tree is predicted (`predict`: Knuth's
#: estimator over random deals and play-outs, from what every seat saw; a few milliseconds):
#: a position whose predicted terminal deals (a lower bound of the solver's work) exceed what
#: the budget affords is declined at once. PREDICT_WALKS random paths at most (0: no
#: prediction), PREDICT_STEPS steps at most (about 0.3 microseconds each), and the walks stop
#: once PREDICT_MIN_WALKS of them put the estimate over the budget; the seed is fixed, so the
#: same position is predicted alike every time.
PREDICT_WALKS = 256
PREDICT_STEPS = 10_000
#: The solver's work per terminal deal of its tree, at least, on trees of 100,000 work and
#: more (2.86 at least, 3.7 at the median, over the 491 stage decisions of
#: `python benchmarks/endgame_stage.py`'s corpus): a position is declined when its predicted
#: terminal deals times this exceed the work the budget affords a tree.
PREDICT_WORK_PER_PAIR = 2.5
PREDICT_MIN_WALKS = 32
PREDICT_SEED = 0x5EED_E11D_6A3E
#: The memory of the solver per unit of its work (a node, an entry or a terminal deal), at
#: most (measured: at most 49.9 on the 13 trees of 0.1-6.9 million work among the stage
#: decisions of `python benchmarks/bench_endgame.py --memory --rounds 80 --seed 5`), so that
#: the cap of search.Limits.memory_mb holds (the default 256 MB: trees up to 4.8 million).
BYTES_PER_WORK = 56


def applicable(info: InfoSet, objective: str = "points") -> str | None:
    """None when the exact endgame applies to `info`, else why not (a sentence)."""
    rules = info.rules
    if rules.players != 2:
        return (f"the exact endgame is for two players: with {rules.players} players "
                + ("the round is a team game" if rules.partnerships else
                   "the round is not a zero-sum game"))
    if not info.line:
        return "the lead is forced"
    if rules.drawable(info.reserve_size):
        return (f"draws can still happen (the reserve holds {info.reserve_size}, "
                f"{rules.reserve_kept} kept)")
    if objective != "points":
        return "the exact endgame solves the points objective (the round's margin) only"
    if info.public is None:
        return "the information set does not say what every seat has seen"
    return None


@dataclass(frozen=True)
class Endgame:
    """The endgame as the solver takes it: the root's public state, every possible hand of
    each seat (masks, ascending), the deals (hand index of seat 0, of seat 1, weight), and
    the seat to move with its own hand's index."""
    rules: object
    root: endgame_ref.Root
    hands: tuple
    deals: list
    seat: int
    hand_index: int
    inference: bool = False

    @property
    def weight(self) -> float:
        return sum(w for _, _, w in self.deals)

    @property
    def root_sizes(self) -> tuple:
        """Both hands' sizes at the root."""
        return tuple(popcount(self.hands[q][self.deals[0][q]]) for q in range(2))

    @property
    def hand_weight(self) -> float:
        """The chance weight of the seat's own hand: the sum over its worlds."""
        return sum(d[2] for d in self.deals if d[self.seat] == self.hand_index)


def shown_free(info: InfoSet) -> tuple:
    """The public view's free tiles with the seat's own hand shown: each tile of its hand
    may enter only the seat's groups, every other tile off the line none of them (a deal of
    the public view restricted so keeps its weight: the same tiles fill the same groups); a
    played tile of uncertain origin keeps its groups (one seat's epochs: its player's)."""
    pub = info.public
    mine = sum(1 << g for g, grp in enumerate(pub.groups) if grp.owner == info.seat)
    return tuple((t, a if pub.played_free >> t & 1 else a & mine if info.hand >> t & 1
                  else a & ~mine) for t, a in pub.free)


def public_table(info: InfoSet, inference: bool = False, shown: bool = False) -> WorldTable:
    """The world table of the public view: every deal of both hands (and the kept tiles)
    consistent with what every seat saw, weighted by histories (and inference factors).
    `shown`: only the deals where the seat holds its own hand (`shown_free`)."""
    pub = info.public
    view = dataclasses.replace(info, groups=pub.groups,
                               free=shown_free(info) if shown else pub.free,
                               played_free=pub.played_free, hand=0, decisions=pub.decisions)
    if inference:
        return WorldTable(view, tile_factors(view, TileModel()), public=True)
    return WorldTable(view, public=True)


def compiled():
    """The compiled solver's module, or None (not built, or BERGEN_PURE_PYTHON=1)."""
    if os.environ.get("BERGEN_PURE_PYTHON") == "1":
        return None
    try:
        from .. import _endgame     # here: the compiled module is optional (None without it)
    except ImportError:
        return None
    return _endgame


@dataclass(frozen=True)
class Prediction:
    """The size of an endgame, estimated before anything is built (`predict`): `deals`, the
    deals of both hands; `pairs`, the terminal deals of its public tree (every deal once per
    way it can be played out; the solver's work is at least this); `steps` and `walks`, what
    the estimate cost."""
    deals: float
    pairs: float
    steps: int
    walks: int


def predict(info: InfoSet, stop_above: float = 0.0, shown: bool = False,
            move: int | None = None) -> Prediction | None:
    """The size of the endgame of `info` (which `applicable` accepts), predicted from its
    public view alone (the seat's own hand plays no part: what is declined reveals nothing)
    in at most PREDICT_STEPS steps: `_endgame.predict` (Knuth's estimator; unbiased, so a
    position may be mispredicted either way, and one predicted to fit is still capped while
    it is built). `stop_above`: stop walking once the estimate passes it. None without the
    compiled core, with PREDICT_WALKS 0, or when the view has too many groups. `shown`: the
    game with the seat's own hand shown (`bracket`); `move` (with `shown`): the subgame after
    the seat's move (one that does not end the round), its tile on the line."""
    core = compiled()
    if core is None or PREDICT_WALKS <= 0:
        return None
    pub = info.public
    free = shown_free(info) if shown else pub.free
    merged, allowed, _ = merge_groups(pub.groups, free)
    # Groups no tile enters (epochs whose tiles were all played from known origins) drop out.
    kept = [g for g, (_, c) in enumerate(merged) if c > 0]
    if len(kept) > core.PREDICT_MAX_GROUPS:
        return None
    allowed = [sum(1 << k for k, g in enumerate(kept) if a >> g & 1) for a in allowed]
    merged = [merged[g] for g in kept]
    tiles = [t for t, _ in free]
    root = endgame_ref.Root(info.left, info.right, bool(info.left_double),
                            bool(info.right_double), tuple(info.scores), info.seat,
                            info.passes, info.reserve_size, tuple(info.line))
    on_line = pub.played_free
    if move is not None:
        hands = [0, 0]
        hands[info.seat] = info.hand
        root = endgame_ref.root_of(endgame_ref._state(info.rules, root, hands).apply(move))
        if move != PASS:
            on_line |= 1 << (move >> 1)
    deals, pairs, steps, walks = core.predict(
        info.rules, root, [o for o, _ in merged], [c for _, c in merged], tiles, allowed,
        [bool(on_line >> t & 1) for t in tiles], PREDICT_WALKS, PREDICT_SEED,
        max_steps=PREDICT_STEPS, stop_above=stop_above, min_walks=PREDICT_MIN_WALKS)
    return Prediction(deals, pairs, steps, walks)


def game(info: InfoSet, inference: bool = False, max_deals: int = 0,
         seconds: float = 0.0, shown: bool = False) -> Endgame:
    """The endgame of `info` (which `applicable` accepts). `TooBig` past `max_deals` deals
    or `seconds` of finding them (0: no limit). `shown`: the game with the seat's own hand
    shown to the other side (only the deals where the seat holds it, `bracket`)."""
    why = applicable(info)
    if why is not None:
        raise NotApplicable(why)
    try:
        table = public_table(info, inference, shown)
    except BergenError as e:
        raise TooBig(f"its deals are too many to tabulate ({e.message})") from None
    core = compiled()
    if core is not None:
        try:
            h0, h1, w = core.enumerate_deals(table, max_deals, seconds)
        except BergenError as e:
            raise TooBig(f"its public tree is too big for the budget ({e.message})") from None
    else:
        found = sorted((hands[0], hands[1], float(wt))
                       for (hands, _), wt in table.enumerate().items())
        if max_deals and len(found) > max_deals:
            raise TooBig("its public tree is too big for the budget (too many deals)")
        h0, h1, w = [d[0] for d in found], [d[1] for d in found], [d[2] for d in found]
    hands = (sorted(set(h0)), sorted(set(h1)))
    index = [{h: i for i, h in enumerate(hs)} for hs in hands]
    deals = [(index[0][a], index[1][b], x) for a, b, x in zip(h0, h1, w)]
    seat = info.seat
    if info.hand not in index[seat]:
        raise BergenError("the seat's own hand is not among the deals of what everyone saw")
    root = endgame_ref.Root(info.left, info.right, bool(info.left_double),
                            bool(info.right_double), tuple(info.scores), seat, info.passes,
                            info.reserve_size, tuple(info.line))
    return Endgame(info.rules, root, hands, deals, seat, index[seat][info.hand], inference)


@dataclass
class Solution:
    """A solved endgame, from the side of the seat to move, in points.

    Every dict is keyed by the move (`notation.Move`).
    `values`: each legal move's value (the seat's best response after it against the
    other's solved strategy, for its own hand), twins included; `mix`: the seat's average
    strategy at its hand (shares, summing to 1); `value`: its hand's value (the best move's);
    `game_value`: the whole game's value under the solved pair (every deal); `bounds`: what
    the seat's side gets when the other side best-responds to its strategy, and when it
    best-responds to the other's (the game's value lies between); `exploitability` their
    difference; `sides`: per move, each side's expected points gained to the end of the round
    when both play the solved strategies; `hand_bound`: the bound printed with the hand's
    values (the exploitability over the hand's share of the deals' weight); `average`: the
    seat's average strategy at its hand (`mix` is it without the moves the bound rules out,
    renormalised)."""
    values: dict
    mix: dict
    value: float
    game_value: float
    bounds: tuple
    exploitability: float
    tolerance: float
    deals: int
    worlds: int
    iterations: int
    nodes: int
    work: int
    seconds: float
    sides: dict = field(default_factory=dict)
    hand_gap: float = 0.0
    interrupted: bool = False
    traversals: int = 0      # passes over the tree: 2 an iteration, 2 a check, 3 to report
    phases: dict = field(default_factory=dict)   # seconds: build, iterations, checks, report
    hand_bound: float = math.inf
    average: dict = field(default_factory=dict)
    pairs: int | None = None  # the terminal deals of the tree (the compiled solver's)
    #: Per move, the bound of its value: `hand_bound`, or a refined deviation's own.
    move_bounds: dict = field(default_factory=dict)
    #: Per move outside the played mix's support: whether its value is refined (valued
    #: against an opponent who answers it, `value_after`) or the solve's (the budget ran out).
    refined: dict = field(default_factory=dict)
    unrefined: dict = field(default_factory=dict)   # those moves' values from the solve
    spent: int = 0            # the solver work spent, the refinements' included

    def choose(self, seed: int) -> Move:
        """A move drawn from the mix with the seeded RNG (shares below MIN_SHARE dropped, the
        others in the order of their notation): the same seed, the same move."""
        shares = sorted(((m, p) for m, p in self.mix.items() if p >= MIN_SHARE),
                        key=lambda mp: str(mp[0]))
        if not shares:
            shares = [max(self.mix.items(), key=lambda kv: kv[1])]
        total = sum(p for _, p in shares)
        u = (Rng(derive_seed(seed, MIX_STREAM)).next64() >> 11) * (1.0 / 9007199254740992.0)
        acc = 0.0
        for m, p in shares:
            acc += p / total
            if u < acc:
                return m
        return shares[-1][0]


def budget_work(iterations: int) -> int:
    """The solver work an iteration budget buys."""
    return iterations * WORK_PER_ITERATION


def allowance(max_work: int | None, seconds: float | None, memory_bytes: int | None = None,
              min_iterations: int = MIN_ITERATIONS):
    """(the solver work a budget allows or None, the largest tree it may build): the tree
    must afford `min_iterations` iterations and its checks, and fit in `memory_bytes` (at
    BYTES_PER_WORK a unit of its work)."""
    allowed = max_work
    if seconds is not None:
        by_time = int(seconds * WORK_PER_SECOND)
        allowed = by_time if allowed is None else min(allowed, by_time)
    cap = MAX_WORK if allowed is None else min(MAX_WORK, allowed // (2 * min_iterations + 8))
    if memory_bytes is not None:
        cap = min(cap, memory_bytes // BYTES_PER_WORK)
    return allowed, cap


def _build(g: Endgame, cap: int, seconds: float = 0.0, horizon: int = 0,
           greedy_seat: int | None = None, max_steps: int = 0, playouts=None,
           policies: int = 1):
    """(solver, nodes, work per traversal) for `g`, refusing trees over `cap` work or
    `seconds` to build (0: no limit). `horizon` > 0: depth-limited, its leaves' deals played
    out with both hands in view (perfectly by both, or with `greedy_seat` playing the best of
    `policies` fixed policies at each leaf), at most
    `max_steps` states of play-out (0: no limit) sharing `playouts` (a
    `_endgame.PlayoutTable` of the same rules and greedy seat, or None: a new one) (the
    compiled solver's)."""
    core = compiled()
    n_hands = (len(g.hands[0]), len(g.hands[1]))
    limit = cap = min(cap, MAX_WORK)
    try:
        if core is not None:
            solver = core.EndgameSolver(g.rules, g.root, g.hands, g.deals, max_nodes=limit,
                                        max_pairs=limit, max_entries=limit,
                                        alpha=endgame_ref.ALPHA, beta=endgame_ref.BETA,
                                        gamma=endgame_ref.GAMMA, seconds=seconds,
                                        horizon=horizon,
                                        greedy_seat=-1 if greedy_seat is None else greedy_seat,
                                        max_steps=max_steps, playouts=playouts,
                                        policies=policies)
            nodes = solver.n_nodes
            work = nodes + solver.work
        else:
            tree = endgame_ref.build(g.rules, g.root, g.hands, g.deals, max_nodes=limit,
                                     horizon=horizon, greedy_seat=greedy_seat,
                                     policies=policies)
            solver = endgame_ref.Solver(tree, n_hands)
            nodes = len(tree)
            work = nodes + sum(sum(map(sum, n.legal)) + len(n.pairs) for n in tree)
    except (endgame_ref.TreeTooBig, TooBig):
        work = math.inf
    if work > cap:
        raise TooBig(f"its public tree is too big for the budget ({len(g.deals):,} deals, "
                     f"hands of {g.root_sizes[0]} and {g.root_sizes[1]})")
    return solver, nodes, work


def solve(g: Endgame, *, tolerance: float = TOLERANCE,
          hand_tolerance: float = HAND_TOLERANCE, max_work: int | None = None,
          seconds: float | None = None, max_iterations: int = MAX_ITERATIONS,
          build_seconds: float = 0.0, clock=time.perf_counter, stop=None,
          memory_bytes: int | None = None, refine: bool = True) -> Solution:
    """Solve `g` to `tolerance` (exploitability, points) and `hand_tolerance` (the hand's
    bound: the exploitability over the hand's share of the deals' weight,
    `Solution.hand_bound`) within `max_work` (solver work: deterministic) and/or `seconds`
    (the clock). DCFR runs until a check finds both within, or the budget or
    `max_iterations` runs out. Raises
    `TooBig` when the tree cannot afford MIN_ITERATIONS within the budget (it is not built
    further, nor past `build_seconds` of building), or when the budget ran out before
    ACCEPT was reached. `stop` (a threading.Event) is heard between iterations as Ctrl-C is;
    `memory_bytes` caps the tree (allowance). `refine`: then value each move outside the
    played mix against an opponent who answers it (`_refine`) with what is left of the
    budget."""
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes)
    solver, nodes, work = _build(g, cap, build_seconds)
    phases = {"build": clock() - t0, "iterations": 0.0, "checks": 0.0}
    deadline = None if seconds is None else t0 + seconds
    run = _iterate(solver, work, total=g.weight, share=g.hand_weight / g.weight, seat=g.seat,
                   tolerance=tolerance, hand_tolerance=hand_tolerance, allowed=allowed,
                   deadline=deadline, max_iterations=max_iterations, clock=clock, stop=stop,
                   phases=phases)
    done, exploit, bounds = run.iterations, run.exploitability, run.bounds
    traversals, interrupted, spent = run.traversals, run.interrupted, run.spent
    if done == 0:
        raise TooBig(f"its public tree ({nodes:,} nodes) leaves no time to solve it",
                     interrupted=interrupted)
    if exploit > max(ACCEPT, tolerance):
        raise TooBig(f"the budget ran out before the solution was exact enough "
                     f"(exploitability {exploit:.3f} after {done} iterations)")
    t1 = clock()
    sol = _solution(g, solver, exploit, bounds, tolerance, done, nodes, work, clock() - t0)
    phases["report"] = clock() - t1
    sol.phases = phases
    sol.pairs = solver.n_pairs if hasattr(solver, "n_pairs") else None
    sol.interrupted = interrupted
    sol.traversals = traversals + 3
    sol.spent = spent + 3 * work
    del solver, run             # its memory is free before the subgames are built
    if refine and not interrupted:
        t1 = clock()
        left_work = None if allowed is None else allowed - sol.spent
        left_seconds = None if deadline is None else deadline - clock()
        _refine(g, sol, tolerance=tolerance, hand_tolerance=hand_tolerance,
                max_work=left_work, seconds=left_seconds, max_iterations=max_iterations,
                clock=clock, stop=stop, memory_bytes=memory_bytes)
        phases["refine"] = clock() - t1
    return sol


@dataclass(frozen=True)
class Iterated:
    """What a run of DCFR did (`_iterate`): its `iterations`, the `exploitability` and the
    `bounds` from the seat's side measured after the last, the tree's `traversals`, whether
    it was `interrupted`, and the work `spent` (the build's traversal included)."""
    iterations: int
    exploitability: float
    bounds: tuple | None
    traversals: int
    interrupted: bool
    spent: int


@dataclass(frozen=True)
class Limited:
    """A move's depth-limited bracket (`_limited`), from the seat's side in points from the
    subgame's root: `floor` and `ceiling` (None when not even one decision fit the budget, or
    it was interrupted), `horizons` (the floor's cut, the ceiling's), the work `spent`, the
    `iterations`, the larger `exploitability` of the two trees, and `interrupted`."""
    floor: float | None
    ceiling: float | None
    horizons: tuple
    spent: int
    iterations: int
    exploitability: float
    interrupted: bool


def _iterate(solver, work, *, total, share, seat, tolerance, hand_tolerance, allowed,
             deadline, max_iterations, clock, stop, phases) -> Iterated:
    """DCFR on `solver` (a tree of `work` per traversal) until a check finds the
    exploitability within `tolerance` and over `share` (the hand's share of the weight
    `total`) within `hand_tolerance`, or `allowed` work, the `deadline` or `max_iterations`
    runs out (`Iterated`; bounds from `seat`'s side). The exploitability is measured after
    the last iteration whatever the schedule (when at least one ran)."""
    spent = work
    done = 0
    checks = list(CHECK_AT)
    exploit, bounds = math.inf, None
    interrupted = False
    checked, checks_done = -1, 0
    try:
        while done < max_iterations:
            target = min(checks.pop(0) if checks else done + CHECK_EVERY, max_iterations)
            if allowed is not None and spent + 2 * work * (target - done + 1) > allowed:
                break
            # One iteration at a time, so that the clock and Ctrl-C are heard between them.
            while done < target and (deadline is None or clock() < deadline):
                if stop is not None and stop.is_set():
                    raise KeyboardInterrupt
                t1 = clock()
                solver.run(1)
                phases["iterations"] += clock() - t1
                done += 1
                spent += 2 * work
            if done < target:
                break
            spent += 2 * work
            t1 = clock()
            exploit, bounds = _exploitability(solver, total, seat)
            phases["checks"] += clock() - t1
            checked = done
            checks_done += 1
            if exploit <= tolerance and exploit / share <= hand_tolerance:
                break
    except KeyboardInterrupt:
        interrupted = True
    if done and checked != done:
        t1 = clock()
        exploit, bounds = _exploitability(solver, total, seat)
        phases["checks"] += clock() - t1
        spent += 2 * work
        checks_done += 1
    return Iterated(done, exploit, bounds, 2 * done + 2 * checks_done, interrupted, spent)


def after(g: Endgame, move: int) -> Endgame | None:
    """The subgame after the seat's root move `move` (a root action its hand may take), as
    the other side believes it under a uniform tremble: the deals where the seat's hand could
    have taken it, each with its prior weight (the prior conditioned on the public facts after
    the move, whatever the seat's strategy gave the move), the tile gone from the seat's
    hands; its `seat` the seat that moved, its `hand_index` the same hand. None when the move
    ends the round (its value is then exact: no one answers it)."""
    p = g.seat
    tile = 0 if move == PASS else 1 << (move >> 1)

    def legal(h):
        return may_take(h, move, g.root.left, g.root.right)

    kept = [d for d in g.deals if legal(g.hands[p][d[p]])]
    rep = kept[0]
    s = endgame_ref._state(g.rules, g.root, [g.hands[q][rep[q]] for q in range(2)]).apply(move)
    if s.ended is not None:
        return None
    old = [sorted({d[q] for d in kept}) for q in range(2)]
    # Every hand of the seat left holds the tile: without it they keep their order.
    hands = tuple([g.hands[q][i] & ~(tile if q == p else 0) for i in old[q]] for q in range(2))
    index = [{i: k for k, i in enumerate(old[q])} for q in range(2)]
    deals = [(index[0][a], index[1][b], w) for a, b, w in kept]
    root = endgame_ref.root_of(s)
    return Endgame(g.rules, root, hands, deals, p, index[p][g.hand_index], g.inference)


@dataclass(frozen=True)
class Refined:
    """A deviation's value against an answer (`value_after`): `value`, the seat's hand's
    best response in the subgame after the move against the other side's solved strategy
    there, in points from the root; `bound`, the subgame's exploitability over the hand's
    share of its deals' weight; `exploitability`, `iterations` and `work`, the subgame's
    solve's (`deals` its deals)."""
    value: float
    bound: float
    exploitability: float
    iterations: int
    work: int
    deals: int


def value_after(g: Endgame, move: int, *, tolerance: float = TOLERANCE,
                hand_tolerance: float = HAND_TOLERANCE, max_work: int | None = None,
                seconds: float | None = None, max_iterations: int = MAX_ITERATIONS,
                clock=time.perf_counter, stop=None, memory_bytes: int | None = None,
                sub: Endgame | None = None) -> Refined:
    """The value of the seat's root move `move` against an opponent who answers it well:
    the subgame after it (`after`: the other side believes every hand that could have taken
    it as likely as the prior makes it) solved by DCFR to `tolerance` and `hand_tolerance`
    within the budget, and the seat's hand's best response there against the other side's
    solved strategy. `sub`: `after(g, move)` when already built (not None: a move that ends
    the round has its exact value from the solve). `TooBig` as `solve`'s."""
    sub = after(g, move) if sub is None else sub
    p = g.seat
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes)
    solver, nodes, work = _build(sub, cap)
    phases = {"iterations": 0.0, "checks": 0.0}
    deadline = None if seconds is None else t0 + seconds
    total, norm = sub.weight, sub.hand_weight
    run = _iterate(solver, work, total=total, share=norm / total, seat=p, tolerance=tolerance,
                   hand_tolerance=hand_tolerance, allowed=allowed, deadline=deadline,
                   max_iterations=max_iterations, clock=clock, stop=stop, phases=phases)
    done, exploit = run.iterations, run.exploitability
    interrupted, spent = run.interrupted, run.spent
    if interrupted:
        raise TooBig("interrupted", interrupted=True)
    if done == 0 or exploit > max(ACCEPT, tolerance):
        # What it cost all the same counts against the search's budget (`spent`).
        raise TooBig(f"the budget ran out before the subgame after the move was solved "
                     f"(exploitability {exploit:.3f} after {done} iterations)", spent=spent)
    own, _ = solver.best_response(p)
    return Refined(_gained(g, sub.root.scores) + own[sub.hand_index] / norm,
                   exploit * total / norm, exploit, done, spent + work, len(sub.deals))


def _refine(g: Endgame, sol: Solution, *, max_work, seconds, clock, stop, **settings) -> None:
    """Value every move of `sol` outside the played mix's support against an opponent who
    answers it (`value_after`), the best valued first, each given a fair share of what is
    left of the budget (what is left over the moves still to value; a subgame solved early
    leaves its rest to the next); `sol.values` and `sol.move_bounds` take the refined values
    and their bounds, `sol.refined` says per move which were (False: the budget ran out, or
    the subgame did not fit it: the value is the solve's, unrefined), `sol.unrefined` keeps
    the solve's values of those moves. Its work counts in `sol.spent`."""
    off = sorted((m for m, x in sol.mix.items() if x <= 0), key=lambda m: -sol.values[m])
    t0, used = clock(), 0
    for k, m in enumerate(off):
        sol.unrefined[m] = sol.values[m]
        sol.refined[m] = False
        sub = after(g, m.code)
        if sub is None:             # the move ends the round: its value is exact already
            sol.refined[m] = True
            sol.move_bounds[m] = 0.0
            continue
        left_work = None if max_work is None else max_work - used
        left_seconds = None if seconds is None else seconds - (clock() - t0)
        if (left_work is not None and left_work <= 0) or (
                left_seconds is not None and left_seconds <= 0):
            continue
        share = len(off) - k
        try:
            r = value_after(g, m.code, sub=sub, clock=clock, stop=stop,
                            max_work=None if left_work is None else left_work // share,
                            seconds=None if left_seconds is None else left_seconds / share,
                            **settings)
        except TooBig as e:
            used += e.spent
            sol.spent += e.spent
            if e.interrupted:
                break
            continue
        except KeyboardInterrupt:   # Ctrl-C inside a subgame's build: the rest unrefined
            sol.interrupted = True
            break
        used += r.work
        sol.spent += r.work
        sol.values[m] = r.value
        sol.move_bounds[m] = r.bound
        sol.refined[m] = True


# ---- where the exact solve is out of reach: a certified bracket ----------------------------
@dataclass
class Bracket:
    """The game with the seat's own hand shown to the other side, solved move by move
    (`bracket`), from the seat's side, in points. Per move: `floors`, what the move secures
    for this hand whatever the other side does, even seeing the hand (the seat's solved
    strategy after it against an exact best response); `ceilings`, what the other side,
    seeing the hand, holds the move to (its solved strategy against the seat's exact best
    response). The shown game's value of a move lies between the two. In the real game the
    other side does not see the hand, which can only help the seat: each floor holds there
    too (the move secures at least it), the ceilings need not. `missing`: legal moves the
    budget did not bracket; `exploitability`: the largest of the moves' subgames;
    `interrupted`: Ctrl-C (or `stop`) ended it, the moves not reached `missing`."""
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
    #: The moves bracketed depth-limited (`_limited`): move -> (the floor's horizon, the
    #: ceiling's), in decisions below the move; 0 where that tree was whole (exact).
    horizons: dict = field(default_factory=dict)


def _gained(g: Endgame, scores) -> float:
    """The seat's margin gained from `g`'s root to `scores`, in points."""
    margin = (scores[0] - g.root.scores[0]) - (scores[1] - g.root.scores[1])
    return float(margin if g.seat == 0 else -margin)


def _ended_value(g: Endgame, move: int) -> float:
    """The seat's margin gained by a root move that ends the round, over `g`'s deals."""
    total = 0.0
    for d in g.deals:
        s = endgame_ref._state(g.rules, g.root, [g.hands[q][d[q]] for q in range(2)])
        total += d[2] * _gained(g, s.apply(move).scores)
    return total / g.weight


def _deepen(sub: Endgame, greedy_seat: int | None, max_work: int, memory_bytes, stop,
            playouts, max_horizon: int = MAX_HORIZON):
    """The deepest depth-limited tree of `sub` (`_build`'s `horizon`) whose build and
    BRACKET_MIN_ITERATIONS of DCFR are predicted to fit `max_work`, the horizon deepened one
    decision at a time while the next is predicted to fit (its cost and its tree grown by
    the last step's ratios), every level's play-outs sharing `playouts` (a deeper level
    mostly finds its leaves' states there): (solver, its work per traversal, horizon, 0
    when the tree came out whole; work spent building), or (None, spent) when not even one
    decision fits."""
    per = 2 * BRACKET_MIN_ITERATIONS + 8     # traversals the tree must afford after it
    best, spent, costs = None, 0, []
    kept = 0                    # the work of the tree held (`best`) while the next is built
    for h in range(1, max_horizon + 1):
        left = max_work - spent
        # The next level's cost and tree, grown by the last step's ratios (within
        # [GROW_LOW, GROW_HIGH]: the play-outs' shared table makes their cost erratic).
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
        # The play-outs get what the tree leaves of the room, less the steps a build may run
        # past its limit before it looks (16,384).
        steps = int((room - cap) / PLAYOUT_WORK) - 0x4000
        if stop is not None and stop.is_set() or cap <= 0 or steps <= 0:
            break
        try:
            solver, _, work = _build(sub, cap, horizon=h, greedy_seat=greedy_seat,
                                     max_steps=steps, playouts=playouts,
                                     policies=1 if greedy_seat is None else FLOOR_POLICIES)
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
    return (None, spent) if best is None else (*best, spent)


def _limited(sub: Endgame, *, max_work: int, memory_bytes, tolerance: float,
             max_iterations: int, clock, stop, playouts: tuple) -> Limited:
    """`sub` (the shown game after the seat's move) bracketed depth-limited (`Limited`);
    floor and ceiling None when not even one decision fits `max_work` (the ceiling's tree
    gets half, the floor's what is left) or it was interrupted, the work spent counted all
    the same.
    `playouts`: the floor's and the ceiling's `_endgame.PlayoutTable`.

    Two trees, each cut at its horizon (`_deepen`). In the floor's, below the horizon the
    seat plays a fixed policy (the better over the leaf's deals of FLOOR_POLICIES; perfectly
    in a deal alone with its hand, where it knows the other hand) and the other side answers
    each deal perfectly, seeing both hands (as it does in the shown game): the seat's solved
    strategy above the horizon and that policy below is a strategy of the shown game, and
    the floor is its exact best-response value there, a value it secures. In the ceiling's, below the horizon both sides see both
    hands and play perfectly: the seat knows more there than in the shown game, so the other
    side's solved strategy above, playing perfectly below, holds the seat to at most the
    ceiling."""
    p, spent, iterations, worst = sub.seat, 0, 0, 0.0
    out, horizons = [], []
    # One deal: the seat knows the other hand, nothing is hidden, and the ceiling's tree cut
    # one decision deep (both playing perfectly past it) is the shown game itself: its two
    # bounds are the floor and the ceiling.
    alone = len(sub.deals) == 1
    # The ceiling's first: its play-outs search both sides' choices (the floor's only the
    # other side's), so it is the one that may not fit at all, and then the floor is not
    # worth its cost.
    for k, greedy in ((1, None),) if alone else ((1, None), (0, p)):
        share = (max_work - spent) // 2 if k == 1 and not alone else max_work - spent
        deepened = _deepen(sub, greedy, share, memory_bytes, stop, playouts[k],
                           1 if alone else MAX_HORIZON)
        if deepened[0] is None:
            return Limited(None, None, (), spent + deepened[1], iterations, worst, False)
        solver, work, h, built = deepened
        del deepened                # the solver's one reference: freed after its bounds
        loose = max(tolerance, LIMITED_TOLERANCE)
        run = _iterate(solver, work, total=sub.weight, share=1.0, seat=p, tolerance=loose,
                       hand_tolerance=loose, allowed=share - built, deadline=None,
                       max_iterations=max_iterations, clock=clock, stop=stop,
                       phases={"iterations": 0.0, "checks": 0.0})
        del solver
        spent += built + run.spent
        iterations += run.iterations
        if run.iterations == 0 or run.interrupted:
            return Limited(None, None, (), spent, iterations, worst, run.interrupted)
        worst = max(worst, run.exploitability)
        if alone:
            return Limited(run.bounds[0], run.bounds[1], (h, h), spent, iterations, worst, False)
        out.append(run.bounds[k])   # the ceiling's high bound, the floor's low one
        horizons.append(h)
    return Limited(out[1], out[0], (horizons[1], horizons[0]), spent, iterations, worst, False)


def bracket(info: InfoSet, *, max_work: int | None = None, seconds: float | None = None,
            memory_bytes: int | None = None, tolerance: float = TOLERANCE,
            max_iterations: int = MAX_ITERATIONS, clock=time.perf_counter,
            stop=None) -> Bracket:
    """A certified bracket of each legal move of `info` (which `applicable` accepts) where
    the exact solve is out of reach: the game with the seat's own hand shown to the other
    side (its deals only: the other side's possible hands, the seat's fixed), the subgame
    after each move solved by DCFR to `tolerance` within a fair share of the budget (what is
    left over the moves still to bracket; then the moves whose tree was too big for their
    share once more, sharing what the others left), its bounds measured by exact best responses
    (`Bracket`). Under an iteration budget (`max_work`, no `seconds`) with the compiled core,
    the moves still too big are bracketed depth-limited (`_limited`), each with a fair share
    of what is left, and `Bracket.horizons` says how deep. Otherwise declined at once
    (`TooBig`, nothing built) when the shown game's predicted size is beyond the budget, as
    `attempt` declines the full one. `TooBig` too when no move could be bracketed. `stop` as
    `solve`'s (then the moves not reached are `missing`)."""
    t0 = clock()
    allowed, cap = allowance(max_work, seconds, memory_bytes, BRACKET_MIN_ITERATIONS)
    affords = cap / PREDICT_WORK_PER_PAIR
    # Every walk the steps allow (no early stop): a shown game is often near the line, and
    # an estimate stopped at its first 32 walks declined some of them 10 times too big.
    size = predict(info, shown=True)
    limited = compiled() is not None and allowed is not None and seconds is None
    # The play-outs' two tables take at most a quarter of the memory cap, the trees the rest.
    table_bits, tree_bytes = PLAYOUT_TABLE_BITS, memory_bytes
    if memory_bytes is not None:
        while table_bits > 10 and 2 * 24 << table_bits > memory_bytes // 4:
            table_bits -= 1
        tree_bytes = memory_bytes - (2 * 24 << table_bits)
        limited = limited and 2 * 24 << table_bits <= memory_bytes // 4
    if size is not None and size.pairs > affords and not limited:
        raise TooBig(f"with this hand shown its tree is still too big (about "
                     f"{_round_figure(size.pairs)} ways to play out its deals, predicted; "
                     f"the budget affords {_round_figure(affords)})")
    g = game(info, max_deals=cap, shown=True)
    p, rep = g.seat, g.deals[0]
    root_state = endgame_ref._state(g.rules, g.root, [g.hands[q][rep[q]] for q in range(2)])
    moves = endgame_ref.public_moves(root_state, [g.hands[p][g.hand_index]])
    floors, ceilings, subs, sizes = {}, {}, {}, {}
    for m in moves:
        sub = after(g, m)
        if sub is None:             # the move ends the round: its value is exact
            floors[Move.from_code(m)] = ceilings[Move.from_code(m)] = _ended_value(g, m)
            continue
        subs[m] = sub
        # Its size predicted (a few milliseconds; none without the core): the smallest
        # bracketed first, and one predicted beyond its share never built.
        size = predict(info, shown=True, move=m)
        if size is not None:
            sizes[m] = size.pairs
    spent = iterations = 0
    worst = 0.0
    # The builds found too big may take BUILD_SHARE of the budget in all: the estimator can
    # miss a heavy tail (a hand of 13: six subgames predicted to fit, each built for 0.09 s
    # and found too big), and a bracket that cannot be had should cost little. Under a clock,
    # of its time; under a work budget, of its work (a failed build costs its cap: the
    # bracket stays the same on every machine and under any load).
    build_left = None if seconds is None else BUILD_SHARE * seconds
    failed_left = None if allowed is None or seconds is not None else BUILD_SHARE * allowed

    def one(m: int, share: int) -> str:
        """Bracket move `m` within 1/`share` of what is left: "done", "big" (its tree did
        not fit that share), "out" (no budget or time left, or stopped) or "interrupted"."""
        nonlocal spent, iterations, worst, build_left, failed_left
        sub = subs[m]
        left_work = None if allowed is None else (allowed - spent) // share
        left_seconds = None if seconds is None else (seconds - (clock() - t0)) / share
        if (left_work is not None and left_work <= 0) or (
                left_seconds is not None and left_seconds <= 0) or (
                stop is not None and stop.is_set()):
            return "out"
        sub_allowed, sub_cap = allowance(left_work, left_seconds, memory_bytes,
                                         BRACKET_MIN_ITERATIONS)
        if sizes.get(m, 0.0) > sub_cap / PREDICT_WORK_PER_PAIR:
            return "big"            # predicted: nothing built
        if (build_left is not None and build_left <= 0) or (
                failed_left is not None and failed_left <= 0):
            return "out"
        t1 = clock()
        try:
            solver, _, work = _build(sub, sub_cap, build_left or 0.0)
        except TooBig:
            if failed_left is not None:
                failed_left -= sub_cap
                spent += sub_cap
            return "big"
        except KeyboardInterrupt:   # heard inside the build: the moves bracketed are kept
            return "interrupted"
        finally:
            if build_left is not None:
                build_left -= clock() - t1
        deadline = None if left_seconds is None else clock() + left_seconds
        run = _iterate(solver, work, total=sub.weight, share=1.0, seat=p, tolerance=tolerance,
                       hand_tolerance=tolerance, allowed=sub_allowed, deadline=deadline,
                       max_iterations=max_iterations, clock=clock, stop=stop,
                       phases={"iterations": 0.0, "checks": 0.0})
        done, exploit, bounds = run.iterations, run.exploitability, run.bounds
        interrupted, used = run.interrupted, run.spent
        spent += used
        iterations += done
        if done == 0:
            return "interrupted" if interrupted else "out"
        # The bounds are exact best responses whatever the exploitability reached.
        moved = _gained(g, sub.root.scores)
        floors[Move.from_code(m)], ceilings[Move.from_code(m)] = (moved + bounds[0],
                                                                  moved + bounds[1])
        worst = max(worst, exploit)
        return "interrupted" if interrupted else "done"

    def cut(m: int, share: int) -> str:
        """Bracket move `m` depth-limited (`_limited`) within 1/`share` of what is left."""
        nonlocal spent, iterations, worst
        if stop is not None and stop.is_set():
            return "out"
        left_work = (allowed - spent) // share
        if not tables:              # shared by every move's trees (the same states recur)
            tables.extend(compiled().PlayoutTable(g.rules, q, table_bits) for q in (p, -1))
        try:
            got = _limited(subs[m], max_work=left_work, memory_bytes=tree_bytes,
                           tolerance=tolerance, max_iterations=max_iterations, clock=clock,
                           stop=stop, playouts=tables)
        except KeyboardInterrupt:   # heard inside a build: the moves bracketed are kept
            return "interrupted"
        spent += got.spent
        iterations += got.iterations
        if got.interrupted:
            return "interrupted"
        if got.floor is None:
            return "out"
        horizons[Move.from_code(m)] = got.horizons
        moved = _gained(g, subs[m].root.scores)
        floors[Move.from_code(m)] = moved + got.floor
        ceilings[Move.from_code(m)] = moved + got.ceiling
        worst = max(worst, got.exploitability)
        return "done"

    # Each move a fair share of what is left; then the moves too big for their share again,
    # with what the others left (a small subgame leaves most of its share unspent); then the
    # moves still too big depth-limited, with what is left.
    todo, status, horizons = sorted(subs, key=lambda m: (sizes.get(m, 0.0), m)), "done", {}
    tables: list = []
    for _ in range(2):
        big = []
        for k, m in enumerate(todo):
            status = one(m, len(todo) - k)
            if status == "big":
                big.append(m)
            elif status == "interrupted":
                break
        if status == "interrupted" or not big or len(big) == len(todo):
            break
        todo = big
    if limited and status != "interrupted":
        todo = [m for m in todo if Move.from_code(m) not in floors]
        for k, m in enumerate(todo):
            status = cut(m, len(todo) - k)
            # The first move's first horizon did not fit its share: the others, no smaller
            # (the smallest first), would hardly fit theirs; a bracket that cannot be had
            # costs a share, not the budget.
            if status == "interrupted" or (status == "out" and not floors):
                break
    missing = [Move.from_code(m) for m in moves if Move.from_code(m) not in floors]
    # Ctrl-C heard between DCFR iterations ends `_iterate` quietly: said here, so that the
    # caller stops too.
    interrupted = status == "interrupted" or (stop is not None and stop.is_set())
    if not floors:
        raise TooBig("with this hand shown no move could be bracketed within the budget",
                     interrupted=interrupted)
    return Bracket(floors, ceilings, len(g.deals), g.root_sizes, iterations, spent,
                   clock() - t0, worst, tuple(missing), interrupted, horizons)


def _exploitability(solver, total: float, p: int):
    """(exploitability, (low, high)) from the side of player p: the values of its side when
    the other best-responds to its strategy, and when it best-responds to the other's."""
    br0 = sum(solver.best_response(0)[0]) / total
    br1 = -sum(solver.best_response(1)[0]) / total
    low, high = (br1, br0) if p == 0 else (-br0, -br1)
    return high - low, (low, high)


def _solution(g: Endgame, solver, exploit, bounds, tolerance, iterations, nodes, work, seconds):
    p, i = g.seat, g.hand_index
    sign = 1.0 if p == 0 else -1.0
    norm = g.hand_weight
    _, best_after = solver.best_response(p)
    _, follow_after = solver.values(p)
    _, gain_after = solver.values(p, gains=True)
    whole, _ = solver.values(0)
    moves = root_moves_of(solver)
    mix_row = solver.average(0)[solver_rows(solver).index(i)]
    values, mix, sides, follow = {}, {}, {}, 0.0
    for c, m in enumerate(moves):
        if not _legal_at_root(g, m):
            continue
        name = Move.from_code(m)
        values[name] = best_after[m][i] / norm
        mix[name] = mix_row[c]
        # Each side's expected points gained after the move, both playing the solved pair.
        margin0 = sign * follow_after[m][i] / norm
        gain0 = sign * gain_after[m][i] / norm
        sides[name] = (gain0, gain0 - margin0)
        follow += mix_row[c] * sign * margin0
    value = max(values.values())
    bound = exploit * g.weight / norm
    return Solution(values, played_mix(values, mix, bound), value,
                    sign * sum(whole) / g.weight, bounds, exploit, tolerance, len(g.deals),
                    sum(1 for d in g.deals if d[p] == i), iterations, nodes, work, seconds,
                    sides=sides, hand_gap=value - follow, hand_bound=bound, average=mix,
                    move_bounds={m: bound for m in values})


def played_mix(values: dict, average: dict, bound: float) -> dict:
    """The average strategy without the moves whose value is below the best's by more than
    twice `bound` (worse whichever way both values' errors fall), renormalised; the best
    move alone if nothing of the average is left."""
    best = max(values.values())
    kept = {m: p for m, p in average.items() if values[m] >= best - 2 * bound}
    total = sum(kept.values())
    if total <= 0:
        top = max(values, key=lambda m: (values[m], average[m]))
        return {m: (1.0 if m == top else 0.0) for m in average}
    return {m: kept.get(m, 0.0) / total for m in average}


def _legal_at_root(g: Endgame, move: int) -> bool:
    """The seat's own hand may take `move` (a root action of the public tree)."""
    return may_take(g.hands[g.seat][g.hand_index], move, g.root.left, g.root.right)


def solver_rows(solver) -> list:
    """The root's rows (the seat's possible hands, by index)."""
    if isinstance(solver, endgame_ref.Solver):
        return solver.nodes[0].rows
    return solver.node(0)[3]


def root_moves_of(solver) -> list:
    """The root's public actions."""
    if isinstance(solver, endgame_ref.Solver):
        return solver.nodes[0].moves
    return solver.node(0)[1]


# ---- the engine's use of it ------------------------------------------------------------------
@dataclass
class Attempt:
    """What `attempt` did: `result` (a `SearchResult`) when it solved the endgame, else None
    and `why` (a sentence), or `why` None when the position is not at the endgame stage;
    `interrupted`: Ctrl-C stopped it (then no time is left for another search)."""
    result: object = None
    why: str | None = None
    interrupted: bool = False
    phases: dict = field(default_factory=dict)   # seconds spent: predict, deals, build, ...
    size: tuple | None = None    # (deals, hands' sizes, work, terminal deals) when built
    #: Declined, with `bracketing` asked: the moves bracketed (`Bracket`), or why not.
    bracket: Bracket | None = None
    bracket_why: str | None = None


def at_stage(info: InfoSet) -> bool:
    """No draw can happen again: the reserve is down to the tiles it keeps."""
    return bool(info.line) and not info.rules.drawable(info.reserve_size)


def attempt(info: InfoSet, limits, *, seed: int, objective: str, tolerance: float = TOLERANCE,
            hand_tolerance: float = HAND_TOLERANCE,
            inference: bool = False, started: float | None = None,
            budget: int | None = None, stop=None, memory_bytes: int | None = None,
            clock=time.perf_counter, refine: bool = True, bracketing: bool = False) -> Attempt:
    """Solve the endgame of `info` within `limits` (an iteration budget buys
    WORK_PER_ITERATION work each; `budget` is the iteration budget to use when `limits` has
    neither), for `search()`: the result, or why not. `stop`: as `solve`'s; `memory_bytes`:
    the cap on the tree's memory (search.Limits.memory_mb); `clock`: the one `started` was read
    on (search.clock); `refine`: value the moves outside the mix against an answer (`solve`);
    `bracketing`: where the exact solve is declined under an iteration budget, bracket each
    move with the same budget (`bracket`; under a time limit the clock is the move's)."""
    why = applicable(info, objective)
    if why is not None:
        return Attempt(None, why if at_stage(info) else None)
    started = clock() if started is None else started
    iterations = limits.iterations if limits.iterations is not None else (
        budget if limits.time is None else None)
    max_work = None if iterations is None else budget_work(iterations)
    seconds = build = None
    if limits.time is not None:
        seconds = max(limits.time * (1 - SEARCH_SHARE) - (clock() - started), 1e-3)
        build = limits.time * BUILD_SHARE
    _, cap = allowance(max_work, seconds, memory_bytes)
    # Declined at once when the prediction is over the cap: nothing is built.
    t0 = clock()
    affords = cap / PREDICT_WORK_PER_PAIR
    size = predict(info, stop_above=affords)
    phases = {"predict": clock() - t0}

    def declined(why: str, interrupted: bool = False) -> Attempt:
        out = Attempt(None, why, interrupted, phases=phases)
        if bracketing and not interrupted and limits.time is None:
            t1 = clock()
            watch = _StopWatch(stop)
            try:
                out.bracket = bracket(info, max_work=max_work, memory_bytes=memory_bytes,
                                      tolerance=tolerance, clock=clock, stop=stop)
                out.interrupted = out.bracket.interrupted
            except TooBig as e:
                out.bracket_why = e.message
                out.interrupted = e.interrupted
            except KeyboardInterrupt:
                out.interrupted = True
            finally:
                watch.close()
            phases["bracket"] = clock() - t1
        return out

    if size is not None and size.pairs > affords:
        return declined(f"its public tree is too big for the budget (hands of "
                        f"{info.hand_sizes[0]} and {info.hand_sizes[1]}: about "
                        f"{_round_figure(size.pairs)} ways to play out the deals, "
                        f"predicted; the budget affords {_round_figure(affords)})")
    watch = _StopWatch(stop)
    failed = None
    try:
        # A deal ends in at least one terminal: more deals than the tree may hold is too big.
        t0 = clock()
        g = game(info, inference, max_deals=cap, seconds=build or 0.0)
        phases["deals"] = clock() - t0
        if build is not None:
            build = max(started + build - clock(), 1e-4)
        sol = solve(g, tolerance=tolerance, hand_tolerance=hand_tolerance,
                    max_work=max_work, seconds=seconds,
                    build_seconds=build or 0.0, clock=clock, stop=stop,
                    memory_bytes=memory_bytes, refine=refine)
    except TooBig as e:
        phases["failed"] = clock() - t0
        failed = e
    except BergenError as e:       # a public view the seat's own hand contradicts
        return Attempt(None, e.message, phases=phases)
    except KeyboardInterrupt:      # while the deals or the tree were built
        return Attempt(None, "interrupted", True, phases=phases)
    finally:
        watch.close()
    if failed is not None:
        return declined(failed.message, failed.interrupted)
    phases.update(sol.phases)
    return Attempt(_result(info, sol, seed, clock() - started), None, sol.interrupted,
                   phases=phases, size=(len(g.deals), g.root_sizes, sol.work, sol.pairs))


def _round_figure(x: float) -> str:
    """A large estimate to two significant figures, in words past a million."""
    for size, name in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if x >= size:
            return f"{float(f'{x / size:.2g}'):g} {name}"
    return f"{float(f'{x:.2g}'):,.0f}"


class _StopWatch:
    """While an attempt runs, passes `stop` (a threading.Event, or None) on to the compiled
    builds of the deals and the tree, which run without the GIL for up to a second and cannot
    look at an Event: a thread waits on it and raises the core's flag (`_endgame.request_stop`;
    the build then raises KeyboardInterrupt, as Ctrl-C, which the build hears itself). DCFR's
    iterations hear `stop` directly (`solve`)."""

    def __init__(self, stop):
        self.core = compiled() if stop is not None else None
        self.thread = None
        if self.core is None:
            return
        self.core.clear_stop()
        self.done = threading.Event()
        self.thread = QuietThread(target=self._watch, args=(stop,), name="endgame-stop")
        self.thread.start()

    def _watch(self, stop):
        while not self.done.is_set():
            if stop.wait(0.005):
                self.core.request_stop()
                return

    def close(self):
        if self.thread is not None:
            self.done.set()
            self.thread.join()
            self.core.clear_stop()


def _result(info: InfoSet, sol: Solution, seed: int, seconds: float):
    """The solution as a `search.SearchResult`: the move drawn from the mix first, then the
    others by value (a mirror twin right after the move it mirrors)."""
    # here: search.api loads the engines (registry), and the endgame engine loads this
    # module; a module-level import would close that circle
    from .api import MoveValue, SearchResult, mirror_twins, root_moves
    twins = mirror_twins(info)
    chosen = sol.choose(seed)
    rows = []
    for m in root_moves(info):
        name = Move.from_code(m)
        base = Move.from_code(twins[m]) if m in twins else name
        rows.append((m, name, base))
    rows.sort(key=lambda r: (r[2] != chosen, -sol.values[r[2]], r[2] != r[1], r[0]))
    moves = [MoveValue(name, m, sol.values[base], sol.move_bounds.get(base, sol.hand_bound), 0,
                       base if base != name else None,
                       share=0.0 if base != name else sol.mix[base])
             for m, name, base in rows]
    lead = not info.line
    info_out = {
        "algorithm": "endgame", "objective": "points", "seed": seed, "workers": 1,
        "worlds_consistent": sol.worlds, "exact": True,
        "settings": {"tolerance": sol.tolerance},
        "values": {"method": "equilibrium"},
        "twins": {Move.from_code(m, lead): Move.from_code(t, lead) for m, t in twins.items()},
        "iterations": sol.iterations, "seconds": seconds,
        "interrupted": sol.interrupted, "nodes": sol.nodes,
        "sides": {name: list(sol.sides[base]) for _, name, base in rows},
        "endgame": {"solved": True, "deals": sol.deals, "worlds": sol.worlds,
                    "exploitability": sol.exploitability, "tolerance": sol.tolerance,
                    "iterations": sol.iterations, "nodes": sol.nodes, "work": sol.work,
                    "game_value": sol.game_value, "bounds": list(sol.bounds),
                    "hand_gap": sol.hand_gap, "hand_bound": sol.hand_bound,
                    "mix": {m: p for m, p in sorted(sol.mix.items(), key=lambda mp: str(mp[0]))
                            if p > 0},
                    "average": {m: p for m, p in sorted(sol.average.items(),
                                                        key=lambda mp: str(mp[0])) if p > 0},
                    "solve_seconds": sol.seconds,
                    "refined": {name: sol.refined[base] for _, name, base in rows
                                if base in sol.refined}},
    }
    best = moves[0]
    return SearchResult(best.move, moves, best.value, sol.hand_bound, sol.iterations,
                        info_out)
