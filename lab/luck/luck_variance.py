"""How much of a duplicate arena's variance each luck estimate takes out, and at what cost.

Plays `bergen arena A B` (the same sets, seeds and seatings: `arena.run_arena` with the logs
kept, no adjustment), then replays every match with each estimate named in `--estimates` and
prints, per estimate: the adjusted margin per round with its standard error, the luck per
round with its error (it has mean zero: an estimate whose luck strays from zero by more than
its error a few times over is biased), the variance ratio raw / adjusted per set, and the
replay's seconds per set (the estimate's cost; the arena pays it once per set).

    python lab/luck/luck_variance.py greedy random --games 2000 --round --seed 5
    python lab/luck/luck_variance.py ismcts:time=0.01 classic:time=0.01 --games 300 --round \\
        --estimates linear,rollout,rollout:16,rollout:256,rollout:64@1
    python lab/luck/luck_variance.py greedy random --games 500 --round --players 3

An estimate is `linear` (the fitted linear model), `rollout` (the shipped one: its playouts
and fitted scale), or `rollout:N[@S]` (N greedy playouts, scale S; default the fitted scale).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

from bergen_search.game.rules import Rules
from bergen_search.play.arena import ratio_stderr, run_arena
from bergen_search.play.luck import RolloutModel, match_luck, model_data, side_margin
from luck_linear import default_model


def make_estimate(text: str):
    if text == "linear":
        return default_model()
    name, _, rest = text.partition(":")
    if name != "rollout":
        raise SystemExit(f"unknown estimate {text!r}")
    fitted = model_data()["rollout"]
    if not rest:
        return RolloutModel(fitted["playouts"], fitted["scale"])
    playouts, _, scale = rest.partition("@")
    return RolloutModel(int(playouts), float(scale) if scale else fitted["scale"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine_a")
    ap.add_argument("engine_b")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--round", action="store_true")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--partnerships", action="store_true")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--estimates", default="linear,rollout")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of text")
    args = ap.parse_args(argv)
    rules = Rules(players=args.players, partnerships=args.partnerships)
    t0 = time.perf_counter()
    result = run_arena(rules, args.engine_a, args.engine_b, args.games, args.seed,
                       workers=args.workers, keep_logs=True, single_round=args.round,
                       luck_adjust=False)
    play = time.perf_counter() - t0
    n = rules.n_sides
    margins, rounds = [], []
    for i in range(result.sets):
        group = result.played[i * n:(i + 1) * n]
        gained = [[e - s for e, s in zip(g.log.scores, g.log.start_scores)] for g in group]
        margins.append(math.fsum(side_margin(x, g.seating) for x, g in zip(gained, group)))
        rounds.append(sum(len(g.log.rounds) for g in group))
    total = sum(rounds)
    raw_se = ratio_stderr(margins, rounds)
    out = {"engines": [args.engine_a, args.engine_b], "sets": result.sets, "rounds": total,
           "mode": "round" if args.round else "match", "players": args.players,
           "partnerships": args.partnerships, "seed": args.seed,
           "play_seconds_per_set": play / result.sets,
           "raw": [math.fsum(margins) / total, raw_se], "estimates": {}}
    for text in args.estimates.split(","):
        est = make_estimate(text)
        t1 = time.perf_counter()
        luck = [math.fsum(side_margin(match_luck(rules, g.log, est), g.seating)
                          for g in result.played[i * n:(i + 1) * n])
                for i in range(result.sets)]
        cost = (time.perf_counter() - t1) / result.sets
        adjusted = [m - x for m, x in zip(margins, luck)]
        adj_se = ratio_stderr(adjusted, rounds)
        out["estimates"][text] = {
            "adjusted": [math.fsum(adjusted) / total, adj_se],
            "luck": [math.fsum(luck) / total, ratio_stderr(luck, rounds)],
            "variance_ratio": (raw_se / adj_se) ** 2, "seconds_per_set": cost}
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.engine_a} vs {args.engine_b}: {result.sets} sets, {total} rounds, "
          f"{out['mode']}, {args.players} players{' in partnerships' if args.partnerships else ''}, "
          f"seed {args.seed}; play {out['play_seconds_per_set'] * 1000:.1f} ms a set")
    print(f"  raw margin per round {out['raw'][0]:+.3f} ± {raw_se:.3f}")
    for text, e in out["estimates"].items():
        print(f"  {text:<16} adjusted {e['adjusted'][0]:+.3f} ± {e['adjusted'][1]:.3f}  "
              f"luck {e['luck'][0]:+.3f} ± {e['luck'][1]:.3f}  ratio {e['variance_ratio']:.2f}  "
              f"{e['seconds_per_set'] * 1000:.1f} ms a set")
    return 0


if __name__ == "__main__":
    sys.exit(main())
