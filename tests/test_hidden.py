"""Hidden information stays hidden: for a cut point of a real game, `alternate_history` writes
another complete history that gives seat s the same observations; the rules accept it, it gives
the same information set, and `bergen best` / `bergen analyze` answer identically, seed for
seed. (That the sampler's worlds are every history the seat cannot tell apart, brute-forced:
test_sampler.py.)"""
import json
import random

import pytest
from support import bergen, plies, seen_record

from bergen_search.formats.game import load_game
from bergen_search.formats.replay import replay
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.tiles import format_mask, tile_str
from bergen_search.information.infoset import RESERVE, Observer
from bergen_search.information.sampler import WorldTable
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines


def _observer_at(log, k: int, seat: int) -> Observer:
    """The observer of `seat` alone in round 0, before event k."""
    return next(obs for _, j, _, obs in plies(log, rounds=1, observe=True) if j == k)[seat]


def alternate_history(log, k: int, seat: int, seed: int) -> dict:
    """Round 0 of `log` cut after event k, complete, in another world: the same public events
    and seat's own tiles."""
    rec = seen_record(log, 0, k)
    obs = _observer_at(log, k, seat)
    info = obs.infoset(seat)
    table = WorldTable(info)
    merged = table.walk(Rng(seed))
    # Split each merged group's tiles among the epochs it stands for (any split is valid:
    # the merged epochs accept exactly the same tiles).
    per_group = {g: [] for g in range(len(info.groups))}
    room = {g: grp.capacity for g, grp in enumerate(info.groups)}
    for tile, m in zip(table.tiles, merged):
        g = next(g for g in range(len(info.groups)) if table.merged_of[g] == m and room[g] > 0)
        room[g] -= 1
        per_group[g].append(tile)
    assert not any(room.values())
    epochs = {(grp.owner, grp.epoch): per_group[g] for g, grp in enumerate(info.groups)
              if grp.owner != RESERVE}
    for j, h in obs.hist.items():
        for _, t, fixed in h.plays:
            if fixed is not None:
                epochs[(j, fixed)].append(t)      # the played tile, drawn last of its turn
    rnd = rec["rounds"][0]
    hands = [h if j == seat else format_mask(sum(1 << t for t in epochs[(j, 0)]))
             for j, h in enumerate(rnd["hands"])]
    # Draws in event order: the seat's own as recorded; another seat's turn takes its epoch's
    # tiles, the played one (appended last above) last.
    drawn, turn_of, queue, prev = [], dict.fromkeys(range(len(hands)), 0), {}, {}
    for ev in rnd["events"]:
        j = ev["seat"]
        if "draw" in ev and j != seat:
            if prev.get("seat") != j or "draw" not in prev:
                turn_of[j] += 1
                queue[j] = list(epochs[(j, turn_of[j])])
            ev["draw"] = tile_str(queue[j].pop(0))
        if "draw" in ev:
            drawn.append(ev["draw"])
        prev = ev
    rest = [tile_str(t) for t in per_group[len(info.groups) - 1]]
    random.Random(seed).shuffle(rest)
    rnd.update(hands=hands, reserve=drawn + rest)
    return rec


def _decision_cuts(log):
    """(k, seat to move) where round 0 is cut before event k and that seat has a choice."""
    return [(k, state.to_move) for _, k, state, _ in plies(log, rounds=1)
            if state.led and len(state.legal_moves()) > 1]


def _game(seed, players=2, engines="random", **rules):
    return play_engines(Rules(players=players, **rules), parse_engine_list(engines, players),
                        derive_seed(seed, 0))


def _best_json(rec: dict, *extra):
    res = bergen("best", "-", "--json", "--iterations", "1500", "--seed", "7", *extra,
                 input=json.dumps(rec))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    out.pop("seconds")
    return out


@pytest.mark.parametrize("seed,players,kw", [
    (1, 2, {}), (2, 2, {"draw": "one"}), (3, 3, {}), (4, 4, {"partnerships": True}),
    (5, 2, {"lead": "highest-double"}), (6, 2, {"no_double": "lowest-tile"})])
def test_alternate_histories_are_legal_and_change_nothing(seed, players, kw):
    """At 3 decisions of a game, another history the seat cannot tell apart replays and gives
    the same information set, read as the command line reads it; at the first, `best` (ISMCTS
    and expectimax) answers the same, seed for seed."""
    log = _game(seed, players, **kw)
    cuts = _decision_cuts(log)
    moved = 0
    for i, (cut, seat) in enumerate(cuts[:: max(1, len(cuts) // 3)][:3]):
        part = seen_record(log, 0, cut)
        alt = alternate_history(log, cut, seat, seed + cut)
        assert replay(alt)["ok"]                      # a real history, by the rules engine
        assert load_game(alt).key() == load_game(part).key()
        moved += alt["rounds"][0]["hands"] != part["rounds"][0]["hands"]
        for extra in () if i else (("--algorithm", "ismcts"),
                                   ("--algorithm", "expectimax", "--iterations", "8")):
            assert _best_json(part, *extra) == _best_json(alt, *extra)
    assert moved


def test_analysis_does_not_move_when_unseen_hands_change():
    """analyze --seat s: the other hands in the record are altered in ways s could not see."""
    log = _game(21, 2, engines="greedy")
    cuts = _decision_cuts(log)
    cut, seat = cuts[len(cuts) // 2]
    part = seen_record(log, 0, cut)
    alt = alternate_history(log, cut, seat, 99)
    # Continue neither record: analyse seat's decisions up to the cut in both.
    outs = [bergen("analyze", "-", "--seat", seat, "--json", "--iterations", "800", "--quiet",
                   input=json.dumps(r)) for r in (part, alt)]
    assert all(res.exit_code == 0 for res in outs), outs[0].output
    assert json.loads(outs[0].stdout)["decisions"] == json.loads(outs[1].stdout)["decisions"]
