"""What a sharper belief would be worth (issue 43): a peek of tunable strength, priced in log
loss and in points a round, before any model is built to reach it.

The peek is the hand-set model's table (today's default) with every tile another seat
really holds weighed `r` times more for that seat: r = 1 is the default, r = infinity a known
hand. Its held-out log loss (`loss`, the figure the belief models were scored by) says
which r a model of a given quality is like; the arena (`arena`) says what that r gains head to
head at equal time. Together they say what the issue's aim (log loss 0.40 from 0.438) could be
worth in points, and so whether the headroom is in the marginals a better model would move.
Its held-out decisions and their log loss are the measure every belief model of
lab/belief/BELIEF.md was scored by (`decisions`, `binary_loss`).

    python lab/belief/belief_value.py loss HELDOUT.jsonl --limit 3000 --peek 1.25,1.5,2,3
    python lab/belief/belief_value.py arena --peek 2 -- --round --games 400 --seed 4451 \\
        --out peek2.jsonl

`arena` runs `bergen arena` in this process (keep `--workers 1`) with its A engine
`ismcts:time=0.1,inference=off` and its B engine `ismcts:time=0.1` (`--a`, `--b`): here the
value `off` stands for the peek (the arena's seats read the true hands only through the
peek's table; nothing else of the engine changes; B's inference is on, the hand-set model).
A benchmark only: the package never peeks.
"""
from __future__ import annotations

import argparse
import math
import sys

from bergen_search.formats.record_io import iter_records
from bergen_search.formats.replay import seen_steps
from bergen_search.game.state import DRAW, PASS
from bergen_search.information.inference import TileModel, tile_factors
from bergen_search.information.sampler import WorldTable


def decisions(path: str, limit: int = 0):
    """(rules, info, true hands by seat, reserve mask) at every decision of the records of
    `path` worth scoring: the seat to move plays with a choice, and another seat has made a
    play since the lead."""
    n = 0
    with open(path) as f:
        text = f.read()
    for record in iter_records(text, check=True):
        if not record.complete:
            raise SystemExit(f"{path}: a complete record is needed (every hand known)")
        rules = record.rules
        for item, obs in seen_steps(record):
            before, w, a = item.before, item.seat, item.action
            if (before.led and a not in (DRAW, PASS) and not before.draws_this_turn
                    and len(before.legal_moves()) > 1):
                info = obs[w].infoset(w)
                if info.decisions:
                    yield rules, info, before.hands, before.reserve
                    n += 1
                    if limit and n >= limit:
                        return


def binary_loss(p: float, held: bool) -> float:
    """The log loss of a chance `p` that a seat holds a tile, clipped to 0.001..0.999 (the
    measure of every held-out figure of the belief models)."""
    q = min(max(p, 1e-3), 1 - 1e-3)
    return -math.log(q if held else 1 - q)


def binary_losses(marg, info, hands):
    """[(seat, tile, p, held)] of the other seats' hidden tiles."""
    out = []
    for t, owners in marg.items():
        for j in range(info.rules.players):
            if j == info.seat:
                continue
            out.append((j, t, owners.get(j, 0.0), bool(hands[j] >> t & 1)))
    return out


def peek_factors(info, hands, r: float) -> dict:
    """The hand-set model's tile factors with each tile another seat holds in `hands` (the
    truth) weighed `r` times for that seat's groups."""
    factors = {t: list(f) for t, f in tile_factors(info, TileModel()).items()}
    for t, _ in info.free:
        for g, grp in enumerate(info.groups):
            if grp.owner != info.seat and 0 <= grp.owner < len(hands) and hands[grp.owner] >> t & 1:
                f = factors.setdefault(t, [1.0] * len(info.groups))
                f[g] *= r
    return {t: tuple(f) for t, f in factors.items()}


def loss(path: str, limit: int, peeks: list) -> None:
    totals = {r: 0.0 for r in peeks}
    n = 0
    for _, info, hands, _ in decisions(path, limit):
        for r in peeks:
            marg = WorldTable(info, peek_factors(info, hands, r)).marginals()
            for _, _, p, held in binary_losses(marg, info, hands):
                totals[r] += binary_loss(p, held)
        n += len(binary_losses(WorldTable(info).marginals(), info, hands))
    print(f"{path}: {n} (seat, tile) chances; log loss of the peek's table (r = 1: the "
          f"hand-set model)")
    for r in peeks:
        print(f"  r {r:>6}: log loss {totals[r] / n:.5f}")


def arena(r: float, a_spec: str, b_spec: str, args: list) -> None:
    from bergen_search.cli import main
    from bergen_search.play import seats
    from bergen_search.search import registry

    truth: dict = {}
    choose, table = seats.Seats.choose, registry.world_table

    def choose_seeing(self, state, moves):
        truth["hands"] = state.hands
        return choose(self, state, moves)

    def world_table(info, setting):
        if setting == "off":
            return WorldTable(info, peek_factors(info, truth["hands"], r))
        return table(info, setting)

    seats.Seats.choose = choose_seeing
    registry.world_table = world_table
    print(f"peek r = {r} in place of inference=off", flush=True)
    sys.argv = ["bergen", "arena", a_spec, b_spec, *args]
    main()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lo = sub.add_parser("loss")
    lo.add_argument("records")
    lo.add_argument("--limit", type=int, default=3000)
    lo.add_argument("--peek", default="1.25,1.5,2,3")
    ar = sub.add_parser("arena")
    ar.add_argument("--peek", type=float, required=True)
    ar.add_argument("--a", default="ismcts:time=0.1,inference=off")
    ar.add_argument("--b", default="ismcts:time=0.1")
    ar.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if a.cmd == "loss":
        loss(a.records, a.limit, [float(x) for x in a.peek.split(",")])
    else:
        arena(a.peek, a.a, a.b, [x for x in a.rest if x != "--"])


if __name__ == "__main__":
    main()
