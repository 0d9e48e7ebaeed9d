"""The cycle engine (ISMCTS's setting `settle`), tree by tree, with every pass the analyses
need, in one growth of each tree.

Each tree of a search of BUDGET (share B = BUDGET / 8, seed derive_seed(SEED, u)) is grown
as the engine's worker grows it (`settle.cycled` over CYCLES = quarters 1, 1, 2 of B; the
same sampler, settings, seeds), then, with DEEPEN=K, K more cycles of B, 2B, 4B ... on the
same tree ("until stopped": totals 2B, 4B, ..., 2^K B; `cycled` over the shares 1, 1, 2, 4,
8, ... of 2^K B, whose first three parts are the default's, bit for bit). After every cycle
(total T) the tree is read by passes on the final pass's seed, the worlds a prefix of one
stream: W_B = clip(B / (5 k)) (the default's final pass), p2 = round(W_B / 2), p4 =
round(W_B / 4) (the checkpoint prefixes at CHECK_SHARE 1/2, the product's, and 1/4), and for
T >= B the pass of a search of T, W_T = clip(T / (5 k)). Per cycle and move: own iterations
n, the sums [at W_T (None below B), at W_B, at p2, at p4], the sum of squares (at W_T, else
W_B), CPU (process_time) of the tree and of the passes.

The product's checkpoints are these numbers (cycles 1 and 2's sums at p2, the final pass at
W_B with its p2 prefix): `check` runs the frozen method (cyc_method.py) on a probe and
compares it with search()'s values and errors.

    python lab/settle/cyc_probe.py SET BUDGET SEED [SEED ...]   (appends to data/cyc.jsonl; resumable)
    DEEPEN=4 python lab/settle/cyc_probe.py dev 100000 1        (the same, deepened to 16x: 1.6M)
    TAG=held python lab/settle/cyc_probe.py test 100000 1 2 3   (to data/cyc_held.jsonl: the held-out sets)
    python lab/settle/cyc_probe.py check                        (a few dev positions against search())

Positions: data/corpus/SET.jsonl (make_corpus.py); the ones the exact endgame solves are left
out (EXACT).
"""
import json
import os
import sys
import time

from bergen_search.constants import PASS_STREAM
from bergen_search.formats.game import load_game
from bergen_search.game.rng import derive_seed
from bergen_search.search import backend
from bergen_search.search.api import Limits, search
from bergen_search.search.engines import ismcts as alg_mod
from bergen_search.search.engines.ismcts.settle import CHECK_SHARE, cycled
from bergen_search.search.limits import DEFAULT_MEMORY_MB, Deadline
from bergen_search.search.registry import Settings, algorithms

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("SETTLE_DATA") or os.path.join(HERE, "data")   # as cyc_common.DATA
OUT = os.path.join(DATA, f"cyc_{os.environ['TAG']}.jsonl" if os.environ.get("TAG")
                   else "cyc.jsonl")       # TAG=held: the held-out sets, unread until frozen
DEEPEN = int(os.environ.get("DEEPEN", "0"))
#: The positions the exact endgame valued in some judge's run (2-player late positions at
#: reserve 2): no trees to probe there.
EXACT = frozenset({"dev-p2-late-1", "dev-p2-late-2", "test-p2-late-0", "val-p2-late-0",
                   "val-p2-late-1", "val-p2-late-2", "fresh-p2-late-0", "fresh-p2-late-3",
                   "fresh-p2-late-4"})


def corpus(name, folder=None):
    """A set's positions (make_corpus.py's data/corpus/NAME.jsonl)."""
    path = os.path.join(folder or os.path.join(DATA, "corpus"), f"{name}.jsonl")
    return [json.loads(line) for line in open(path)]


def clip(n, k):
    return max(alg_mod.PASS_MIN, min(alg_mod.PASS_MAX, n // (alg_mod.PASS_SPREAD * k)))


def make_tree(sampler, seed, settings):
    """A tree as the engine's worker makes it (the compiled one when built)."""
    cls = backend.SEARCH.pick(f"{alg_mod.__name__}._ismcts.IsmctsTree", alg_mod.ReferenceTree)
    return cls(sampler, seed, exploration=settings["exploration"], playout=settings["playout"],
               merge_twins=settings["twins"], choice_stats=settings["stats"] == "choices",
               max_bytes=DEFAULT_MEMORY_MB << 20)


def probe_tree(info, table, settings, B, seed, deepen=DEEPEN):
    alg = algorithms()["ismcts"]
    tree = make_tree(alg.sampler(info, table), seed, settings)
    own = lambda: {m: n for m, n, *_ in tree.root_stats() if m not in tree.twins}
    k = len(own())
    if k < 2:
        return None
    WB = clip(B, k)
    p2, p4 = max(1, round(CHECK_SHARE * WB)), max(1, round(0.25 * WB))
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
    done, interrupted = cycled(tree, total, Deadline(None), between=read, shares=shares)
    assert (done, interrupted) == (total, False)
    read(tree, done)
    return {"k": k, "WB": WB, "p2": p2, "p4": p4, "cycles": cycles, "nodes": tree.n_nodes}


def probe_search(p, budget, seed, deepen=DEEPEN):
    """One search's probe record, or None when a tree has fewer than two choices."""
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


def product(p, budget, seed):
    """search()'s answer with the default settings but the exact endgame (which the probe
    never runs): {move code: (value, stderr, raw)} of the distinct choices, and settled."""
    res = search(load_game(json.dumps(p["doc"])), Limits(iterations=budget), seed=seed,
                 settings=Settings.of("ismcts", {"endgame": False}))
    return ({m.code: (m.value, m.stderr, m.raw) for m in res.moves if m.twin is None},
            res.info["settled"])


def compare(rec, budget, seed, p):
    """The frozen method on a probe record against the product on the same search: the
    largest difference of a value, of an error and of a raw value, and whether both settle
    alike."""
    import cyc_method as M
    from cyc_common import as_record
    from cyc_est import raw
    r = as_record(rec)
    E, R = M.printed(r, 2), raw(r, 2)
    mine, settled = product(p, budget, seed)
    assert set(mine) == set(E), (sorted(mine), sorted(E))
    dv = max(abs(E[m].value - mine[m][0]) for m in E)
    ds = max(abs(E[m].se - mine[m][1]) for m in E)
    dr = max(abs(R[m].value - mine[m][2]) for m in E)
    return dv, ds, dr, M.settled(M.estimate(r, 2))[1] == settled


def check():
    """The probe and the frozen method give search()'s values and errors (a few dev
    positions at 100k, seed 5)."""
    ps = [p for p in corpus("dev") if p["id"] not in EXACT][::12]
    for p in ps:
        rec = probe_search(p, 100_000, 5, deepen=0)
        dv, ds, dr, same = compare(rec, 100_000, 5, p)
        print(f"{p['id']}: largest difference value {dv:.1e}, error {ds:.1e}, raw {dr:.1e}; "
              f"settled alike {same}", flush=True)
        assert max(dv, ds, dr) < 1e-9 and same


def main():
    if sys.argv[1:] == ["check"]:
        return check()
    name, budget, seeds = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
    have = set()
    if os.path.exists(OUT):
        for line in open(OUT):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            have.add((d["set"], d["id"], d["iterations"], d["seed"], d["deepen"]))
    todo = [(p, s) for s in seeds for p in corpus(name)
            if p["id"] not in EXACT and (p["set"], p["id"], budget, s, DEEPEN) not in have]
    print(f"{time.strftime('%H:%M:%S')} {name} {budget} {seeds} deepen {DEEPEN}: "
          f"{len(todo)} to do", flush=True)
    os.makedirs(DATA, exist_ok=True)
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
