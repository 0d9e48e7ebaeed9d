"""The engine's own policy as the model of the plays (issue 43): an upper bound, too slow for
a search, of what a policy network distilled from the engine could give the beliefs.

At held-out two-player decisions (as `train_belief.py evaluate` picks them), `--worlds`
worlds are drawn from the hand-set model's exact table (the default's), and each is weighed
by the chance of the other seat's plays since its last draw (its hand then: its hand in the
world plus what it played since, as `inference=action` reads them) under three models:
none (the worlds unweighted: the pool's own noise), the shipped action model, and the engine
that made the records (`ismcts:iterations=N`), whose chance of a play is estimated from
`--searches` searches of that seat's position then with the world's hand (each a seed;
add-half smoothing over its legal plays). The position is what the seat saw then, less its
history (`position_from_infoset`: the voids it had proved, not the turn of each draw). The
mean log loss of the other hand's tiles under each weighting says how much of the engine's
predictability (`action_capacity.py noise`) is about the hidden hand.

    python benchmarks/policy_belief.py HELDOUT.jsonl --decisions 150 --worlds 128 --searches 8 --iterations 500 [--skip K]
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time

from bergen_search.formats.game import load
from bergen_search.formats.position import position_from_infoset
from bergen_search.formats.record_io import iter_records
from bergen_search.formats.replay import seen_steps
from bergen_search.game.rng import Rng
from bergen_search.game.state import DRAW, PASS
from bergen_search.information.action import action_model, weighed_plays
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.sampler import WorldTable
from bergen_search.search.api import Limits, root_moves, search

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from train_belief import binary_loss  # noqa: E402


def steps_with_views(path: str):
    """(info of the seat to move, true hands, {event: position of the seat that played it,
    as it saw it then}) at each scored decision of the records (two players)."""
    with open(path) as f:
        text = f.read()
    for record in iter_records(text, check=True):
        if record.rules.players != 2:
            continue
        views: dict = {}
        current = None
        for item, obs in seen_steps(record):
            if item.round != current:
                views, current = {}, item.round
            before, w, a = item.before, item.seat, item.action
            if not before.led or a in (DRAW, PASS):
                continue
            info = obs[w].infoset(w)
            voids = {s: set(obs[w].proven_voids(s)) for s in range(record.rules.players)
                     if s != w}
            views[item.event] = position_from_infoset(info, voids)
            if not before.draws_this_turn and len(before.legal_moves()) > 1 and info.decisions:
                yield info, before.hands, dict(views)


class EnginePolicy:
    """The engine's chance of a play from a position, estimated by searches."""

    def __init__(self, searches: int, iterations: int):
        self.searches, self.iterations = searches, iterations
        self.cache: dict = {}
        self.calls = 0

    def chance(self, pos, move: int, mirrored: bool) -> float:
        """The chance of `move` (with `mirrored` ends, either end's code)."""
        fold = ~1 if mirrored else ~0
        move &= fold
        key = (pos, move)
        got = self.cache.get(key)
        if got is not None:
            return got
        info = load(pos).info
        moves = root_moves(info)
        counts = dict.fromkeys((m & fold for m in moves), 0)
        for k in range(self.searches):
            code = search(info, Limits(iterations=self.iterations), seed=7000 + k,
                          values=False).moves[0].code & fold
            counts[code] = counts.get(code, 0) + 1
        self.calls += self.searches
        total = self.searches + 0.5 * len(counts)
        for m, c in counts.items():
            self.cache[(pos, m)] = (c + 0.5) / total
        return self.cache.get(key, 0.5 / total)


def log_loss(worlds, weights, info, hands) -> tuple:
    """(sum of the log losses of the other seat's hidden tiles, their number)."""
    total = sum(weights)
    o = 1 - info.seat
    loss, n = 0.0, 0
    for t, _ in info.free:
        if info.played_free >> t & 1:
            continue
        p = sum(w for w, h in zip(weights, worlds) if h[o] >> t & 1) / total
        loss += binary_loss(p, bool(hands[o] >> t & 1))
        n += 1
    return loss, n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("heldout")
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--worlds", type=int, default=64)
    ap.add_argument("--searches", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--seed", type=int, default=4461)
    ap.add_argument("--skip", type=int, default=0, help="decisions passed over first")
    a = ap.parse_args(argv)
    model, engine = action_model(), EnginePolicy(a.searches, a.iterations)
    sums = {"hand-set (exact)": 0.0, "unweighted": 0.0, "action model": 0.0, "engine": 0.0}
    n = seen = skipped = 0
    ess = {"action model": 0.0, "engine": 0.0}
    t0 = time.time()
    for info, hands, views in steps_with_views(a.heldout):
        plays = weighed_plays(info)
        o = 1 - info.seat
        if o not in plays:
            continue
        if skipped < a.skip:
            skipped += 1
            continue
        table = WorldTable(info, tile_factors(info, TileModel()))
        marg = table.marginals()
        rng = Rng(a.seed + a.skip + seen)
        worlds = [table.sample(rng).hands for _ in range(a.worlds)]
        weights = {"unweighted": [1.0] * a.worlds,
                   "action model": [model.weight(h, plays) for h in worlds]}
        ew = []
        for h in worlds:
            w = 1.0
            for d, since in plays[o]:
                pos = dataclasses.replace(views[d.event], hand=h[o] | since)
                w *= engine.chance(pos, d.move, d.left == d.right and
                                   d.left_double == d.right_double)
            ew.append(w)
        weights["engine"] = ew
        k = 0
        for t, _ in info.free:
            if info.played_free >> t & 1:
                continue
            sums["hand-set (exact)"] += binary_loss(marg[t].get(o, 0.0), bool(hands[o] >> t & 1))
            k += 1
        for name, ws in weights.items():
            if sum(ws) <= 0:
                ws = [1.0] * a.worlds
            loss, _ = log_loss(worlds, ws, info, hands)
            sums[name] += loss
            if name in ess:
                s = sum(ws)
                ess[name] += 1.0 / sum((x / s) ** 2 for x in ws)
        n += k
        seen += 1
        if seen % 20 == 0:
            print(f"  {seen} decisions, {time.time() - t0:.0f} s, "
                  + ", ".join(f"{m} {v / n:.5f}" for m, v in sums.items()), flush=True)
        if seen >= a.decisions:
            break
    print(f"{a.heldout}: {seen} decisions (after {a.skip}) with a play of the other seat "
          f"since its last draw, {n} tile chances; {a.worlds} worlds each (seed {a.seed}); the engine's chance "
          f"from {a.searches} searches of {a.iterations} iterations; {time.time() - t0:.0f} s")
    for name, v in sums.items():
        extra = f"   (mean effective sample size {ess[name] / seen:.1f})" if name in ess else ""
        print(f"  {name:<18} log loss {v / n:.5f}{extra}")


if __name__ == "__main__":
    main()
