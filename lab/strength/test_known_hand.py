"""known_hand.py, the ceiling for inference (STRENGTH.md), runs as its page says, in small."""


def test_the_known_hand_margin_runs(run_script):
    out = run_script("lab/strength/known_hand.py", "--pairs", 2, "--iterations", 50,
                     "--workers", 1)
    assert "seeing the other hand vs" in out and "points a round" in out
