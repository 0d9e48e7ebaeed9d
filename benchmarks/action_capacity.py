"""How much more a richer model of the plays would say (issue 43): the shipped action model's
ten features (`information/action.py`) against a richer conditional logit over the same plays
(the ten, plus which tile is played, which number it opens and covers, the hand's tiles left
by number at the end opened, at each end after the play, its doubles and pips, and whether it
keeps a scoring reply), fitted on the same two-player training plays and scored on held-out
records never trained on: the cross-entropy of the play made (lower: the plays are better
explained). A model of the plays says something about the hidden tiles only through the
terms that depend on the rest of the hand; if a much richer model explains the plays little
better, the action model is near what plays of this engine reveal. Needs the `train` extra.

    python benchmarks/action_capacity.py TRAIN.jsonl HELDOUT.jsonl --train 40000 --heldout 20000
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
from scipy.optimize import minimize

from bergen_search.game.tiles import (
    DOUBLES, PIPS, TILE_HIGH, TILE_LOW, TILES_WITH, iter_mask, popcount)
from bergen_search.information.action import play_features

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from action_belief import training_rows  # noqa: E402


def _scores_next(rest: int, left: int, right: int) -> bool:
    """Whether a tile of `rest` played at these ends would make them equal (a scoring reply)."""
    for u in iter_mask(rest & (TILES_WITH[left] | TILES_WITH[right])):
        lo, hi = TILE_LOW[u], TILE_HIGH[u]
        if TILES_WITH[left] >> u & 1 and lo + hi - left == right:
            return True
        if TILES_WITH[right] >> u & 1 and lo + hi - right == left:
            return True
    return False


def rich_features(move: int, hand: int, left: int, right: int, ld: bool, rd: bool,
                  line_mask: int) -> list:
    """The ten shipped features and the richer ones of the module's doc."""
    base = play_features(move, hand, left, right, ld, rd, line_mask)
    u, end = move >> 1, move & 1
    covered = right if end else left
    opened = TILE_LOW[u] + TILE_HIGH[u] - covered
    new_left, new_right = (left, opened) if end else (opened, right)
    rest = hand & ~(1 << u)
    tile = [0.0] * 28
    tile[u] = 1.0
    opens = [0.0] * 7
    opens[opened] = popcount(rest & TILES_WITH[opened]) / 3.0     # tiles kept, by number opened
    covers = [0.0] * 7
    covers[covered] = 1.0
    return base + tile + opens + covers + [
        popcount(rest & TILES_WITH[new_left]) / 3.0, popcount(rest & TILES_WITH[new_right]) / 3.0,
        popcount(rest & DOUBLES) / 2.0, sum(PIPS[t] for t in iter_mask(rest)) / 36.0,
        float(_scores_next(rest, new_left, new_right)), popcount(rest) / 6.0]


def design(rows):
    x = np.concatenate([np.array(f) for f, _ in rows])
    group = np.concatenate([np.full(len(f), i) for i, (f, _) in enumerate(rows)])
    chosen = np.cumsum([0] + [len(f) for f, _ in rows[:-1]]) + np.array([c for _, c in rows])
    return x, group, chosen, len(rows)


def cross_entropy(w, x, group, chosen, n, l2=0.0):
    z = x @ w
    zmax = np.full(n, -np.inf)
    np.maximum.at(zmax, group, z)
    e = np.exp(z - zmax[group])
    tot = np.zeros(n)
    np.add.at(tot, group, e)
    loss = -(z[chosen].sum() - (np.log(tot) + zmax).sum()) / n + l2 * w @ w
    p = e / tot[group]
    grad = -(x[chosen].sum(0) - (p[:, None] * x).sum(0)) / n + 2 * l2 * w
    return loss, grad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("train")
    ap.add_argument("heldout")
    ap.add_argument("--train-plays", dest="n_train", type=int, default=40000)
    ap.add_argument("--heldout-plays", dest="n_heldout", type=int, default=20000)
    ap.add_argument("--l2", type=float, default=1e-4)
    a = ap.parse_args(argv)
    import bergen_search.information.action as action
    for name, featurize in (("shipped (10 features)", action.play_features),
                            ("rich (58 features)", rich_features)):
        action_belief = sys.modules["action_belief"]
        action_belief.play_features = featurize       # the rows' features, this model's
        train = design(list(training_rows(a.train, a.n_train)))
        held = design(list(training_rows(a.heldout, a.n_heldout)))
        w0 = np.zeros(train[0].shape[1])
        res = minimize(cross_entropy, w0, args=(*train, a.l2), jac=True, method="L-BFGS-B")
        uniform = cross_entropy(np.zeros_like(res.x), *held)[0]
        fitted = cross_entropy(res.x, *held)[0]
        print(f"{name}: {train[3]} training plays, {held[3]} held-out plays; held-out "
              f"cross-entropy of the play made: every play alike {uniform:.5f}, fitted "
              f"{fitted:.5f} (training {cross_entropy(res.x, *train)[0]:.5f})", flush=True)


if __name__ == "__main__":
    main()
