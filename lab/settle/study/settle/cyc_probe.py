"""Part 2: the cycle engine (the settle branch's hidden setting `cycles`), tree by tree, with
every pass the analyses need, in one growth of each tree.

Each tree of a search of BUDGET (share B = BUDGET / 8, seed derive_seed(SEED, u)) is grown
as the branch's worker grows it with cycles=on (`ismcts.cycled` over CYCLES = quarters 1, 1,
2 of B; the same sampler, settings, seeds), then, with DEEPEN=K, K more cycles of B, 2B, 4B
... on the same tree ("until stopped": totals 2B, 4B, ..., 2^K B; `cycled` over the shares 1,
1, 2, 4, 8, ... of 2^K B, whose first three parts are the default's, bit for bit). After every
cycle (total T) the tree is read by passes on the final pass's seed, the worlds a prefix of one
stream: W_B = clip(B / (5 k)) (the default's final pass), p2 = round(W_B / 2), p4 =
round(W_B / 4) (the product's checkpoint prefixes at CHECK_SHARE 1/2 and 1/4), and for T >= B
the pass of a search of T, W_T = clip(T / (5 k)). Per cycle and move: own iterations n, the
sums [at W_T (None below B), at W_B, at p2, at p4], the sum of squares (at W_T, else W_B), CPU
(process_time) of the tree and of the passes.

The product's record (info["cycles"], CHECK_SHARE 1/2) is these numbers: cycles 1 and 2's
sums at p2, and the final pass at W_B with its p2 prefix (`check`).

    python cyc_probe.py SET BUDGET SEED [SEED ...]     (appends to data/cyc.jsonl; resumable)
    DEEPEN=4 python cyc_probe.py dev 100000 1          (the same, deepened to 16x: 1.6M)
    TAG=held python cyc_probe.py test 100000 1 2 3     (to data/cyc_held.jsonl: the held-out sets)
    python cyc_probe.py check                          (a few positions against search())
"""
import json
import os
import sys
import time

from bergen_search.constants import PASS_STREAM
from bergen_search.formats.game import load_game
from bergen_search.game.rng import derive_seed
from bergen_search.search.api import Limits, search
from bergen_search.search.engines import ismcts as alg_mod
from bergen_search.search.limits import Deadline
from bergen_search.search.registry import Settings, algorithms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from probe import corpus, exact_ids, make_tree  # noqa: E402

OUT = os.path.join(HERE, "data", "cyc.jsonl")
if os.environ.get("TAG"):      # the held-out sets go to data/cyc_held.jsonl (TAG=held), unread until frozen
    OUT = os.path.join(HERE, "data", f"cyc_{os.environ['TAG']}.jsonl")
DEEPEN = int(os.environ.get("DEEPEN", "0"))


def clip(n, k):
    return max(alg_mod.PASS_MIN, min(alg_mod.PASS_MAX, n // (alg_mod.PASS_SPREAD * k)))


def probe_tree(info, table, settings, B, seed, deepen=DEEPEN):
    alg = algorithms()["ismcts"]
    tree = make_tree(alg.sampler(info, table), seed, settings)
    own = lambda: {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}
    k = len(own())
    if k < 2:
        return None
    WB = clip(B, k)
    p2, p4 = max(1, round(0.5 * WB)), max(1, round(0.25 * WB))
    pseed = derive_seed(seed, PASS_STREAM)
    cycles = []
    clock = [time.process_time()]

    def read(tree, T):
        t1 = time.process_time()
        n = own()
        if T < B:
            W = 0
            rows = tree.evaluate_root(WB, pseed, prefix=p2)
            a = {r[0]: [None, r[1], r[4]] for r in rows}
            sq = {r[0]: r[2] for r in rows}
        else:
            W = clip(T, k)
            rows = tree.evaluate_root(W, pseed, prefix=WB)
            a = {r[0]: [r[1], r[4]] for r in rows}
            sq = {r[0]: r[2] for r in rows}
            for r in tree.evaluate_root(p2, pseed, prefix=p4):
                a[r[0]].append(r[1])
                a[r[0]].append(r[4])
        if T < B:
            for r in tree.evaluate_root(p4, pseed):
                a[r[0]].append(r[1])
        t2 = time.process_time()
        cycles.append({"T": T, "W": W, "n": {str(m): c for m, c in n.items()},
                       "s": {str(m): a[m] for m in n}, "sq": {str(m): sq[m] for m in n},
                       "cpu_tree": t1 - clock[0], "cpu_pass": t2 - t1, "full": tree.full})
        clock[0] = time.process_time()

    shares = (1, 1, 2) + tuple(4 * 2 ** j for j in range(deepen))
    total = B * sum(shares) // 4
    done, interrupted = alg_mod.cycled(tree, total, Deadline(None), between=read, shares=shares)
    assert (done, interrupted) == (total, False)
    read(tree, done)
    return {"k": k, "WB": WB, "p2": p2, "p4": p4, "cycles": cycles, "nodes": tree.n_nodes}


def probe_search(p, budget, seed, deepen=DEEPEN):
    info = load_game(json.dumps(p["doc"]))
    settings = dict(Settings.of("ismcts", {}))
    alg = algorithms()["ismcts"]
    table = alg.table(info, settings)
    units = settings["replicates"]
    assert budget % units == 0
    t0 = time.time()
    trees = [probe_tree(info, table, settings, budget // units, derive_seed(seed, u), deepen)
             for u in range(units)]
    if any(t is None for t in trees):
        return None
    return {"set": p["set"], "id": p["id"], "config": p["config"], "stage": p["stage"],
            "players": p["players"], "iterations": budget, "seed": seed, "deepen": deepen,
            "trees": trees, "wall": time.time() - t0}


def check():
    """The probe's numbers are the branch's search(cycles=on) record and values, to the bit."""
    ps = [p for p in corpus("dev") if p["id"] not in exact_ids()][::12]
    on = Settings.of("ismcts", {"cycles": "on"})
    for p in ps:
        rec = probe_search(p, 20_000, 5, deepen=1)
        res = search(load_game(json.dumps(p["doc"])), Limits(iterations=20_000), seed=5,
                     settings=on)
        for u, (t, r) in enumerate(zip(rec["trees"], res.info["cycles"])):
            assert r["worlds"] == t["p2"] and r["pass"] == t["WB"]
            for c in (0, 1):
                assert {str(m): v for m, v in r["at"][c].items()} == {
                    m: [t["cycles"][c]["n"][m], t["cycles"][c]["s"][m][2]]
                    for m in t["cycles"][c]["n"]}
            c2 = t["cycles"][2]
            assert {str(m): v for m, v in r["final"].items()} == {
                m: [c2["n"][m], c2["s"][m][2], c2["s"][m][0], c2["sq"][m]] for m in c2["n"]}
            for mv in res.moves:
                if mv.twin is None:
                    assert mv.samples[u] == c2["s"][str(mv.code)][0] / t["WB"]
        print("same:", p["id"], flush=True)


def main():
    if sys.argv[1:] == ["check"]:
        return check()
    name, budget, seeds = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
    skip = exact_ids()
    have = set()
    if os.path.exists(OUT):
        for line in open(OUT):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            have.add((d["set"], d["id"], d["iterations"], d["seed"], d["deepen"]))
    todo = [(p, s) for s in seeds for p in corpus(name)
            if p["id"] not in skip and (p["set"], p["id"], budget, s, DEEPEN) not in have]
    print(f"{time.strftime('%H:%M:%S')} {name} {budget} {seeds} deepen {DEEPEN}: "
          f"{len(todo)} to do", flush=True)
    with open(OUT, "a") as fh:
        for i, (p, s) in enumerate(todo):
            rec = probe_search(p, budget, s)
            if rec is None:
                continue
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            print(f"{time.strftime('%H:%M:%S')} {i + 1}/{len(todo)} {p['id']} {budget} s{s} "
                  f"{rec['wall']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
