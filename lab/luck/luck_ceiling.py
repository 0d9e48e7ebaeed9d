"""How much of a duplicate pair's variance could any correction at the draws remove?

Two deterministic engines (no randomness of their own): `greedy`, and `light`, greedy with the
lightest tile first on ties. For each of `--hands` deals of the hands, `--orders` reserve
orders are played as duplicate pairs of single rounds. With deterministic engines a perfect
estimate would leave only the variance *between* dealt hands (the engines' true difference
varies from deal to deal, and no correction after the deal can touch that); the variance
*within* a hand, over reserve orders, is what the draws' luck is. Their ratio bounds the
variance ratio any estimate can reach for this pair; the shipped estimate's ratio on the same
pairs (the first order of each hand, so the sets are independent) shows how far it is from it.

    python lab/luck/luck_ceiling.py --hands 200 --orders 10
    python lab/luck/luck_ceiling.py --hands 120 --orders 1 --playouts 64,1024
    python lab/luck/luck_ceiling.py --hands 0 --selfplay 400

`--playouts K,...` also reports, on the first order of each hand, the ratio of the rollouts at
K playouts and scale 1 (does the noise of the playouts limit it?). `--selfplay N` reports,
for N plain single rounds of greedy against greedy (no duplicate), the variance of a round's
margin before and after the rollout luck at scale 1, and the regression slope of the margin
on the luck (1 when the estimate's changes are the right size).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from bergen_search.game import match
from bergen_search.game.match import MatchLog, RoundLog
from bergen_search.game.policy import greedy_choice
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import State, find_leader
from bergen_search.game.tiles import N_TILES, PIPS, mask_of
from bergen_search.play.luck import RolloutModel, default_estimate, match_luck, side_margin


def light_choice(state, moves):
    """Greedy (most points at once), the lightest tile on ties."""
    side = state.rules.side_of(state.to_move)
    return max(moves, key=lambda m: (state.apply(m).scores[side] - state.scores[side],
                                     -PIPS[m >> 1]))


class Chooser:
    """Seats for match.play_round: a choice function per seat."""

    def __init__(self, fns):
        self.fns = fns

    def choose(self, state, moves):
        return moves[0] if len(moves) == 1 else self.fns[state.to_move](state, moves)

    def observe(self, *args):
        pass


def pair(rules, hands, reserve, model):
    """(margin, luck) of greedy (A) against light over a duplicate pair, per round."""
    margin = luck = 0.0
    for k in range(2):
        fns = [greedy_choice, light_choice] if k == 0 else [light_choice, greedy_choice]
        events = []
        end = match.play_round(State.deal(rules, hands, reserve), None, None, events,
                                 Chooser(fns))
        margin += side_margin(end.scores, k)
        log = MatchLog(rules, (0, 0), [RoundLog(hands, reserve, events, end.ended, end.scores)])
        luck += side_margin(match_luck(rules, log, model)[:2], k)
    return margin / 2, luck / 2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--orders", type=int, default=10)
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--playouts", default="", help="rollout sizes to compare, at scale 1")
    ap.add_argument("--selfplay", type=int, default=0, help="plain greedy rounds to check")
    args = ap.parse_args(argv)
    rules, model = Rules(), default_estimate()
    if args.selfplay:
        selfplay(rules, args.selfplay)
    if args.hands:
        duplicate(rules, model, args)
    return 0


def selfplay(rules, rounds):
    from bergen_search.game.backend import ACTIVE
    ys, ls = [], []
    for i in range(rounds):
        log = ACTIVE.play_match(rules, ["greedy", "greedy"], derive_seed(3, i), max_rounds=1)
        gained = [e - s for e, s in zip(log.scores, log.start_scores)]
        ys.append(side_margin(gained, 0))
        ls.append(side_margin(match_luck(rules, log, RolloutModel(64))[:2], 0))
    y, x = np.array(ys), np.array(ls)
    print(f"greedy self-play, {rounds} single rounds: variance of the margin {y.var():.2f}, "
          f"less the rollout luck (64, scale 1) {(y - x).var():.2f}; slope "
          f"{np.cov(y, x)[0, 1] / x.var(ddof=1):.2f}")


def duplicate(rules, model, args):
    sizes = [int(k) for k in args.playouts.split(",") if k]
    others = [RolloutModel(k) for k in sizes]
    rows, first = [], []
    for h in range(args.hands):
        rng = Rng(derive_seed(args.seed, h))
        while True:
            tiles = list(range(N_TILES))
            rng.shuffle(tiles)
            hands = [mask_of(tiles[:6]), mask_of(tiles[6:12])]
            if find_leader(rules, hands) is not None:
                break
        row = []
        for r in range(args.orders):
            reserve = tiles[12:]
            rng.shuffle(reserve)
            m, x = pair(rules, hands, reserve, model)
            row.append(m)
            if r == 0:
                first.append((m, x, *(pair(rules, hands, reserve, o)[1] for o in others)))
        rows.append(row)
    a = np.array(rows)
    if args.orders > 1:
        within = a.var(axis=1, ddof=1).mean()
        total = a.var(ddof=1)
        print(f"greedy vs light, {args.hands} hands x {args.orders} reserve orders: variance of "
              f"a pair's margin {total:.3f}, within a hand {within:.3f}, between hands "
              f"{total - within:.3f}: a perfect estimate's ratio at most "
              f"{total / (total - within):.2f}")
    cols = np.array(first).T
    m, x = cols[0], cols[1]
    print(f"the shipped estimate on the first order of each hand: ratio "
          f"{m.var() / (m - x).var():.2f} (margin {m.mean():+.3f}, adjusted {(m - x).mean():+.3f})")
    for k, xk in zip(sizes, cols[2:]):
        print(f"rollouts, {k} playouts, scale 1: ratio {m.var() / (m - xk).var():.2f}")


if __name__ == "__main__":
    sys.exit(main())
