"""fit_inference.py, where the hand-set model's ratios come from, runs as its docstring says,
in small, and scores the shipped model beside the ones it fits."""


def test_the_fit_of_the_hand_set_model_runs(run_script):
    out = run_script("lab/belief/fit_inference.py", "--games", 2, "--engine", "greedy")
    assert "TileModel()" in out and "TileModel refitted" in out
