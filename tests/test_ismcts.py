"""SO-ISMCTS in C: invariants, determinism, time, obvious moves, hidden hands, exact endgames."""
import gc
import os
from math import comb

import pytest
from support import refused_during, sizes

from bergen_search.formats.game import load_game
from bergen_search.formats.notation import format_move
from bergen_search.formats.position import Position, position_from_flags
from bergen_search.game import match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, State
from bergen_search.game.tiles import TILE_HIGH, TILE_LOW, other_half, parse_tile
from bergen_search.information.infoset import from_position, from_state_and_events
from bergen_search.information.sampler import ReferenceSampler, WorldTable, world_state
from bergen_search.search.api import Limits, search
from bergen_search.search.engines.ismcts import Ismcts
from bergen_search.search.engines.ismcts import reference as ismcts_ref

try:
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree
    from bergen_search.information._sampler import CoreSampler

    from bergen_search.search.engines.ismcts import _ismcts
except ImportError:
    if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
        pytest.skip("compiled core not built (BERGEN_ALLOW_NO_CORE=1)", allow_module_level=True)
    raise

SEED = 20240611


# ---- helpers ---------------------------------------------------------------------------------
def mv(text):
    """The move int of 'a-b:L' / 'a-b:R'."""
    tile, end = text.split(":")
    return parse_tile(tile) * 2 + "LR".index(end)


def tree_for(info, seed=1, **kw):
    return IsmctsTree(CoreSampler(info), seed, **kw)


def searched(info, iterations, seed=1, **kw):
    tree = tree_for(info, seed, **kw)
    assert tree.run(iterations, 0) == iterations
    return tree


def by_move(tree):
    """{move: (visits, mean, standard error)} from root_stats."""
    out = {}
    for move, visits, total, sq in tree.root_stats():
        mean = total / visits if visits else 0.0
        var = max(sq / visits - mean * mean, 0.0) if visits else 0.0
        out[move] = (visits, mean, (var / visits) ** 0.5 if visits else float("inf"))
    return out


def best_move(tree):
    return max(tree.root_stats(), key=lambda row: row[1])[0]


def first_decision(rules, seed):
    """The information set of the seat to move right after the lead of a seeded random round."""
    hands, reserve = match.deal(rules, Rng(seed))
    st = State.deal(rules, hands, reserve)
    leader = st.to_move
    events = [(leader, st.legal_moves()[0], -1)]
    seat = (leader + 1) % rules.players
    return from_state_and_events(rules, seat, hands[seat], None, events)


# Hand-built positions (bergen-position/1 flags), two players unless said otherwise. Their
# hand sizes must fit the turn order (a seat holds what it was dealt and drew less what it
# played on its turns), hence hands of 3 where few tiles are laid.
#: 5-5 on either end makes a triple (ends 5 and 5, one of them the double); 5-6 scores
#: nothing. After the triple nobody else can match and the observer goes out with 5-6 on its
#: next turn whatever the opponent does: exactly +5 in every world.
TRIPLE = dict(hand="5-5 5-6", line="5-1 1-1 1-3 3-5", hand_sizes="2,6",
              rules={"hand_size": 3})
#: 3-5 fits both ends: on the right it shows 3 next to the double 3-3 (a triple, 3), on the
#: left it shows 5 next to 4-5 (a double match, 2).
TRIPLE_END = dict(hand="3-5 1-6", line="3-3 3-2 2-2 2-4 4-5", hand_sizes="2,5",
                  rules={"hand_size": 3})
#: The reserve is closed (2 tiles, never drawn); the opponent holds two of 2-4 1-3 3-5 4-4.
#: 4-5:R leaves ends 2 (the double 2-2) and 4: 2-4 then gives the opponent a triple; 1-5:R
#: leaves 2 and 1, and 1-2 is on the line. Neither scores at once.
NO_GIFT = dict(hand="1-5 4-5", line="2-2 2-6 6-6 6-5 5-5 5-2 2-3 3-6 6-4 4-3 3-3 3-0 0-6 6-1 "
                                     "1-4 4-0 0-2 2-1 1-1 1-0 0-0 0-5",
               hand_sizes="2,2", reserve_size=2)
#: Every 6 but the observer's 3-6 is on the line and the reserve is closed: 3-6:R makes ends
#: 6 and 6 (a double match, 2) and blocks the round, which the observer's 0-1 (no double, one
#: pip) wins: exactly +4 in every world. 3-6:L also scores 2 but lets the opponent play on.
BLOCK = dict(hand="3-6 0-1", line="6-0 0-5 5-6 6-6 6-4 4-5 5-5 5-3 3-3 3-4 4-4 4-2 2-6 6-1 "
                                  "1-5 5-2 2-2 2-0 0-4 4-1 1-1 1-3",
             hand_sizes="2,2", reserve_size=2)


def info_of(position, **kw):
    return from_position(position_from_flags(**position, **kw))


@pytest.mark.parametrize("iterations, megabytes", sizes((100_000, 32), (1_000_000, 250)))
def test_root_stats_cover_the_legal_moves_and_every_iteration_in_little_memory(iterations,
                                                                               megabytes):
    """Root stats cover every legal move and iteration, within `megabytes` of memory."""
    info = first_decision(Rules(), derive_seed(SEED, 5))
    tree = searched(info, iterations)
    stats = tree.root_stats()
    st_moves = [m for m, *_ in stats]
    hand_fits = [t * 2 + e for t in range(28) if info.hand >> t & 1 for e in (0, 1)
                 if (info.left, info.right)[e] in (TILE_LOW[t], TILE_HIGH[t])]
    assert st_moves == sorted(hand_fits)
    assert sum(v for _, v, _, _ in stats) == tree.iterations == iterations
    assert tree.n_nodes > iterations          # one expanded node per iteration at least
    assert tree.n_nodes * 40 <= tree.memory_bytes < megabytes * 2**20, tree.memory_bytes
    for move, visits, total, sq in stats:
        assert visits > 0
        assert sq >= total * total / visits - 1e-6    # Cauchy-Schwarz: sums are consistent


def test_availability_counts_the_worlds_where_a_play_is_legal():
    """An opponent's play is available as often as its hand allows; its draw is one DRAW child."""
    rules = Rules()
    info = first_decision(rules, derive_seed(SEED, 8))
    other = 1 - info.seat
    tree = searched(info, 60000)
    move, visits, _, _ = max(tree.root_stats(), key=lambda row: row[1])
    kids = tree.children([move])
    assert sum(k[2] for k in kids) == visits - 1     # the first visit played out from there
    after = world_state(info, [info.hand if j == info.seat else 0 for j in range(2)], [])
    after = after.apply(move)
    group = next(g for g, grp in enumerate(info.groups) if grp.owner == other)
    allowed = [t for t, groups in info.free if groups >> group & 1]
    held = info.hand_sizes[other]
    fitting = [t for t in allowed if {after.left, after.right} & {TILE_LOW[t], TILE_HIGH[t]}]
    expected = {}
    for t in fitting:
        for end, value in enumerate((after.left, after.right)):
            if value in (TILE_LOW[t], TILE_HIGH[t]):
                expected[t * 2 + end] = held / len(allowed)
    expected[DRAW] = comb(len(allowed) - len(fitting), held) / comb(len(allowed), held)
    got = {key: avail for key, side, _, avail, _, _ in kids}
    assert set(got) <= set(expected) and DRAW in got
    assert all(side == other for _, side, *_ in kids)
    for key, p in expected.items():
        se = (p * (1 - p) / visits) ** 0.5
        assert abs(got.get(key, 0) / visits - p) <= 4.5 * se + 1e-9, (format_move(key), p)


def test_own_draws_are_seen_and_passes_are_keyed():
    """A forced draw: one child per tile, each 1 / unseen, summed under DRAW; a pass: one PASS."""
    info = info_of(dict(hand="0-1 1-2 0-2 0-5 1-5 2-5", line="3-3 3-4", hand_sizes="6,5",
                        reserve_size=15))
    n = 40000
    tree = searched(info, n)
    unseen = [t for t, _ in info.free]
    assert len(unseen) == 20
    kids = tree.children()
    assert sorted(k[0] for k in kids) == [_ismcts.KEY_OWN_DRAW + t for t in unseen]
    se = (1 / 20 * 19 / 20 / n) ** 0.5
    for key, side, visits, avail, total, sq in kids:
        assert side == 0 and avail == visits
        assert abs(visits / n - 1 / 20) <= 4.5 * se
    ((move, visits, total, sq),) = tree.root_stats()
    assert (move, visits) == (DRAW, n)
    assert total == pytest.approx(sum(k[4] for k in kids))
    # the pass: BLOCK's line with a hand holding neither 6 nor 3, the reserve closed
    tree = searched(info_of(dict(BLOCK, hand="0-1 1-2")), 1000)
    assert [k[0] for k in tree.children()] == [_ismcts.KEY_PASS]
    assert [row[:2] for row in tree.root_stats()] == [(PASS, 1000)]


# ---- determinism -----------------------------------------------------------------------------
@pytest.mark.parametrize("objective", [0, 1])
def test_same_seed_same_tree_however_sliced(objective):
    info = first_decision(Rules(), derive_seed(SEED, 2))
    whole = searched(info, 6000, seed=7, objective=objective)
    sliced = tree_for(info, 7, objective=objective)
    timed = sliced.run(0, 0.002)            # a slice cut by the clock, then the rest
    assert 0 < timed < 5000
    rest = 6000 - timed - 65
    for n in (1, 64, rest // 2, rest - rest // 2):
        assert sliced.run(n, 0) == n
    assert sliced.iterations == whole.iterations == 6000
    assert sliced.root_stats() == whole.root_stats()
    assert sliced.n_nodes == whole.n_nodes
    other = searched(info, 6000, seed=8, objective=objective)
    assert other.root_stats() != whole.root_stats()
    for move, visits, total, sq in whole.root_stats() if objective else ():
        assert sq == total and 0 < total < visits       # match rewards: r * r == r, r 0 or 1


def test_time_limit(virtual_clock):
    """On a virtual clock a run stops at the first reading past its limit (every 64 iterations)."""
    info = first_decision(Rules(), derive_seed(SEED, 4))
    virtual_clock(1 / 64)
    for objective in (0, 1):
        tree = tree_for(info, 4, objective=objective)
        assert tree.run(0, 0.25) == 1024
        assert tree.run(10**12, 0.25) == 1024       # the time limit stops a huge limit
        assert tree.run(100, 0.25) == 100
        assert tree.iterations == 2148
        ref = ismcts_ref.IsmctsTree(ReferenceSampler(info), 4, objective=objective)
        assert ref.run(0, 0.25) == 16 and ref.run(10, 0.25) == 10
        # the reference's timed slice, then the rest: the core's tree of the same total
        assert ref.root_stats() == searched(info, 26, seed=4, objective=objective).root_stats()


def test_one_search_at_a_time():
    """`run` releases the GIL; a second thread may not run the same tree meanwhile."""
    tree = tree_for(first_decision(Rules(), derive_seed(SEED, 9)))
    refused_during(lambda: tree.run(0, 0.5), tree.root_stats, [lambda: tree.run(10, 0)])
    assert tree.run(10, 0) == 10


# ---- obvious positions -----------------------------------------------------------------------
@pytest.mark.parametrize("playout", ["random", "scoring"])
@pytest.mark.parametrize("position, best, means", [
    (TRIPLE, ("5-5:L", "5-5:R"), {"5-5:L": 5.0, "5-5:R": 5.0}),   # +3, then out: every world
    (TRIPLE_END, ("3-5:R",), {}),
    (NO_GIFT, ("1-5:R",), {}),
    (BLOCK, ("3-6:R",), {"3-6:R": 4.0}),                         # +2 the match, +2 the block
], ids=["triple", "triple-end", "no-gift", "block"])
def test_obvious_positions(playout, position, best, means):
    tree = searched(info_of(position), 20000, playout=playout)
    stats = by_move(tree)
    assert best_move(tree) in [mv(m) for m in best]
    for m, value in means.items():
        assert stats[mv(m)][0] > 1000 and stats[mv(m)][1] == value
    if position is NO_GIFT:
        assert stats[mv("1-5:R")][1] > stats[mv("4-5:R")][1] + 1.0
    if position is BLOCK:
        assert stats[mv("3-6:L")][1] < 3.5


# ---- the triple for the match, and with more players ------------------------------------------
@pytest.mark.parametrize("flags, objective", [
    (dict(scores="14,14"), "match"),
    (dict(players=3, hand_sizes="2,6,6"), "points"),
    (dict(players=4, hand_sizes="2,5,5,5"), "points"),
    (dict(players=4, partnerships=True, hand_sizes="2,5,5,5"), "points")],
    ids=["match", "3p", "4p", "4p-partners"])
def test_the_triple_for_the_match_and_with_more_players(flags, objective):
    """At 14-14 of 15 the triple wins in every world (match rewards: the sliced-tree test);
    with 3 and 4 players it is best and worth more than 2."""
    tree = searched(info_of({**TRIPLE, **flags}), 20000, objective=objective)
    stats = by_move(tree)
    assert best_move(tree) in (mv("5-5:L"), mv("5-5:R"))
    assert sum(v for v, _, _ in stats.values()) == 20000
    if objective == "match":
        assert stats[mv("5-5:L")][1] == stats[mv("5-5:R")][1] == 1.0
    else:
        assert stats[best_move(tree)][1] > 2.0


# ---- exact values on small endgames -----------------------------------------------------------
class OpponentDecides(Exception):
    """Another seat has a choice somewhere: the exact solution here does not apply."""


def points_reward(info, s):
    """The "points" reward of the observer's side from the root to the end of the round."""
    rules = info.rules
    gains = [s.scores[i] - info.scores[i] for i in range(rules.n_sides)]
    own = gains[rules.side_of(info.seat)]
    return own - (sum(gains) - own) / (rules.n_sides - 1)


def solve(info, group, counts):
    """Values of the worlds of `group` under the observer's best information-set policy."""
    values = [0.0] * len(group)
    live = []
    for i, (_, s) in enumerate(group):
        if s.ended is not None:
            values[i] = points_reward(info, s)
        else:
            live.append(i)
    if not live:
        return values
    if group[live[0]][1].to_move == info.seat:
        moves = group[live[0]][1].legal_moves()
        assert DRAW not in moves, "the reserve is closed in these endgames"
        best = None
        for m in moves:
            sub = [(group[i][0], group[i][1].apply(m)) for i in live]
            vals = solve(info, sub, counts)
            expected = sum(w * v for (w, _), v in zip(sub, vals))
            if best is None or expected > best[0]:
                best = (expected, vals)
        counts["observer_choices"] += len(moves) > 1
        for i, v in zip(live, best[1]):
            values[i] = v
        return values
    # another seat: one legal action in every world, grouped by what the observer sees
    seen = {}
    for i in live:
        w, s = group[i]
        moves = s.legal_moves()
        if len(moves) > 1:
            raise OpponentDecides()
        assert moves[0] != DRAW, "the reserve is closed in these endgames"
        seen.setdefault(moves[0], []).append((i, w, s.apply(moves[0])))
    for items in seen.values():
        vals = solve(info, [(w, s) for _, w, s in items], counts)
        for (i, _, _), v in zip(items, vals):
            values[i] = v
    return values


def exact_root_values(info, moves=None):
    """({root move: exact points reward}, {"observer_choices": n}), or OpponentDecides."""
    group = [(w, world_state(info, hands, sorted(reserve)))
             for (hands, reserve), w in WorldTable(info).enumerate().items()]
    total = sum(w for w, _ in group)
    counts = {"observer_choices": 0}
    out = {}
    for m in moves or group[0][1].legal_moves():
        sub = [(w, s.apply(m)) for w, s in group]
        vals = solve(info, sub, counts)
        out[m] = sum(w * v for (w, _), v in zip(sub, vals)) / total
    return out, counts


def closed_endgames(rules, n_rounds, from_events=True, max_tiles=28):
    """Information sets of every decision with the reserve closed in seeded random rounds."""
    out = []
    for i in range(n_rounds):
        rng = Rng(derive_seed(SEED, 1000 + i))
        hands, reserve = match.deal(rules, rng)
        st = State.deal(rules, hands, reserve)
        events = []
        while st.ended is None:
            moves = st.legal_moves()
            sizes = tuple(st.hand_size(j) for j in range(rules.players))
            if (st.reserve_size <= rules.reserve_kept and len(moves) > 1
                    and not st.draws_this_turn and sum(sizes) <= max_tiles):
                seat = st.to_move
                if from_events:
                    out.append(from_state_and_events(rules, seat, hands[seat], None, events))
                else:
                    pos = Position(rules, st.scores, seat, st.hands[seat], st.line, sizes,
                                   st.reserve_size, {})
                    out.append(from_position(pos.check()))
            m = moves[rng.below(len(moves))]
            events.append((st.to_move, m, st.reserve[0] if m == DRAW else -1))
            st = st.apply(m)
    return out


#: name -> (rules, closed_endgames options, {size: (rounds, minimum best-move checks,
#: minimum means)}): "fast" in the default run (found: 2p 11 best moves and 46 means, 3p 6
#: and 17, 4p-partners 3 and 18; the largest gap 1.6 standard errors), "full" behind slow
#: (26 and 88, 8 and 27, 3 and 26; 2.1).
EXACT_TABLES = {
    "2p": (Rules(), dict(max_tiles=10), {"fast": (300, 10, 40), "full": (600, 20, 70)}),
    "3p": (Rules(players=3), dict(from_events=False, max_tiles=9),
           {"fast": (150, 5, 15), "full": (300, 6, 22)}),
    "4p-partners": (Rules(players=4, partnerships=True), dict(from_events=False, max_tiles=8),
                    {"fast": (200, 2, 15), "full": (300, 2, 20)}),
}


@pytest.fixture(scope="module", params=[
    pytest.param((name, size), id=f"{name}-{size}",
                 marks=[pytest.mark.slow] if size == "full" else [])
    for name in sorted(EXACT_TABLES) for size in ("fast", "full")])
def solved_endgames(request):
    """(info, exact values, counts) of small closed endgames where only the observer decides."""
    name, size = request.param
    rules, options, by_size = EXACT_TABLES[name]
    rounds, min_best, min_means = by_size[size]
    out = []
    for info in closed_endgames(rules, rounds, **options):
        if WorldTable(info).total > 5000:
            continue
        try:
            exact, counts = exact_root_values(info)
        except OpponentDecides:
            continue
        out.append((info, exact, counts))
    return out, min_best, min_means


def test_exact_solver_knows_the_obvious():
    """The brute force: +4 on BLOCK; OpponentDecides on NO_GIFT after 4-5:R."""
    exact, counts = exact_root_values(info_of(BLOCK), [mv("3-6:R")])
    assert exact == {mv("3-6:R"): 4.0} and counts == {"observer_choices": 0}
    with pytest.raises(OpponentDecides):
        exact_root_values(info_of(NO_GIFT), [mv("4-5:R")])


def test_the_search_finds_the_exact_best_and_values(solved_endgames):
    """The tree's best is the exact best; its means within 4.5 errors of the exact values."""
    endgames, min_best, min_means = solved_endgames
    bests = means = 0
    for k, (info, exact, counts) in enumerate(endgames):
        ranked = sorted(exact.values(), reverse=True)
        gap = ranked[0] - ranked[1] >= 0.25
        if not gap and counts["observer_choices"]:
            continue
        tree = searched(info, 20000, seed=k)
        if gap:
            got, want = best_move(tree), max(exact, key=exact.get)
            assert got == want, (f"{format_move(got)} != {format_move(want)}: "
                                 f"{ {format_move(m): v for m, v in exact.items()} } {info}")
            bests += 1
        if counts["observer_choices"]:
            continue
        for move, (visits, mean, se) in by_move(tree).items():
            if visits >= 30:
                assert abs(mean - exact[move]) <= 4.5 * se + 1e-9, (
                    f"{format_move(move)}: mean {mean} +- {se} ({visits} visits), exact "
                    f"{exact[move]}; {info}")
                means += 1
    assert bests >= min_best and means >= min_means


# ---- the expected line after each move (`best`'s principal variation) ----------------------
@pytest.mark.parametrize("seed", [0, 5])
def test_the_expected_line_is_a_line_of_play(seed):
    """Each move's expected line (`info["lines"]`) is play the rules allow as the seat sees it."""
    info = load_game(open("examples/decision.json", encoding="utf-8").read())
    res = search(info, Limits(iterations=20_000), seed=seed, endgame=False)
    lines = res.info["lines"]
    assert set(lines) == {m.move for m in res.moves if m.twin is None}
    assert all(1 <= len(line) <= 6 for line in lines.values())
    for move, line in lines.items():
        ends, played, seat = [info.left, info.right], 0, info.seat
        for k, step in enumerate((move, *line)):          # the move itself first
            if step.kind == "draw":
                assert seat != info.seat or k == len(line)     # the seat's own draw ends it
                continue                                        # a draw keeps the turn
            if step.kind == "play":
                t = step.tile
                assert not played >> t & 1, (move, line, k)
                assert bool(info.hand >> t & 1) == (seat == info.seat), (move, line, k)
                assert ends[step.end] in (TILE_LOW[t], TILE_HIGH[t]), (move, line, k)
                ends[step.end] = other_half(t, ends[step.end])
                played |= 1 << t
            seat = (seat + 1) % info.rules.players


def test_no_line_without_values_and_the_trees_are_freed(monkeypatch):
    """`values=False` reads no line, and a search reading lines leaves no tree alive."""
    info = load_game(open("examples/decision.json", encoding="utf-8").read())
    assert "lines" not in search(info, Limits(iterations=2_000), seed=1, values=False).info
    accounts, made = [], Ismcts.memory_account
    monkeypatch.setattr(Ismcts, "memory_account",
                        lambda self: accounts.append(made(self)) or accounts[-1])
    gc.collect()
    gc.disable()
    try:
        assert search(info, Limits(iterations=2_000), seed=1).info["lines"]
        assert len(accounts) == 1 and accounts[0].bytes == 0
    finally:
        gc.enable()
