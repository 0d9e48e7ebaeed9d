"""What knowing the other hands is worth: a ceiling for inference.

    python lab/strength/known_hand.py [--pairs 400] [--seed 1000] [--iterations 4000]
                                    [--engine ismcts] [--workers 2]

Duplicate single rounds (2 players, from 0-0, seats swapped) between the same search twice:
one sees the other seat's hand (its information set is replaced by one where every hidden
tile's place is known, the reserve's order still unknown), the other plays honestly. The
margin is the points a round that perfect inference about the hand would be worth at most to
that search; `inference.py` recovers a part of it. Prints the margin with its standard error.
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from multiprocessing import get_context

from bergen_search.game.match import deal
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import State
from bergen_search.information.infoset import RESERVE, Group, Observer
from bergen_search.search.api import Limits, search


def revealed(info, state):
    """`info` with the other hands as they are in `state` (the reserve's order unknown)."""
    others = [j for j in range(state.rules.players) if j != info.seat]
    groups = [Group(j, 0, bin(state.hands[j]).count("1")) for j in others]
    groups.append(Group(RESERVE, -1, info.reserve_size))
    free = []
    for t, _ in info.free:
        if info.played_free >> t & 1:
            continue
        g = next((k for k, j in enumerate(others) if state.hands[j] >> t & 1), len(others))
        free.append((t, 1 << g))
    return replace(info, groups=tuple(groups), free=tuple(sorted(free)), played_free=0,
                   decisions=())


def play_round(rules, seed, cheats, args):
    """The points of each seat's side in one round; `cheats[s]`: seat s sees the hands."""
    rng = Rng(seed)
    hands, reserve = deal(rules, rng)
    state = State.deal(rules, hands, reserve)
    obs = {s: Observer(rules, {s}, state) for s in range(rules.players)}
    k = 0
    while state.ended is None:
        moves = state.legal_moves()
        seat = state.to_move
        if len(moves) == 1:
            m = moves[0]
        else:
            info = obs[seat].infoset(seat)
            if cheats[seat]:
                info = revealed(info, state)
            m = search(info, Limits(iterations=args.iterations), seed=derive_seed(seed, k),
                       algorithm=args.engine).moves[0].code
            k += 1
        after = state.apply(m)
        for o in obs.values():
            o.step(seat, m, after)
        state = after
    return state.scores


def pair(job):
    i, args = job
    rules = Rules()
    seed = derive_seed(args.seed, i)
    a = play_round(rules, seed, (True, False), args)
    b = play_round(rules, seed, (False, True), args)
    return ((a[0] - a[1]) + (b[1] - b[0])) / 2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--engine", default="ismcts")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    jobs = [(i, args) for i in range(args.pairs)]
    with get_context("fork").Pool(args.workers) as pool:
        margins = pool.map(pair, jobs)
    n = len(margins)
    mean = sum(margins) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in margins) / (n - 1) / n)
    print(f"{args.engine} seeing the other hand vs {args.engine}, {args.iterations} iterations, "
          f"{n} duplicate pairs (seed {args.seed}): {mean:+.3f} ± {se:.3f} points a round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
