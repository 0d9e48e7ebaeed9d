"""How much more a richer model of the plays would say (issue 43): the shipped action model's
ten features (`information/action.py`) against a richer conditional logit over the same plays
(the ten, plus which tile is played, which number it opens and covers, the hand's tiles left
by number at the end opened, at each end after the play, its doubles and pips, and whether it
keeps a scoring reply), fitted on the same two-player training plays and scored on held-out
records never trained on: the cross-entropy of the play made (lower: the plays are better
explained). A model of the plays says something about the hidden tiles only through the
terms that depend on the rest of the hand; if a much richer model explains the plays little
better, the action model is near what plays of this engine reveal. Needs the `train` extra.

    python benchmarks/action_capacity.py fit TRAIN.jsonl HELDOUT.jsonl
    python benchmarks/action_capacity.py noise HELDOUT.jsonl --decisions 300 --seeds 16

`noise`: how much of the plays no model can explain. At held-out decisions (two players, a
play with a choice after the lead, not right after a draw), the engine that made the records
(`ismcts:iterations=2000`) searches the seat's information set again with `--seeds` seeds:
the entropy of its choices (plug-in, so a little low) is what even a perfect model of its
plays is left with, and the shipped model's cross-entropy against those same choices, less
that entropy, is the most a better model of these plays could add at these decisions.
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
from action_belief import cross_entropy, design, training_rows  # noqa: E402


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
    base = play_features(move, hand, left, right, ld, rd, line_mask=line_mask)
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


def noise(path: str, n_decisions: int, n_seeds: int, iterations: int) -> None:
    import math
    from collections import Counter

    from bergen_search.formats.record_io import iter_records
    from bergen_search.formats.replay import seen_steps
    from bergen_search.game.state import DRAW, PASS
    from bergen_search.information.action import action_model, candidates
    from bergen_search.information.infoset import ObservedPlay
    from bergen_search.search.api import Limits, search
    from action_belief import _line_mask

    model = action_model()
    seen = 0
    entropy = cross = made = 0.0
    with open(path) as f:
        records = iter_records(f.read(), check=True)
        for record in records:
            for item, obs in seen_steps(record):
                s, w = item.before, item.seat
                if not s.led or item.action in (DRAW, PASS) or s.draws_this_turn:
                    continue
                hand = s.hands[w]
                mirrored = s.left == s.right and s.left_double == s.right_double
                cands = candidates(hand, s.left, s.right, s.left_double, s.right_double)
                if len(cands) < 2:
                    continue
                info = obs[w].infoset(w)
                chosen = Counter()
                for k in range(n_seeds):
                    code = search(info, Limits(iterations=iterations), seed=1000 + k,
                                  values=False).moves[0].code
                    chosen[code & ~1 if mirrored else code] += 1
                lm = _line_mask(s.line)

                def q(move):
                    return model.likelihood(ObservedPlay(
                        item.event, w, s.left, s.right, s.left_double, s.right_double, lm,
                        move, False), hand)
                for move, c in chosen.items():
                    p = c / n_seeds
                    entropy -= p * math.log(p)
                    cross -= p * math.log(max(q(move), 1e-12))
                a = item.action & ~1 if mirrored else item.action
                made -= math.log(max(q(a), 1e-12))
                seen += 1
                if seen >= n_decisions:
                    break
            if seen >= n_decisions:
                break
    print(f"{path}: {seen} decisions, {n_seeds} searches each at {iterations} iterations")
    print(f"  the engine's own entropy over its choices    {entropy / seen:.5f} nats")
    print(f"  the shipped model against those choices      {cross / seen:.5f}")
    print(f"  the shipped model against the play recorded  {made / seen:.5f}")
    print(f"  left for a perfect model of these plays      {(cross - entropy) / seen:.5f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit")
    f.add_argument("train")
    f.add_argument("heldout")
    f.add_argument("--train-plays", dest="n_train", type=int, default=40000)
    f.add_argument("--heldout-plays", dest="n_heldout", type=int, default=20000)
    f.add_argument("--l2", type=float, default=1e-4)
    n = sub.add_parser("noise")
    n.add_argument("heldout")
    n.add_argument("--decisions", type=int, default=300)
    n.add_argument("--seeds", type=int, default=16)
    n.add_argument("--iterations", type=int, default=2000)
    a = ap.parse_args(argv)
    if a.cmd == "noise":
        noise(a.heldout, a.decisions, a.seeds, a.iterations)
        return
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
