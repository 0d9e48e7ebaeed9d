"""belief_value.py, which prices a sharper belief (BELIEF.md, "What a sharper belief is
worth"): its peek at r = 1 is the hand-set model's table, at a large r the other hands are
known, and the held-out log loss falls as r grows. The figures it reports rest on these."""
from __future__ import annotations

import re

import pytest

from bergen_search.formats.record_io import dump_record, write_record
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.sampler import WorldTable


@pytest.fixture(scope="module")
def bench():
    import belief_value
    return belief_value


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = tmp_path_factory.mktemp("peek") / "games.jsonl"
    rules = Rules()
    path.write_text("".join(dump_record(write_record(play_match(rules, [0, 0], derive_seed(
        43, g)))) + "\n" for g in range(6)))
    return str(path)


def test_the_peek_runs_from_the_hand_set_table_to_a_known_hand(bench, records):
    seen = 0
    for _, info, hands, _ in bench.decisions(records, 40):
        base = WorldTable(info, tile_factors(info, TileModel())).marginals()
        same = WorldTable(info, bench.peek_factors(info, hands, 1.0)).marginals()
        sharp = WorldTable(info, bench.peek_factors(info, hands, 1e9)).marginals()
        for t, by in base.items():
            for holder, p in by.items():
                assert same[t][holder] == pytest.approx(p, abs=1e-12)
            for j in range(info.rules.players):
                if j != info.seat and hands[j] >> t & 1:
                    assert sharp[t].get(j, 0.0) == pytest.approx(1.0, abs=1e-6)
        seen += 1
    assert seen >= 20, seen


def test_the_log_loss_falls_as_the_peek_sharpens(bench, records, capsys):
    bench.loss(records, 40, [1.0, 1.5, 3.0])
    out = capsys.readouterr().out
    losses = [float(x) for x in re.findall(r"log loss (\d\.\d+)", out)]
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2] > 0, out


def test_the_peeking_arena_searches_the_peeks_table_in_place_of_inference_off(bench, monkeypatch,
                                                                              capsys):
    """`arena` plays `bergen arena` with its A engine's `inference=off` standing for the peek
    (the removed `inference=learned` once did): A's searches draw from the peek's table, B's
    from the hand-set model's."""
    import sys

    from bergen_search.play import seats
    from bergen_search.search import registry
    # the arena replaces these for its process; here they are put back after the test
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(seats.Seats, "choose", seats.Seats.choose)
    monkeypatch.setattr(registry, "world_table", registry.world_table)
    asked = []
    table = registry.world_table
    monkeypatch.setattr(bench, "peek_factors",
                        lambda info, hands, r, f=bench.peek_factors: asked.append(r) or f(
                            info, hands, r))
    with pytest.raises(SystemExit) as done:
        bench.arena(2.0, "ismcts:iterations=60,inference=off", "ismcts:iterations=60",
                    ["--round", "--games", "2", "--workers", "1", "--seed", "3"])
    assert done.value.code in (0, None)
    out = capsys.readouterr().out
    assert out.startswith("peek r = 2.0 in place of inference=off") and "margin per round" in out
    assert asked and set(asked) == {2.0}          # A's tables were the peek's
    assert registry.world_table is not table       # ... through the registry's table
