"""The pure-Python ISMCTS is the compiled one's oracle: the same trees on seeded decisions."""
import math
from dataclasses import dataclass

import pytest
from support import sizes

from bergen_search.errors import BergenError
from bergen_search.formats.position import Position
from bergen_search.game import match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import BLOCKEDS, DRAWS, LEADS, NO_DOUBLES, Rules
from bergen_search.game.state import DRAW, State
from bergen_search.information.infoset import from_position, from_state_and_events
from bergen_search.information.sampler import ReferenceSampler, WorldTable
from bergen_search.search import backend
from bergen_search.search.engines.ismcts import reference as ismcts_ref

SEED = 20261217
#: XORed into a decision's seed to draw its configuration, apart from its deal and plays.
CONFIG_STREAM = 0x2545F4914F6CDD1D
#: Decisions in the default run, and behind the `slow` marker (in chunks).
FAST, SLOW_CHUNKS, CHUNK = 40, 30, 100
#: `search()` compared end to end: in the default run, and behind the marker.
FAST_SEARCHES, SLOW_SEARCHES = 3, 120
#: Nodes of each tree compared child by child (the rest by the counts and root statistics).
TREE_NODES = 600

TABLES = ((2, False), (3, False), (4, False), (4, True))
CHOICES = {
    "lead": LEADS,
    "no_double": NO_DOUBLES,
    "draw": DRAWS,
    "reserve_kept": (0, 1, 2, 3),
    "out_bonus": (2, 5),
    "blocked": BLOCKEDS,
    "endgame_cap": (True, False),
}
HAND_SIZES = (None, None, None, 3, 4, 7)      # None: the default for the player count
TARGETS = (None, None, 3, 5, 9, 25)           # None: the default for the sides
EXPLORATIONS = (0.0, 0.35, 0.7, 0.7, 1.4)


@dataclass
class Case:
    """One seeded decision: what both trees are given and what is asked of them."""
    rules: Rules
    info: object
    table: WorldTable
    seed: int
    settings: dict          # the tree's keyword arguments
    plan: list              # ("run", n) | ("run_move", move, n) | ("evaluate", worlds, seed)
    history: bool           # the information set from the events (else a position)
    label: str


def _rules(rng: Rng, i: int) -> Rules:
    def pick(seq):
        return seq[rng.below(len(seq))]
    players, partnerships = TABLES[i % len(TABLES)]
    fields = {name: pick(values) for name, values in CHOICES.items()}
    hand_size = pick(HAND_SIZES)
    if hand_size is not None and players * hand_size + fields["reserve_kept"] > 28:
        hand_size = None
    return Rules(players=players, partnerships=partnerships, hand_size=hand_size,
                 target=pick(TARGETS), **fields)


def _cut(rules: Rules, rng: Rng, start):
    """(state, dealt hand, events) of a seeded random round cut after the lead, or None."""
    hands, reserve = match.deal(rules, rng)
    st = State.deal(rules, hands, reserve, start)
    events = []
    stop = rng.below(60)
    k = 0
    while st.ended is None:
        if st.line:
            if k == stop:
                return st, hands[st.to_move], events
            k += 1
        moves = st.legal_moves()
        m = moves[0] if len(moves) == 1 else moves[rng.below(len(moves))]
        events.append((st.to_move, m, st.reserve[0] if m == DRAW else None))
        st = st.apply(m)
    return None


def decision_case(i: int) -> Case:
    """Decision i: its rules, information set, tree settings and plan, from its index alone."""
    rng = Rng(derive_seed(SEED, i) ^ CONFIG_STREAM)
    while True:
        rules = _rules(rng, i)
        kind = rng.below(3)
        start = (None if kind == 0 else
                 tuple(rng.below(rules.target) for _ in range(rules.n_sides)) if kind == 1 else
                 tuple(max(0, rules.target - 1 - rng.below(4)) for _ in range(rules.n_sides)))
        cut = _cut(rules, rng, start)
        if cut is not None:
            break
    st, hand, events = cut
    seat = st.to_move
    history = rng.below(4) != 0 or st.draws_this_turn
    if history:
        info = from_state_and_events(rules, seat, hand, start, events)
    else:
        sizes = tuple(st.hand_size(j) for j in range(rules.players))
        info = from_position(Position(rules, st.scores, seat, st.hands[seat], st.line, sizes,
                                      st.reserve_size, {}).check())
    inference = "on" if rng.below(2) == 1 else "off"
    from bergen_search.search.registry import algorithms
    table = algorithms()["ismcts"].table(info, {"inference": inference})
    objective = ("points", "match")[rng.below(4) == 0]
    settings = dict(exploration=EXPLORATIONS[rng.below(len(EXPLORATIONS))],
                    objective=objective, playout=("random", "scoring", "safe")[rng.below(3)],
                    merge_twins=rng.below(2) == 1, choice_stats=rng.below(2) == 1)
    scale = 1 if objective == "points" else 3         # match playouts last several rounds
    plan = [("run", (20 + rng.below(120)) // scale)]
    moves = st.legal_moves()
    choices = ismcts_ref._choices(st, settings["merge_twins"])     # twins merged: one choice
    if len(choices) > 1 and rng.below(2):
        # As sequential halving: a share for some choices (a right twin means its left one).
        for m in moves[:1 + rng.below(len(moves))]:
            plan.append(("run_move", m, (5 + rng.below(30)) // scale))
    if rng.below(2):
        plan.append(("run", (10 + rng.below(60)) // scale))
    if rng.below(2):
        plan.append(("evaluate", 1 + rng.below(12), rng.next64()))
    label = (f"decision {i}: {rules.players}p{' partnerships' if rules.partnerships else ''} "
             f"{rules.to_dict(full=False)}, seat {seat}, {len(events)} events, "
             f"history {bool(history)}, inference {inference}, {settings}")
    return Case(rules, info, table, rng.next64(), settings, plan, bool(history), label)


def tree_dump(tree, limit=TREE_NODES) -> list:
    """The tree breadth first: (edge keys from the root, the children's rows), `limit` nodes."""
    out, queue, nodes = [], [()], 0
    while queue and nodes < limit:
        keys = queue.pop(0)
        kids = tree.children(keys)
        out.append((keys, kids))
        nodes += len(kids)
        queue.extend(keys + (k[0],) for k in kids)
    return out


def both_trees(case, core_modules, seed=None, **kw):
    """The compiled tree and the reference's of `case` (its seed unless `seed`)."""
    IsmctsTree, CoreSampler = core_modules
    seed = case.seed if seed is None else seed
    return (IsmctsTree(CoreSampler(case.info, case.table), seed, **kw),
            ismcts_ref.IsmctsTree(ReferenceSampler(case.info, case.table), seed, **kw))


def step(tree, what):
    """One step of a plan on `tree`, and what it returns."""
    if what[0] == "run":
        return tree.run(what[1], 0)
    if what[0] == "run_move":
        return tree.run_move(what[1], what[2], 0)
    return tree.evaluate_root(what[1], what[2])


def grown(case, core_modules):
    """Both trees of `case` after the runs of its plan."""
    trees = both_trees(case, core_modules, **case.settings)
    for what in case.plan:
        if what[0] != "evaluate":
            for tree in trees:
                step(tree, what)
    return trees


def check_case(i: int, core_modules) -> int:
    """Decision i on both trees; returns the iterations run. Fails naming the decision. (The
    same root statistics: the same most visited move, and the final pass's rows compared.)"""
    case = decision_case(i)
    core, ref = both_trees(case, core_modules, **case.settings)
    for what in case.plan:
        assert step(core, what) == step(ref, what), f"{case.label}: {what}"
    for name in ("iterations", "n_nodes", "twins", "seat", "objective", "playout",
                 "merge_twins", "choice_stats", "value_scale", "exploration"):
        assert getattr(core, name) == getattr(ref, name), f"{case.label}: {name}"
    assert core.root_stats() == ref.root_stats(), case.label
    assert core.root_side_stats() == ref.root_side_stats(), case.label
    assert tree_dump(core) == tree_dump(ref), case.label
    return core.iterations


@pytest.fixture
def core_modules(require_compiled):
    from bergen_search.search.engines.ismcts import _ismcts
    from bergen_search.information import _sampler
    require_compiled(_ismcts, "bergen_search.search.engines.ismcts._ismcts")
    return _ismcts.IsmctsTree, _sampler.CoreSampler


# ---- the cases cover what they claim -----------------------------------------------------------
@pytest.mark.parametrize("cases", [FAST, pytest.param(FAST + 4 * CHUNK, marks=pytest.mark.slow)])
def test_cases_cover_every_variant_and_setting(cases):
    """The default run's decisions cover every variant and setting."""
    seen = set()
    for i in range(cases):
        case = decision_case(i)
        for name in CHOICES:
            seen.add((name, getattr(case.rules, name)))
        seen.add(("table", case.rules.players, case.rules.partnerships))
        for key, value in case.settings.items():
            seen.add((key, value))
        seen.add(("weighted", case.table.factors != {}))
        seen.add(("history", case.history))
        seen.add(("mid-turn", case.info.draws_this_turn > 0))
        seen.update(("plan", step[0]) for step in case.plan)
        moves = ReferenceSampler(case.info, case.table).base.legal_moves()
        seen.add(("root", "draw" if moves == [DRAW] else "pass" if len(moves) == 1 and
                  moves[0] > DRAW else "choice" if len(moves) > 1 else "one play"))
    want = ({(name, v) for name, values in CHOICES.items() for v in values}
            | {("table", *t) for t in TABLES} | {("objective", "points"), ("objective", "match")}
            | {("playout", p) for p in ("random", "scoring", "safe")}
            | {(k, b) for k in ("merge_twins", "choice_stats", "weighted", "history")
               for b in (True, False)}
            | {("mid-turn", True), ("plan", "run_move"), ("plan", "evaluate")}
            | {("root", r) for r in ("draw", "pass", "choice")})
    assert want <= seen, want - seen


# ---- the same tree ------------------------------------------------------------------------
@pytest.mark.parametrize("i", range(FAST))
def test_same_tree(i, core_modules):
    check_case(i, core_modules)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(SLOW_CHUNKS))
def test_same_tree_thousands(chunk, core_modules):
    """SLOW_CHUNKS x CHUNK decisions (3,000), FAST.. onwards."""
    start = FAST + chunk * CHUNK
    for i in range(start, start + CHUNK):
        check_case(i, core_modules)


def test_a_pass_of_one_move_or_with_a_prefix_is_the_full_pass(core_modules):
    """`evaluate_root`'s `only` and `prefix` give the full pass's rows; bad ones refused alike."""
    only = prefixed = twins = 0
    for i in list(range(20)) + [40, 46]:          # 40 and 46: merged twins at the root
        case = decision_case(i)
        trees = grown(case, core_modules)
        worlds = 4 + i % 7
        rows = []
        for tree in trees:
            full = tree.evaluate_root(worlds, i)
            for row in full:
                assert tree.evaluate_root(worlds, i, only=row[0]) == [row], case.label
                only += 1
            for p in (1, worlds // 2, worlds) if i < 12 or i >= 20 else ():
                got = tree.evaluate_root(worlds, i, prefix=p)
                assert [r[:4] for r in got] == full, case.label
                assert [r[4] for r in got] == [r[1] for r in tree.evaluate_root(p, i)]
                assert tree.evaluate_root(worlds, i, only=full[-1][0], prefix=p) == [got[-1]]
                prefixed += 1
            twins += len(tree.twins)
            rows.append((full, tree.evaluate_root(worlds, i, prefix=worlds // 2)))
        assert rows[0] == rows[1], case.label
    assert only > 100 and prefixed > 60 and twins > 0
    messages = []
    for tree in both_trees(decision_case(0), core_modules, 1):     # its root moves: 34 and 54
        for bad in (55, -1, "34", 34.0):
            with pytest.raises(BergenError, match="is not a root move") as e:
                tree.evaluate_root(5, 1, only=bad)
            messages.append(str(e.value))
        for bad in (6, -1, "2", 2.0):
            with pytest.raises(BergenError, match="prefix must be") as e:
                tree.evaluate_root(5, 1, prefix=bad)
            messages.append(str(e.value))
    assert messages[:8] == messages[8:]


# ---- the parts ------------------------------------------------------------------------------
#: Bad arguments to a tree: (what is called, a needle of its message; None: any message).
REFUSED = [*((lambda cls, sampler, tree, kw=kw: cls(sampler, **{"seed": 1, **kw}), None)
             for kw in (dict(seed="seed"), dict(seed=True), dict(objective=2),
                        dict(objective="both"), dict(objective=True), dict(exploration=-1.0),
                        dict(exploration=math.nan))),
           (lambda cls, sampler, tree: cls(sampler, 1, playout="clever"), "unknown playout"),
           (lambda cls, sampler, tree: tree.run(0, 0), "limit"),
           (lambda cls, sampler, tree: tree.evaluate_root(0, 1), "worlds must be an integer 1.."),
           (lambda cls, sampler, tree: tree.run_move(57, 10, 0), "is not a play"),
           *((lambda cls, sampler, tree, a=a: tree.run(*a), None)
             for a in ((10 ** 30, 0), (-1, 0), (10, math.inf), (10, math.nan)))]


def test_bad_arguments_as_the_core(core_modules):
    """The same checks and messages as the core; a second run and a tree before the lead refused."""
    IsmctsTree, CoreSampler = core_modules
    case = decision_case(0)
    samplers = (CoreSampler(case.info, case.table), ReferenceSampler(case.info, case.table))
    messages = []
    for cls, sampler in zip((IsmctsTree, ismcts_ref.IsmctsTree), samplers):
        assert cls(sampler, 1).value_scale == pytest.approx(1 / ismcts_ref.POINTS_SCALE)
        tree = cls(sampler, 1, objective="match", playout="scoring")
        assert (tree.objective, tree.playout, tree.value_scale) == (1, 1, 1.0)
        for call, needle in REFUSED:
            with pytest.raises(BergenError, match=needle) as e:
                call(cls, sampler, tree)
            messages.append(str(e.value))
    assert messages[:len(REFUSED)] == messages[len(REFUSED):]
    tree = ismcts_ref.IsmctsTree(samplers[1], 1)
    tree._running = True
    with pytest.raises(RuntimeError, match="already running"):
        tree.run(1, 0)
    from bergen_search.formats.position import position_from_flags
    info = from_position(position_from_flags(hand="0-0 1-2 3-4 5-6 2-2 4-4", line="",
                                             hand_sizes="6,6"))
    with pytest.raises(BergenError, match="lead is forced"):
        ismcts_ref.IsmctsTree(ReferenceSampler(info), 1)


def test_counters_memory_and_the_cores_sampler(core_modules):
    """memory_bytes is NODE_BYTES a node; given the core's sampler the Python tree reads its
    information set and table and grows the core's tree; the reference sampler draws the core's
    worlds (its walk is the table's: test_sampler.py)."""
    IsmctsTree, CoreSampler = core_modules
    case = decision_case(5)
    sampler = CoreSampler(case.info, case.table)
    rngs = Rng(5), Rng(5)
    ref_sampler = ReferenceSampler(case.info, case.table)
    assert ref_sampler.total == sampler.total
    assert [ref_sampler.sample(rngs[0]) for _ in range(5)] == [sampler.sample(rngs[1])
                                                                for _ in range(5)]
    assert rngs[0].state == rngs[1].state
    a = ismcts_ref.IsmctsTree(sampler, 9, **case.settings)
    b = IsmctsTree(sampler, 9, **case.settings)
    assert (a.iterations, a.n_nodes) == (0, 1)
    assert a.run(50, 0) == b.run(50, 0) == 50
    assert (a.root_stats(), a.n_nodes) == (b.root_stats(), b.n_nodes)
    assert a.memory_bytes == ismcts_ref.NODE_BYTES * a.n_nodes > 0
    assert a.sampler.table is case.table


# ---- search() on either backend -----------------------------------------------------------
def search_case(i: int):
    """(info, limits, search keyword arguments) of search case i."""
    from bergen_search.search.api import Limits
    case = decision_case(10_000 + i)
    rng = Rng(derive_seed(SEED ^ CONFIG_STREAM, i))
    kind = rng.below(4)
    kwargs = dict(seed=rng.next64(), objective=case.settings["objective"])
    if kind == 1:
        kwargs["algorithm"] = "classic"
    elif kind == 2:
        kwargs.update(replicates=1 + rng.below(4), choose=("value", "visits")[rng.below(2)],
                      playout=case.settings["playout"])
    elif kind == 3:
        kwargs.update(root="ucb", stats="all", twins=False)
    budget = (40 + rng.below(300)) // (3 if kwargs["objective"] == "match" else 1)
    return case.info, Limits(iterations=budget), kwargs


def check_search(i: int, monkeypatch):
    from bergen_search.search.api import search
    info, limits, kwargs = search_case(i)
    # ISMCTS on either backend: the exact endgame runs on the core only (its own oracle test
    # is test_endgame.py), so it is off here.
    kwargs = {**kwargs, "endgame": False}
    core_backend = backend.SEARCH
    a = search(info, limits, **kwargs)
    monkeypatch.setattr(backend, "SEARCH", backend.reference_search("test"))
    try:
        b = search(info, limits, **kwargs)
    finally:
        monkeypatch.setattr(backend, "SEARCH", core_backend)
    assert (a.info.pop("backend"), b.info.pop("backend")) == ("core", "reference")
    a.info.pop("seconds"), b.info.pop("seconds")
    assert a == b, (i, kwargs)
    return a


@pytest.mark.parametrize("start, stop", sizes((0, FAST_SEARCHES),
                                              (FAST_SEARCHES, FAST_SEARCHES + SLOW_SEARCHES)))
def test_search_is_the_same_on_either_backend(start, stop, monkeypatch, core_modules):
    for i in range(start, stop):
        check_search(i, monkeypatch)


def test_search_budget_and_expectimax_on_the_reference(monkeypatch):
    """The reference's budget is the FALLBACK_DIVISOR-th; expectimax is refused."""
    from bergen_search.search.api import search
    from bergen_search.search.registry import algorithms
    info = decision_case(7).info
    ref = backend.reference_search("test")
    monkeypatch.setattr(backend, "SEARCH", ref)
    result = search(info, replicates=1, choose="visits")
    assert result.info["iterations"] == ref.budget(algorithms()["ismcts"].default_budget) == \
        algorithms()["ismcts"].default_budget // backend.FALLBACK_DIVISOR
    assert result.info["backend"] == "reference"
    with pytest.raises(BergenError, match="expectimax needs the compiled core"):
        search(info, algorithm="expectimax")
    assert backend.SearchBackend("core", object).budget(100) == 100
    assert "pure Python (test)" in ref.note and backend.load_search(True).name == "reference"


@pytest.mark.parametrize("i, iterations", [
    (0, 1000), (9, 3000), *(pytest.param(i, 3000, marks=pytest.mark.slow) for i in (2, 7))])
# 2 to 4 players, points and match (two of them behind the slow marker)
def test_both_trees_stop_growing_at_the_same_iteration(i, iterations, core_modules):
    """With the same memory cap both trees stop growing at the same iteration."""
    case = decision_case(i)
    room = 1500 * ismcts_ref.CORE_NODE_BYTES    # a first pool of 1,500 nodes: full soon
    # (each tree counts on an account of its own, whatever other trees are alive)
    core, ref = both_trees(case, core_modules, **case.settings, max_bytes=room)
    assert core.run(iterations, 0) == ref.run(iterations, 0) == iterations
    assert core.full and ref.full and core.full_at == ref.full_at < iterations
    assert (core.n_nodes, core.root_stats(), core.root_side_stats(), tree_dump(core)) == \
        (ref.n_nodes, ref.root_stats(), ref.root_side_stats(), tree_dump(ref))
