"""The exact endgame's solver in pure Python: the oracle of `_endgame.pyx` (small positions).

The public tree has a node per sequence of public actions (a play, a pass); at a node each
player's range is its possible hands (`hands[p]`) still compatible with them, and a strategy
is one distribution over the legal actions per node and hand. Vector-form CFR (Zinkevich et
al. 2007; Johanson et al. 2012) with Brown & Sandholm 2019's discounting (DCFR), alternating
updates. A terminal's payoff is side 0's margin from the root; a terminal holds its deals
with their weight times their payoff. Everything is computed in `_endgame.pyx`'s order, so
the two agree to the last bit (tests/test_endgame.py)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...game.policy import floor_choice
from ...game.state import PASS, State, blocked_winner, may_take, mirror_twins
from .budget import ALPHA, BETA, GAMMA
from .public import Root, public_moves, state_of


@dataclass
class Node:
    player: int                   # the player to act; -1 at a terminal
    moves: list = field(default_factory=list)     # the public actions, ascending codes (PASS last)
    children: list = field(default_factory=list)  # node index per action
    rows: list = field(default_factory=list)      # the acting player's possible hands (indices)
    legal: list = field(default_factory=list)     # per row, per action: bool
    pairs: list = field(default_factory=list)     # terminal: (hand of 0, hand of 1, weight *
                                                  # side 0's margin, weight * side 0's gain)


class TreeTooBig(Exception):
    """The public tree would exceed the caps it was built with."""


def _with_hands(s: State, hands) -> State:
    t = s._copy()
    t.hands = tuple(hands)
    return t


def _legal(move: int, current: int, s: State) -> bool:
    return may_take(current, move, s.left, s.right)


def playout(s: State, root_scores, greedy_seat: int | None = None, policy: int = 0) -> int:
    """Side 0's margin from `root_scores` at the end of the round from `s`, both hands in view: each
    side plays its best (minimax), except `greedy_seat`, which plays `policy.floor_choice`'s move
    by `policy`; a mirror twin is considered once (the left one)."""
    if s.ended is not None:
        return (s.scores[0] - root_scores[0]) - (s.scores[1] - root_scores[1])
    # A mirror twin once, as the core does.
    moves = s.legal_moves()
    twins = mirror_twins(s.left, s.right, s.left_double, s.right_double, moves)
    moves = [m for m in moves if m not in twins]
    if len(moves) == 1 or s.to_move == greedy_seat:
        m = moves[0] if len(moves) == 1 else floor_choice(s, moves, policy)
        return playout(s.apply(m), root_scores, greedy_seat, policy)
    values = [playout(s.apply(m), root_scores, greedy_seat, policy) for m in moves]
    return max(values) if s.to_move == 0 else min(values)


def build(rules, root: Root, hands, deals, max_nodes: int = 10 ** 6, horizon: int = 0,
          *, greedy_seat: int | None = None, policies: int = 1) -> list:
    """The public tree (a list of `Node`, root first, depth-first) over `deals` (player 0's hand
    index, player 1's, weight). `horizon` > 0: a decision that deep is a leaf whose payoff per
    deal is `playout` from there (perfect play, or `greedy_seat` playing the best for it of the
    first `policies` floor policies, perfectly in a deal alone with its hand); its gain is side
    0's points to the horizon only."""
    nodes: list = []
    root_scores = root.scores

    def margin(scores):
        return (scores[0] - root_scores[0]) - (scores[1] - root_scores[1])

    def gain(scores):
        return scores[0] - root_scores[0]

    def new_node(node):
        if len(nodes) >= max_nodes:
            raise TreeTooBig(f"more than {max_nodes} nodes")
        nodes.append(node)
        return len(nodes) - 1

    def blocked_leaf(s, alive, played):
        """The round blocked by the pass at `s`: every deal scores its own hands."""
        leaf = Node(-1)
        base, base_gain = margin(s.scores), gain(s.scores)
        for i0, i1, w in alive:
            side = blocked_winner(rules, (hands[0][i0] & ~played[0], hands[1][i1] & ~played[1]))
            x = base + (0 if side is None else (2 if side == 0 else -2))
            leaf.pairs.append((i0, i1, w * float(x), w * float(base_gain + (side == 0) * 2)))
        return new_node(leaf)

    def leaf(s, alive, played):
        g0 = float(gain(s.scores))
        best, chosen = None, None
        # A deal alone at the leaf: the greedy seat knows the other hand, and plays perfectly.
        mine = ([d[greedy_seat] for d in alive].count if greedy_seat is not None
                else lambda h: 2)
        for q in range(policies if greedy_seat is not None else 1):
            values = [playout(_with_hands(s, [hands[0][i0] & ~played[0],
                                              hands[1][i1] & ~played[1]]), root_scores,
                              greedy_seat if mine((i0, i1)[greedy_seat or 0]) > 1 else None,
                              q)
                      for i0, i1, _ in alive]
            total = 0.0
            for (_, _, w), v in zip(alive, values):
                total += w * float(v)
            if greedy_seat == 1:
                total = -total
            if best is None or total > best:
                best, chosen = total, values
        return new_node(Node(-1, pairs=[(i0, i1, w * float(v), w * g0)
                                        for (i0, i1, w), v in zip(alive, chosen)]))

    def rec(s: State, alive, played, root=False, depth=0):
        if s.ended is not None:
            x, g0 = float(margin(s.scores)), float(gain(s.scores))
            return new_node(Node(-1, pairs=[(i0, i1, w * x, w * g0) for i0, i1, w in alive]))
        p = s.to_move
        rows = sorted({d[p] for d in alive})
        current = {i: hands[p][i] & ~played[p] for i in rows}
        moves = public_moves(s, [current[i] for i in rows])
        if len(moves) == 1 and not root:
            # One public action, which every hand must take: no decision, no node.
            return follow(s, moves[0], alive, played, depth)
        if horizon and depth >= horizon:
            return leaf(s, alive, played)
        node = Node(p, moves=moves, rows=rows,
                    legal=[[_legal(m, current[i], s) for m in moves] for i in rows])
        nid = new_node(node)
        for m in moves:
            node.children.append(follow(s, m, [d for d in alive if _legal(m, current[d[p]], s)],
                                        played, depth + 1))
        return nid

    def follow(s, m, alive, played, depth):
        """The node `m` leads to from `s` over the deals `alive` (all holding it legal)."""
        rep = alive[0]
        child = _with_hands(s, [hands[q][rep[q]] & ~played[q] for q in range(2)]).apply(m)
        if child.ended == "blocked":
            return blocked_leaf(s, alive, played)
        after = list(played)
        if m != PASS:
            after[s.to_move] |= 1 << (m >> 1)
        return rec(child, alive, after, depth=depth)

    start = state_of(rules, root, [hands[q][deals[0][q]] for q in range(2)])
    rec(start, list(deals), [0, 0], root=True)
    return nodes


def _matching(regrets, legal):
    """Regret matching: positive regrets normalised over the legal actions, else uniform."""
    return _average([r if (ok and r > 0) else 0.0 for r, ok in zip(regrets, legal)], legal)


def _average(sums, legal):
    """`sums` normalised (summed left to right, as the C solver sums), else uniform over the
    legal actions."""
    total = 0.0
    for x in sums:
        total += x
    if total > 0:
        return [x / total for x in sums]
    n = sum(legal)
    return [1.0 / n if ok else 0.0 for ok in legal]


class Solver:
    """DCFR over a public tree (`build`); hand vectors are lists over each player's hands."""

    def __init__(self, nodes, n_hands, alpha=ALPHA, beta=BETA, gamma=GAMMA):
        self.nodes = nodes
        self.n_hands = tuple(n_hands)
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.regret = {}
        self.strategy = {}
        for nid, node in enumerate(nodes):
            if node.player >= 0:
                k = len(node.moves)
                self.regret[nid] = [[0.0] * k for _ in node.rows]
                self.strategy[nid] = [[0.0] * k for _ in node.rows]
        self.iterations = 0

    #: The terminal deals of the tree: not counted by the oracle (`endgame.solvers.Solver`).
    n_pairs = None

    @property
    def root_moves(self) -> list:
        """The root's public actions."""
        return self.nodes[0].moves

    @property
    def root_rows(self) -> list:
        """The root's rows (the seat's possible hands, by index)."""
        return self.nodes[0].rows

    def _discount(self, t):
        """(positive, negative) regret discounts applied at iteration t (t >= 2)."""
        s = t - 1.0
        pa = s ** self.alpha
        nb = s ** self.beta
        return pa / (pa + 1.0), nb / (nb + 1.0)

    def run(self, iterations: int) -> None:
        for _ in range(iterations):
            self.iterations += 1
            t = self.iterations
            disc = self._discount(t) if t > 1 else (1.0, 1.0)
            weight = float(t) ** self.gamma
            for u in (0, 1):
                reach = [[1.0] * self.n_hands[0], [1.0] * self.n_hands[1]]
                out = [0.0] * self.n_hands[u]
                self._cfr(0, reach, out, u, disc, weight)

    def _cfr(self, nid, reach, out, u, disc, weight):
        node = self.nodes[nid]
        if node.player < 0:
            _terminal(node, reach, out, u)
            return
        p = node.player
        regret = self.regret[nid]
        sigma = [_matching(r, ok) for r, ok in zip(regret, node.legal)]
        if p != u:
            for c, child in enumerate(node.children):
                sub = list(reach[p])
                for j, h in enumerate(node.rows):
                    if node.legal[j][c]:
                        sub[h] = reach[p][h] * sigma[j][c]
                nxt = [sub, reach[1]] if p == 0 else [reach[0], sub]
                self._cfr(child, nxt, out, u, disc, weight)
            return
        k = len(node.moves)
        values = [[0.0] * k for _ in node.rows]
        for c, child in enumerate(node.children):
            sub = list(reach[p])
            child_out = [0.0] * self.n_hands[u]
            for j, h in enumerate(node.rows):
                if node.legal[j][c]:
                    sub[h] = reach[p][h] * sigma[j][c]
            nxt = [sub, reach[1]] if p == 0 else [reach[0], sub]
            self._cfr(child, nxt, child_out, u, disc, weight)
            for j, h in enumerate(node.rows):
                if node.legal[j][c]:
                    values[j][c] = child_out[h]
        pos, neg = disc
        strat = self.strategy[nid]
        for j, h in enumerate(node.rows):
            v = 0.0
            for c in range(k):
                if node.legal[j][c]:
                    v += sigma[j][c] * values[j][c]
            out[h] += v
            r, s, ok = regret[j], strat[j], node.legal[j]
            for c in range(k):
                if not ok[c]:
                    continue
                x = r[c]
                x *= pos if x > 0 else neg
                r[c] = x + (values[j][c] - v)
                s[c] += weight * reach[p][h] * sigma[j][c]

    # ---- the solved strategy and its exploitability ----------------------------------------
    def average(self, nid: int) -> list:
        """The average strategy at a node, per row."""
        node = self.nodes[nid]
        return [_average(s, ok) for s, ok in zip(self.strategy[nid], node.legal)]

    def best_response(self, b: int):
        """(counterfactual values of player b's hands at the root when b best responds to the
        other's average strategy, {root action: values of b's hands after it} when b acts at
        the root, else {})."""
        return self._evaluate(b, True, False)

    def values(self, b: int, gains: bool = False):
        """As `best_response`, b playing its own average strategy; with `gains`, the payoff
        is side 0's points gained instead of its margin."""
        return self._evaluate(b, False, gains)

    def _evaluate(self, b, best, gains):
        root_values = {}
        out = [0.0] * self.n_hands[b]
        self._eval(0, [1.0] * self.n_hands[1 - b], out, b, root_values, 3 if gains else 2,
                   best=best, at_root=True)
        return out, root_values

    def _eval(self, nid, reach_o, out, b, root_values, pay, *, best, at_root=False):
        node = self.nodes[nid]
        if node.player < 0:
            for pair in node.pairs:
                if b == 0:
                    out[pair[0]] += pair[pay] * reach_o[pair[1]]
                else:
                    out[pair[1]] += -pair[pay] * reach_o[pair[0]]
            return
        p = node.player
        sigma = self.average(nid)
        if p != b:
            for c, child in enumerate(node.children):
                sub = list(reach_o)
                for j, h in enumerate(node.rows):
                    if node.legal[j][c]:
                        sub[h] = reach_o[h] * sigma[j][c]
                self._eval(child, sub, out, b, root_values, pay, best=best)
            return
        k = len(node.moves)
        values = [[0.0] * k for _ in node.rows]
        for c, child in enumerate(node.children):
            child_out = [0.0] * self.n_hands[b]
            self._eval(child, reach_o, child_out, b, root_values, pay, best=best)
            for j, h in enumerate(node.rows):
                if node.legal[j][c]:
                    values[j][c] = child_out[h]
            if at_root:
                root_values[node.moves[c]] = child_out
        for j, h in enumerate(node.rows):
            if best:
                v = -math.inf
                for c in range(k):
                    if node.legal[j][c] and values[j][c] > v:
                        v = values[j][c]
            else:
                v = 0.0
                for c in range(k):
                    if node.legal[j][c]:
                        v += sigma[j][c] * values[j][c]
            out[h] += v


def _terminal(node, reach, out, u):
    for i0, i1, wx, _ in node.pairs:
        if u == 0:
            out[i0] += wx * reach[1][i1]
        else:
            out[i1] += -wx * reach[0][i0]


def minimax(rules, root: Root, hands) -> float:
    """Side 0's margin from the root with both hands in view, by plain minimax (the check of
    a position whose hands are determined)."""
    s = state_of(rules, root, hands)
    margin0 = root.scores[0] - root.scores[1]

    def rec(st):
        if st.ended is not None:
            return (st.scores[0] - st.scores[1]) - margin0
        values = [rec(st.apply(m)) for m in st.legal_moves()]
        return max(values) if st.to_move == 0 or rules.side_of(st.to_move) == 0 else min(values)

    return rec(s)
