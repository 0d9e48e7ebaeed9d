"""Issue 43's action model behind the sampler by resampling (`inference=action-sir`,
`information/resample.py`): its held-out figures and its cost. Needs only the package.

    python benchmarks/action_sir.py evaluate HELDOUT.jsonl [--limit 3000] [--pools 256,2048]
        [--json FILE]
    python benchmarks/action_sir.py cost HELDOUT.jsonl [--limit 300] [--repeats 3]

1. `evaluate`: at each decision of records never trained on (`train_belief.decisions`: a
   play with a choice after another seat's play), as the seat to move saw it, the mean log
   loss of each other seat's chance of holding each hidden tile (`train_belief.py
   evaluate`'s measure, clipped to 0.001..0.999) under the hand-set model (`TileModel()`,
   the default; exact marginals), the moment-matched action model (`inference=action`,
   exact marginals of its factors), `inference=action-sir` as the searches use it (the
   exact marginals of its table, `PoolTable.marginals`: half the pool of 256, half fresh
   worlds of the hand-set table) and the resampled pool alone at each size of `--pools`
   (a larger one shows the limit the pool's noise hides); with the pool's mean effective
   sample size, and the reliability table (deciles of the prediction) of the hand-set model
   and of action-sir.
2. `cost`: the milliseconds a decision to build what a search builds before it searches:
   the table and the core's sampler (one a process: the units share it), by default
   (`TileModel()`) and with action-sir; the median of `--repeats` runs each, the mean and
   90th percentile over the decisions; wall time, then CPU time (`process_time`: less
   moved by the other jobs of a shared machine).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

from bergen_search.information.action import action_model
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.resample import Resampling, pool_table
from bergen_search.information.sampler import WorldTable

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from train_belief import (  # noqa: E402
    binary_loss, binary_losses, decisions, print_reliability, reliability, write_json)


def _loss(items) -> float:
    return sum(binary_loss(p, held) for _, _, p, held in items)


def evaluate(path: str, limit: int, pools: list, json_out: str | None) -> dict:
    model = action_model()
    names = ["TileModel()", "action", "action-sir"] + [f"pool {k} alone" for k in pools]
    loss = {n: 0.0 for n in names}
    preds: dict = {n: [] for n in names}
    ess = {k: 0.0 for k in pools}
    n_items = points = 0
    for _, info, hands, _ in decisions(path, limit):
        points += 1
        tables = {"TileModel()": WorldTable(info, tile_factors(info, TileModel())),
                  "action": WorldTable(info, tile_factors(info, model))}
        tables["action-sir"] = pool_table(info, model)
        for k in pools:
            t = pool_table(info, model, Resampling(pool=k, fresh=0.0))
            tables[f"pool {k} alone"] = t
            ess[k] += t.effective / k
        for name in names:
            items = binary_losses(tables[name].marginals(), info, hands)
            loss[name] += _loss(items)
            preds[name].extend((p, held) for _, _, p, held in items)
        n_items += len(items)
    result = {"records": path, "decisions": points, "tiles": n_items,
              "log_loss": {n: round(v / n_items, 5) for n, v in loss.items()},
              "effective_share": {str(k): round(v / points, 3) for k, v in ess.items()},
              "reliability": {n: reliability(preds[n]) for n in ("TileModel()", names[2])}}
    print(f"{path}: {points} decisions, {n_items} (seat, tile) chances")
    for n in names:
        print(f"  {n:<16} log loss {result['log_loss'][n]:.5f}")
    for k in pools:
        print(f"  pool {k}: mean effective sample size {result['effective_share'][str(k)]:.3f} "
              f"of the pool")
    print_reliability(result["reliability"])
    write_json(result, json_out)
    return result


def cost(path: str, limit: int, repeats: int) -> None:
    from bergen_search.information._sampler import CoreSampler
    infos = [info for _, info, _, _ in decisions(path, limit)]
    action_model()
    builds = {
        "default": lambda info: CoreSampler(info, WorldTable(
            info, tile_factors(info, TileModel()))),
        "action-sir": lambda info: CoreSampler(info, pool_table(info)),
    }
    for clock in (time.perf_counter, time.process_time):
        times: dict = {n: [] for n in builds}
        for info in infos:
            for name, build in builds.items():
                runs = []
                for _ in range(repeats):
                    t0 = clock()
                    build(info)
                    runs.append(clock() - t0)
                times[name].append(statistics.median(runs) * 1000)
        print(f"{path}: {len(infos)} decisions; ms a decision to build the table and the "
              f"core's sampler (median of {repeats} runs each), {clock.__name__}")
        base = statistics.mean(times["default"])
        for name, v in times.items():
            v = sorted(v)
            mean = statistics.mean(v)
            print(f"  {name:<11} mean {mean:6.2f}  p90 {v[int(0.9 * (len(v) - 1))]:6.2f}  max "
                  f"{v[-1]:6.2f}  extra {mean - base:+.2f} ms ({(mean - base):+.1f}% of a "
                  f"100 ms move)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("records")
    e.add_argument("--limit", type=int, default=3000)
    e.add_argument("--pools", default="256,2048")
    e.add_argument("--json")
    c = sub.add_parser("cost")
    c.add_argument("records")
    c.add_argument("--limit", type=int, default=300)
    c.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    if a.cmd == "evaluate":
        evaluate(a.records, a.limit, [int(x) for x in a.pools.split(",")], a.json)
    else:
        cost(a.records, a.limit, a.repeats)


if __name__ == "__main__":
    main()
