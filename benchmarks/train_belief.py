"""The learned belief model (`information/learned.py`): its data, its fit and its held-out
figures (issue 43). Needs the `train` extra (numpy and SciPy) for `fit`; `extract` and
`evaluate` need only the package.

    python benchmarks/train_belief.py extract RECORDS.jsonl... --out DATA.pkl
    python benchmarks/train_belief.py fit DATA.pkl... --seed 43 --out bergen_search/data/belief_model.json
    python benchmarks/train_belief.py evaluate HELDOUT.jsonl [--model FILE] [--limit N]
    python benchmarks/train_belief.py cost RECORDS.jsonl [--limit 200] [--repeats 5]

1. `extract`: every decision of the complete records (a play with a choice, after the lead,
   with some play of another seat to read), as the seat to move saw it
   (`infoset.Observer`): for each hidden tile not yet played, its chance of being with each
   other seat and in the reserve under the uniform sampler (exact: `WorldTable.marginals`),
   the features of `learned.play_relation` summed over each seat's plays that could have
   held it, and where it really was (the records are complete). Written with pickle.
2. `fit`: for each table shape (2, 3, 4 players, partnerships), a multinomial logistic
   regression of where each tile is: the holder h has the logit log(uniform chance of h) +
   w . (features summed for h), the reserve no features. That is the weight the sampler
   draws from (a product over tiles and groups of exp(w . x)), each tile taken alone.
   L2 penalty `--l2` on w, L-BFGS to convergence, seeded (`--seed`). The weights, the
   command and the training figures go into the model file.
3. `evaluate`: on records never trained on, the mean log loss of the other hands' tiles
   (each other seat's chance of holding each hidden tile, as `fit_inference.py` scores it,
   clipped to 0.001..0.999) under the uniform sampler, `TileModel()` and the learned model,
   each from the weighted sampler's exact marginals (`WorldTable.marginals`), and the
   learned model's reliability table (predicted against observed, by deciles of the
   prediction). `--json FILE` writes the figures.
4. `cost`: what the weighting adds to a search: the milliseconds to build the searched world
   table at the records' decisions, uniform, `TileModel()` and learned (its cache emptied).
"""
from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
import time
from collections import defaultdict

from bergen_search.formats.record_io import iter_records
from bergen_search.formats.replay import seen_steps
from bergen_search.game.state import DRAW, PASS
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.infoset import RESERVE
from bergen_search.information.learned import (
    FEATURES,
    MODEL_FORMAT,
    LearnedModel,
    check_model_data,
    learned_model,
    play_relation,
    table_key,
)
from bergen_search.information.sampler import WorldTable

F = len(FEATURES)
_INDEX = {name: i for i, name in enumerate(FEATURES)}


def decisions(path: str, limit: int = 0):
    """(rules, info, true hands by seat, reserve mask) at every decision of the records of
    `path` worth scoring: the seat to move plays with a choice, and another seat has made a
    play since the lead."""
    n = 0
    with open(path) as f:
        text = f.read()
    for record in iter_records(text, check=True):
        if not record.complete:
            raise SystemExit(f"{path}: a complete record is needed (every hand known)")
        rules = record.rules
        for item, obs in seen_steps(record):
            before, w, a = item.before, item.seat, item.action
            if (before.led and a not in (DRAW, PASS) and not before.draws_this_turn
                    and len(before.legal_moves()) > 1):
                info = obs[w].infoset(w)
                if info.decisions:
                    yield rules, info, before.hands, before.reserve
                    n += 1
                    if limit and n >= limit:
                        return


def seat_features(info) -> dict:
    """{(seat, tile): feature counts} summed over the seat's plays (after the lead, not right
    after a draw) at which the tile was neither on the line nor the one played."""
    out: dict = {}
    for d in info.decisions:
        if d.drew:
            continue
        blocked = d.line_mask | 1 << (d.move >> 1)
        for t, _ in info.free:
            if blocked >> t & 1 or info.played_free >> t & 1:
                continue
            rel = play_relation(d, t)
            if rel:
                v = out.setdefault((d.seat, t), [0] * F)
                for name in rel:
                    v[_INDEX[name]] += 1
    return out


def extract(paths, out_path, limit=0):
    rows = defaultdict(list)     # table key -> [(offsets, features, label)] per tile
    points = defaultdict(int)
    start = time.time()
    for path in paths:
        for rules, info, hands, reserve in decisions(path, limit):
            key = table_key(rules)
            points[key] += 1
            marg = WorldTable(info).marginals()
            feats = seat_features(info)
            for t, owners in marg.items():
                holders = sorted(o for o, p in owners.items() if p > 0 and o != RESERVE)
                if RESERVE in owners and owners[RESERVE] > 0:
                    holders.append(RESERVE)
                if len(holders) < 2:
                    continue
                truth = next((j for j in range(rules.players) if hands[j] >> t & 1), RESERVE)
                label = holders.index(truth)
                offsets = [math.log(owners[h]) for h in holders]
                x = [feats.get((h, t), [0] * F) if h != RESERVE else [0] * F for h in holders]
                rows[key].append((tuple(holders), offsets, x, label))
        print(f"{path}: {dict(points)} decisions, {time.time() - start:.0f} s", file=sys.stderr)
    with open(out_path, "wb") as f:
        pickle.dump({"features": FEATURES, "rows": dict(rows), "points": dict(points),
                     "sources": list(paths)}, f)
    print(f"wrote {out_path}: " + ", ".join(f"{k}: {points[k]} decisions, {len(v)} tiles"
                                           for k, v in sorted(rows.items())))


def _arrays(rows):
    """The rows as arrays: offsets (n, k) padded with -inf (no such holder), features
    (n, k, F) and labels (n)."""
    import numpy as np
    k = max(len(r[0]) for r in rows)
    n = len(rows)
    off = np.full((n, k), -np.inf)
    x = np.zeros((n, k, F))
    y = np.zeros(n, dtype=np.int64)
    for i, (holders, offsets, feats, label) in enumerate(rows):
        off[i, :len(offsets)] = offsets
        x[i, :len(feats)] = feats
        y[i] = label
    return off, x, y


def cross_entropy(off, x, y, w):
    """The mean cross-entropy of the labels under logits off + x.w, and its gradient in w."""
    import numpy as np
    logits = off + x @ w
    top = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - top)
    z = e.sum(axis=1, keepdims=True)
    p = e / z
    n = len(y)
    rows = np.arange(n)
    loss = float(np.mean(np.log(z[:, 0]) + top[:, 0] - logits[rows, y]))
    grad = (np.einsum("nk,nkf->f", p, x) - x[rows, y].sum(axis=0)) / n
    return loss, grad


def fit_rows(rows, l2: float, seed: int):
    """The weights that minimise the mean cross-entropy of where each tile is, plus l2 |w|^2
    (convex: L-BFGS from zero finds the one minimum; `seed` is recorded, nothing is random)."""
    import numpy as np
    from scipy.optimize import minimize
    off, x, y = _arrays(rows)

    def objective(w):
        loss, grad = cross_entropy(off, x, y, w)
        return loss + l2 * float(w @ w), grad + 2 * l2 * w

    found = minimize(objective, np.zeros(F), jac=True, method="L-BFGS-B",
                     options={"maxiter": 2000, "gtol": 1e-10, "ftol": 1e-14})
    w = found.x
    base = cross_entropy(off, x, y, np.zeros(F))[0]
    fitted = cross_entropy(off, x, y, w)[0]
    used = (np.abs(x).sum(axis=(0, 1)) > 0).tolist()
    return [round(float(v), 4) for v in w], base, fitted, used


def fit(paths, out_path, l2, seed, command):
    data = {"rows": defaultdict(list), "points": defaultdict(int), "sources": []}
    for p in paths:
        with open(p, "rb") as f:
            d = pickle.load(f)
        if tuple(d["features"]) != FEATURES:
            raise SystemExit(f"{p}: extracted with other features; extract again")
        for k, v in d["rows"].items():
            data["rows"][k].extend(v)
        for k, v in d["points"].items():
            data["points"][k] += v
        data["sources"].extend(d["sources"])
    models, figures = {}, {}
    for key in sorted(data["rows"]):
        rows = data["rows"][key]
        weights, base, fitted, used = fit_rows(rows, l2, seed)
        weights = [w if u else 0.0 for w, u in zip(weights, used)]
        models[key] = {"weights": weights}
        figures[key] = {"decisions": data["points"][key], "tiles": len(rows),
                        "cross_entropy_uniform": round(base, 5),
                        "cross_entropy_fitted": round(fitted, 5)}
        print(f"{key}: {data['points'][key]} decisions, {len(rows)} tiles: cross-entropy "
              f"{base:.5f} uniform, {fitted:.5f} fitted")
        for name, w in zip(FEATURES, weights):
            print(f"    {name:<20} {w:+.4f}  (ratio {math.exp(w):.3f})")
    doc = {"format": MODEL_FORMAT, "features": list(FEATURES), "fitted_by": command,
           "training": {"records": data["sources"], "l2": l2, "seed": seed,
                        "figures": figures},
           "models": models}
    check_model_data(doc)
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {out_path}")


def binary_loss(p: float, held: bool) -> float:
    """The log loss of a chance `p` that a seat holds a tile, clipped to 0.001..0.999 (the
    measure of every held-out figure of the belief models)."""
    q = min(max(p, 1e-3), 1 - 1e-3)
    return -math.log(q if held else 1 - q)


def binary_losses(marg, info, hands):
    """[(seat, tile, p, held)] of the other seats' hidden tiles."""
    out = []
    for t, owners in marg.items():
        for j in range(info.rules.players):
            if j == info.seat:
                continue
            out.append((j, t, owners.get(j, 0.0), bool(hands[j] >> t & 1)))
    return out


def evaluate(path, model_file, limit, json_out):
    if model_file:
        with open(model_file) as f:
            data = check_model_data(json.load(f))

        def get_model(rules):
            m = data["models"][table_key(rules)]
            return LearnedModel(tuple(m["weights"]), table_key(rules))
    else:
        get_model = learned_model
    names = ("uniform", "TileModel()", "learned")
    loss = {n: 0.0 for n in names}
    n = 0
    points = 0
    preds = {n: [] for n in names}
    seconds = {n: 0.0 for n in names}
    for rules, info, hands, _ in decisions(path, limit):
        points += 1
        for name in names:
            t0 = time.perf_counter()
            if name == "uniform":
                table = WorldTable(info)
            elif name == "TileModel()":
                table = WorldTable(info, tile_factors(info, TileModel()))
            else:
                table = WorldTable(info, tile_factors(info, get_model(rules)))
            marg = table.marginals()
            seconds[name] += time.perf_counter() - t0
            items = binary_losses(marg, info, hands)
            for _, _, p, held in items:
                loss[name] += binary_loss(p, held)
                preds[name].append((p, held))
            if name == "uniform":
                n += len(items)
    result = {"records": path, "decisions": points, "tiles": n,
              "log_loss": {k: round(v / n, 5) for k, v in loss.items()},
              "table_ms": {k: round(1000 * v / points, 3) for k, v in seconds.items()},
              "reliability": {k: reliability(preds[k]) for k in ("TileModel()", "learned")}}
    print(f"{path}: {points} decisions, {n} (seat, tile) chances")
    print("log loss of the other hands' tiles (lower is better; a known hand: 0):")
    for k in names:
        print(f"  {k:<12} {result['log_loss'][k]:.5f}   (table and marginals "
              f"{result['table_ms'][k]:.2f} ms a decision)")
    print_reliability(result["reliability"])
    write_json(result, json_out)
    return result


def print_reliability(tables: dict) -> None:
    """Each model's reliability table ({name: `reliability` rows}), as the logs keep them."""
    for k, rows in tables.items():
        print(f"reliability of {k} (deciles of the prediction):")
        print(f"  {'decile':>6} {'tiles':>7} {'predicted':>10} {'observed':>9}")
        for row in rows:
            print(f"  {row['decile']:>6} {row['tiles']:>7} {row['predicted']:>10.4f} "
                  f"{row['observed']:>9.4f}")


def write_json(result: dict, path) -> None:
    """`result` to `path` (nothing without one), indented, with a final newline."""
    if path:
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")


def cost(path, limit, repeats):
    """Milliseconds a decision to build the searched world table: uniform, weighted by
    `TileModel()`, and by the learned model with its cache of play ratios emptied first (a
    search's cost when it is the first to read those plays); median over `repeats` runs."""
    import statistics
    infos = [(rules, info) for rules, info, _, _ in decisions(path, limit)]
    names = ("uniform", "TileModel()", "learned")
    times = {n: [] for n in names}
    for rules, info in infos:
        model = learned_model(rules)
        for name in names:
            runs = []
            for _ in range(repeats):
                if name == "learned":
                    model._cache.clear()
                t0 = time.perf_counter()
                if name == "uniform":
                    WorldTable(info)
                elif name == "TileModel()":
                    WorldTable(info, tile_factors(info, TileModel()))
                else:
                    WorldTable(info, tile_factors(info, model))
                runs.append(time.perf_counter() - t0)
            times[name].append(statistics.median(runs) * 1000)
    print(f"{path}: {len(infos)} decisions; ms a decision to build the searched table "
          f"(median of {repeats} runs each)")
    print(f"  {'weighting':<12} {'mean':>7} {'p90':>7} {'max':>7}  {'extra over uniform':>18}")
    base = statistics.mean(times["uniform"])
    for name in names:
        v = sorted(times[name])
        mean = statistics.mean(v)
        print(f"  {name:<12} {mean:>7.2f} {v[int(0.9 * (len(v) - 1))]:>7.2f} {v[-1]:>7.2f}  "
              f"{mean - base:>+15.2f} ms ({(mean - base) / 100 * 100:+.1f}% of a 100 ms move)")


def reliability(pairs):
    """Ten bins of equal size by the predicted chance: mean predicted, observed frequency."""
    pairs = sorted(pairs)
    rows = []
    for k in range(10):
        chunk = pairs[k * len(pairs) // 10:(k + 1) * len(pairs) // 10]
        if not chunk:
            continue
        rows.append({"decile": k + 1, "tiles": len(chunk),
                     "predicted": round(sum(p for p, _ in chunk) / len(chunk), 4),
                     "observed": round(sum(h for _, h in chunk) / len(chunk), 4)})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("records", nargs="+")
    e.add_argument("--out", required=True)
    e.add_argument("--limit", type=int, default=0, help="decisions per file (0: all)")
    f = sub.add_parser("fit")
    f.add_argument("data", nargs="+")
    f.add_argument("--out", required=True)
    f.add_argument("--l2", type=float, default=1e-4)
    f.add_argument("--seed", type=int, default=43)
    v = sub.add_parser("evaluate")
    v.add_argument("records")
    v.add_argument("--model", help="a model file (default: the shipped one)")
    v.add_argument("--limit", type=int, default=0)
    v.add_argument("--json", dest="json_out")
    c = sub.add_parser("cost")
    c.add_argument("records")
    c.add_argument("--limit", type=int, default=200)
    c.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    if args.cmd == "extract":
        extract(args.records, args.out, args.limit)
    elif args.cmd == "fit":
        command = "python benchmarks/train_belief.py " + " ".join(argv or sys.argv[1:])
        fit(args.data, args.out, args.l2, args.seed, command)
    elif args.cmd == "cost":
        cost(args.records, args.limit, args.repeats)
    else:
        evaluate(args.records, args.model, args.limit, args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
