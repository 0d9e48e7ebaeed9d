"""The compiled core against the pure-Python reference: identical results for the same seed,
and the invariants of every walk and match (every tile in one place, the reserve never below
`reserve_kept`, scores never down, the end exactly at the target). Game i's configuration is
drawn from its index (`game_config(i)`), so a failure names a game that replays on its own."""
import pytest

from bergen_search.errors import BergenError
from bergen_search.game import match
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import BLOCKEDS, DRAWS, LEADS, NO_DOUBLES, Rules
from bergen_search.game.state import DRAW, PASS, State, actions
from bergen_search.game.tiles import (ALL_TILES, DOUBLE_OF, DOUBLES, LOW_RANK, PIPS, TILE_HIGH,
    TILE_LOW, TILES_WITH, popcount)

SEED = 20240601
#: XORed into a game's seed to draw its configuration, apart from its deals and plays.
CONFIG_STREAM = 0x2545F4914F6CDD1D
N_CHUNKS, CHUNK = 20, 1000          # 20,000 seeded matches in all
#: Chunks of matches, and parts of the walks, in the default run (the rest: `slow`, CI).
FAST_CHUNKS, FAST_PARTS = 1, 1
N_PARTS = 6                          # the walks in parts of N_WALKS // N_PARTS
RANDOM_ROUNDS, FAST_RANDOM_ROUNDS = 300, 150     # configurations of test_random_rounds_identical
N_WALKS = 3000


def _split(n, fast):
    """range(n) as parameters, the first `fast` in the default run, the rest behind `slow`."""
    return [i if i < fast else pytest.param(i, marks=pytest.mark.slow) for i in range(n)]


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
HAND_SIZES = (None, None, None, 1, 3, 4, 7)   # None: the default for the player count
TARGETS = (None, None, None, 2, 5, 9, 25)     # None: the default for the sides


def game_config(i: int):
    """(rules, engines, seed, start_scores) of game i: every table in turn, every rule field
    and engine drawn per game, start scores none, anywhere, or 1..4 short of the target."""
    rng = Rng(derive_seed(SEED, i) ^ CONFIG_STREAM)

    def pick(seq):
        return seq[rng.below(len(seq))]

    players, partnerships = TABLES[i % len(TABLES)]
    fields = {name: pick(values) for name, values in CHOICES.items()}
    hand_size = pick(HAND_SIZES)
    if hand_size is not None and players * hand_size + fields["reserve_kept"] > 28:
        hand_size = None
    rules = Rules(players=players, partnerships=partnerships, hand_size=hand_size,
                  target=pick(TARGETS), **fields)
    engines = [rng.below(2) for _ in range(players)]
    kind = rng.below(3)
    if kind == 0:
        start = None
    elif kind == 1:
        start = tuple(rng.below(rules.target) for _ in range(rules.n_sides))
    else:
        start = tuple(max(0, rules.target - 1 - rng.below(4)) for _ in range(rules.n_sides))
    return rules, engines, derive_seed(SEED, i), start


def _difference(core_log, ref_log) -> str:
    """Where two match logs first differ, for a readable failure."""
    pairs = [(name, getattr(core_log, name), getattr(ref_log, name))
             for name in ("rules", "start_scores", "scores", "winner")]
    for r, (a, b) in enumerate(zip(core_log.rounds, ref_log.rounds)):
        events = enumerate(zip(a.events, b.events))
        pairs += [(f"round {r} event {k}", x, y) for k, (x, y) in events]
        pairs.append((f"round {r}", a, b))
    pairs.append(("rounds", len(core_log.rounds), len(ref_log.rounds)))
    return next(f"{what}: core {x} != reference {y}" for what, x, y in pairs if x != y)


def test_configs_cover_every_variant():
    """The configurations of every default range (the smallest first: the random rounds',
    the walks', the matches') cover every variant; the full ranges behind `slow` start with
    them, so they do too."""
    required = ({(name, v) for name, values in CHOICES.items() for v in values}
                | {("table", players, partnerships) for players, partnerships in TABLES}
                | {("engines", (0,)), ("engines", (1,)), ("engines", (0, 1)), ("start", True),
                   ("hand_size", 1), ("hand_size", 7), ("target", 2), ("target", 25)})
    seen = set()
    checkpoints = {FAST_RANDOM_ROUNDS, FAST_PARTS * N_WALKS // N_PARTS, FAST_CHUNKS * CHUNK}
    for i in range(max(checkpoints)):
        rules, engines, _, start = game_config(i)
        seen |= {(name, getattr(rules, name)) for name in CHOICES}
        seen |= {("table", rules.players, rules.partnerships),
                 ("engines", tuple(sorted(set(engines)))),
                 ("start", start is not None and max(start) >= rules.target - 4),
                 ("hand_size", rules.hand_size), ("target", rules.target)}
        if i + 1 in checkpoints:
            assert required <= seen, (i + 1, required - seen)


def test_tables_match_tiles(core):
    from bergen_search.game import _core
    t = _core._tables()
    assert t["TILE_LOW"] == TILE_LOW and t["TILE_HIGH"] == TILE_HIGH
    assert t["PIPS"] == PIPS and t["LOW_RANK"] == LOW_RANK
    assert t["TILES_WITH"] == TILES_WITH and t["DOUBLE_OF"] == DOUBLE_OF
    assert t["DOUBLES"] == DOUBLES


@pytest.mark.parametrize("seed", [0, 1, 2**63 + 5, 2**64 - 1, -3, derive_seed(7, 7)])
def test_rng_is_bit_for_bit(core, seed):
    from bergen_search.game import _core
    for n in (1, 2, 3, 28, 56, 2**31 + 11):
        r = Rng(seed)
        assert _core._rng_below(seed, n, 50) == [r.below(n) for _ in range(50)]
    for n in (0, 1, 2, 28, 200):
        items = list(range(n))
        Rng(seed).shuffle(items)
        assert _core._rng_shuffle(seed, n) == items


def _check_match(log, rules, start, where):
    """A match log's invariants: whole deals, draws from the reserve's head, rising scores, the
    end exactly at the target."""
    scores = log.start_scores
    assert scores == (start if start is not None else (0,) * rules.n_sides)
    for r, rnd in enumerate(log.rounds):
        dealt = list(rnd.hands) + [1 << t for t in rnd.reserve]
        union = 0
        for mask in dealt:
            union |= mask
        assert sum(popcount(m) for m in dealt) == 28 and union == ALL_TILES, where
        assert all(popcount(h) == rules.hand_size for h in rnd.hands), where
        drawn = [tile for _, action, tile in rnd.events if action == DRAW]
        assert drawn == rnd.reserve[:len(drawn)], where
        assert len(rnd.reserve) - len(drawn) >= rules.reserve_kept, where
        assert all(tile == -1 for _, action, tile in rnd.events if action != DRAW), where
        assert all(a >= b for a, b in zip(rnd.scores, scores)), where
        scores = rnd.scores
        last = r == len(log.rounds) - 1
        assert (max(scores) >= rules.target) == last, where
        assert (rnd.end == "target") <= last, where
    assert log.scores == scores
    assert [s for s, v in enumerate(scores) if v >= rules.target] == [log.winner], where


@pytest.mark.parametrize("chunk", _split(N_CHUNKS, FAST_CHUNKS))
def test_play_match_identical(core, chunk):
    for i in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        rules, engines, seed, start = game_config(i)
        ref_log = match.play_match(rules, engines, seed, start)
        core_log = core.play_match(rules, engines, seed, start)
        if core_log != ref_log:
            pytest.fail(f"game {i} ({rules}, engines {engines}, start {start}): "
                        + _difference(core_log, ref_log))
        _check_match(ref_log, rules, start, f"game {i}")


def test_play_match_accepts_engine_names(core):
    rules = Rules(players=3)
    log = core.play_match(rules, ["greedy", "random", 1], 11)
    assert log == match.play_match(rules, [1, 0, 1], 11)
    for seed in (-3, 2**70 + 1, 0):   # seeds are taken modulo 2**64, as Rng does
        assert core.play_match(rules, [0, 0, 1], seed) == match.play_match(rules, [0, 0, 1], seed)
    with pytest.raises(BergenError):
        core.play_match(rules, [0, 7, 1], 11)
    with pytest.raises(BergenError):
        core.play_match(rules, [0, 1], 11)
    with pytest.raises(BergenError):
        core.play_match(rules, [0, 1, 0], 11, start_scores=(1, 2))


def test_random_rounds_known_answers(core):
    """The checksum of a fixed run of 1,000 rounds on each table (a change here changes the
    rules), and the reference's the core's over the first 300 (its 1,000 took four fifths of
    the time; the backends are compared on seeded configurations by the rest of this file)."""
    for (players, partnerships), expected in zip(TABLES, (24716, 26414, 26042, 26042)):
        rules = Rules(players=players, partnerships=partnerships)
        assert core.random_rounds(rules, 1000, 2024) == expected, rules
        assert match.random_rounds(rules, 300, 2024) == core.random_rounds(rules, 300, 2024), rules


@pytest.mark.parametrize("count", [FAST_RANDOM_ROUNDS, pytest.param(RANDOM_ROUNDS,
                                                                      marks=pytest.mark.slow)])
def test_random_rounds_identical(core, count):
    for i in range(count):
        rules, _, seed, _ = game_config(i)
        assert core.random_rounds(rules, 20, seed) == match.random_rounds(rules, 20, seed), i
    assert core.random_rounds(Rules(), 0, 5) == 0


ATTRS = ("scores", "to_move", "ended", "winner", "left", "right", "left_double", "right_double",
         "hands", "reserve_size", "passes", "last_points", "reserve", "draws_this_turn")


def _attrs(state) -> dict:
    d = {name: getattr(state, name) for name in ATTRS}
    d["reserve"] = tuple(d["reserve"])
    return d


def _check_tiles(state, line: int):
    """Every tile in exactly one place: a hand, the line (`line`, a mask) or the reserve."""
    reserve = tuple(state.reserve)
    assert len(reserve) == state.reserve_size
    places = list(state.hands) + [line] + [1 << t for t in reserve]
    union = 0
    for mask in places:
        assert union & mask == 0, "a tile in two places"
        union |= mask
    assert union == ALL_TILES
    assert sum(popcount(m) for m in places) == 28


def _check_step(before, move, state, rules, where):
    """One apply's invariants: the reserve, the scores, the winner and how the round ended."""
    assert state.reserve_size >= rules.reserve_kept, where
    if move == DRAW:
        assert state.reserve_size == before.reserve_size - 1, where
    assert tuple(a - b for a, b in zip(state.scores, before.scores)) == \
        tuple(state.last_points) and min(state.last_points) >= 0, where
    reached = [s for s, v in enumerate(state.scores) if v >= rules.target]
    assert reached == ([] if state.winner is None else [state.winner]), where
    assert state.winner is None or state.ended is not None, where
    if state.ended is not None:
        assert state.to_move == -1 and state.legal_moves() == [], where
    if state.ended == "out":
        assert 0 in state.hands, where
    if state.ended == "blocked":
        assert state.reserve_size <= rules.reserve_kept, where
        assert state.passes >= rules.players, where


@pytest.mark.parametrize("part", _split(N_PARTS, FAST_PARTS))
def test_core_state_walks_match_reference(core, part):
    """Random walks through whole rounds: the same legal moves (those `actions` gives the
    hand to move), attributes and refusals of illegal moves, and every step's invariants."""
    for i in range(part * N_WALKS // N_PARTS, (part + 1) * N_WALKS // N_PARTS):
        rules, _, seed, start = game_config(i)
        rng = Rng(seed)
        hands, reserve = match.deal(rules, rng)
        ref = State.deal(rules, hands, reserve, start)
        cs = core.new_state(rules, hands, reserve, start)
        step = line = 0
        while True:
            where = f"walk {i} step {step} ({rules})"
            legal = ref.legal_moves()
            assert cs.legal_moves() == legal, where
            assert _attrs(cs) == _attrs(ref), where
            _check_tiles(ref, line)
            assert legal == sorted(set(legal)), where
            if ref.line and ref.ended is None:
                assert legal == actions(rules, ref.hands[ref.to_move], ref.left, ref.right,
                                        ref.reserve_size, ref.draws_this_turn), where
            if DRAW in legal or PASS in legal:
                assert len(legal) == 1, where
                hand = ref.hands[ref.to_move]
                assert not hand & (TILES_WITH[ref.left] | TILES_WITH[ref.right]), where
            illegal = [m for m in range(PASS + 1) if m not in legal]
            bads = [illegal[rng.below(len(illegal))]]
            if not ref.line:        # and the lead coded with the right end
                bads.append(legal[0] | 1)
            for bad in bads:
                with pytest.raises(BergenError):
                    cs.apply(bad)
                with pytest.raises(BergenError):
                    ref.apply(bad)
            if not legal:
                assert ref.ended is not None
                break
            move = legal[rng.below(len(legal))]
            before = ref
            ref, cs = ref.apply(move), cs.apply(move)
            _check_step(before, move, ref, rules, where)
            line |= 1 << (move >> 1) if move < DRAW else 0
            step += 1


def test_new_state_checks_its_input(core):
    """A deal with a hand short, a tile twice or misplaced, or a reserve too short is refused
    by both backends (one without a double under `redeal`: test_rules)."""
    rules = Rules()
    hands, reserve = match.deal(rules, Rng(3))
    core.new_state(rules, hands, reserve)
    bad_inputs = [   # (hands, reserve, scores, the reference refuses it too)
        (hands[:1], reserve, None, True),                                # a hand missing
        ([hands[0] & (hands[0] - 1), hands[1]], reserve, None, True),    # a hand short
        (hands, reserve[:-1] + [(hands[0] & -hands[0]).bit_length() - 1], None,
         True),                                                          # in a hand and reserve
        ([hands[0], hands[1] | 1 << 27 | 1 << 26], reserve, None, True),  # too many tiles
        ([hands[0], hands[0]], reserve, None, True),                     # a tile held twice
        (hands, reserve[:-1], None, True),                               # reserve too short
        (hands, reserve[:-1] + [reserve[0]], None, True),                # a tile twice
        (hands, reserve, (1, 2, 3), True),                               # scores for 3 sides
        # the reference does not range-check tiles (a reported gap, not a rule)
        (hands, reserve[:-1] + [28], None, False),                       # no such tile
        ([hands[0] & (hands[0] - 1) | 1 << 28, hands[1]], reserve, None, False),
        (["x", hands[1]], reserve, None, False),                         # not a mask
    ]
    for h, r, s, reference_refuses in bad_inputs:
        with pytest.raises(BergenError):
            core.new_state(rules, h, r, s)
        if reference_refuses:
            with pytest.raises(BergenError):
                State.deal(rules, h, r, s)
    with pytest.raises(BergenError):
        core.new_state({"players": 2}, hands, reserve)

