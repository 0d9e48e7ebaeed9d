"""solver_study.py, which measured the solver's settings (its tolerance, DCFR's parameters,
its memory per unit of work): each study runs, in small, and measures what it says."""
import pytest
import solver_study as s

from bergen_search.play.bench import endgame_positions
from bergen_search.search import endgame
from bergen_search.search.endgame import budget


@pytest.fixture(scope="module")
def infos():
    return [info for _, info, _ in endgame_positions(12, 5)]


def test_dcfr_parameters_reach_the_solver(infos):
    """The iterations to the tolerance depend on the (alpha, beta, gamma) asked for, and the
    solver's own are put back after (the study once set constants the solver no longer read,
    and measured the same game twice)."""
    keep = budget.ALPHA, budget.BETA, budget.GAMMA
    out = s.dcfr_study(infos[:8], ((1.5, 0.0, 2.0), (1.0, 0.0, 0.0)), max_work=30_000_000)
    a, b = out[(1.5, 0.0, 2.0)], out[(1.0, 0.0, 0.0)]
    assert a["positions"] == b["positions"] > 0
    assert a["mean_iterations"] != b["mean_iterations"], out
    from bergen_search.search.endgame import solving as solvers
    assert (solvers.ALPHA, solvers.BETA, solvers.GAMMA) == keep


def test_the_tolerance_and_memory_studies(infos):
    small = [i for i in infos if sum(i.hand_sizes) <= 6]
    out = s.tolerance_study(small)
    assert set(out) == {0.05, 0.01, 0.003} and all(r["positions"] == len(small)
                                                   for r in out.values())
    rows = s.memory_study(infos[:5], min_work=1)
    assert rows and all(r["bytes_per_work"] < budget.BYTES_PER_WORK for r in rows)
    assert endgame.compiled() is not None
