"""calibration.py and loss_distribution.py (TRUST.md, docs/MEASUREMENTS.md's figures of the
errors and of analyze's thresholds) run as their pages say, in small."""


def test_the_calibration_runs(run_script):
    out = run_script("lab/trust/calibration.py", "--decisions", 2, "--seeds", 3,
                     "--iterations", 200, "--kinds", "2p")
    assert "mean r²" in out


def test_the_loss_distribution_runs(run_script):
    out = run_script("lab/trust/loss_distribution.py", "--matches", 1, "--iterations", 50)
    assert [line.split()[0] for line in out.splitlines()[-3:]] == ["default", "greedy", "random"]
