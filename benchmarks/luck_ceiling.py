"""How much of a duplicate pair's variance could any correction at the draws remove?

Two deterministic engines (no randomness of their own): `greedy`, and `light`, greedy with the
lightest tile first on ties. For each of `--hands` deals of the hands, `--orders` reserve
orders are played as duplicate pairs of single rounds. With deterministic engines a perfect
estimate would leave only the variance *between* dealt hands (the engines' true difference
varies from deal to deal, and no correction after the deal can touch that); the variance
*within* a hand, over reserve orders, is what the draws' luck is. Their ratio bounds the
variance ratio any estimate can reach for this pair; the shipped estimate's ratio on the same
pairs (the first order of each hand, so the sets are independent) shows how far it is from it.

    python benchmarks/luck_ceiling.py --hands 200 --orders 10
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from bergen_search import playout
from bergen_search.luck import default_estimate, match_luck, side_margin
from bergen_search.playout import MatchLog, RoundLog, greedy_choice
from bergen_search.rng import Rng, derive_seed
from bergen_search.rules import Rules
from bergen_search.state import State, find_leader
from bergen_search.tiles import N_TILES, PIPS, mask_of


def light_choice(state, moves):
    """Greedy (most points at once), the lightest tile on ties."""
    side = state.rules.side_of(state.to_move)
    return max(moves, key=lambda m: (state.apply(m).scores[side] - state.scores[side],
                                     -PIPS[m >> 1]))


class Chooser:
    """A `Table` for playout.play_round: a choice function per seat."""

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
        end = playout.play_round(State.deal(rules, hands, reserve), None, None, events,
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
    args = ap.parse_args(argv)
    rules, model = Rules(), default_estimate()
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
                first.append((m, x))
        rows.append(row)
    a = np.array(rows)
    within = a.var(axis=1, ddof=1).mean()
    total = a.var(ddof=1)
    m, x = np.array(first).T
    print(f"greedy vs light, {args.hands} hands x {args.orders} reserve orders: variance of a "
          f"pair's margin {total:.3f}, within a hand {within:.3f}, between hands "
          f"{total - within:.3f}: a perfect estimate's ratio at most {total / (total - within):.2f}")
    print(f"the shipped estimate on the first order of each hand: ratio "
          f"{m.var() / (m - x).var():.2f} (margin {m.mean():+.3f}, adjusted {(m - x).mean():+.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
