"""live_coverage.py, which measures whether the live ± keeps its promise (this test lived in
tests/test_live.py)."""
import live_coverage


def test_the_coverage_benchmark_runs(capsys):
    """live_coverage.py (MEASUREMENTS.md's figures of the live ±), in small."""
    assert live_coverage.main(["--seeds", "2", "--trees", "10", "--size", "200",
                               "--positions", "small"]) == 0
    head, columns, row = capsys.readouterr().out.splitlines()
    assert head == "trees of 200 iterations, stopped at 10, 2 seeds"
    assert columns.split()[:2] == ["position", "reports"]
    name, reports, end2, end3, sd, seeds2, seeds3 = row.split()
    assert name == "small" and int(reports) >= 2 * 3      # trees 8, 9 and 10, each seed
    shares = [float(x.rstrip("%")) for x in (end2, end3, seeds2, seeds3)]
    assert all(0 <= x <= 100 for x in shares) and all(x.endswith("%") for x in
                                                      (end2, end3, seeds2, seeds3))
    assert shares[0] <= shares[1] and shares[2] <= shares[3]   # within 2 ± is within 3 ±
    assert 0 < float(sd) < 10
