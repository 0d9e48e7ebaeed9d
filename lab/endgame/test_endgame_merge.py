"""endgame_merge.py: its counts against the solver's tree, the key's claim that a
merged state has one future, and the summary of a saved run."""
import json

import endgame_merge as em
from endgame_stage import SAMPLE

from bergen_search.search import endgame

SMALL = (1, 2, 12, 13, 19, 20)      # stage decisions of the corpus with trees of 3-409 nodes


def test_the_counts_agree_with_the_solver():
    """On small stage decisions the exact count's tree is the solver's (its decision nodes,
    entries and terminal deals), the merged game is no bigger, every history meeting a state
    has its future, and the per-deal count summed over every deal gives the tree's terminal
    deals exactly."""
    core = endgame.compiled()
    infos = em.corpus_infos([SAMPLE])
    merged = 0
    for k in SMALL:
        g = endgame.game(infos[k])
        x = em.public_count(g)
        assert x["merged_nodes"] <= x["tree_nodes"] and x["merged_pairs"] <= x["tree_pairs"]
        assert x["merged_entries"] <= x["tree_entries"]
        leaves = sum(em.deal_count(g.rules, g.root, g.hands[0][i0], g.hands[1][i1])["tree_leaves"]
                     for i0, i1, _ in g.deals)
        assert leaves == x["tree_pairs"]
        if core is not None:
            s = core.EndgameSolver(g.rules, g.root, g.hands, g.deals)
            assert x["tree_pairs"] == s.n_pairs and x["tree_entries"] == s.n_entries
            assert x["tree_nodes"] == sum(s.node(n)[0] >= 0 for n in range(s.n_nodes))
        again = em.futures_agree(g)
        assert (again > 0) == (x["merged_pairs"] < x["tree_pairs"])
        merged += again > 0
    assert merged, "no transposition in the sample"


def test_a_key_missing_a_fact_is_caught(monkeypatch):
    """Without the scores in the key, two histories of one 'state' differ in their futures,
    and the check says so."""
    full = em._key
    monkeypatch.setattr(em, "_key", lambda s, played, alive: full(s, played, alive)[:7]
                        + full(s, played, alive)[8:])
    g = endgame.game(em.corpus_infos([SAMPLE])[12])
    try:
        em.futures_agree(g)
    except AssertionError:
        return
    raise AssertionError("a key without the scores passed the check")


def test_a_run_and_its_report(tmp_path, capsys):
    """A run counts each position exactly or, past its time, from sampled deals; --report
    prints the summary of the saved run without counting again."""
    infos = em.corpus_infos([SAMPLE])
    rows = em.study(infos, [2, 3], n_deals=3, seconds=5.0, exact_seconds=0.0)
    assert [r["position"] for r in rows] == [2, 3]
    for r in rows:
        assert "per_deal" in r and r["per_deal"]["sampled"] == 3
        f = em.factors(r)
        assert f["pairs"] >= 1.0 and f["tree_work"] > 0 and f["merged_work"] > 0
    exact = em.study(infos, [2], exact_seconds=20.0)[0]
    assert em.factors(exact)["exact"] and em.factors(exact)["nodes"] >= 1.0
    path = tmp_path / "run.json"
    path.write_text(json.dumps(rows + [exact]))
    em.main(["--report", str(path)])
    out = capsys.readouterr().out
    assert out.startswith("solved: ") and "3 counted (1 exactly)" in out
