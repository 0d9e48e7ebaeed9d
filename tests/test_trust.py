"""Numbers you can trust: errors cover the noise, and `analyze` labels only what it shows."""
import json
import math
import statistics
from pathlib import Path

import pytest
from support import sizes

from bergen_search.analysis import verdicts as analysis
from bergen_search.analysis.review import analyze
from bergen_search.analysis.verdicts import loss_interval, verdict
from bergen_search.errors import BergenError
from bergen_search.analysis.verdicts import loss_bounds
from bergen_search.formats.game import load_game
from bergen_search.search.api import Limits, MoveValue, choices, paired_stderr, pool, search
from bergen_search.stats import c4 as _c4
from bergen_search.stats import interval_quantile, normal_quantile, t_quantile
from bergen_search.stats import spread as _spread

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

pytestmark = pytest.mark.usefixtures("core")

#: The end of a round where 1-5:R is never worse than 1-2:R in any of the 5 consistent
#: worlds, and better by 1.6 on average. Seat 0 holds 4 of 0-0 0-2 0-3 2-2 3-5.
FORCED_POLLUTION = json.dumps({
    "format": "bergen-position/1", "rules": {"players": 2}, "scores": [5, 3], "to_move": 1,
    "hand": ["1-2", "1-5"],
    "line": "6-4 4-0 0-1 1-3 3-2 2-4 4-4 4-3 3-3 3-6 6-5 5-0 0-6 6-6 6-2 2-5 5-5 5-4 4-1 1-1",
    "hand_sizes": [4, 2], "reserve_size": 2, "voids": {"0": [4, 6], "1": [3]}})


def match_record():
    return json.loads((EXAMPLES / "match.json").read_text())


def decision():
    with open(EXAMPLES / "decision.json") as f:
        return load_game(f.read())


# ---- the replicates --------------------------------------------------------------------
def test_a_value_is_the_mean_of_its_replicates_and_its_error_their_spread():
    """settle=off: the pinned figures of the search without cycles, each value the mean of its
    replicates, each error their spread."""
    info = decision()
    # (bracket off: the bracket is said, not played, and it is most of this search's work)
    res = search(info, Limits(iterations=20_000), seed=3, settle="off", bracket=False)
    top = res.moves[0]
    assert (str(top.move), round(top.value, 6), round(top.stderr, 6), top.visits) == \
        ("2-2:L", 3.4325, 0.28994, 6094)
    assert top.raw is None and top.dof is None and "settled" not in res.info
    assert res.info["replicates"] == 8
    for m in res.moves:
        assert len(m.samples) == 8
        assert m.value == pytest.approx(statistics.fmean(m.samples), abs=1e-12)
        sd = statistics.stdev(m.samples)
        assert m.stderr == pytest.approx(sd / math.sqrt(8) / _c4(8), rel=1e-9)
    # With settle (the default) the samples are the trees' corrected values, and the error
    # is at least their spread (it covers the correction too: tests/test_settle.py).
    for m in search(info, Limits(iterations=20_000), seed=3, bracket=False).moves:
        sd = statistics.stdev(m.samples)
        assert m.value == pytest.approx(statistics.fmean(m.samples), abs=1e-12)
        assert m.stderr >= sd / math.sqrt(8) / _c4(8) * (1 - 1e-9)
    # twins share their samples; the paired error of a move with its twin is zero
    for m in res.moves:
        if m.twin:
            other = next(x for x in res.moves if x.move == m.twin)
            assert m.samples == other.samples and paired_stderr(m, other) == 0.0


def test_c4_the_spread_t_quantiles_and_the_paired_error():
    from scipy import stats as sps
    for p in (0.95, 0.99):       # two-sided: scipy's (1 + p) / 2 quantiles
        assert normal_quantile(p) == pytest.approx(sps.norm.ppf((1 + p) / 2), rel=1e-9)
        for dof in (1, 3, 7, 127):
            assert t_quantile(p, dof) == pytest.approx(sps.t.ppf((1 + p) / 2, dof), rel=1e-9)
    # fractional degrees of freedom: t on them rounded to a tenth; infinite: the normal's
    assert interval_quantile(0.99, 7.04) == t_quantile(0.99, 7.0)
    assert interval_quantile(0.99, 7.04) == pytest.approx(3.499, abs=1e-3)
    assert interval_quantile(0.99, math.inf) == normal_quantile(0.99)
    assert _c4(2) == pytest.approx(math.sqrt(2 / math.pi))
    assert _c4(1000) == pytest.approx(1, abs=1e-3)
    mean, se = _spread([1.0, 3.0])
    assert mean == 2.0 and se == pytest.approx(math.sqrt(2) / math.sqrt(2) / _c4(2))
    assert _spread([5.0]) == (5.0, math.inf)
    # the paired error of a difference comes from the replicates
    a = MoveValue("a", 0, 1.0, 0.5, 0, None, (1.0, 2.0, 0.0, 1.0))
    b = MoveValue("b", 2, 0.5, 0.5, 0, None, (0.5, 1.5, -0.5, 0.5))
    assert paired_stderr(a, b) == 0.0          # the difference never varies
    c = MoveValue("c", 4, 0.5, 0.3, 0, None)  # no samples: as if independent
    assert paired_stderr(a, c) == pytest.approx(math.sqrt(0.5 ** 2 + 0.3 ** 2))


def test_a_loss_interval_reads_its_bound_from_the_move_and_a_close_best_has_one():
    """A loss's interval is loss ± (t·error + both bounds), whatever the engine; a played move
    on top by less than the noise still has an interval."""
    from dataclasses import replace

    class R:
        info = {"replicates": 4}
    base = (0.1, -0.1, 0.2, -0.2)
    a = MoveValue("a", 0, 1.0, 0.0, 0, None, tuple(1.0 + x for x in base), bound=0.05)
    b = MoveValue("b", 2, 0.5, 0.0, 0, None, tuple(0.5 + x for x in base), bound=0.02)
    assert a.plus_minus == 0.05 and paired_stderr(a, b) == pytest.approx(0.0, abs=1e-12)
    assert loss_interval(0.5, 0.0, R(), 0.07) == (0.5 - 0.07, 0.5 + 0.07)
    q = t_quantile(analysis.CONFIDENCE, 3)
    assert loss_interval(0.5, 0.1, R(), 0.07) == pytest.approx((0.5 - q * 0.1 - 0.07,
                                                                 0.5 + q * 0.1 + 0.07))
    result = R()
    result.moves = [a, b]
    lo, hi, se = loss_bounds(b, result)
    assert (lo, hi, se) == pytest.approx((0.5 - 0.07, 0.5 + 0.07, 0.07), abs=1e-9)
    R.info = {"replicates": 8}
    q = t_quantile(analysis.CONFIDENCE, 7)
    assert loss_interval(1.0, 0.1, R()) == pytest.approx((1.0 - q * 0.1, 1.0 + q * 0.1))
    assert loss_interval(0.0, 0.0, R()) == (0.0, 0.0)
    # The played move on top of a real search's moves by less than the noise (q: 8 trees).
    res = search(decision(), Limits(iterations=4000), seed=1, settle="off")
    a, b = [m for m in res.moves if m.twin is None][:2]
    base = [0.0, 0.3, -0.3, 0.1, -0.1, 0.2, -0.2, 0.0]
    noisy_a = replace(a, value=0.25, samples=tuple(0.25 + x for x in base))
    noisy_b = replace(b, value=0.20, samples=tuple(0.20 - x for x in base))
    others = [m for m in res.moves
              if m.code not in (a.code, b.code) and m.twin not in (a.move, b.move)]
    low = [replace(m, value=-5.0, samples=(-5.0,) * 8) for m in others]
    result = replace(res, moves=[noisy_a, noisy_b] + low)
    lo, hi, se = loss_bounds(noisy_a, result)
    assert se == pytest.approx(paired_stderr(noisy_b, noisy_a))
    assert lo == 0.0 and hi == pytest.approx(-0.05 + q * se)
    assert hi > analysis.THRESHOLDS["inaccuracy"]       # searched again, not called best
    # Far ahead of every other move: (0, 0) within the noise.
    sure = replace(noisy_a, value=5.0, samples=tuple(5.0 + x for x in base))
    assert loss_bounds(sure, replace(result, moves=[sure, noisy_b] + low))[:2] == (0.0, 0.0)
    # The played move behind: the interval of the largest difference, floored at 0.
    lo, hi, se = loss_bounds(noisy_b, result)
    assert (lo, hi) == pytest.approx((max(0.0, 0.05 - q * se), 0.05 + q * se))


def test_pooling_searches_takes_their_replicates_together_on_any_number_of_workers():
    """Which process runs which replicate changes nothing; searches pool replicates."""
    info = decision()
    a = search(info, Limits(iterations=8000), seed=1)
    b = search(info, Limits(iterations=8000), seed=2)
    two = search(info, Limits(iterations=8000), seed=1, workers=2)
    assert [(m.move, m.value, m.stderr, m.visits) for m in a.moves] == \
        [(m.move, m.value, m.stderr, m.visits) for m in two.moves]
    p = pool([a, b])
    assert p.info["replicates"] == 16 and p.info["iterations"] == a.info["iterations"] + \
        b.info["iterations"]
    by_a = {m.move: m for m in a.moves}
    by_b = {m.move: m for m in b.moves}
    for m in p.moves:
        assert m.samples == by_a[m.move].samples + by_b[m.move].samples
        assert m.value == pytest.approx(statistics.fmean(m.samples))
    assert p.best == p.moves[0].move and p.moves[0].value == max(m.value for m in p.moves)
    with pytest.raises(BergenError, match="replicates"):
        pool([search(info, Limits(iterations=20), seed=1, algorithm="expectimax")])


# ---- the root's budget: sequential halving -------------------------------------------------
def test_every_choice_gets_a_share_and_the_focus_stays_to_the_end():
    info = decision()
    budget = 40000
    res = search(info, Limits(iterations=budget), seed=4, endgame=False)
    listed = choices(res.moves)
    n = len(listed)
    phases = math.ceil(math.log2(n))
    per_tree = budget // 8
    # every choice got its first phase's share in every replicate
    for m in listed:
        assert m.visits >= 8 * (per_tree // phases // n) - 8
    # the worst choice, kept in by `focus`, gets as much as the best in the last phase
    worst = listed[-1]
    kept = search(info, Limits(iterations=budget), seed=4, focus=(worst.code,), endgame=False)
    by = {m.move: m for m in choices(kept.moves)}
    top = max(m.visits for m in choices(kept.moves))
    assert by[worst.move].visits >= top * 0.5
    assert by[worst.move].visits > 2 * worst.visits


def test_run_move_grows_that_move_alone():
    from bergen_search.search.engines.ismcts._ismcts import IsmctsTree
    from bergen_search.information._sampler import CoreSampler
    info = decision()
    tree = IsmctsTree(CoreSampler(info), 5, playout="safe", merge_twins=True)
    tree.run(2000, 0)
    before = {m: v for m, v, *_ in tree.root_stats()}
    move = min(before, key=before.get)
    assert tree.run_move(move, 3000, 0) == 3000
    after = {m: v for m, v, *_ in tree.root_stats()}
    assert after[move] == before[move] + 3000
    assert all(after[m] == before[m] for m in before if m != move and m != move + 1)
    with pytest.raises(BergenError, match="not one of the root's choices"):
        tree.run_move(55, 10, 0)


# ---- known cases ---------------------------------------------------------------------------
@pytest.mark.parametrize("seeds, iterations", sizes((12, 25_000), (30, None)))
def test_the_example_values_survive_a_change_of_seed(seeds, iterations):
    """Each move's spread over seeds is within its printed error; a settled best stays."""
    info = decision()
    limits = None if iterations is None else Limits(iterations=iterations)
    runs = [search(info, limits, seed=s, algorithm="ismcts", endgame=False)
            for s in range(seeds)]
    bound = 1 + 3.45 / math.sqrt(2 * (seeds - 1))
    # The best move is the same in every search that says it has settled, and one that
    # differs from the most chosen says it has not.
    tiles = [r.best.tile for r in runs]
    common = max(set(tiles), key=tiles.count)
    assert all(r.info["settled"] is False for r in runs if r.best.tile != common)
    assert len({r.best.tile for r in runs if r.info["settled"]}) <= 1
    for m in choices(runs[0].moves):
        vals, errs = [], []
        for r in runs:
            x = next(c for c in choices(r.moves) if c.move == m.move)
            vals.append(x.value)
            errs.append(x.stderr)
        assert statistics.stdev(vals) <= bound * statistics.fmean(errs), m.move


def test_a_move_forced_in_some_worlds_no_longer_lends_its_outcome():
    """`stats=choices` tells 1-5:R from 1-2:R as the exact values do; `stats=all` does not."""
    info = load_game(FORCED_POLLUTION)
    for seed in range(4):
        res = search(info, seed=seed, endgame=False)
        by = {str(m.move): m for m in res.moves}
        assert str(res.best) == "1-5:R"
        gap = by["1-5:R"].value - by["1-2:R"].value
        assert abs(gap - 1.6) <= 4 * paired_stderr(by["1-5:R"], by["1-2:R"]) + 0.1
    old = search(info, seed=0, stats="all", endgame=False)
    by = {str(m.move): m.value for m in old.moves}
    assert by["1-5:R"] == pytest.approx(by["1-2:R"], abs=1e-9)


# ---- analyze: intervals, rechecks, borderline ----------------------------------------------
def test_a_label_only_when_the_interval_is_inside_its_band():
    """A label only when the loss's whole interval is inside its band, else borderline."""
    th = analysis.THRESHOLDS
    assert verdict(0.0, 0.2, th) == (None, False)
    assert verdict(0.3, 0.5, th) == ("inaccuracy", False)
    assert verdict(0.7, 1.1, th) == ("mistake", False)
    assert verdict(1.3, 2.0, th) == ("blunder", False)
    assert verdict(0.5, 0.7, th) == (None, True)
    assert verdict(0.2, 0.3, th) == (None, True)
    assert verdict(-math.inf, math.inf, th) == (None, True)


@pytest.mark.parametrize("engine", [
    ("ismcts", {}, 7), ("flat", {}, 3), ("ucb", {}, 3),
    ("expectimax", {}, None), ("ismcts", {"replicates": 1}, None), ("classic", {}, None)])
def test_the_labels_interval_is_at_the_confidence_the_report_names(engine):
    """Every engine's loss interval is at CONFIDENCE (99%), the quantiles from scipy."""
    from scipy import stats as sps
    algorithm, settings, dof = engine
    info = load_game((EXAMPLES / "position.json").read_text())
    budget = 20 if algorithm == "expectimax" else 800
    result = search(info, Limits(iterations=budget), seed=3, algorithm=algorithm, **settings)
    if algorithm == "classic":      # the old default, kept: one tree, UCB at the root
        assert {k: result.info["settings"][k] for k in ("replicates", "root", "stats")} == {
            "replicates": 1, "root": "ucb", "stats": "all"}
    assert analysis.CONFIDENCE == 0.99
    lo, hi = loss_interval(1.0, 0.1, result)
    if result.moves[0].stderr == math.inf:
        # one tree: no error measured, so no interval (never labelled)
        assert dof is None and algorithm != "expectimax" and result.info["replicates"] == 1
        assert all(math.isinf(m.stderr) for m in result.moves)
        assert loss_interval(1.0, math.inf, result) == (-math.inf, math.inf)
        return
    q = (sps.t.ppf(0.995, dof) if dof is not None else sps.norm.ppf(0.995))
    assert (result.info.get("replicates") or 1) - 1 == (dof or 0)
    assert (hi - lo) / 0.2 == pytest.approx(q, rel=1e-6)
    assert (hi - lo) / 0.2 > sps.norm.ppf(0.995) - 1e-9     # never a 95% interval


def test_analyze_marks_what_it_could_not_decide(tmp_path):
    """Close calls are `borderline`, in no label, and marked in the text and HTML."""
    rough = analyze(match_record(), limits=Limits(iterations=800), seed=1, max_rechecks=0)
    marked = [d for d in rough.decisions if d.borderline]
    assert marked
    for d in rough.decisions:
        lo, hi = d.loss_interval
        assert lo <= d.loss <= hi
        if d.label and not d.borderline:
            assert analysis.label_for(lo, analysis.THRESHOLDS) == d.label
    assert sum(s.borderline for s in rough.summary) == len(marked)
    assert sum(sum(s.counts.values()) for s in rough.summary) == sum(
        1 for d in rough.decisions if d.label and not d.borderline)
    doc = rough.to_json()
    assert all({"borderline", "loss_interval", "rechecks"} <= set(d) for d in doc["decisions"])
    from bergen_search.views import report
    text = report.text(rough)
    assert "borderline" in text and "[" in text
    html = report.html_report([rough])
    assert 'data-borderline="' in html and "badge borderline" in html


@pytest.mark.parametrize("seeds, iterations, rounds", sizes((2, 2000, [0]), (3, 8000, None)))
def test_analyze_labels_agree_over_seeds_on_the_example(seeds, iterations, rounds):
    """Each label of match.json (its first round by default, every round behind slow) is the
    same over seeds, or marked borderline in every run; a best play by less than its noise
    (round 0's event 1, seed 1) was searched again."""
    runs = [analyze(match_record(), limits=Limits(iterations=iterations), seed=s, rounds=rounds)
            for s in range(seeds)]
    assert next(d for d in runs[1].decisions if (d.round, d.event) == (0, 1)).rechecks >= 1
    for ds in zip(*(r.decisions for r in runs)):
        labels = {d.label for d in ds}
        assert len(labels) == 1 or all(d.borderline for d in ds), \
            [(d.label, d.borderline, round(d.loss, 3), d.loss_interval) for d in ds]
