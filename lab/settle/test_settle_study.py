"""lab/settle's scripts in small, on the fixture (fixture/sample.json.gz: four test positions
with the study's cycle probes at 100k seed 2 and their 1.6M judges, seeds 41 and 42)."""
import json
import os
import subprocess
import sys

import pytest

import cyc_method as M
import cyc_probe
import fixture
from cyc_common import as_record

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    folder = fixture.unpack(str(tmp_path_factory.mktemp("settle")))
    read = lambda name: [json.loads(line) for line in open(os.path.join(folder, name))]
    positions = {p["id"]: p for p in read("corpus/test.jsonl")}
    return folder, [(positions[r["id"]], r) for r in read("cyc_held.jsonl")]


def _cycles(rec):
    return [[{k: v for k, v in c.items() if not k.startswith("cpu")} for c in t["cycles"]]
            for t in rec["trees"]]


def test_the_probe_grows_the_trees_the_study_stored(sample):
    """The probe, on today's package, reads every pass the study stored, to the bit (the
    engine's cycles grow the same trees as the prototype's)."""
    _, cases = sample
    for p, stored in cases:
        rec = cyc_probe.probe_search(p, 100_000, 2, deepen=0)
        assert _cycles(rec) == _cycles(stored), p["id"]


def test_the_frozen_method_prints_what_the_product_prints(sample):
    """cyc_method.printed on the study's probe of a search gives the values, errors and raw
    values search() prints for that search (settle=best, the default), and the same
    verdict: the product is the frozen method."""
    _, cases = sample
    verdicts = set()
    for p, stored in cases:
        dv, ds, dr, same = cyc_probe.compare(stored, 100_000, 2, p)
        assert max(dv, ds, dr) < 1e-9 and same, p["id"]
        verdicts.add(M.settled(M.estimate(as_record(stored), 2))[1])
    assert verdicts == {True, False}        # the fixture has both kinds of answer


def test_the_method_corrects_and_widens(sample):
    """At the default budget (h = 4) the corrected value differs from the raw one and its
    error is wider than the trees' spread; at the reference (h = 0) it is the raw answer."""
    from cyc_est import raw
    _, cases = sample
    rec = as_record(cases[0][1])
    E, R = M.printed(rec, 2), raw(rec, 2)
    assert all(E[m].value != R[m].value and E[m].se > R[m].se for m in E)
    at_reference = M.printed(rec, 2, total=M.BEST["reference"])
    assert all(at_reference[m].value == R[m].value and at_reference[m].se == R[m].se
               for m in E)


def test_the_final_evaluation_runs_on_the_fixture(sample):
    """cyc_final_eval.py as the page runs it, on the fixture: its tables, and the frozen
    files' md5s as frozen."""
    folder, cases = sample
    done = subprocess.run([sys.executable, os.path.join(HERE, "cyc_final_eval.py"), "test"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SETTLE_DATA": folder})
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert f"test: {len(cases)} ISMCTS-sampled positions" in out
    for line in ("0679e18b01391bf751edd24a476c0959  cyc_method.py",
                 "bda29c3fb102f99e144b64ebea2cf063  cyc_est.py"):
        assert line in out
    assert "method vs 1600k s41" in out and "verdicts: settled" in out


def test_data_sh_refuses_an_unknown_step():
    done = subprocess.run(["bash", os.path.join(HERE, "data.sh"), "nothing"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("usage: data.sh")
