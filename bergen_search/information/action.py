"""An action model behind the exact sampler (issue 43's experiment; the searches' setting
`inference=action`): how likely each play another seat made was for each hand that could
have made it, a conditional logit over the plays that hand had (`play_features`), fitted to
self-play games by `benchmarks/action_belief.py` and shipped as `data/action_model.json`.

Such a likelihood does not factorise by tile, so the exact sampler cannot draw from it. It is
used by moment matching: worlds are drawn from the hand-set model's exact table, weighed by
the likelihood of the other seats' plays since their last draw (the hand then is the hand in
the world plus what the seat played since; before a draw the world does not say the hand),
and each tile's chance of being with each seat under those weights becomes a factor of the
tile-factorised family the sampler draws from exactly (its odds over the unweighted
chances, clipped). The draw is seeded by a constant: a position gets the same table every
time. Only what the seat to move saw is read.

>>> from bergen_search.formats.game import load_game
>>> info = load_game(open("examples/decision.json").read())
>>> from bergen_search.information.inference import tile_factors
>>> f = tile_factors(info, action_model())
>>> all(len(v) == len(info.groups) and min(v) > 0 for v in f.values())
True
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..game.rng import Rng
from ..game.tiles import (
    DOUBLE_OF, DOUBLES, PIPS, TILE_HIGH, TILE_LOW, TILES_WITH, iter_mask, popcount, tile_index)
from .infoset import InfoSet, ObservedPlay
from .sampler import WorldTable

MODEL_FILE = "action_model.json"
FEATURES = ("scores", "triple", "pips", "double", "keeps_fitting", "opened_held",
            "covered_held", "gives_match", "opens_double_held", "late")
#: Worlds weighed per search, the seed of their draw, and the bounds of a tile's factor.
WORLDS = 100
SEED = 0xAC7_10A
CLIP = (0.2, 5.0)


def _scoring_tile(left: int, right: int) -> int:
    return DOUBLE_OF[left] if left == right else tile_index(left, right)


def candidates(hand: int, left: int, right: int, ld: bool, rd: bool) -> list:
    """The plays (tile * 2 + end) of `hand` at these ends, a mirrored pair of ends once."""
    mirrored = left == right and ld == rd
    out = []
    for u in iter_mask(hand):
        if TILES_WITH[left] >> u & 1:
            out.append(u * 2)
        if TILES_WITH[right] >> u & 1 and not mirrored:
            out.append(u * 2 + 1)
    return out


def play_features(move: int, hand: int, left: int, right: int, ld: bool, rd: bool,
                  *, line_mask: int) -> list:
    """`FEATURES` of the play `move` from `hand` at these ends (the line `line_mask`)."""
    u, end = move >> 1, move & 1
    covered = right if end else left
    opened = TILE_LOW[u] + TILE_HIGH[u] - covered
    new_left, new_right = (left, opened) if end else (opened, right)
    rest = hand & ~(1 << u)
    scores = new_left == new_right
    triple = scores and bool(DOUBLES >> u & 1 or (ld if end else rd))
    fits_after = TILES_WITH[new_left] | TILES_WITH[new_right]
    match = _scoring_tile(new_left, new_right)
    return [float(scores), float(triple), PIPS[u] / 12.0, float(DOUBLES >> u & 1),
            popcount(rest & fits_after) / 3.0, popcount(rest & TILES_WITH[opened]) / 3.0,
            popcount(rest & TILES_WITH[covered]) / 3.0,
            float(not (rest | line_mask | 1 << u) >> match & 1),
            float(rest >> DOUBLE_OF[opened] & 1), float(popcount(line_mask) >= 8)]


@dataclass(frozen=True)
class ActionModel:
    """The fitted weights (`FEATURES` order)."""
    weights: tuple

    def likelihood(self, d: ObservedPlay, hand: int) -> float:
        """The model's chance that `hand` made the play `d` (0: it could not)."""
        move = d.move
        if d.left == d.right and d.left_double == d.right_double:
            move &= ~1
        cands = candidates(hand, d.left, d.right, d.left_double, d.right_double)
        if move not in cands:
            return 0.0
        if len(cands) == 1:
            return 1.0
        z = [sum(w * x for w, x in zip(self.weights, play_features(
            c, hand, d.left, d.right, d.left_double, d.right_double, line_mask=d.line_mask)))
             for c in cands]
        top = max(z)
        e = [math.exp(v - top) for v in z]
        return e[cands.index(move)] / sum(e)

    def weight(self, hands: tuple, plays: dict) -> float:
        """The likelihood of the `plays` (`weighed_plays`) for the world of `hands`: the
        product over the plays of each seat's hand then (its hand now, plus what it played
        since)."""
        w = 1.0
        for j, seen in plays.items():
            for d, since in seen:
                w *= self.likelihood(d, hands[j] | since)
        return w

    def factors(self, info: InfoSet, base: dict) -> dict:
        """{tile: factor per group of `info.groups`}: `base` (the hand-set model's factors,
        `inference.tile_factors`) times each tile's odds with each other seat under the
        action-weighted worlds over its odds in the same worlds unweighted (clipped to
        CLIP)."""
        plays = weighed_plays(info)
        if not plays:
            return base
        table = WorldTable(info, base)
        rng = Rng(SEED)
        hands = [table.sample(rng).hands for _ in range(WORLDS)]
        weights = [self.weight(h, plays) for h in hands]
        total = sum(weights)
        if total <= 0:
            return base
        out = {t: list(f) for t, f in base.items()}
        for t, _ in info.free:
            for j in plays:
                p0 = sum(1 for h in hands if h[j] >> t & 1) / WORLDS
                if p0 <= 0 or p0 >= 1:
                    continue
                pw = sum(w for w, h in zip(weights, hands) if h[j] >> t & 1) / total
                pw = min(max(pw, 1e-3), 1 - 1e-3)
                r = min(max(pw / (1 - pw) * (1 - p0) / p0, CLIP[0]), CLIP[1])
                f = out.setdefault(t, [1.0] * len(info.groups))
                for g, grp in enumerate(info.groups):
                    if grp.owner == j:
                        f[g] *= r
        return {t: tuple(f) for t, f in out.items()}


def weighed_plays(info: InfoSet) -> dict:
    """{seat: [(play, the tiles it played from that play on)], latest first} of each other
    seat's plays since its last draw (not a drawn tile's), which the model weighs: a seat's
    hand at such a play is its hand now plus those tiles. Seats with none are left out."""
    out = {}
    for j in range(info.rules.players):
        if j == info.seat:
            continue
        opened = max([g.opened for g in info.groups if g.owner == j] + [-1])
        mine = [d for d in info.decisions if d.seat == j and not d.drew and d.event > opened]
        seen, since = [], 0
        for d in reversed(mine):
            since |= 1 << (d.move >> 1)
            seen.append((d, since))
        if seen:
            out[j] = seen               # the latest play first, as the weights multiply
    return out


@lru_cache(maxsize=1)
def action_model() -> ActionModel:
    """The shipped model (`data/action_model.json`, `benchmarks/action_belief.py fit`)."""
    text = resources.files("bergen_search").joinpath("data", MODEL_FILE).read_text()
    data = json.loads(text)
    if tuple(data.get("features", ())) != FEATURES:
        raise ValueError(f"{MODEL_FILE}: its features are not this version's")
    return ActionModel(tuple(float(w) for w in data["weights"]))
