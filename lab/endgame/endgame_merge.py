"""How much of the exact endgame's public tree repeats itself: its decision nodes and terminal
deals against the distinct public states they stand for (the transpositions a merged solver
would keep once), on the stage decisions of `endgame_stage.py`'s corpus.

    python lab/endgame/endgame_merge.py [--records A.jsonl,B.jsonl] [--json OUT.json]
        [--deals 16] [--seconds 4] [--exact-seconds 20] [--positions 0,5,17]

Two counts per position:

- *exact* (`public_count`): the public tree as `endgame_ref.build` builds it (a node per
  public history where the player to act has a choice; a terminal per history, over its
  deals), walked with a table of the public states: the seat to move, both ends and their
  double flags, the tiles each seat has played since the root, both scores, the passes in a
  row, and the deals still alive (compared whole); what the tree holds under a state is the
  same wherever the state is met, so the tree's sizes come from the table (the sum over a
  state's actions, once per state). Capped at `--exact-seconds`.
- *per deal* (`deal_count`, for the positions the exact count does not finish): `--deals`
  deals drawn uniformly from the position's deals, each played out every way with both hands
  in view (the tree of its play orders, the mirror twin of a move on equal ends once) against
  the distinct states of those plays (the same key without the deals, which one deal fixes).
  A deal's leaves summed over every deal are the public tree's terminal deals exactly; its
  distinct final states summed are the merged game's terminal deals wherever the passes made
  no difference to which deals are alive (checked on the positions the exact count finishes).
  Its edges summed over the deals are the work a merged solver spends per traversal on its
  per-deal values (a merged state's value for a deal does not split into hand vectors: the
  other player's reach there is summed over every history that meets it).

It prints the merge factors (tree / merged: decision nodes, terminal deals) and the work a
traversal costs: the tree's (nodes, hand-action entries and terminal deals) against a merged
solver's (per deal and edge, plus the merged terminals), the solved and the declined positions
apart (by `endgame.attempt` at the default engine's budget).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from endgame_stage import attempts, corpus_infos  # noqa: E402

from bergen_search.game.state import PASS, blocked_winner  # noqa: E402
from bergen_search.game.tiles import TILES_WITH  # noqa: E402
from bergen_search.search import endgame  # noqa: E402
from bergen_search.search.endgame.public import public_moves, state_of as _state  # noqa: E402
from bergen_search.search.endgame.reference import _legal, _with_hands  # noqa: E402


class Capped(Exception):
    """A count ran past its time."""


def _key(s, played, alive):
    return (s.to_move, s.left, s.right, s.left_double, s.right_double, played[0], played[1],
            s.scores, s.passes, s.ended, alive)


def _node(s, alive, played, hands, deals):
    """A public decision of `s` over the deals `alive` (as `endgame_ref.build` sees it): the
    tiles that fit, the rows (the hands of the player to move, ascending), each row's tiles
    still held, and the public moves."""
    p = s.to_move
    fit = TILES_WITH[s.left] | TILES_WITH[s.right]
    rows = sorted({deals[d][p] for d in alive})
    current = {i: hands[p][i] & ~played[p] for i in rows}
    return fit, rows, current, public_moves(s, [current[i] for i in rows])


def _step(s, m, alive, played, hands, deals):
    """The public move `m` from `s` over `alive`: the child state (played with the first
    deal's hands: the public facts are every deal's) and the tiles each seat played since."""
    rep = deals[alive[0]]
    child = _with_hands(s, [hands[q][rep[q]] & ~played[q] for q in range(2)]).apply(m)
    after = list(played)
    if m != PASS:
        after[s.to_move] |= 1 << (m >> 1)
    return child, tuple(after)


def public_count(g, seconds: float = 20.0) -> dict:
    """The public tree of `g` (an `endgame.Endgame`) against its distinct public states:
    tree_nodes, tree_entries, tree_pairs (decision nodes, hand-action entries, terminal deals,
    as `endgame_ref.build` makes them) and merged_nodes, merged_entries, merged_pairs; and
    merged_deal_work, the (deal, legal action) pairs summed over the merged decision nodes.
    `Capped` past `seconds`."""
    rules, root, hands, deals = g.rules, g.root, g.hands, g.deals
    table: dict = {}
    merged = {"merged_nodes": 0, "merged_entries": 0, "merged_pairs": 0, "merged_deal_work": 0}
    end = time.perf_counter() + seconds

    def terminal(key, alive):
        if key not in table:
            merged["merged_pairs"] += len(alive)
            table[key] = (0, 0, len(alive))
        return table[key]

    def rec(s, alive, played, at_root=False):
        key = _key(s, played, alive)
        if key in table:
            return table[key]
        if time.perf_counter() > end:
            raise Capped()
        if s.ended is not None:
            return terminal(key, alive)
        p = s.to_move
        fit, rows, current, moves = _node(s, alive, played, hands, deals)
        if len(moves) == 1 and not at_root:
            table[key] = follow(s, moves[0], alive, played)
            return table[key]
        entries = sum(_legal(m, current[i], s) for m in moves for i in rows)
        merged["merged_nodes"] += 1
        merged["merged_entries"] += entries
        size = [1, entries, 0]
        for m in moves:
            sub = tuple(d for d in alive if _legal(m, current[deals[d][p]], s))
            merged["merged_deal_work"] += len(sub)
            for i, x in enumerate(follow(s, m, sub, played)):
                size[i] += x
        table[key] = tuple(size)
        return table[key]

    def follow(s, m, alive, played):
        child, after = _step(s, m, alive, played, hands, deals)
        if child.ended == "blocked":
            return terminal(("blocked",) + _key(s, played, alive), alive)
        return rec(child, alive, after)

    start = _state(rules, root, [hands[q][deals[0][q]] for q in range(2)])
    nodes, entries, pairs = rec(start, tuple(range(len(deals))), (0, 0), True)
    return {"tree_nodes": nodes, "tree_entries": entries, "tree_pairs": pairs, **merged}


def futures_agree(g) -> int:
    """Walk every public history of `g` (no table) and check that the histories meeting one
    public state (`public_count`'s key) have the same future: the same subtree, node for node
    (player, actions, hands and their legal actions), down to the terminals' deals and
    payoffs (side 0's margin and gain from the root, weighted). Returns how many histories met
    a state an earlier one had met; AssertionError when two disagree."""
    rules, root, hands, deals = g.rules, g.root, g.hands, g.deals
    seen: dict = {}
    again = 0

    def note(key, sub):
        nonlocal again
        if key in seen:
            again += 1
            assert seen[key] == sub, f"two histories of the state {key[:10]} differ"
        else:
            seen[key] = sub
        return sub

    def terminal(s, alive, played, blocked):
        pairs = []
        for d in alive:
            i0, i1, w = deals[d]
            x0, x1 = s.scores[0] - root.scores[0], s.scores[1] - root.scores[1]
            if blocked:
                side = blocked_winner(rules, (hands[0][i0] & ~played[0],
                                              hands[1][i1] & ~played[1]))
                if side is not None:
                    x0, x1 = (x0 + 2, x1) if side == 0 else (x0, x1 + 2)
            pairs.append((i0, i1, w * (x0 - x1), w * x0))
        return ("terminal", tuple(pairs))

    def rec(s, alive, played, at_root=False):
        key = _key(s, played, alive)
        if s.ended is not None:
            return note(key, terminal(s, alive, played, False))
        p = s.to_move
        fit, rows, current, moves = _node(s, alive, played, hands, deals)
        if len(moves) == 1 and not at_root:
            return note(key, follow(s, moves[0], alive, played))
        legal = tuple(tuple(_legal(m, current[i], s) for m in moves) for i in rows)
        kids = tuple(follow(s, m, tuple(d for d in alive if _legal(m, current[deals[d][p]], s)),
                            played) for m in moves)
        return note(key, (p, tuple(moves), tuple(rows), legal, kids))

    def follow(s, m, alive, played):
        child, after = _step(s, m, alive, played, hands, deals)
        if child.ended == "blocked":
            return note(("blocked",) + _key(s, played, alive), terminal(s, alive, played, True))
        return rec(child, alive, after)

    rec(_state(rules, root, [hands[q][deals[0][q]] for q in range(2)]),
        tuple(range(len(deals))), (0, 0), True)
    return again


def deal_count(rules, root, hand0: int, hand1: int, seconds: float = 4.0) -> dict:
    """One deal played out every way from `root` (both hands in view): tree_leaves and
    tree_edges of the tree of its plays against merged_leaves, merged_edges and
    merged_nodes of its distinct states. `Capped` past `seconds`."""
    table: dict = {}
    merged = {"merged_nodes": 0, "merged_edges": 0, "merged_leaves": 0}
    end = time.perf_counter() + seconds

    def rec(s):
        key = (s.to_move, s.left, s.right, s.left_double, s.right_double, s.hands, s.scores,
               s.passes, s.ended)
        if key in table:
            return table[key]
        if s.ended is not None:
            merged["merged_leaves"] += 1
            table[key] = (0, 1)
            return table[key]
        if time.perf_counter() > end:
            raise Capped()
        moves = s.legal_moves()
        if s.left == s.right and bool(s.left_double) == bool(s.right_double):
            moves = [m for m in moves if not (m != PASS and m & 1 and m ^ 1 in moves)]
        merged["merged_nodes"] += 1
        merged["merged_edges"] += len(moves)
        edges, leaves = len(moves), 0
        for m in moves:
            e, x = rec(s.apply(m))
            edges += e
            leaves += x
        table[key] = (edges, leaves)
        return table[key]

    edges, leaves = rec(_state(rules, root, [hand0, hand1]))
    return {"tree_edges": edges, "tree_leaves": leaves, **merged}


def study(infos, positions=None, n_deals=16, seconds=4.0, exact_seconds=20.0,
          iterations=100_000, progress=None):
    """Per stage decision: whether the engine solves it at the budget (`attempts`), its
    deals and hand sizes, the exact count when it finishes, else the per-deal sample."""
    rows = []
    for k in positions if positions is not None else range(len(infos)):
        info = infos[k]
        t0 = time.perf_counter()
        solved = attempts([info], iterations)[0]["solved"]
        row: dict = {"position": k, "solved": solved, "hands": list(info.hand_sizes)}
        try:
            g = endgame.game(info, max_deals=2_000_000, seconds=20.0)
        except endgame.TooBig as e:
            row["too_many_deals"] = e.message
            rows.append(row)
            continue
        row["deals"] = len(g.deals)
        try:
            row["exact"] = public_count(g, exact_seconds)
        except Capped:
            rng = random.Random(k)
            sums: dict = {}
            capped = 0
            for _ in range(n_deals):
                i0, i1, _w = g.deals[rng.randrange(len(g.deals))]
                try:
                    one = deal_count(g.rules, g.root, g.hands[0][i0], g.hands[1][i1], seconds)
                except Capped:
                    capped += 1
                    continue
                for name, x in one.items():
                    sums[name] = sums.get(name, 0) + x
            row["per_deal"] = {"sampled": n_deals, "capped": capped, **sums}
        row["seconds"] = time.perf_counter() - t0
        rows.append(row)
        if progress:
            progress(k, row)
    return rows


def factors(row) -> dict | None:
    """A row's merge factors and traversal work (tree, merged), scaled to every deal for the
    per-deal sample; None when nothing was counted."""
    if "exact" in row:
        x = row["exact"]
        return {"nodes": x["tree_nodes"] / x["merged_nodes"],
                "pairs": x["tree_pairs"] / x["merged_pairs"],
                "tree_work": x["tree_nodes"] + x["tree_entries"] + x["tree_pairs"],
                "merged_work": (x["merged_nodes"] + x["merged_entries"] + x["merged_pairs"]
                                + x["merged_deal_work"]),
                "exact": True}
    x = row.get("per_deal")
    if not x or x["sampled"] == x["capped"]:
        return None
    scale = row["deals"] / (x["sampled"] - x["capped"])
    # The tree's work per terminal deal is 2.86 at least (endgame.budget.PREDICT_WORK_PER_PAIR's
    # measurement); the merged solver's is its per-deal edges and its terminals, at least.
    return {"nodes": None, "pairs": x["tree_leaves"] / x["merged_leaves"],
            "tree_work": 2.86 * scale * x["tree_leaves"],
            "merged_work": scale * (x["merged_edges"] + x["merged_leaves"]),
            "exact": False, "capped": x["capped"]}


def report(rows, cap_work: float) -> str:
    """The distribution of the merge factors and of the work, solved and declined apart;
    `cap_work`: the most work per traversal the budget affords a tree."""
    lines = []
    for label, group in (("solved", [r for r in rows if r["solved"]]),
                         ("declined", [r for r in rows if not r["solved"]])):
        fs = [f for f in map(factors, group) if f is not None]
        if not fs:
            continue
        pairs = sorted(f["pairs"] for f in fs)
        gain = sorted(f["tree_work"] / f["merged_work"] for f in fs)
        nodes = sorted(f["nodes"] for f in fs if f["nodes"] is not None)
        fits = sum(f["merged_work"] <= cap_work for f in fs)
        tree_fits = sum(f["tree_work"] <= cap_work for f in fs)
        lines.append(
            f"{label}: {len(group)} positions, {len(fs)} counted ({sum(f['exact'] for f in fs)}"
            f" exactly); terminal deals / merged: median {statistics.median(pairs):.2f}, "
            f"worst {pairs[0]:.2f}, best {pairs[-1]:.1f}"
            + (f"; decision nodes / merged (exact counts): median "
               f"{statistics.median(nodes):.2f}, best {nodes[-1]:.1f}" if nodes else "")
            + f"; a traversal's work, tree / merged: median {statistics.median(gain):.2f}, "
            f"worst {gain[0]:.2f}, best {gain[-1]:.1f}; merged work within the budget's "
            f"{cap_work:,.0f} a traversal: {fits} (the tree's: {tree_fits})")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", default=None, help="comma-separated .jsonl(.gz) files "
                    "(default: lab/endgame/data/stage_corpus.jsonl.gz)")
    ap.add_argument("--positions", default=None,
                    help="comma-separated indices of the stage decisions (default: all)")
    ap.add_argument("--deals", type=int, default=16, help="deals sampled per position")
    ap.add_argument("--seconds", type=float, default=4.0, help="cap of a deal's count")
    ap.add_argument("--exact-seconds", type=float, default=20.0,
                    help="cap of a position's exact count")
    ap.add_argument("--iterations", type=int, default=100_000)
    ap.add_argument("--json", dest="json_out", default=None)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--report", default=None, metavar="RUN.json",
                    help="print the summary of a saved --json run, counting nothing")
    args = ap.parse_args(argv)
    allowed, cap = endgame.allowance(endgame.budget_work(args.iterations), None)
    if args.report:
        with open(args.report, encoding="utf-8") as f:
            rows = json.load(f)
        print(report(rows, cap))
        return rows
    infos = corpus_infos(args.records.split(",") if args.records else None)
    positions = [int(x) for x in args.positions.split(",")] if args.positions else None
    rows = study(infos, positions, args.deals, args.seconds, args.exact_seconds,
                 args.iterations, progress=None if args.quiet else (
                     lambda k, r: print(f"{k + 1}/{len(infos)} {json.dumps(r)}",
                                        file=sys.stderr)))
    print(report(rows, cap))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
