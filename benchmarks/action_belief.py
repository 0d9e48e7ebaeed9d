"""Issue 43's next experiment, offline: an action model (how likely each observed play was for
each hand that could have made it) weighing sampled worlds, scored on held-out records before
any search uses it. Two players. Needs the `train` extra (numpy and SciPy).

    python benchmarks/action_belief.py fit train_it2000.jsonl --limit 20000 --out action.json
    python benchmarks/action_belief.py evaluate heldout_it2000.jsonl --model action.json \
        --limit 3000 --worlds 400 --seed 4391
    python benchmarks/action_belief.py cost heldout_it2000.jsonl --limit 300

1. `fit`: every play with a choice of the complete records (after the lead, not the one right
   after a draw), the player's whole hand known: a conditional logit over the plays it could
   make (a mirrored pair of ends counted once), the features of each (`play_features`), fitted
   by L-BFGS (convex, from zero: no randomness) with an L2 penalty.
2. `evaluate`: at each decision of the held-out records, as the seat to move saw it, K worlds
   drawn from the exact sampler weighted by the hand-set model (`TileModel()`, today's
   default); each world then weighed by the action model's likelihood of the other seat's
   plays since its last draw (its hand then: its hand in the world plus what it played since;
   earlier plays need the hand before a draw, which the sampled world does not say). The
   mean log loss of the other hand's tiles: the exact marginals of the sampler, the K worlds
   unweighted (the sampling noise alone), the K worlds weighted by the action model (with
   the effective sample size of the weights), and `projected`: the exact marginals of the
   table the searches' `inference=action` draws from (`ActionModel.factors`: the hand-set
   factors moved by moment matching over `action.WORLDS` weighed worlds).
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from scipy.optimize import minimize

from bergen_search.formats.record_io import iter_records
from bergen_search.formats.replay import seen_steps
from bergen_search.game.rng import Rng
from bergen_search.game.state import DRAW, PASS
from bergen_search.game.tiles import tile_index
from bergen_search.information.action import (
    FEATURES, ActionModel, candidates, play_features, weighed_plays)
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.sampler import WorldTable

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from train_belief import binary_loss, binary_losses, decisions  # noqa: E402

def _line_mask(line) -> int:
    m = 0
    for a, b in line:
        m |= 1 << tile_index(a, b)
    return m


def training_rows(path: str, limit: int):
    n = 0
    for record in iter_records(open(path).read(), check=True):
        if record.rules.players != 2:
            continue
        for item, _ in seen_steps(record, seats=()):
            s, a = item.before, item.action
            if not s.led or a in (DRAW, PASS) or s.draws_this_turn:
                continue
            hand = s.hands[item.seat]
            cands = candidates(hand, s.left, s.right, s.left_double, s.right_double)
            if s.left == s.right and s.left_double == s.right_double:
                a = a & ~1
            if len(cands) < 2 or a not in cands:
                continue
            lm = _line_mask(s.line)
            yield ([play_features(c, hand, s.left, s.right, s.left_double, s.right_double,
                                  line_mask=lm)
                    for c in cands], cands.index(a))
            n += 1
            if limit and n >= limit:
                return


def design(rows) -> tuple:
    """(features of every option, its play's index, the options chosen, the plays) of
    `training_rows`' rows, as `cross_entropy` reads them."""
    x = np.concatenate([np.array(f) for f, _ in rows])
    group = np.concatenate([np.full(len(f), i) for i, (f, _) in enumerate(rows)])
    chosen = np.cumsum([0] + [len(f) for f, _ in rows[:-1]]) + np.array([c for _, c in rows])
    return x, group, chosen, len(rows)


def cross_entropy(w, x, group, chosen, n, l2=0.0) -> tuple:
    """(the mean cross-entropy of the plays made under weights `w`, plus the L2 penalty; its
    gradient): the conditional logit's objective."""
    z = x @ w
    zmax = np.zeros(n)
    np.maximum.at(zmax, group, z)
    e = np.exp(z - zmax[group])
    tot = np.zeros(n)
    np.add.at(tot, group, e)
    loss = -(z[chosen].sum() - (np.log(tot) + zmax).sum()) / n + l2 * w @ w
    p = e / tot[group]
    grad = -(x[chosen].sum(0) - (p[:, None] * x).sum(0)) / n + 2 * l2 * w
    return loss, grad


def fit(paths, limit, l2, out):
    rows = [r for p in paths for r in training_rows(p, limit)]
    data = design(rows)
    n = data[3]
    w0 = np.zeros(data[0].shape[1])
    base, _ = cross_entropy(w0, *data, l2)
    res = minimize(cross_entropy, w0, args=(*data, l2), jac=True, method="L-BFGS-B")
    print(f"{n} plays with a choice; cross-entropy uniform {base:.5f} -> fitted {res.fun:.5f}")
    for name, v in zip(FEATURES, res.x):
        print(f"  {name:<18} {v:+.3f}")
    with open(out, "w") as f:
        json.dump({"features": FEATURES, "weights": [round(float(v), 6) for v in res.x],
                   "plays": n, "cross_entropy": [round(float(base), 5), round(float(res.fun), 5)],
                   "command": " ".join(sys.argv)}, f, indent=1)
        f.write("\n")


def evaluate(path, model, limit, worlds, seed):
    am = ActionModel(tuple(json.load(open(model))["weights"]))
    rng = Rng(seed)
    loss = {"exact": 0.0, "sampled": 0.0, "weighted": 0.0, "projected": 0.0}
    n_items, points, ess_sum, used = 0, 0, 0.0, 0
    for rules, info, hands, _ in decisions(path, limit):
        if rules.players != 2:
            continue
        j = 1 - info.seat
        table = WorldTable(info, tile_factors(info, TileModel()))
        plays = weighed_plays(info)
        worlds_hands = [table.sample(rng).hands for _ in range(worlds)]
        draws = [h[j] for h in worlds_hands]
        weights = np.ones(worlds)
        if plays:
            used += 1
            weights = np.array([am.weight(h, plays) for h in worlds_hands])
        if weights.sum() <= 0:
            weights = np.ones(worlds)
        ess_sum += weights.sum() ** 2 / (weights ** 2).sum()
        marg = table.marginals()
        items = binary_losses(marg, info, hands)
        projected = {(j_, t): p for j_, t, p, _ in binary_losses(
            WorldTable(info, tile_factors(info, am)).marginals(), info, hands)}
        for name in loss:
            for _, t, p, held in items:
                if name == "projected":
                    p = projected[(j, t)]
                elif name != "exact":
                    ww = weights if name == "weighted" else np.ones(worlds)
                    p = float(sum(wi for wi, h in zip(ww, draws) if h >> t & 1) / ww.sum())
                loss[name] += binary_loss(p, held)
        n_items += len(items)
        points += 1
    print(f"{path}: {points} decisions ({used} with plays to weigh), {n_items} tile chances, "
          f"{worlds} worlds each, seed {seed}")
    for name, v in loss.items():
        print(f"  {name:<9} log loss {v / n_items:.5f}")
    print(f"  mean effective sample size of the weights {ess_sum / points:.1f} of {worlds}")


def cost(path, limit):
    """Milliseconds a search spends on `inference=action`'s table factors (median, p90)."""
    import time
    from bergen_search.information.action import action_model
    model, spent = action_model(), []
    for _, info, _, _ in decisions(path, limit):
        t0 = time.perf_counter()
        tile_factors(info, model)
        spent.append(1000 * (time.perf_counter() - t0))
    spent.sort()
    print(f"{path}: {len(spent)} decisions: the action model's factors take "
          f"{spent[len(spent) // 2]:.2f} ms at the median, {spent[int(0.9 * len(spent))]:.2f} "
          f"ms at the 90th percentile")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit")
    f.add_argument("records", nargs="+")
    f.add_argument("--limit", type=int, default=20000)
    f.add_argument("--l2", type=float, default=1e-4)
    f.add_argument("--out", required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("records")
    e.add_argument("--model", required=True)
    e.add_argument("--limit", type=int, default=1500)
    e.add_argument("--worlds", type=int, default=300)
    e.add_argument("--seed", type=int, default=4301)
    c = sub.add_parser("cost")
    c.add_argument("records")
    c.add_argument("--limit", type=int, default=300)
    a = ap.parse_args(argv)
    if a.cmd == "fit":
        fit(a.records, a.limit, a.l2, a.out)
    elif a.cmd == "cost":
        cost(a.records, a.limit)
    else:
        evaluate(a.records, a.model, a.limit, a.worlds, a.seed)


if __name__ == "__main__":
    main()
