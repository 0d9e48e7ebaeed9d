"""endgame_regret.py, the yardstick of play quality: it runs on a few rounds, and the
solver's own choice costs little (this test lived in benchmarks/bench_endgame.py)."""
import pytest


#: The default run judges five rounds whose stage decisions solve in milliseconds (deal seeds
#: 6, 10, 11, 14 and 15 of seed 5; one is a greedy mistake, of 1.94); the slow run the first
#: twelve, whose larger endgames take seconds.
@pytest.mark.parametrize("deals, iterations", [
    pytest.param((6, 10, 11, 14, 15), 5000, id="fast"),
    pytest.param(tuple(range(12)), 20000, id="full", marks=pytest.mark.slow)])
def test_regret_of_a_few_decisions(deals, iterations):
    """The yardstick (endgame_regret.py) runs, and the solver's own choice costs little."""
    from endgame_regret import judge, report

    from bergen_search.formats.record import parse_record
    from bergen_search.formats.record_io import write_record
    from bergen_search.game.rng import derive_seed
    from bergen_search.game.rules import Rules
    from bergen_search.play.engines import parse_engine_list
    from bergen_search.play.seats import play_engines
    from bergen_search.search.api import Limits
    records = [parse_record(write_record(play_engines(Rules(), parse_engine_list("greedy", 2),
                                                    derive_seed(5, i), max_rounds=1)))
               for i in deals]
    rows, judged = judge(records, ["solver", "greedy"], Limits(iterations=iterations))
    out = report(rows, judged, ["solver", "greedy"])
    assert out["solved"] > 0 and judged == len(deals)
    solved = [r for r in rows if "values" in r]
    assert all(r["engines"]["solver"]["regret"] <= 0.5 for r in solved)
    assert out["engines"]["solver"]["regret_per_decision"] <= \
        out["engines"]["greedy"]["regret_per_decision"]
