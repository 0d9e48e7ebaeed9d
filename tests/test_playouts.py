"""The playout policies (`_core.pyx` and its twin `game/policy.py`) on seeded decisions."""
import pytest

from bergen_search.errors import BergenError
from bergen_search.game import policy

from bergen_search.game.match import deal
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import State, match_value
from bergen_search.game.tiles import tile_index


def _key(state, move):
    """What the safe policy ranks: the match the play scores, then whether the next seat
    then holds the tile that would score a match of its own."""
    a = state.apply(move)
    nxt = (state.to_move + 1) % state.rules.players
    gives = state.hands[nxt] >> tile_index(min(a.left, a.right), max(a.left, a.right)) & 1
    return match_value(a.left, a.right, a.left_double, a.right_double) * 4 + (0 if gives else 2)


def decision_states(players, rounds=40, seed=3):
    """(reference State, core state) pairs at decisions with two plays or more."""
    from bergen_search.game._core import Backend
    rules = Rules(players=players)
    out = []
    for r in range(rounds):
        rng = Rng(derive_seed(seed, r))
        hands, reserve = deal(rules, rng)
        ref = State.deal(rules, hands, reserve)
        core = Backend.new_state(rules, hands, reserve)
        while ref.ended is None:
            moves = ref.legal_moves()
            if ref.led and len(moves) > 1:
                out.append((ref, core))
            m = moves[rng.below(len(moves))]
            ref, core = ref.apply(m), core.apply(m)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_safe_and_scoring_choices(players, require_compiled):
    from bergen_search.game._core import PLAYOUTS, playout_move
    assert policy.PLAYOUTS == PLAYOUTS
    states = decision_states(players)
    assert len(states) > 100
    avoided = spread = 0
    for ref, core in states:
        moves = ref.legal_moves()
        keys = {m: _key(ref, m) for m in moves}
        top = max(keys.values())
        chosen = {playout_move(core, "safe", seed) for seed in range(24)}
        assert all(keys[m] == top for m in chosen), (ref, chosen, keys)
        spread += len(chosen) == sum(k == top for k in keys.values())
        avoided += top % 4 == 2 and min(k % 4 for k in keys.values()) == 0
        points = {m: keys[m] // 4 for m in moves}
        s = playout_move(core, "scoring", 1)
        assert points[s] == max(points.values())
        assert playout_move(core, "random", 1) in moves
        for name in PLAYOUTS:
            for seed in range(6):
                assert policy.playout_move(ref, name, seed) == playout_move(core, name, seed)
    assert avoided > 10            # positions where a play hands the next seat a match
    assert spread > 0.9 * len(states)   # ties are broken at random over all the equals


def test_playout_move_checks_its_input(require_compiled):
    """The core and its twin alike."""
    from bergen_search.game._core import Backend, playout_move
    ref, core = decision_states(2, rounds=2)[0]
    rules = Rules()
    hands, reserve = deal(rules, Rng(1))
    fresh = (Backend.new_state(rules, hands, reserve), State.deal(rules, hands, reserve))
    for move, state, lead in ((playout_move, core, fresh[0]),
                              (policy.playout_move, ref, fresh[1])):
        with pytest.raises(BergenError, match="unknown playout"):
            move(state, "clever", 1)
        with pytest.raises(BergenError, match="fewer than two"):
            move(lead, "safe", 1)        # the lead: one legal move


def test_the_play_policies_have_one_home():
    """Every play policy is written once in C (`_core`) and once in Python (`policy.py`)."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    c_choice = re.compile(
        r"^cdef (?:inline )?int (\w*(?:choice|_index|match_tile|match_points))\(", re.M)
    py_choice = re.compile(r"^def (\w*(?:_choice|match_tile|match_points))\(", re.M)
    c_homes = {p.name: c_choice.findall(p.read_text(encoding="utf-8"))
               for p in (root / "src_cython").rglob("*.p[yx][xd]")}
    py_homes = {p.relative_to(root).as_posix(): py_choice.findall(p.read_text(encoding="utf-8"))
                for p in (root / "bergen_search").rglob("*.py")}
    assert {k for k, v in c_homes.items() if v} == {"_core.pyx", "_core.pxd"}, c_homes
    assert {"greedy_index", "playout_choice", "floor_index"} <= set(c_homes["_core.pxd"])
    assert {k for k, v in py_homes.items() if v} == {"bergen_search/game/policy.py"}, \
        {k: v for k, v in py_homes.items() if v}
