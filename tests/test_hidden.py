"""Hidden information stays hidden: for a cut point of a real game, `alternate_history` writes
another complete history that gives seat s the same observations; the rules accept it, and
`bergen best` / `bergen analyze` answer identically, seed for seed."""
import copy
import json
import random

import pytest
from click.testing import CliRunner

from bergen_search.cli import main
from bergen_search.formats.record import parse_record
from bergen_search.formats.record_io import write_record
from bergen_search.formats.replay import RoundStart, Step, events, replay, walk
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.tiles import format_mask, tile_str
from bergen_search.information.infoset import RESERVE, Observer
from bergen_search.information.sampler import WorldTable
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines


def _cut(rec: dict, cut: int) -> dict:
    out = copy.deepcopy(rec)
    out["rounds"] = out["rounds"][:1]
    out["rounds"][0]["events"] = out["rounds"][0]["events"][:cut]
    return out


def _observer_at(rec: dict, seat: int) -> Observer:
    record = parse_record(rec)
    obs = None
    for item in events(record):
        if isinstance(item, RoundStart):
            obs = Observer(record.rules, {seat}, item.state)
        elif isinstance(item, Step):
            obs.step(item.seat, item.action, item.after)
    return obs


def alternate_history(rec: dict, seat: int, seed: int) -> dict:
    """A complete record with the same public events and seat's own tiles, another world."""
    obs = _observer_at(rec, seat)
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
    rnd = rec["rounds"][0]
    n = len(rnd["hands"])
    epochs = {}
    for g, grp in enumerate(info.groups):
        if grp.owner != RESERVE:
            epochs[(grp.owner, grp.epoch)] = list(per_group[g])
    for j, h in obs.hist.items():
        for _, t, fixed in h.plays:
            if fixed is not None:
                epochs[(j, fixed)].append(t)      # the played tile, drawn last of its turn
    hands = list(rnd["hands"])
    for j in range(n):
        if j != seat:
            hands[j] = format_mask(sum(1 << t for t in epochs[(j, 0)]))
    # Draws in event order: the seat's own as recorded; another seat's turn takes its epoch's
    # tiles, the played one (appended last above) last.
    drawn, events = [], copy.deepcopy(rnd["events"])
    turn_of = {j: 0 for j in range(n)}
    queue = {}
    prev = None
    for ev in events:
        j = ev["seat"]
        if "draw" in ev:
            if j == seat:
                drawn.append(ev["draw"])
            else:
                if prev is None or prev.get("seat") != j or "draw" not in prev:
                    turn_of[j] += 1
                    queue[j] = list(epochs[(j, turn_of[j])])
                t = queue[j].pop(0)
                ev["draw"] = tile_str(t)
                drawn.append(ev["draw"])
        prev = ev
    rest = [tile_str(t) for t in per_group[len(info.groups) - 1]]
    random.Random(seed).shuffle(rest)
    return {"format": rec["format"], "rules": rec["rules"], "start_scores": [0] * len(rec["start_scores"]),
            "rounds": [{"hands": hands, "reserve": drawn + rest, "events": events}]}


def _decision_cuts(rec: dict):
    """Cut points of round 0 where the seat to move has a choice of plays."""
    record = parse_record(rec)
    cuts = []
    for step in walk(record):
        if step.round == 0:
            after = step.after
            if after.ended is None and after.led and len(after.legal_moves()) > 1:
                cuts.append((step.event + 1, after.to_move))
    return cuts


def _game(seed, players=2, engines="random", **rules):
    r = Rules(players=players, **rules)
    log = play_engines(r, parse_engine_list(engines, players), derive_seed(seed, 0))
    rec = write_record(log)
    rec["start_scores"] = [0] * r.n_sides
    return rec


def _best_json(rec: dict, *extra):
    res = CliRunner().invoke(main, ["best", "-", "--json", "--iterations", "1500", "--seed", "7",
                                    *extra], input=json.dumps(rec))
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    out.pop("seconds")
    return out


CASES = [(s, p, kw) for s, p, kw in [
    (1, 2, {}), (2, 2, {"draw": "one"}), (3, 3, {}), (4, 4, {"partnerships": True}),
    (5, 2, {"lead": "highest-double"}), (6, 2, {"no_double": "lowest-tile"})]]


@pytest.mark.parametrize("seed,players,kw", CASES)
def test_alternate_histories_are_legal_and_change_nothing(seed, players, kw):
    rec = _game(seed, players, **kw)
    cuts = _decision_cuts(rec)
    assert cuts
    for cut, seat in cuts[:: max(1, len(cuts) // 3)][:3]:
        part = _cut(rec, cut)
        alt = alternate_history(part, seat, seed + cut)
        assert replay(alt)["ok"]                      # a real history, by the rules engine
        for algo in ("ismcts", "expectimax"):
            extra = ("--algorithm", algo) if algo == "ismcts" else ("--algorithm", algo,
                                                                    "--iterations", "8")
            assert _best_json(part, *extra) == _best_json(alt, *extra)


def test_analysis_does_not_move_when_unseen_hands_change():
    """analyze --seat s: the other hands in the record are altered in ways s could not see."""
    rec = _game(21, 2, engines="greedy")
    cuts = _decision_cuts(rec)
    cut, seat = cuts[len(cuts) // 2]
    part = _cut(rec, cut)
    alt = alternate_history(part, seat, 99)
    # Continue neither record: analyse seat's decisions up to the cut in both.
    outs = []
    for r in (part, alt):
        res = CliRunner().invoke(main, ["analyze", "-", "--seat", str(seat), "--json",
                                        "--iterations", "800", "--quiet"], input=json.dumps(r))
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)
        out.pop("seconds")
        outs.append(out)
    assert outs[0]["decisions"] == outs[1]["decisions"]
