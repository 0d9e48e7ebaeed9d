"""Where `inference.TileModel`'s ratios come from, and how much the model knows.

    python lab/belief/fit_inference.py [--games 200] [--seed 7] [--engine ismcts:iterations=2000]
    python lab/belief/fit_inference.py --records RUN.jsonl   # e.g. from bergen arena --out

1. Self-play: `--games` matches of `--engine` against itself (2 players, default rules),
   seeded from `--seed`; or the complete records of `--records` (2 players), for example
   an arena's between two other engines.
2. Ratios: at every play a seat made with its own choice (not right after drawing), each tile
   the other seat could not see is classed by its relation to the play (`inference.relation`);
   per class, the ratio of how often the playing seat really held such a tile to how often it
   would if hands were dealt blindly (its hand size over the unseen tiles). These are the
   defaults of `TileModel` (rounded), measured with the default engine of issue 9.
3. Log loss: at the decisions of the records, the mean log loss of the other hands' tile
   marginals (2,000 worlds each) with no model, the missed-match ratio alone, and the full
   model: lower is better; 0 would be knowing the hands.
4. A candidate finer model (`SafetyModel`, below; not used by the engine): its ratios fitted
   on the second half of the matches, and its log loss on the first half, with `TileModel()`
   and `TileModel()`'s relations refitted on the same half to compare.

It prints the tables; nothing is written.
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from dataclasses import dataclass

from bergen_search.errors import BergenError
from bergen_search.formats.record_io import iter_records
from bergen_search.formats.replay import walk
from bergen_search.game.match import MatchLog, RoundLog
from bergen_search.game.rng import Rng, derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, State
from bergen_search.game.tiles import ALL_TILES, PIPS, TILES_WITH, popcount
from bergen_search.information.inference import TileModel, relation, scoring_tile, tile_factors
from bergen_search.information.infoset import ObservedPlay, Observer
from bergen_search.information.sampler import WorldTable
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines


def _ends_after(left: int, right: int, t: int, end: int) -> tuple:
    """The ends after tile t is laid at `end` (0 left, 1 right) of ends (left, right)."""
    return (PIPS[t] - left, right) if end == 0 else (left, PIPS[t] - right)


@dataclass(frozen=True)
class SafetyModel(TileModel):
    """A candidate: two finer relations on top of `TileModel`'s, from whether a play hands the
    next seat a match (the match tile of the ends left, `scoring_tile`, not yet on the line):

    - `left_match`: the tile that would match the ends the seat left (a seat holding it has
      left itself the match, and nobody else can take it);
    - `unsafe_alt`: the seat's play left the next seat a match, and this tile (not a double,
      not showing the number opened) fitted, where it would have left ends whose match tile
      is already on the line: a seat holding it would probably have played it.
    """
    left_match: float = 1.0
    unsafe_alt: float = 1.0

    def relation(self, d: ObservedPlay, t: int) -> str | None:
        r = relation(d, t)
        if r == "missed_match":
            return r
        u = d.move >> 1
        x, y = _ends_after(d.left, d.right, u, d.move & 1)
        left = scoring_tile(x, y)
        if t == left:
            return "left_match"
        if r in ("fitting", "fitting_double") and not (d.line_mask | 1 << u) >> left & 1:
            on_line = d.line_mask | 1 << t
            for end, e in ((0, d.left), (1, d.right)):
                if TILES_WITH[e] >> t & 1:
                    x2, y2 = _ends_after(d.left, d.right, t, end)
                    if x2 != y2 and on_line >> scoring_tile(x2, y2) & 1:
                        return "unsafe_alt"
        return r


def read_records(path: str):
    """MatchLogs of the complete 2-player records of a .jsonl file."""
    with open(path) as f:
        text = f.read()
    for n, record in enumerate(iter_records(text, check=True), start=1):
        if not record.complete or record.rules.players != 2:
            raise BergenError(f"record {n}: a complete 2-player record is needed (every hand "
                              f"and reserve known)")
        log = MatchLog(record.rules, record.start_scores)
        events = [[] for _ in record.rounds]
        scores = [None] * len(record.rounds)
        for st in walk(record):
            ev = record.rounds[st.round].events[st.event]
            events[st.round].append((st.seat, st.action, ev.tile if st.action == DRAW else None))
            scores[st.round] = st.after.scores
        for rnd, evs, end in zip(record.rounds, events, scores):
            log.rounds.append(RoundLog(list(rnd.hands), list(rnd.reserve), evs, scores=end))
        yield log


def self_play(engine: str, games: int, seed: int):
    rules = Rules()
    specs = parse_engine_list(engine, 2)
    for g in range(games):
        yield play_engines(rules, specs, derive_seed(seed, g))


def ratios(logs, classify=relation):
    """{relation: (held, expected)} over every play of every round of `logs`, each tile
    classed by `classify(decision, tile)`."""
    held, expected = defaultdict(float), defaultdict(float)
    for log in logs:
        scores = log.start_scores
        for rnd in log.rounds:
            state = State.deal(log.rules, rnd.hands, rnd.reserve, scores)
            drew = False
            for w, a, t in rnd.events:
                if a < DRAW and state.led and not drew:
                    d = ObservedPlay(0, w, state.left, state.right, bool(state.left_double),
                                 bool(state.right_double), state.line_mask(), a, False)
                    unseen = ALL_TILES & ~state.line_mask() & ~(1 << (a >> 1))
                    for s in range(log.rules.players):
                        if s != w:
                            unseen &= ~state.hands[s]
                    hand = state.hands[w] & ~(1 << (a >> 1))
                    p = popcount(hand) / popcount(unseen)
                    for tile in range(28):
                        if unseen >> tile & 1:
                            r = classify(d, tile) or "none"
                            held[r] += hand >> tile & 1
                            expected[r] += p
                drew = a == DRAW
                state = state.apply(a, w, t if a == DRAW else None)
            scores = rnd.scores
    return {r: (held[r], expected[r]) for r in held}


def log_loss(logs, models, worlds=2000, limit=400, seed=1):
    """{name: mean log loss} of the other hands' tile marginals at the records' decisions."""
    from bergen_search.information._sampler import CoreSampler
    total = {name: 0.0 for name in models}
    n = 0
    points = 0
    for log in logs:
        rnd = log.rounds[0]
        state = State.deal(log.rules, rnd.hands, rnd.reserve, log.start_scores)
        obs = {s: Observer(log.rules, {s}, state) for s in range(log.rules.players)}
        for w, a, t in rnd.events:
            if state.led and a != PASS and a != DRAW and len(state.legal_moves()) > 1:
                info = obs[w].infoset(w)
                if info.decisions:
                    points += 1
                    for name, model in models.items():
                        table = WorldTable(info, tile_factors(info, model))
                        sampler = CoreSampler(info, table)
                        rng = Rng(seed)
                        counts = defaultdict(int)
                        for _ in range(worlds):
                            hands, _ = sampler.sample(rng)
                            for j, h in enumerate(hands):
                                if j != w:
                                    for tile in range(28):
                                        counts[(j, tile)] += h >> tile & 1
                        loss = 0.0
                        k = 0
                        for j in range(log.rules.players):
                            if j == w:
                                continue
                            for tile, _ in info.free:
                                if info.played_free >> tile & 1:
                                    continue
                                q = min(max(counts[(j, tile)] / worlds, 1e-3), 1 - 1e-3)
                                loss -= math.log(q if state.hands[j] >> tile & 1 else 1 - q)
                                k += 1
                        total[name] += loss
                        if name == next(iter(models)):
                            n += k
            after = state.apply(a, w, t if a == DRAW else None)
            for o in obs.values():
                o.step(w, a, after)
            state = after
            if points >= limit:
                return {name: v / n for name, v in total.items()}, points
    return {name: v / n for name, v in total.items()}, points


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--engine", default="ismcts:iterations=2000")
    ap.add_argument("--records", help="complete 2-player records (.jsonl) instead of self-play")
    args = ap.parse_args(argv)
    if args.records:
        try:
            logs = list(read_records(args.records))
        except (OSError, BergenError) as e:
            print(f"fit_inference: {args.records}: {e}", file=sys.stderr)
            return 2
        print(f"{len(logs)} matches of {args.records}")
    else:
        logs = list(self_play(args.engine, args.games, args.seed))
        print(f"{args.games} matches of {args.engine} (seed {args.seed})")
    print_ratios(ratios(logs))
    only_missed = TileModel(opened=1, opened_fitting=1, fitting_double=1, fitting=1)
    losses, points = log_loss(logs, {"none": None, "missed_match only": only_missed,
                                     "TileModel()": TileModel()})
    print_losses(losses, points)

    half = len(logs) // 2
    print(f"candidate: SafetyModel, its ratios and TileModel's refitted on matches {half}.."
          f"{len(logs) - 1}")
    candidate = SafetyModel()
    table = ratios(logs[half:], candidate.relation)
    print_ratios(table)
    fitted = fit(table)
    refit = fit(ratios(logs[half:]))
    losses, points = log_loss(logs[:half], {"TileModel()": TileModel(),
                                            "TileModel refitted": TileModel(**refit),
                                            "SafetyModel fitted": SafetyModel(**fitted)})
    print(f"on matches 0..{half - 1}:")
    print_losses(losses, points)
    return 0


def fit(table):
    """A model's ratios from a `ratios` table (at least 0.01: a model's ratios are positive)."""
    return {r: max(h / e, 0.01) for r, (h, e) in table.items() if r != "none"}


def print_ratios(table):
    print(f"  {'relation':<16} {'tiles':>9} {'ratio':>7}")
    for r, (h, e) in sorted(table.items()):
        print(f"  {r:<16} {e:>9.1f} {h / e:>7.3f}")


def print_losses(losses, points):
    print(f"log loss of the other hands' tiles at {points} decisions (lower is better):")
    for name, v in losses.items():
        print(f"  {name:<18} {v:.5f}")


if __name__ == "__main__":
    sys.exit(main())
