"""The compiled classes (samplers, trees, searches, states, the endgame's deals and solver, the
draw rollouts) driven with odd but well-typed input (fields out of range, tampered tables, odd
limits, objects never built, two threads): they answer or raise BergenError, never crash or
hang (hypothesis, `BERGEN_FUZZ_EXAMPLES`; the sanitizer build of `.ci/run` checks memory)."""
import dataclasses
import functools
import math
import os
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import FUZZ_EXAMPLES, cuts, refused_during, running, wait_for

from bergen_search.errors import BergenError
from bergen_search.game.state import DRAW
from bergen_search.game.rng import Rng
from bergen_search.game.rules import Rules
from bergen_search.information.infoset import Group, check_infoset
from bergen_search.information.sampler import WorldTable
from bergen_search.play.bench import endgame_positions
from bergen_search.search import endgame

_ismcts = pytest.importorskip("bergen_search.search.engines.ismcts._ismcts")
_sampler = pytest.importorskip("bergen_search.information._sampler")
_expectimax = pytest.importorskip("bergen_search.search.engines.expectimax._expectimax")
_core = pytest.importorskip("bergen_search.game._core")
_endgame = pytest.importorskip("bergen_search.search.endgame._endgame")
_luck = pytest.importorskip("bergen_search.play._luck")
_before_lead = pytest.importorskip("bergen_search.search._before_lead")
IsmctsTree, CoreSampler = _ismcts.IsmctsTree, _sampler.CoreSampler
EndgameSolver = _endgame.EndgameSolver
ExpectimaxSearch = _expectimax.ExpectimaxSearch

EXAMPLES = FUZZ_EXAMPLES
FUZZ = settings(max_examples=EXAMPLES, deadline=20_000, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
RULE_SETS = [Rules(), Rules(players=3), Rules(players=4), Rules(players=4, partnerships=True),
             Rules(draw="one"), Rules(no_double="lowest-tile", reserve_kept=0)]

#: Integers at and around every limit the core has, and far beyond them.
odd_ints = (st.integers(min_value=-2 ** 70, max_value=2 ** 70)
            | st.sampled_from([-(2 ** 63), -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 13, 27, 28, 29, 56,
                               57, 63, 64, 127, 128, 255, 256, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1,
                               2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64]))
odd_floats = (st.floats(allow_nan=True, allow_infinity=True)
              | st.sampled_from([0.0, -0.0, -1.0, 1e-300, 1e300, math.inf, -math.inf,
                                 math.nan]))
odd_numbers = odd_ints | odd_floats | st.booleans()


def decisions(rules, seed):
    """Where a seat acts after the lead in a random match (`support.cuts`): each cut's
    `info()` is the information set it had there."""
    return list(cuts(rules, seed, 1, rounds=1000, decisions=False))


@st.composite
def infosets(draw):
    rules = draw(st.sampled_from(RULE_SETS))
    found = decisions(rules, draw(st.integers(0, 10 ** 6)))
    return found[draw(st.integers(0, len(found) - 1))].info()


def _odd_tuple(elements):
    return st.lists(elements, max_size=6).map(tuple)


FIELD_VALUES = {
    "seat": odd_ints, "hand": odd_ints, "reserve_size": odd_ints, "passes": odd_ints,
    "draws_this_turn": odd_ints, "last_drawn": odd_ints, "played_free": odd_ints,
    "scores": _odd_tuple(odd_ints), "hand_sizes": _odd_tuple(odd_ints),
    "line": st.just(()) | _odd_tuple(st.tuples(odd_ints, odd_ints)),
    "free": _odd_tuple(st.tuples(odd_ints, odd_ints)),
    "groups": _odd_tuple(st.builds(Group, odd_ints, odd_ints, odd_ints)),
}


def exercise(sampler, seed=1):
    """Every search on a sampler that was accepted: a few iterations, the pass, a world."""
    tree = IsmctsTree(sampler, seed, objective="points", playout="safe", merge_twins=True,
                      choice_stats=True, max_bytes=1 << 20)
    assert tree.run(200, 0) == 200
    stats = tree.root_stats()
    assert sum(n for _, n, _, _ in stats) > 0
    for move, n, total, sq in stats:
        assert n >= 0 and math.isfinite(total) and math.isfinite(sq)
    for move, s, sq, gains in tree.evaluate_root(20, seed):
        assert math.isfinite(s) and math.isfinite(sq)
    search = ExpectimaxSearch(sampler, 2, seed, 0, 1)
    assert search.run_worlds(2, 0) == 2
    hands, reserve = sampler.sample(Rng(seed))
    values = search.run_world(hands, reserve)
    assert values is not None and all(math.isfinite(v) for v in values)


# ---- information sets ----------------------------------------------------------------------
@FUZZ
@given(infosets(), st.sampled_from(sorted(FIELD_VALUES)), st.data())
def test_real_decisions_are_searched_and_an_odd_field_refused_or_searched(info, name, data):
    """The sets a match produces pass every check, and every search runs on them. Any field
    replaced by an odd value of its type: the sampler refuses it with BergenError (given
    alone, or with the table of the untouched set), or, when the value is still a possible
    set, every search runs on it."""
    check_infoset(info)
    exercise(CoreSampler(info))
    odd = dataclasses.replace(info, **{name: data.draw(FIELD_VALUES[name])})
    table = WorldTable(info)
    for make in (lambda: CoreSampler(odd), lambda: CoreSampler(odd, table)):
        try:
            sampler = make()
        except BergenError:
            continue
        exercise(sampler)


def test_impossible_positions_are_refused():
    """Before the lead, a finished round, a reserve below what is kept, a side at the target,
    a blocked round, an empty hand: refused alone and with the untouched set's table."""
    info = decisions(Rules(), 3)[0].info()
    cases = {"before the lead": dict(line=()),
             "a finished round (a hand of 0)": dict(hand_sizes=(info.hand_sizes[0], 0)
                                                   if info.seat == 0 else (0, info.hand_sizes[1])),
             "the reserve below reserve_kept": dict(reserve_size=1),
             "a side at the target": dict(scores=(15, 0)),
             "a blocked round": dict(passes=2, reserve_size=2, draws_this_turn=0),
             "an empty hand": dict(hand=0)}
    for what, change in cases.items():
        odd = dataclasses.replace(info, **change)
        with pytest.raises(BergenError):
            CoreSampler(odd)
        with pytest.raises(BergenError):
            CoreSampler(odd, WorldTable(info))


@FUZZ
@given(infosets(), st.sampled_from(["opt_start", "opt_group", "opt_child", "opt_cum",
                                    "tiles", "owners"]), st.data())
def test_a_tampered_world_table_is_refused(info, name, data):
    """The table's arrays with one entry replaced (or the array cut short): refused, or, if
    the change happens to leave a walk that stays in bounds, sampled without harm."""
    table = WorldTable(info)
    if not getattr(table, name):
        return
    setattr(table, name, tampered(data, getattr(table, name),
                                  odd_floats if name == "opt_cum" else odd_ints))
    try:
        sampler = CoreSampler(info, table)
    except (BergenError, TypeError, OverflowError):
        return
    assert sampler.sample_many(100, 7) == checksum(sampler, 100, 7)


def tampered(data, array, odd, grow=False):
    """`array` (a list of numbers) with one entry replaced by an `odd` value, or cut short,
    or (when `grow`) grown by odd integers."""
    array = list(array)
    how = data.draw(st.sampled_from(["replace", "cut", "grow"] if grow else ["replace", "cut"]))
    if how == "replace":
        array[data.draw(st.integers(0, len(array) - 1))] = data.draw(odd)
        return array
    if how == "cut":
        return array[:data.draw(st.integers(0, len(array) - 1))]
    return array + data.draw(st.lists(odd_ints, min_size=1, max_size=40))


def test_a_table_changed_after_it_was_built_is_refused():
    """A group replaced in the programme's options (which could give a hidden tile to the
    seat's own hand or to two places): the sampler refuses a table no longer the one built."""
    from bergen_search.formats.game import load_game
    info = load_game(open("examples/decision.json", encoding="utf-8").read())
    table = WorldTable(info)
    CoreSampler(info, table)
    table.opt_group = [int(not table.opt_group[0])] + list(table.opt_group[1:])
    with pytest.raises(BergenError, match="changed since it was built"):
        CoreSampler(info, table)


def checksum(sampler, n: int, seed: int) -> int:
    """What `sample_many(n, seed)` returns from n single draws on the same stream (the xor of
    seat 0's hand, seat 1's shifted 28 bits and the reserve's first tile), each world checked on
    the way: masks within the 28 tiles, no tile twice."""
    rng, out = Rng(seed), 0
    for _ in range(n):
        hands, reserve = sampler.sample(rng)
        assert all(0 <= h < 1 << 28 for h in hands) and all(0 <= t < 28 for t in reserve)
        held = [t for h in hands for t in range(28) if h >> t & 1] + list(reserve)
        assert len(held) == len(set(held)), (hands, reserve)
        out ^= hands[0] ^ (hands[1] << 28) ^ (reserve[0] if reserve else 0)
    return out


# ---- the limits of the calls -----------------------------------------------------------------
def _count_ok(x, high=2 ** 63 - 1) -> bool:
    return type(x) is int and 0 <= x <= high


def _seconds_ok(x, high=86400) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float)) and 0 <= x <= high


@FUZZ
@given(infosets(), odd_numbers, odd_numbers, odd_ints, st.tuples(*[odd_numbers] * 5),
       st.lists(odd_ints, max_size=5), st.lists(odd_ints, max_size=30))
def test_the_searches_take_any_numbers(info, count, seconds, move, settings_, hands, reserve):
    """IsmctsTree.run(iterations, seconds), run_move(move, ...), evaluate_root(worlds);
    ExpectimaxSearch.run_worlds(n, seconds), run_world(hands, reserve, seconds);
    CoreSampler.sample_many(n, seed): a limit that is negative, huge, infinite or NaN, or an
    impossible world, is BergenError (never a run without end); a valid one runs (here
    capped, not to run for a day). IsmctsTree(seed, exploration, objective, playout,
    max_bytes) and ExpectimaxSearch(depth, seed, objective, playouts, exact_tiles,
    equity_playouts) with odd settings: built and searching, or BergenError."""
    sampler = CoreSampler(info)
    tree, search = IsmctsTree(sampler, 3), ExpectimaxSearch(sampler, 1, 5, 0, 1)
    for run, cap in ((tree.run, 300), (search.run_worlds, 3)):
        if _count_ok(count) and _seconds_ok(seconds) and (count or seconds):
            assert run(min(count, cap) or cap, min(seconds, 0.05)) <= cap
        else:
            with pytest.raises(BergenError):
                run(count, seconds)
    for worlds in (count, seconds):
        if type(worlds) is int and 1 <= worlds <= 40:
            assert len(tree.evaluate_root(worlds, 1)) == len(tree.root_stats())
        elif not (type(worlds) is int and 1 <= worlds <= 10 ** 7):
            with pytest.raises(BergenError):
                tree.evaluate_root(worlds, 1)
    choices = {m for m, *_ in tree.root_stats()} - set(tree.twins)
    if move in choices and len(choices) > 1:
        assert tree.run_move(move, 20, 0) == 20
    elif move not in tree.twins:
        with pytest.raises(BergenError):
            tree.run_move(move, 20, 0)
    try:
        values = search.run_world(hands, reserve, None, 0.5)
    except BergenError:
        pass
    else:
        assert values is None or all(math.isfinite(v) for v in values)
    if type(count) is int and 0 <= count <= 1000:
        assert sampler.sample_many(count, 3) == checksum(sampler, count, 3)
    elif not (type(count) is int and 0 <= count <= 10 ** 12):
        with pytest.raises(BergenError):
            sampler.sample_many(count, 3)
    a, b, c, d, e = settings_
    for kw in (dict(seed=a, exploration=b, objective=c, playout=d, max_bytes=e),
               dict(seed=1, exploration=0.7, objective=a, playout=b, merge_twins=c,
                    choice_stats=d, max_bytes=e)):
        try:
            built = IsmctsTree(sampler, **kw)
        except BergenError:
            continue
        assert built.run(50, 0) == 50
    for kw in (dict(depth=a, seed=b, objective=c, playouts=d, exact_tiles=e),
               dict(depth=2, seed=1, objective=0, playouts=1, equity_playouts=a),
               dict(depth=1, seed=1, objective="match", playouts=1, equity_playouts=b)):
        try:
            expectimax = ExpectimaxSearch(sampler, **kw)
        except BergenError:
            continue
        assert expectimax.run_worlds(1, 0.5) <= 1


# ---- objects never built, and two threads ---------------------------------------------------
def test_objects_never_built_refuse_every_call_and_a_built_one_a_second_init():
    """Every call on an object made with `__new__` and never built (or, for the endgame's
    solver, whose build failed) is refused; so is a second `__init__` of a built one (which
    would free what a running search uses, or leak the first tree and build on top of it)."""
    info = decisions(Rules(), 5)[2].info()
    sampler = CoreSampler(info)
    _, g = small_endgames()[0]
    raw_sampler = CoreSampler.__new__(CoreSampler)
    tree = IsmctsTree.__new__(IsmctsTree)
    search = ExpectimaxSearch.__new__(ExpectimaxSearch)
    state = _core.CoreState.__new__(_core.CoreState)
    calls = [lambda: raw_sampler.sample_many(10, 1), lambda: IsmctsTree(raw_sampler, 1),
             lambda: ExpectimaxSearch(raw_sampler, 2, 1),
             lambda: tree.run(10, 0), lambda: tree.run_move(2, 10, 0),
             lambda: tree.evaluate_root(10, 1), tree.root_stats, tree.root_side_stats,
             tree.children, lambda: search.run_worlds(1, 0),
             lambda: search.run_world((0, 0), []), search.root_stats,
             state.legal_moves, lambda: state.apply(0),
             lambda: _core.playout_move(state, "safe", 1)]
    failed = EndgameSolver.__new__(EndgameSolver)
    with pytest.raises(BergenError):
        failed.__init__(g.rules, g.root, g.hands, [(0, 10 ** 6, 1.0)])
    for obj in (EndgameSolver.__new__(EndgameSolver), failed):
        calls += [lambda o=obj: o.run(5), lambda o=obj: o.best_response(0),
                  lambda o=obj: o.values(1), lambda o=obj: o.average(0), lambda o=obj: o.node(0)]
    for call in calls:
        with pytest.raises(BergenError, match="not built|needs a built"):
            call()
    solver = EndgameSolver(g.rules, g.root, g.hands, g.deals)
    nodes = solver.n_nodes
    for obj, args in ((sampler, (info,)), (IsmctsTree(sampler, 1), (sampler, 1)),
                      (ExpectimaxSearch(sampler, 2, 1), (sampler, 2, 1)),
                      (solver, (g.rules, g.root, g.hands, g.deals)),
                      (failed, (g.rules, g.root, g.hands, g.deals))):
        with pytest.raises(BergenError, match="built once"):
            obj.__init__(*args)
    assert solver.n_nodes == nodes
    solve_a_little(solver)


def test_no_reader_runs_while_another_thread_searches():
    """`run` releases the GIL and the pool may move as it grows: while it runs, the pass and
    every reader of the tree are refused (the stats would be read from freed memory). Each
    run is seen running before the readers are tried: the expectimax search runs until its
    stop says so; the tree's run is tried again should it end before the readers were."""
    info = decisions(Rules(), 6)[1].info()
    tree = IsmctsTree(CoreSampler(info), 1)
    readers = (lambda: tree.evaluate_root(10, 1), tree.root_stats, tree.root_side_stats,
               tree.children, lambda: tree.run(5, 0))
    refused_during(lambda: tree.run(0, 0.5), tree.root_stats, readers)
    assert tree.root_stats()
    search = ExpectimaxSearch(CoreSampler(info), 6, 1)
    release = threading.Event()
    search.stop = release.is_set
    worker = threading.Thread(target=search.run_worlds, args=(0, 60))
    worker.start()
    try:
        wait_for(lambda: running(search.root_stats), timeout=30)
        assert running(search.root_stats)               # still, however slow this thread
    finally:
        release.set()
        worker.join(30)
    assert not worker.is_alive() and search.root_stats() is not None


# ---- the memory cap --------------------------------------------------------------------------
def test_the_cap_bounds_the_trees_of_its_account_and_the_search_goes_on():
    """A tree capped at 1 MB fills its pool, says when it stopped growing and goes on
    iterating (the root's statistics keep counting) without MemoryError. The cap bounds the
    trees of one account together (a search's: `memory_account`): the second tree of the
    account has what the first left it; a tree of another account (another search's) takes
    nothing from it, and is not taken from."""
    info = decisions(Rules(), 8)[0].info()
    cap = 1 << 20
    account = _ismcts.MemoryAccount()
    first = IsmctsTree(CoreSampler(info), 1, max_bytes=cap, account=account)
    elsewhere = IsmctsTree(CoreSampler(info), 1, max_bytes=cap)      # the first's seed
    for tree in (first, elsewhere):
        assert tree.run(60_000, 0) == 60_000
    assert first.full and 0 < first.full_at < 60_000
    assert account.bytes == first.memory_bytes <= cap
    assert elsewhere.root_stats() == first.root_stats() and elsewhere.full_at == first.full_at
    visits, nodes = sum(n for _, n, _, _ in first.root_stats()), first.n_nodes
    assert first.run(20_000, 0) == 20_000
    assert sum(n for _, n, _, _ in first.root_stats()) == visits + 20_000
    assert first.n_nodes <= nodes + 64          # only root children may still be added
    assert first.evaluate_root(100, 1)
    second = IsmctsTree(CoreSampler(info), 2, max_bytes=cap, account=account)
    second.run(20_000, 0)
    # Over the cap by at most the 3 KB a tree born full keeps (its root and 64 children).
    assert account.bytes <= cap + 65 * 48 and second.full and second.full_at < first.full_at
    assert account.bytes == first.memory_bytes + second.memory_bytes
    del first, second
    assert account.bytes == 0
    with pytest.raises(BergenError, match="MemoryAccount"):
        IsmctsTree(CoreSampler(info), 2, max_bytes=cap, account=cap)


def test_a_full_tree_gives_the_values_of_an_unbounded_one_closely():
    """At the cap the search keeps sampling: the best move's value with a 1 MB cap is within
    a few standard errors of the value without one (same seed, same budget). Without the
    exact endgame's attempt (too big here, declined at once: the values are the same)."""
    from bergen_search.formats.game import load_game
    from bergen_search.search.api import Limits, search
    info = load_game(open("examples/decision.json", encoding="utf-8").read())
    free = search(info, Limits(iterations=250_000), seed=4, endgame=False)
    capped = search(info, Limits(iterations=250_000, memory_mb=1), seed=4, endgame=False)
    assert capped.info["memory"]["full"] > 0 and not free.info["memory"]["full"]
    assert capped.info["iterations"] == 250_000
    a = next(m for m in capped.moves if m.move == free.best)
    assert abs(a.value - free.value) < 4 * math.hypot(a.stderr, free.stderr)


@pytest.mark.skipif(os.environ.get("BERGEN_SANITIZED") != "1",
                    reason="runs in .ci/run's sanitizer job (BERGEN_SANITIZED=1)")
def test_the_core_under_test_is_the_sanitized_build():
    """The sanitizer job tests the instrumented modules, not a plain build on the path."""
    for module in (_core, _sampler, _ismcts, _expectimax, _endgame, _luck):
        with open(module.__file__, "rb") as f:
            data = f.read()
        assert b"__asan_report" in data and b"__ubsan_handle" in data, module.__file__


# ---- the exact endgame: its deals and its solver -------------------------------------------


@functools.lru_cache(maxsize=None)
def small_endgames():
    """Stage decisions of greedy self-play with at most 7 tiles in both hands: (information
    set, its `endgame.Endgame`)."""
    out = []
    for _, info, _ in endgame_positions(60, 5):
        if sum(info.hand_sizes) <= 7:
            out.append((info, endgame.game(info)))
    return out


def endgames():
    return st.integers(0, len(small_endgames()) - 1).map(lambda i: small_endgames()[i])


def solve_a_little(solver, finite=True):
    """A built solver answers every call (with finite numbers, unless the deals' weights are
    large enough to overflow)."""
    assert solver.run(3) == 3
    for b in (0, 1):
        values, per = solver.best_response(b)
        gains = solver.values(b, True)[0]
        assert not finite or all(math.isfinite(v) for v in values + gains)
        assert not finite or all(math.isfinite(v) for row in per.values() for v in row)
    for nid in range(min(solver.n_nodes, 20)):
        node = solver.node(nid)
        if node[0] >= 0:
            assert all(math.isclose(sum(row), 1.0) for row in solver.average(nid))


@FUZZ
@given(endgames(), st.sampled_from(["tiles", "is_played", "opt_start", "opt_group",
                                    "opt_child", "owners", "n_nodes", "weight"]), st.data())
def test_a_real_public_table_gives_deals_and_a_tampered_one_is_refused(case, name, data):
    """The deals of a real public table (with and without inference), each of weight > 0.
    Its arrays with one entry replaced (or the array cut short, or grown past 28 tiles):
    refused, or, if the change leaves a walk that stays in bounds, its deals found without
    harm."""
    table = endgame.public_table(case[0], data.draw(st.booleans()))
    h0, h1, w = _endgame.enumerate_deals(table)
    assert len(h0) == len(h1) == len(w) > 0 and all(x > 0 for x in w)
    value = getattr(table, name)
    if name == "n_nodes":
        value = data.draw(odd_ints)
    elif not value:
        return
    elif name == "weight":
        value = [list(row) for row in value]
        value[data.draw(st.integers(0, len(value) - 1))][0] = data.draw(odd_numbers)
    else:
        value = tampered(data, value, odd_ints, grow=True)
    setattr(table, name, value)
    try:
        h0, h1, w = _endgame.enumerate_deals(table, 20_000, 0.5)
    except (BergenError, TypeError, OverflowError, IndexError, KeyError):
        return
    assert len(h0) == len(h1) == len(w)


def test_more_tiles_than_the_set_has_are_refused_before_any_copy():
    """`enumerate_deals` copies the table's tiles into a C array of 28: a longer list is a
    ValueError (BergenError) that says so, never a write past the array."""
    info, _ = small_endgames()[0]
    table = endgame.public_table(info)
    for extra in (1, 100, 10_000):
        table.tiles = list(range(28)) + [0] * extra
        table.is_played = [False] * len(table.tiles)
        with pytest.raises(ValueError, match="at most 28"):
            _endgame.enumerate_deals(table)



@pytest.mark.parametrize("factor", [0.0, -1.0, math.nan, math.inf])
def test_a_weight_that_is_not_positive_and_finite_is_refused(factor):
    """`enumerate_deals` lists a node's child once, the first time weight reaches it: a factor
    of 0 (or one that cancels another) would list it again and again, writing past the level's
    array (the fuzz test above found it under AddressSanitizer)."""
    info, _ = small_endgames()[0]
    table = endgame.public_table(info, True)
    table.weight = [[factor] * len(row) for row in table.weight]
    with pytest.raises(BergenError, match="the weights"):
        _endgame.enumerate_deals(table)

ROOT_VALUES = {"left": odd_ints, "right": odd_ints, "to_move": odd_ints, "passes": odd_ints,
               "reserve_size": odd_ints, "scores": _odd_tuple(odd_ints),
               "left_double": odd_numbers, "right_double": odd_numbers}


@FUZZ
@given(endgames(), st.sampled_from(sorted(ROOT_VALUES) + ["hands", "deals"]), st.data(),
       odd_numbers, odd_numbers, odd_ints)
def test_the_solver_takes_any_root_hands_deals_and_numbers(case, name, data, iterations,
                                                           seconds, nid):
    """run(iterations, seconds): a negative count or a time that is negative, infinite or
    NaN is BergenError (never a run without end); node(nid), average(nid) out of range and
    best_response(b), values(b) with b other than 0 or 1 are ValueError. A root field
    replaced by an odd value, a hand or a deal replaced by odd numbers: BergenError (or
    TypeError, OverflowError for a value C cannot hold), or a tree that solves (as the real
    one does)."""
    _, g = case
    solver = EndgameSolver(g.rules, g.root, g.hands, g.deals)
    if _count_ok(iterations) and _seconds_ok(seconds):
        assert solver.run(min(iterations, 50), min(seconds, 0.05)) >= 0    # capped here
    elif _count_ok(iterations) and _seconds_ok(seconds, _endgame.MAX_SECONDS):
        # an odd valid time (a day and more) is ended here by the count
        assert 0 <= solver.run(min(iterations, 50) or 50, seconds) <= 50
    elif _count_ok(iterations):         # a time that is not a number 0..MAX_SECONDS
        with pytest.raises(BergenError):
            solver.run(min(iterations, 50) or 50, seconds)
    else:
        # not an integer >= 0 (a float, a bool, negative, huge): refused, never read as 0
        with pytest.raises(BergenError):
            solver.run(iterations, 0.05)
    for seconds in (math.nan, math.inf, -1.0, True, "1"):
        with pytest.raises(BergenError):
            solver.run(0, seconds)
    for count in (-1, 0.5, False, 2 ** 63):
        with pytest.raises(BergenError):
            solver.run(count, 0.01)
    for call in (solver.node, solver.average, solver.best_response, solver.values):
        try:
            call(nid)
        except (ValueError, OverflowError):
            pass
    solve_a_little(solver)
    root, hands, deals = g.root, [list(h) for h in g.hands], list(g.deals)
    if name in ROOT_VALUES:
        root = dataclasses.replace(root, **{name: data.draw(ROOT_VALUES[name])})
    elif name == "hands":
        p = data.draw(st.integers(0, 1))
        hands[p][data.draw(st.integers(0, len(hands[p]) - 1))] = data.draw(odd_ints)
    else:
        deals[data.draw(st.integers(0, len(deals) - 1))] = data.draw(
            st.tuples(odd_ints, odd_ints, odd_numbers))
    try:
        solver = EndgameSolver(g.rules, root, hands, deals, max_nodes=20_000, seconds=0.5)
    except (ValueError, TypeError, OverflowError):
        return
    solve_a_little(solver, finite=max(w for _, _, w in deals) < 1e200)


# ---- the draw rollouts -----------------------------------------------------------------------
ROLLOUT_RULES = [Rules(), Rules(players=3), Rules(players=4, partnerships=True),
                 Rules(draw="one")]


@functools.lru_cache(maxsize=None)
def states_before_draws(rules):
    """The fully known states just before each draw of the first rounds of a few random
    matches."""
    return [c.state for c in cuts(rules, 0, 4, rounds=1, decisions=False)
            if c.state.legal_moves() == [DRAW]]


@st.composite
def draws(draw):
    """(rules, the keyword arguments of `draw_rollouts` at a real state before a draw)."""
    rules = draw(st.sampled_from(ROLLOUT_RULES))
    found = states_before_draws(rules)
    s = found[draw(st.integers(0, len(found) - 1))]
    equity = ([0.5] * rules.target ** 2 if rules.n_sides == 2 and draw(st.booleans())
              else None)
    return rules, dict(rules=rules, hands=list(s.hands), reserve=list(s.reserve), left=s.left,
                       right=s.right, left_double=s.left_double, right_double=s.right_double,
                       scores=list(s.scores), to_move=s.to_move, draws=s.draws_this_turn,
                       passes=s.passes, playouts=2, seed=7, engine=1, equity=equity)


ROLLOUT_VALUES = {"hands": st.lists(odd_ints, max_size=5),
                  "reserve": st.lists(odd_ints, max_size=40),
                  "scores": st.lists(odd_ints, max_size=5), "left": odd_ints,
                  "right": odd_ints, "to_move": odd_ints, "draws": odd_ints,
                  "passes": odd_ints, "playouts": st.integers(-3, 3), "seed": odd_ints,
                  "engine": odd_ints, "equity": st.none() | st.lists(odd_floats, max_size=5)}


@FUZZ
@given(draws(), st.sampled_from(sorted(ROLLOUT_VALUES)), st.data())
def test_the_draw_rollouts_take_any_position(case, name, data):
    """`draw_rollouts` on a real state before a draw, one argument replaced by an odd value
    (or one entry of a list): ValueError (BergenError), TypeError or OverflowError, or rows
    of finite numbers, one per reserve tile."""
    rules, args = case
    _luck.draw_rollouts(**args)
    if name in ("hands", "reserve", "scores") and args[name] and data.draw(st.booleans()):
        value = list(args[name])
        value[data.draw(st.integers(0, len(value) - 1))] = data.draw(odd_ints)
    else:
        value = data.draw(ROLLOUT_VALUES[name])
    args[name] = value
    try:
        rows = _luck.draw_rollouts(**args)
    except (ValueError, TypeError, OverflowError):
        return
    assert len(rows) == len(args["reserve"])
    assert all(math.isfinite(x) for row in rows for x in row)


# ---- the playouts before the lead ------------------------------------------------------------
@st.composite
def hands_before_the_lead(draw):
    """(rules, the arguments of `LeadPlayouts` for a real hand before the lead)."""
    from bergen_search.game.state import lead_rank
    from bergen_search.information.lead import leads
    rules = draw(st.sampled_from(ROLLOUT_RULES + [Rules(no_double="lowest-tile")]))
    seat = draw(st.integers(0, rules.players - 1))
    hand = sum(1 << t for t in draw(st.permutations(range(28)))[:rules.hand_size])
    possible = leads(rules, seat, hand)
    return rules, dict(rules=rules, seat=seat, hand=hand, leads=possible,
                       scores=[0] * rules.n_sides, objective=draw(st.integers(0, 1)),
                       policy=draw(st.integers(0, 2)),
                       ranks=[lead_rank(rules, t) for t in range(28)],
                       seeds=list(range(len(possible))))


LEAD_VALUES = {"seat": odd_ints, "hand": odd_ints, "scores": st.lists(odd_ints, max_size=5),
               "objective": odd_ints, "policy": odd_ints, "ranks": st.lists(odd_ints, max_size=30),
               "leads": st.lists(st.tuples(odd_ints, odd_ints, odd_floats), max_size=3),
               "seeds": st.lists(odd_ints, max_size=3)}


@FUZZ
@given(hands_before_the_lead(), st.sampled_from(sorted(LEAD_VALUES)), st.data())
def test_the_playouts_before_the_lead_take_any_hand(case, name, data):
    """`LeadPlayouts` and `start_playouts` on a real hand before the lead, one argument replaced
    by an odd value: ValueError (BergenError), TypeError or OverflowError, or playouts whose
    sums are finite and whose counts add up."""
    rules, args = case
    assert sum(_before_lead.LeadPlayouts(**args).stats()[0]) == 0
    args[name] = data.draw(LEAD_VALUES[name])
    try:
        lp = _before_lead.LeadPlayouts(**args)
        done = lp.run(data.draw(st.integers(0, 40)))
        counts, sums, gains = lp.stats()
    except (ValueError, TypeError, OverflowError):
        return
    assert sum(counts) == done
    assert all(math.isfinite(x) for row in sums + gains for x in row)
    try:
        total = _before_lead.start_playouts(args["rules"], args["scores"], args["objective"],
                                            args["policy"], data.draw(st.integers(-2, 5)), 3)
    except (ValueError, TypeError, OverflowError):
        return
    assert all(math.isfinite(x) for x in total)
