"""The luck scripts run as LUCK.md says, in small: the fit writes a model of the shipped
model's form that names the command that made it, and the two variance studies print their
figures."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_fit_writes_the_shipped_models_form(run_script, tmp_path):
    out = tmp_path / "luck.json"
    run_script("lab/luck/fit_luck.py", "--pairs", 6, "--equity-matches", 2, "--win-pairs", 6,
               "--seed", 7, "--out", out)
    got = json.loads(out.read_text())
    with open(os.path.join(ROOT, "bergen_search", "data", "luck_model.json")) as f:
        shipped = json.load(f)
    assert list(got) == list(shipped) and list(got["rollout"]) == list(shipped["rollout"])
    assert got["made_by"] == ("python lab/luck/fit_luck.py --pairs 6 --seed 7 "
                              "--equity-matches 2 --win-pairs 6")


def test_the_ceiling_and_the_variance_studies_run(run_script):
    assert "a perfect estimate's ratio at most" in run_script(
        "lab/luck/luck_ceiling.py", "--hands", 3, "--orders", 2)
    out = run_script("lab/luck/luck_variance.py", "greedy", "random", "--games", 4, "--round",
                     "--seed", 5)
    assert "raw margin per round" in out and "rollout" in out
