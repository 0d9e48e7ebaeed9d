"""Fit the playout policy's weights: `python -m bergen_search.fit_policy [--seed S] [--rounds N]`.

The playout policy (`_policy.pyx`) plays a fully known state by a softmax over features of
each legal play. Its weights are fitted here, reproducibly from a seed:

1. Positions: rounds from fresh deals (2, 3 and 4 players, and partnerships) played by the
   perfect-information solver's best plays, with a random play instead one time in four so
   that the positions also cover the mistakes a playout makes.
2. Labels: at each decision with two plays or more, every play's exact value with all hands
   and the reserve order in view (`_pimc.solve_moves`); the plays of the best value are the
   solver's choices.
3. Fit: a conditional logit, maximising the mean over decisions of log P(a best play), with a
   small L2 penalty, by full-batch gradient ascent with Adam, in numpy.

The weights are written to `bergen_search/data/policy.json` with the settings and the fit's
figures (log-likelihood, how often the policy's likeliest play is a best one).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from .rng import Rng, derive_seed
from .rules import Rules

#: Where the fitted weights live (package data).
POLICY_PATH = os.path.join(os.path.dirname(__file__), "data", "policy.json")
#: The rule sets the positions come from, in turn.
RULE_SETS = (Rules(players=2), Rules(players=3), Rules(players=4),
             Rules(players=4, partnerships=True))


def load_weights(path: str = POLICY_PATH) -> list:
    """The fitted weights (a list of floats, one per feature of `_policy.FEATURES`)."""
    path = os.environ.get("BERGEN_POLICY_EXPERIMENT", path)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return [float(x) for x in doc["weights"]]


def collect(rounds: int, seed: int, random_share: float = 0.25, progress=None):
    """Decisions of `rounds` rounds: (features, best-play mask) per decision."""
    from ._core import Backend
    from ._pimc import solve_moves
    from ._policy import features
    from .playout import deal
    data = []
    for r in range(rounds):
        rules = RULE_SETS[r % len(RULE_SETS)]
        rng = Rng(derive_seed(seed, r))
        hands, reserve = deal(rules, rng)
        state = Backend.new_state(rules, hands, reserve)
        while state.ended is None:
            moves = state.legal_moves()
            if len(moves) == 1:
                state = state.apply(moves[0])
                continue
            plays, feats = features(state)
            values = dict(solve_moves(state))
            v = np.array([values[m] for m in plays])
            best = v >= v.max() - 1e-9
            data.append((feats, best))
            if rng.below(1 << 20) < random_share * (1 << 20):
                move = plays[rng.below(len(plays))]
            else:
                move = plays[int(np.flatnonzero(best)[0])]
            state = state.apply(move)
        if progress:
            progress(r + 1, rounds)
    return data


def _pad(data):
    n = len(data)
    width = max(len(b) for _, b in data)
    k = data[0][0].shape[1]
    X = np.zeros((n, width, k))
    legal = np.zeros((n, width), dtype=bool)
    best = np.zeros((n, width), dtype=bool)
    for i, (f, b) in enumerate(data):
        X[i, :len(b)] = f
        legal[i, :len(b)] = True
        best[i, :len(b)] = b
    return X, legal, best


def objective(w, X, legal, best, l2):
    """(mean log P(a best play) - l2 |w|^2, its gradient, share of decisions whose likeliest
    play is a best one)."""
    s = X @ w
    s = np.where(legal, s, -np.inf)
    top = s.max(axis=1, keepdims=True)
    e = np.where(legal, np.exp(s - top), 0.0)
    p = e / e.sum(axis=1, keepdims=True)
    pb = np.where(best, p, 0.0)
    mass = pb.sum(axis=1)
    q = pb / mass[:, None]
    ll = np.log(mass).mean() - l2 * w @ w
    grad = ((q - p)[:, :, None] * X).sum(axis=1).mean(axis=0) - 2 * l2 * w
    hit = best[np.arange(len(s)), s.argmax(axis=1)].mean()
    return ll, grad, hit


def fit(data, steps: int = 3000, rate: float = 0.05, l2: float = 1e-4):
    X, legal, best = _pad(data)
    w = np.zeros(X.shape[2])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        ll, g, hit = objective(w, X, legal, best, l2)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w += rate * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    ll, _, hit = objective(w, X, legal, best, l2)
    return w, ll, hit


def main(argv=None):
    from ._policy import FEATURES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=4000)
    ap.add_argument("--out", default=POLICY_PATH)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()

    def progress(done, total):
        if done % 100 == 0 or done == total:
            print(f"\r{done}/{total} rounds", end="", file=sys.stderr, flush=True)

    data = collect(args.rounds, args.seed, progress=progress)
    print(file=sys.stderr)
    train = [d for i, d in enumerate(data) if i % 5]
    test = [d for i, d in enumerate(data) if i % 5 == 0]
    w, ll, hit = fit(train)
    tll, _, thit = objective(w, *_pad(test), 0.0)
    uniform = float(np.mean([np.log(b.sum() / len(b)) for _, b in test]))
    doc = {
        "format": "bergen-policy/1",
        "features": list(FEATURES),
        "weights": [round(float(x), 6) for x in w],
        "fit": {"seed": args.seed, "rounds": args.rounds, "decisions": len(data),
                "train_loglik": round(float(ll), 5), "test_loglik": round(float(tll), 5),
                "test_loglik_uniform": round(uniform, 5),
                "train_top_is_best": round(float(hit), 5),
                "test_top_is_best": round(float(thit), 5),
                "seconds": round(time.perf_counter() - t0, 1)},
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(json.dumps(doc["fit"]), file=sys.stderr)
    for name, x in zip(FEATURES, w):
        print(f"  {name:<14} {x:+.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
