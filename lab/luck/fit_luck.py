"""Fit the luck estimates (`bergen_search.play.luck`) and write them as package data.

For each table shape (2, 3, 4 players, 4 in partnerships) it plays `--pairs` duplicate sets
of single rounds, greedy against random (`arena.play_set`, set i seeded from `--seed` and i
as the arena seeds them), and replays every round. At every draw it takes, per side, the
draw's luck feature by feature (`luck_linear.side_features` after the tile drawn minus their mean
over every tile that could have been drawn) and the luck of the rollout estimate at scale 1
(`luck.RolloutModel`): each has mean zero. Summed over the set in the arena's unit (A's side
minus the mean of the others, `luck.side_margin`), they are regressed (least squares, numpy,
with an intercept and a small ridge) on the set's raw margin:

- `linear`: the feature coefficients that leave the least variance in the margin minus the
  luck (the values need not predict the points to come, only how a draw changes them);
- `rollout`: its scale, the same regression on the rollout luck alone (1 would be the raw
  rollout mean; in duplicate sets the best is about 0.6, see lab/luck/LUCK.md);
- with two sides, the match equity table (side 0's chance to win from the scores at the
  start of a round, from greedy self-play matches) that turns a playout's final scores into
  a chance to win, and the scale of that chance's luck, fitted the same way on duplicate
  sets of whole matches (A's matches won on the summed win luck).

Same seed, same file, byte for byte. Fitted on greedy against random only, so the estimates
are fixed functions of the position, whatever engines the arena then compares.

    python lab/luck/fit_luck.py                  # writes bergen_search/data/luck_model.json
    python lab/luck/fit_luck.py --pairs 200 --out /tmp/m.json --seed 7
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from bergen_search.game.backend import ACTIVE
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW
from bergen_search.game.tiles import iter_mask
from bergen_search.play.arena import play_set, seatings
from bergen_search.play.engines import parse_engine_spec
from bergen_search.play.luck import (
    MODEL_FILE,
    ROLLOUTS,
    RolloutModel,
    draw_luck,
    match_luck,
    table_key,
)
from luck_linear import SEAT_FEATURES, KnownPosition, side_features

SHAPES = (Rules(), Rules(players=3), Rules(players=4), Rules(players=4, partnerships=True))
#: The ridge added to the normal equations (times the rows), keeping rare features tame.
RIDGE = 1e-3


def feature_luck(state) -> np.ndarray:
    """Per side, the luck of the draw about to be made in `state` feature by feature: the
    features after the tile drawn minus their mean over every tile in the reserve."""
    pos = KnownPosition.of(state)
    outcomes = {t: side_features(pos.drawn(t)) for t in iter_mask(pos.reserve)}
    mean = np.mean(np.array(list(outcomes.values())), axis=0)
    return np.array(outcomes[state.reserve[0]]) - mean


def unit(per_side: np.ndarray, side: int) -> np.ndarray:
    """`luck.side_margin` for arrays: the side's row minus the mean of the other rows."""
    return per_side[side] - np.delete(per_side, side, axis=0).mean(axis=0)


def set_rows(rules: Rules, seed: int, pairs: int):
    """Per duplicate set: (raw margin, summed feature luck, summed rollout luck), in A's unit."""
    greedy, rand = parse_engine_spec("greedy"), parse_engine_spec("random")
    rollout = RolloutModel(ROLLOUTS)
    width = len(SEAT_FEATURES) * (2 if rules.partnerships else 1)
    for i in range(pairs):
        sr = play_set(rules, greedy, rand, seed, i, keep_logs=True, single_round=True,
                      luck_adjust=False)
        feats, rolls = np.zeros(width), 0.0
        for k, game in enumerate(sr.logs):
            rnd = game.log.rounds[0]
            state = ACTIVE.new_state(rules, rnd.hands, rnd.reserve, game.log.start_scores)
            f, r = np.zeros((rules.n_sides, width)), np.zeros(rules.n_sides)
            for _, action, _ in rnd.events:
                if action == DRAW:
                    f += feature_luck(state)
                    r += np.array(draw_luck(rollout, state)[0])
                state = state.apply(action)
            feats += unit(f, k)
            rolls += float(unit(r[:, None], k)[0])
        assert len(sr.logs) == len(seatings(rules))
        yield sr.a_points - sr.b_points, feats, rolls


def regress(x: np.ndarray, y: np.ndarray):
    """Least-squares coefficients of y on x plus an intercept (the intercept dropped), and
    the variance ratio var(y) / var(y - x·w) they give on these rows."""
    x1 = np.hstack([x, np.ones((len(y), 1))])
    gram = x1.T @ x1 + RIDGE * len(y) * np.diag([1.0] * x.shape[1] + [0.0])
    w = np.linalg.solve(gram, x1.T @ y)[:-1]
    return w, float(np.var(y) / np.var(y - x @ w))


def fit_shape(rules: Rules, pairs: int, seed: int) -> dict:
    ys, fs, rs = zip(*set_rows(rules, seed, pairs))
    y, f, r = np.array(ys, dtype=float), np.array(fs), np.array(rs)[:, None]
    w, linear_ratio = regress(f, y)
    scale, rollout_ratio = regress(r, y)
    return {"weights": [round(float(v), 6) for v in w], "scale": round(float(scale[0]), 4),
            "fit": {"pairs": pairs, "linear_variance_ratio": round(linear_ratio, 4),
                    "rollout_variance_ratio": round(rollout_ratio, 4),
                    "raw_rollout_variance_ratio": round(float(np.var(y) / np.var(y - r[:, 0])), 4)}}


def equity_table(rules: Rules, matches: int, seed: int) -> list:
    """Side 0's chance to win the match from the scores (s0, s1) at the start of a round, at
    index s0 * target + s1: the share of `matches` greedy self-play matches from there that
    side 0 won, averaged with 1 − the same from (s1, s0) (the sides are alike)."""
    t = rules.target
    won = {}
    for s0 in range(t):
        for s1 in range(t):
            cell = derive_seed(seed, s0 * t + s1)
            won[s0, s1] = sum(ACTIVE.play_match(rules, ["greedy"] * rules.players,
                                                derive_seed(cell, m), (s0, s1)).winner == 0
                              for m in range(matches)) / matches
    return [round((won[a, b] + 1.0 - won[b, a]) / 2, 4) for a in range(t) for b in range(t)]


def fit_win_scale(rules: Rules, pairs: int, seed: int, equity: list) -> tuple:
    """The scale of the chance-to-win luck: the regression of A's matches won in a duplicate
    set of whole matches (greedy against random) on the set's summed win luck at scale 1."""
    greedy, rand = parse_engine_spec("greedy"), parse_engine_spec("random")
    model = RolloutModel(ROLLOUTS, equity={table_key(rules): equity})
    n = rules.n_sides
    ys, xs = [], []
    for i in range(pairs):
        sr = play_set(rules, greedy, rand, seed, i, keep_logs=True, luck_adjust=False)
        ys.append(sr.a_wins)
        xs.append(sum(match_luck(rules, g.log, model)[n + g.seating] for g in sr.logs))
    w, ratio = regress(np.array(xs)[:, None], np.array(ys, dtype=float))
    return round(float(w[0]), 4), round(ratio, 4)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000, help="duplicate sets per table shape")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--equity-matches", type=int, default=400,
                    help="greedy matches per score cell of the equity table")
    ap.add_argument("--win-pairs", type=int, default=1000,
                    help="duplicate sets of whole matches to fit the win scale")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                  "bergen_search", "data", MODEL_FILE))
    args = ap.parse_args(argv)
    weights, scales, fits, equity, win_scales = {}, {}, {}, {}, {}
    for n, rules in enumerate(SHAPES):
        key = table_key(rules)
        got = fit_shape(rules, args.pairs, derive_seed(args.seed, n))
        weights[key], scales[key], fits[key] = got["weights"], got["scale"], got["fit"]
        print(f"{key}: scale {got['scale']}, {got['fit']}", file=sys.stderr)
        if rules.n_sides == 2:
            equity[key] = equity_table(rules, args.equity_matches, derive_seed(args.seed, 10 + n))
            win_scales[key], ratio = fit_win_scale(rules, args.win_pairs,
                                                   derive_seed(args.seed, 20 + n), equity[key])
            fits[key].update(win_pairs=args.win_pairs, win_variance_ratio=ratio)
            print(f"{key}: win scale {win_scales[key]}, variance ratio {ratio}", file=sys.stderr)
    model = {"format": "bergen-luck-model/1",
             "made_by": (f"python lab/luck/fit_luck.py --pairs {args.pairs} --seed {args.seed} "
                           f"--equity-matches {args.equity_matches} --win-pairs {args.win_pairs}"),
             "fit": fits,
             "linear": {"features": list(SEAT_FEATURES), "weights": weights},
             "rollout": {"playouts": ROLLOUTS, "scale": scales, "win_scale": win_scales,
                         "equity": equity}}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
