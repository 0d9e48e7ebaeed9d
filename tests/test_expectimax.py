"""Expectimax in C against its oracle on small endgames; known values; determinism; time."""
import math
import os
from dataclasses import replace
from itertools import combinations, islice
from pathlib import Path

import pytest

from bergen_search import constants
from bergen_search.errors import BergenError
from bergen_search.formats.position import Position, position_from_flags
from bergen_search.game import match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, State, move_str
from bergen_search.game.tiles import popcount
from bergen_search.information.infoset import from_position, from_state_and_events
from bergen_search.information.sampler import WorldTable
from bergen_search.search import backend
from bergen_search.search.api import Limits, search
from bergen_search.search.engines.expectimax import reference as ref
from bergen_search.search.engines.ismcts import reference as ismcts_ref
from bergen_search.stats import weighted_sample_mean as _weighted_sample_mean

try:
    from bergen_search.search.engines.expectimax._expectimax import ExpectimaxSearch
    from bergen_search.information._sampler import CoreSampler
except ImportError:
    if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
        pytest.skip("compiled core not built (BERGEN_ALLOW_NO_CORE=1)", allow_module_level=True)
    raise

EXACT = 1000   # a depth no round reaches: the search goes to the end of the round
TOL = 1e-9


# ---- positions --------------------------------------------------------------------------------
def _remaining(st: State) -> int:
    return (sum(popcount(h) for h in st.hands)
            + max(0, st.reserve_size - st.rules.reserve_kept))


def walk(rules, rng):
    """(state, dealt hands, events so far) before each action of a seeded random round."""
    hands, reserve = match.deal(rules, rng)
    st = State.deal(rules, hands, reserve)
    events = []
    while st.ended is None:
        yield st, hands, events
        moves = st.legal_moves()
        m = moves[0] if len(moves) == 1 else moves[rng.below(len(moves))]
        events.append((st.to_move, m, st.reserve[0] if m == DRAW else None))
        st = st.apply(m)


def endgames(rules, seed, max_remaining, wanted, history=True, max_reserve=None, mid_turn=False):
    """Information sets of the seat to move late in seeded random rounds."""
    out, i = [], 0
    while len(out) < wanted:
        for st, hands, events in walk(rules, Rng(derive_seed(seed, i))):
            seat = st.to_move
            if not (st.line and _remaining(st) <= max_remaining and (
                    max_reserve is None or st.reserve_size <= max_reserve)
                    and (st.draws_this_turn > 0 if mid_turn else len(st.legal_moves()) >= 2)):
                continue
            if history:
                out.append(from_state_and_events(rules, seat, hands[seat], None, events))
                break
            if st.draws_this_turn == 0:
                sizes = tuple(st.hand_size(j) for j in range(rules.players))
                out.append(from_position(Position(rules, st.scores, seat, st.hands[seat],
                                                  st.line, sizes, st.reserve_size, {}).check()))
                break
        i += 1
    return out


def cut(rules, seed, decision):
    """The InfoSet of the seat to move at the `decision`-th decision of a random round."""
    decisions = (from_state_and_events(rules, st.to_move, hands[st.to_move], None, events)
                 for st, hands, events in walk(rules, Rng(seed))
                 if st.line and len(st.legal_moves()) >= 2)
    return next(islice(decisions, decision - 1, None))


def check_against_reference(info, objective="points", seed=5, playouts=2, **kw):
    """Every world: C equals the reference; the weighted mean equals exact_values."""
    worlds = WorldTable(info).enumerate()
    total = sum(worlds.values())
    search = ExpectimaxSearch(CoreSampler(info), EXACT, seed, objective, playouts, **kw)
    exact = ref.exact_values(info, objective, seed=seed, playouts=playouts)
    assert search.moves == list(exact)
    mean = [0.0] * len(search.moves)
    for (hands, reserve), weight in worlds.items():
        expected = ref.world_values(info, hands, reserve, objective, seed=seed, playouts=playouts)
        got = search.run_world(hands, reserve)
        assert got == pytest.approx([float(v) for v in expected.values()], abs=TOL, rel=0)
        for i, v in enumerate(got):
            mean[i] += weight * v / total
    assert mean == pytest.approx([float(v) for v in exact.values()], abs=TOL, rel=0)
    return exact


TABLES = {
    "2p": (Rules(players=2), True),
    "2p-draw-one-american": (Rules(players=2, draw="one", blocked="american"), True),
    "2p-pips-out5": (Rules(players=2, blocked="pips", out_bonus=5, reserve_kept=1), True),
    "3p": (Rules(players=3), True),
    "4p-partners": (Rules(players=4, partnerships=True), True),
    "4p": (Rules(players=4), True),
    "3p-position": (Rules(players=3), False),
    "4p-partners-position": (Rules(players=4, partnerships=True), False),
}


# ---- exactness ----------------------------------------------------------------------------------
#: Each row: the rules, `endgames`' options, the objective (match: the scores set near the
#: target), the counts (default run, slow) and what the information sets must include.
REFERENCE = {
    **{name: (rules, dict(seed=11, max_remaining=8, history=history), "points", (2, 6), set())
       for name, (rules, history) in TABLES.items()},
    # the draws' chance nodes against the reference's plain enumeration
    "chance": (Rules(players=2), dict(seed=28, max_remaining=10, max_reserve=6), "points",
               (3, 12), {"draws ahead"}),
    # cut right after a draw: the root a chance node, or a play
    "mid-turn": (Rules(players=2), dict(seed=31, max_remaining=10, mid_turn=True, max_reserve=7),
                 "points", (3, 4), {"mid-turn draw", "mid-turn play"}),
    # max-n with three sides: values, moves' order and count agree in every world
    "max-n": (Rules(players=3), dict(seed=48, max_remaining=9, history=False), "points",
              (2, 6), {"choice"}),
    # near the target: wins, the capped matches and the match equity of unfinished matches
    **{f"match-{name}": (TABLES[name][0], dict(seed=13, max_remaining=8, history=TABLES[name][1]),
                         "match", (4, 4), set()) for name in ("2p", "3p", "4p-partners")},
}


@pytest.mark.parametrize("name, size", [
    pytest.param(name, size, id=f"{name}-{('fast', 'full')[size]}",
                 marks=[pytest.mark.slow] if size else [])
    for name in REFERENCE for size in (0, 1)])
def test_every_world_equals_the_reference(name, size):
    rules, options, objective, counts, must = REFERENCE[name]
    seen = set()
    for k, info in enumerate(endgames(rules, wanted=counts[size], **options)):
        if objective == "match":
            info = replace(info, scores=tuple(rules.target - 5 + (k + side) % 4
                                              for side in range(rules.n_sides)))
        exact = check_against_reference(info, objective, playouts=3 if objective == "match"
                                        else 2)
        seen |= {"choice"} if len(exact) >= 2 else set()
        seen |= {"draws ahead"} if info.reserve_size - rules.reserve_kept >= 2 else set()
        if info.draws_this_turn:
            seen.add("mid-turn draw" if list(exact) == [DRAW] else "mid-turn play")
    assert must <= seen


@pytest.mark.parametrize("rules, seed, tiles, count, history, reserve", [
    (Rules(players=2), 17, 10, 8, True, 4),
    (Rules(players=4, partnerships=True), 19, 9, 4, False, None)])
def test_pruned_equals_unpruned(rules, seed, tiles, count, history, reserve):
    pruned_nodes = full_nodes = 0
    for info in endgames(rules, seed, tiles, count, history=history, max_reserve=reserve):
        pruned = ExpectimaxSearch(CoreSampler(info), EXACT, 3)
        full = ExpectimaxSearch(CoreSampler(info), EXACT, 3, prune=False)
        for (hands, reserve) in list(WorldTable(info).enumerate())[:10]:
            a = pruned.run_world(hands, reserve)
            assert a == pytest.approx(full.run_world(hands, reserve), abs=TOL, rel=0)
        pruned_nodes += pruned.nodes
        full_nodes += full.nodes
    assert pruned_nodes < full_nodes   # the pruning prunes


def test_small_round_is_solved_whatever_the_depth():
    """Within `exact_tiles` depth 1 is exact; with exact_tiles 0 the playouts are used."""
    differs = False
    for info in endgames(Rules(players=2), 29, 7, 5):
        exact = ExpectimaxSearch(CoreSampler(info), EXACT, 3)
        shallow = ExpectimaxSearch(CoreSampler(info), 1, 3, exact_tiles=7)
        sampled = ExpectimaxSearch(CoreSampler(info), 1, 3, exact_tiles=0, playouts=1)
        for (hands, reserve) in WorldTable(info).enumerate():
            want = exact.run_world(hands, reserve)
            assert shallow.run_world(hands, reserve) == pytest.approx(want, abs=TOL, rel=0)
            differs |= sampled.run_world(hands, reserve) != pytest.approx(want, abs=TOL)
    assert differs


# ---- positions with a known answer ----------------------------------------------------------
def search_values(pos, objective=0, depth=EXACT, worlds=40, **kw):
    """Mean value of each root move over `worlds` sampled worlds, by move string."""
    search = ExpectimaxSearch(CoreSampler(from_position(pos)), depth, 7, objective, **kw)
    assert search.run_worlds(worlds, 0) == worlds
    return {move_str(m): total / n for m, n, total, _ in search.root_stats()}


def best(values):
    return max(values, key=values.get)


# Seat 0 holds 3-5 and 1-5; the line runs from 3-3 (left) to 5; the unseen tiles 0-5 0-1 2-2
# 4-4 fit none of the ends to come. 3-5:R makes a triple (3), then the round blocks and seat 0
# wins it unless seat 1 holds 0-5 0-1 (1 world in 6): 3 + 2 * 5/6. 3-5:L scores a double match
# and goes out next: 4. 1-5:R scores nothing: 2.
TRIPLE = dict(hand="3-5 1-5", hand_sizes="2,2", line="3-3 3-6 6-0 0-0 0-2 2-4 4-1 1-1 1-3 "
              "3-4 4-6 6-1 1-2 2-6 6-6 6-5 5-5 5-4 4-0 0-3 3-2 2-5")
# Seat 0's last tile 2-4 fits both ends; 2-2 is at the left end: at the right it makes a triple.
LAST_TILE = dict(hand="2-4", hand_sizes="1,1", line="2-2 2-6 6-0 0-1 1-4 4-4 4-5 5-3 3-4 4-0 "
                 "0-2 2-1 1-3 3-0 0-5 5-1 1-6 6-6 6-3 3-3 3-2 2-5 5-6 6-4")
# Seat 1 to move, both plays score nothing; seat 0 holds one of 0-3 2-2 2-3 and goes out.
# 3-3:R leaves a double at the right end: 2-3 then makes a triple (3 + 2, one world in 3).
NO_GIFT = dict(hand="0-0 0-1 1-1 1-3 3-3", hand_sizes="1,5", to_move=1, scores="0,4",
               line="2-6 6-5 5-5 5-1 1-6 6-0 0-5 5-3 3-4 4-5 5-2 2-0 0-4 4-4 4-1 1-2 2-4 4-6 "
                    "6-6 6-3")
# Seat 1 showed no 0 and no 6; 2-6:R leaves ends 0 and 6, which nobody can play (0-6 is in the
# kept reserve): blocked, and seat 0 (2-3, 5 pips) beats 2-4 or 3-4. 2-3:R lets seat 1 go out
# with 3-4, or blocks with seat 0 holding 2-6 (8 pips) against 2-4.
BLOCK = dict(hand="2-6 2-3", hand_sizes="2,1", voids={1: [0, 6]},
             line="0-1 1-3 3-6 6-6 6-4 4-1 1-2 2-2 2-5 5-3 3-3 3-0 0-5 5-1 1-1 1-6 6-5 5-5 5-4 "
                  "4-4 4-0 0-0 0-2")


@pytest.mark.parametrize("pos, worlds, searched, tol, exact", [
    (TRIPLE, 40, {"3-5:R": 3 + 2 * 5 / 6, "3-5:L": 4, "1-5:R": 2}, 0.2,
     {"1-5:R": 2, "3-5:L": 4, "3-5:R": 3 + 2 * 5 / 6}),
    (LAST_TILE, 40, {"2-4:L": 4.0, "2-4:R": 5.0}, 0, {"2-4:L": 4.0, "2-4:R": 5.0}),
    (NO_GIFT, 60, {"1-3:R": -2.0}, 0, {"1-3:R": -2.0, "3-3:R": -3.0}),
    (BLOCK, 40, {"2-3:R": -2.0, "2-6:R": 2.0}, 0, {"2-3:R": -2.0, "2-6:R": 2.0}),
], ids=["triple", "last-tile", "no-gift", "block"])
def test_known_values(pos, worlds, searched, tol, exact):
    """Sampled worlds and the reference give the known values; depth 1 finds the best too."""
    values = search_values(position_from_flags(**pos), worlds=worlds)
    assert best(values) == best(exact) and set(values) == set(exact)
    assert {m: values[m] for m in searched} == pytest.approx(searched, abs=tol)
    got = ref.exact_values(from_position(position_from_flags(**pos)))
    assert {move_str(m): float(v) for m, v in got.items()} == pytest.approx(exact, abs=TOL)
    if pos is not NO_GIFT:      # at depth 1 (the root move, then playouts) too
        shallow = search_values(position_from_flags(**pos), depth=1, exact_tiles=0,
                                playouts=8, worlds=60)
        assert best(shallow) == best(exact)


def test_last_tile_wins_the_match():
    """At 10-13 the triple and the bonus win the match (1); the double match does not."""
    pos = position_from_flags(scores="10,13", **LAST_TILE)
    values = search_values(pos, objective=1, equity_playouts=32)
    assert values["2-4:R"] == 1.0
    assert 0.0 < values["2-4:L"] < 1.0


# ---- the object ----------------------------------------------------------------------------------
def test_determinism_and_split_runs():
    info = cut(Rules(players=2), 5, 3)
    a = ExpectimaxSearch(CoreSampler(info), 4, 123)
    c = ExpectimaxSearch(CoreSampler(info), 4, 123)
    d = ExpectimaxSearch(CoreSampler(info), 4, 124)
    assert a.run_worlds(12, 0) == 12
    assert c.run_worlds(5, 0) + c.run_worlds(7, 0) == 12
    d.run_worlds(12, 0)
    assert a.root_stats() == c.root_stats()         # the same seed, in one run or two
    assert a.nodes == c.nodes and a.worlds == c.worlds == 12
    assert d.root_stats() != a.root_stats()
    # a world cut by the clock is dropped and started afresh by the next call
    a = ExpectimaxSearch(CoreSampler(info), 7, 8)
    first = a.run_worlds(0, 0.01)
    assert a.run_worlds(3, 0) == 3
    b = ExpectimaxSearch(CoreSampler(info), 7, 8)
    b.run_worlds(first + 3, 0)
    assert a.root_stats() == b.root_stats()


def test_time_limit(virtual_clock):
    """On a virtual clock worlds finish until the limit; a long world is abandoned inside."""
    info = cut(Rules(players=2), 1, 1)
    virtual_clock(1 / 64)
    for depth, worlds in ((6, 6), (40, 0)):
        runs = []
        for _ in range(2):
            search = ExpectimaxSearch(CoreSampler(info), depth, 1, exact_tiles=0)
            done = search.run_worlds(0, 0.25)
            assert search.worlds == done == worlds
            runs.append((search.root_stats(), search.nodes))
        assert runs[0] == runs[1]
    assert runs[0][1] == 0              # the abandoned world's nodes are not kept


# ---- enumeration through search() -----------------------------------------------------------
def test_enumeration_when_the_worlds_fit_the_budget():
    """A budget of every world solves them all exactly; a smaller one samples."""
    info = cut(Rules(players=2), 4, 8)
    assert WorldTable(info).total == 1440 and len(WorldTable(info).enumerate()) == 36
    exact = search(info, Limits(iterations=36), algorithm="expectimax", seed=4, depth=60)
    assert exact.info["exact"] and exact.info["worlds"] == 36 and exact.info["all_worlds"]
    assert all(m.stderr == 0.0 for m in exact.moves)
    sampled = search(info, Limits(iterations=35), algorithm="expectimax", seed=4, depth=60)
    assert not sampled.info["exact"] and sampled.info["iterations"] == 35
    clocked = search(info, Limits(time=60), algorithm="expectimax", seed=4, depth=60)
    assert clocked.info["exact"]
    assert [(m.code, m.value) for m in clocked.moves] == [(m.code, m.value) for m in exact.moves]


def test_enumeration_with_horizon_playouts_is_not_exact():
    """Worlds cut at the horizon: not exact, and the playouts' error holds."""
    info = cut(Rules(players=2), 2, 7)
    res = search(info, Limits(iterations=126), algorithm="expectimax", seed=4, depth=2)
    assert res.info["all_worlds"] and not res.info["exact"]
    assert all(0 < m.stderr < math.inf for m in res.moves)
    other = search(info, Limits(iterations=126), algorithm="expectimax", seed=99, depth=2)
    for a, b in zip(sorted(res.moves, key=lambda m: m.code),
                    sorted(other.moves, key=lambda m: m.code)):
        assert abs(a.value - b.value) < 5 * math.hypot(a.stderr, b.stderr)


def test_enumeration_honours_the_clock(virtual_clock):
    """A time limit stops the enumeration early, heard inside a world too."""
    info = cut(Rules(players=2), 1, 4)
    assert len(WorldTable(info).enumerate()) == 969
    step = 1 / 1024
    virtual_clock(step)
    res = search(info, Limits(time=0.1), algorithm="expectimax", seed=4)
    assert res.info["seconds"] < 0.1 + 8 * step
    assert not res.info["exact"] and 2 <= res.info["worlds"] < 969
    assert all(0 < m.stderr < math.inf for m in res.moves)
    res = search(info, Limits(time=0.0005), algorithm="expectimax", seed=4)
    assert res.info["seconds"] < 0.0005 + 8 * step
    assert not res.info["exact"] and res.info["worlds"] == 0     # cut inside its first world
    assert all(m.stderr == math.inf for m in res.moves)         # no world: never "0.000"


def test_weighted_sample_mean_standard_error():
    """The ratio estimator's mean and error against every sample of 4 of 9."""
    pop = [(1, v) for v in (0.0, 1.0, 3.0, -2.0, 5.5, 2.0, 2.0, -1.0, 7.0)]
    mu = sum(v for _, v in pop) / len(pop)
    samples = list(combinations(pop, 4))
    means, se2 = zip(*((_weighted_sample_mean(list(c), len(pop))) for c in samples))
    true_var = sum((m - mu) ** 2 for m in means) / len(samples)
    assert sum(means) / len(samples) == pytest.approx(mu)
    assert sum(se ** 2 for se in se2) / len(samples) == pytest.approx(true_var, rel=1e-9)
    weighted = [(3, 1.0), (1, 5.0), (2, -1.0)]
    assert _weighted_sample_mean(weighted, 3) == (pytest.approx(1.0), 0.0)
    assert _weighted_sample_mean(weighted[:1], 3) == (1.0, math.inf)


class _Interrupting:
    """An ExpectimaxSearch whose `run_world` is interrupted (Ctrl-C) at call `at`."""

    def __init__(self, at, *args, **kw):
        self.inner, self.at, self.calls = ExpectimaxSearch(*args, **kw), at, 0

    def run_world(self, *args, **kw):
        if self.calls == self.at:
            raise KeyboardInterrupt
        self.calls += 1
        return self.inner.run_world(*args, **kw)

    def __getattr__(self, name):        # the rest (`cut`, ...) the search's own
        return getattr(self.inner, name)


@pytest.mark.parametrize("at", [0, 3])
def test_ctrl_c_during_enumeration_returns_what_was_found(monkeypatch, at):
    """Ctrl-C during the enumeration returns the worlds solved so far, no traceback."""
    info = cut(Rules(players=2), 2, 7)
    # (the decision's moves: one world lists them all)
    full = search(info, Limits(iterations=1), algorithm="expectimax", seed=4)
    # The engine takes its class from backend.SEARCH.pick.
    pick = backend.SEARCH.pick
    monkeypatch.setattr(backend.SearchBackend, "pick", lambda self, name, ref=None: (
        (lambda *a, **k: _Interrupting(at, *a, **k))
        if name.endswith("._expectimax.ExpectimaxSearch") else pick(name, ref)))
    res = search(info, Limits(iterations=126), algorithm="expectimax", seed=4)
    assert res.info["interrupted"] and not res.info["exact"] and res.info["worlds"] == at
    assert {m.move for m in res.moves} == {m.move for m in full.moves}
    if at == 3:
        assert all(0 <= m.stderr < math.inf for m in res.moves)


def test_bad_arguments_and_worlds():
    """Bad settings are refused; a bad world gets the same error from core and reference."""
    info = from_position(position_from_flags(**LAST_TILE))
    for args, kw in (((0, 1), {}), ((3, 1), dict(playouts=0)), ((3, 1), dict(objective="chips"))):
        with pytest.raises(BergenError):
            ExpectimaxSearch(CoreSampler(info), *args, **kw)
    search = ExpectimaxSearch(CoreSampler(info), 3, 1)
    with pytest.raises(BergenError):
        search.run_worlds(0, 0)
    hands, reserve = next(iter(WorldTable(info).enumerate()))
    other = 1 - info.seat
    free = next(t for t in range(28) if not (info.line_mask | hands[0] | hands[1]) >> t & 1)
    cases = [
        ((hands[0],), reserve, "expected 2 hands"),
        (tuple(h if s == other else 0 for s, h in enumerate(hands)), reserve, "differs"),
        (tuple(-1 if s == other else h for s, h in enumerate(hands)), reserve, "not a set"),
        (tuple(h | 1 << free if s == other else h for s, h in enumerate(hands)), reserve,
         "holds"),
        (tuple(1 << 13 if s == other else h for s, h in enumerate(hands)), reserve,
         "two places"),
        (hands, list(reserve)[:-1], "the reserve holds"),
        (hands, list(reserve)[:-1] + [28], "is not a tile"),
        (hands, list(reserve)[:-1] + [13], "two places"),
    ]
    for bad_hands, bad_reserve, needle in cases:
        errors = []
        for run in (lambda: search.run_world(bad_hands, bad_reserve),
                    lambda: ref.world_state(info, bad_hands, bad_reserve)):
            with pytest.raises(BergenError, match=needle) as e:
                run()
            errors.append((str(e.value), e.value.field))
        assert errors[0] == errors[1]


def _random_play_moments(state, root_side, root_scores):
    """(E[x], E[x^2]) of the points value of `state` under uniformly random play."""
    if state.ended is not None:
        gains = [a - b for a, b in zip(state.scores, root_scores)]
        x = gains[root_side] - gains[1 - root_side]
        return x, x * x
    moves = state.legal_moves()
    if moves == [DRAW]:
        reserve = state.reserve
        children = []
        for i, t in enumerate(reserve):
            s = state._copy()
            s.reserve = (t,) + reserve[:i] + reserve[i + 1:]
            children.append(s.apply(DRAW))
    else:
        children = [state.apply(m) for m in moves]
    pairs = [_random_play_moments(c, root_side, root_scores) for c in children]
    return (sum(a for a, _ in pairs) / len(pairs), sum(b for _, b in pairs) / len(pairs))


def test_horizon_playouts_estimate_random_play():
    """At depth 1 a move's value is within 4.5 errors of random play's expectation."""
    checked = 0
    for info in endgames(Rules(players=2), 43, 9, 6, max_reserve=6):
        if info.reserve_size - info.rules.reserve_kept < 2:
            continue
        playouts = 4000
        search = ExpectimaxSearch(CoreSampler(info), 1, 5, playouts=playouts, exact_tiles=0)
        (hands, reserve), _ = next(iter(WorldTable(info).enumerate().items()))
        state = ref.world_state(info, hands, sorted(reserve))
        side = info.rules.side_of(info.seat)
        for move, got in zip(search.moves, search.run_world(hands, reserve)):
            mean, square = _random_play_moments(state.apply(move), side, info.scores)
            stderr = max(square - mean * mean, 0.0) ** 0.5 / playouts ** 0.5
            assert abs(got - mean) <= 4.5 * stderr + 1e-12
            checked += 1
    assert checked >= 4


def test_the_core_shares_the_constants_and_imports_no_oracle():
    """The compiled searches share the references' constants and import no reference."""
    root = Path(__file__).resolve().parents[1] / "src_cython" / "bergen_search" / "search"
    imports = [line for p in root.rglob("*.pyx") for line in p.read_text().splitlines()
               if line.startswith(("from ", "import ", "cimport "))]
    assert len(imports) > 10 and not [line for line in imports if "reference" in line]
    from bergen_search.search.engines.ismcts import _ismcts
    for name in ("MAX_BYTES", "MAX_EXPLORATION", "MAX_PASS_WORLDS", "MAX_SECONDS"):
        assert getattr(_ismcts, name) == getattr(ismcts_ref, name) == getattr(constants, name)
    for name in ("POINTS_SCALE", "MAX_ITERATIONS", "KEY_OWN_DRAW"):
        assert getattr(_ismcts, name) == getattr(ismcts_ref, name)
    assert ref.EQUITY_STREAM == constants.EQUITY_STREAM
    assert ref.objective_code is constants.objective_code
