"""SO-ISMCTS in pure Python: the oracle of `_ismcts.pyx` and the search without a compiler.

`IsmctsTree` is the compiled tree transcribed step by step on the reference rules and worlds:
the same random numbers in the same order, the same tie-breaking and floating-point
operations, so the same seed and iterations give the same tree node for node. Nodes live in
parallel lists indexed like the core's pool.

>>> from bergen_search.information.infoset import from_position
>>> from bergen_search.formats.notation import format_move
>>> from bergen_search.formats.position import position_from_flags
>>> from bergen_search.information.sampler import ReferenceSampler
>>> pos = position_from_flags(hand="3-5 1-6", line="3-3 3-2 2-2 2-4 4-5", hand_sizes="2,5",
...                           rules={"hand_size": 3})    # hands of 3: seat 0 played 2, drew 1
>>> tree = IsmctsTree(ReferenceSampler(from_position(pos)), seed=1)
>>> tree.run(300, 0)
300
>>> move, visits, reward_sum, _ = max(tree.root_stats(), key=lambda row: row[1])
>>> format_move(move)   # 3-5 on the right end: a triple next to 3-3, not a double match
'3-5:R'
"""
from __future__ import annotations

import math
import time

from ....constants import (
    MAX_BYTES, MAX_EXPLORATION, MAX_PASS_WORLDS, MAX_SECONDS, OWN_DRAW, POINTS_SCALE,
    objective_code,
)
from ....errors import BergenError
from ....game.policy import policy_code
from ....game.rng import GOLDEN, MASK64, Rng, mix64
from ....game.state import DRAW, State, mirror_twins
from ....information.sampler import ReferenceSampler
from ...playouts import outcome, play_out, reward

#: The clock of `run`'s time limit (seconds, monotonic); the tests put a virtual one here.
clock = time.perf_counter

OBJECTIVE_POINTS, OBJECTIVE_MATCH = objective_code("points"), objective_code("match")
#: The edge key of the observer's draw of tile t: KEY_OWN_DRAW + t (as `_ismcts.pxd`).
KEY_OWN_DRAW = OWN_DRAW
NO_NODE = -1
#: As the core: nodes on one root-to-leaf path, and the iterations a tree may take.
MAX_PATH = 512 + 1
MAX_ITERATIONS = (1 << 31) - 1 - MAX_PATH
#: The bytes of one node in the lists (nine 8-byte slots): what `memory_bytes` reports; and
#: in the core's pool, by which the memory cap is counted (both trees stop at one iteration).
NODE_BYTES = 72
CORE_NODE_BYTES = 40
INITIAL_CAPACITY = 1 << 12
ROOT_SPARE = 64
_INF = 1e300


class MemoryAccount:
    """The bytes the node pools of the trees sharing it would hold in the core."""

    def __init__(self):
        self.held = 0

    @property
    def bytes(self) -> int:
        return self.held


def _edge_key(s: State, move: int, observer: int) -> int:
    """The edge `move` takes in the observer's tree: its own draw keyed by the tile."""
    if move == DRAW and s.to_move == observer:
        assert s.reserve is not None        # a world: the reserve's order is dealt
        return OWN_DRAW + s.reserve[0]
    return move


def _choices(s: State, merge_twins: bool) -> list:
    """The legal moves of `s`, a mirror twin dropped when twins are merged."""
    moves = s.legal_moves()
    if merge_twins and len(moves) > 1:
        twins = mirror_twins(s.left, s.right, s.left_double, s.right_double, moves)
        if twins:
            moves = [m for m in moves if m not in twins]
    return moves


def _nth_bit(mask: int, k: int) -> int:
    """Index of the k-th lowest set bit of mask (k < popcount(mask))."""
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


class IsmctsTree:
    """SO-ISMCTS for the seat of a sampler's information set: `_ismcts.IsmctsTree` in pure Python,
    with the same arguments (`sampler`: anything with `info` and `table`)."""

    def __init__(self, sampler, seed, *, exploration=0.7, objective=0, playout=0,
                 merge_twins=False, choice_stats=False, max_bytes=0, account=None):
        if sampler is None:
            raise BergenError("IsmctsTree needs a sampler")
        if not isinstance(sampler, ReferenceSampler):
            sampler = ReferenceSampler(sampler.info, sampler.table)
        if type(seed) is not int:
            raise BergenError(f"a seed must be an integer, got {seed!r}", field="seed")
        if (isinstance(exploration, bool) or not isinstance(exploration, (int, float))
                or not 0 <= exploration <= MAX_EXPLORATION):
            raise BergenError(f"exploration must be a number 0..{MAX_EXPLORATION}, got "
                              f"{exploration!r}", field="exploration")
        objective = objective_code(objective)
        playout = policy_code(playout)
        if type(max_bytes) is not int or not 0 <= max_bytes <= MAX_BYTES:
            raise BergenError(f"max_bytes must be an integer 0..{MAX_BYTES} (0: no cap), got "
                              f"{max_bytes!r}", field="max_bytes")
        if account is not None and not isinstance(account, MemoryAccount):
            raise BergenError(f"account must be a MemoryAccount or None, got {account!r}",
                              field="account")
        base = sampler.base
        if not base.line:
            raise BergenError("the lead is forced: nothing to search")
        self.sampler = sampler
        self.exploration = float(exploration)
        self.objective = int(objective)
        self.playout = playout
        self.merge_twins = bool(merge_twins)
        self.choice_stats = bool(choice_stats)
        self.value_scale = 1.0 if objective == OBJECTIVE_MATCH else 1.0 / POINTS_SCALE
        self._base = base
        self._rules = base.rules
        self.seat = sampler.seat
        self._rng = Rng(seed & MASK64)
        root_moves = base.legal_moves()
        self._twins = (mirror_twins(base.left, base.right, base.left_double, base.right_double,
                                    root_moves) if self.merge_twins else {})
        self.iterations = 0
        self._running = False
        self._forced = -1
        self._root_gain = [[0.0] * 4 for _ in range(128)]
        # The node pool, one list per field of the core's Node; node 0 is the root.
        self._pool = tuple([] for _ in range(9))
        (self._first_child, self._next_sibling, self._visits, self._avail, self._chosen,
         self._key, self._side, self._reward_sum, self._reward_sq) = self._pool
        self._append(0, -1)
        self.max_bytes = max_bytes
        self._account = MemoryAccount() if account is None else account
        first = INITIAL_CAPACITY
        if max_bytes > 0:
            first = min(first, max(1 + ROOT_SPARE,
                                   (max_bytes - self._account.held) // CORE_NODE_BYTES))
        self._capacity = first
        self._account.held += first * CORE_NODE_BYTES
        self.full = False
        self.full_at = None

    def __del__(self):
        if hasattr(self, "_capacity"):
            self._account.held -= self._capacity * CORE_NODE_BYTES

    def _reserve(self) -> bool:
        """Room for one more iteration, as the core's, or False at the cap."""
        need = len(self._key) + MAX_PATH + ROOT_SPARE
        capacity = self._capacity
        if need <= capacity:
            return True
        while need > capacity:
            capacity *= 2
        if capacity > 0x7FFFFFFF:
            capacity = 0x7FFFFFFF
            if need > capacity:
                return False
        extra = (capacity - self._capacity) * CORE_NODE_BYTES
        if self.max_bytes > 0:
            room = self.max_bytes - self._account.held
            if room < extra:
                extra = room - room % CORE_NODE_BYTES
                capacity = self._capacity + extra // CORE_NODE_BYTES
                if capacity < need:
                    return False
        self._account.held += extra
        self._capacity = capacity
        return True

    def _can_add(self, depth: int) -> bool:
        """Any node while the tree grows; once full, a root child only."""
        return not self.full or (depth == 1 and len(self._key) < self._capacity)

    def _child(self, parent: int, key: int) -> tuple:
        """(the child of `parent` along `key` or NO_NODE, the last child looked at)."""
        c, last = self._first_child[parent], NO_NODE
        keys, nxt = self._key, self._next_sibling
        while c != NO_NODE and keys[c] != key:
            last = c
            c = nxt[c]
        return c, last

    def _kids(self, node: int):
        child = self._first_child[node]
        while child != NO_NODE:
            yield child
            child = self._next_sibling[child]

    def _append(self, key: int, side: int) -> int:
        for field, value in zip(self._pool, (NO_NODE, NO_NODE, 0, 0, 0, key, side, 0.0, 0.0)):
            field.append(value)
        return len(self._key) - 1

    def _new_child(self, parent: int, last: int, key: int, side: int) -> int:
        """A new child along `key` after `last` (NO_NODE: none): its index."""
        c = self._append(key, side)
        if last == NO_NODE:
            self._first_child[parent] = c
        else:
            self._next_sibling[last] = c
        return c

    def _iterate(self):
        """One iteration: determinize, select and expand, play out, backpropagate."""
        rules = self._rules
        observer, merge_twins = self.seat, self.merge_twins
        scale, explore = self.value_scale, self.exploration
        first_child, next_sibling, keys = self._first_child, self._next_sibling, self._key
        avail, chosen, reward_sum = self._avail, self._chosen, self._reward_sum
        s = self.sampler.world(self._rng)
        path, by_choice = [0], [False]
        node, expanded, root_key = 0, False, -1
        while s.ended is None:
            moves = _choices(s, merge_twins)
            side = rules.side_of(s.to_move)
            depth = len(path)
            if len(moves) == 1:
                m = moves[0]
                key = _edge_key(s, m, observer)
                if depth == 1:
                    root_key = key
                child, last = self._child(node, key)
                if child == NO_NODE:
                    if not self._can_add(depth):
                        s = s.apply(m)          # the tree is full: on without a node
                        break
                    child = self._new_child(node, last, key, side)
                step_by_choice = node == 0 or not self.choice_stats
                if step_by_choice:
                    avail[child] += 1
            else:
                step_by_choice = True
                legal = 0
                for m in moves:
                    legal |= 1 << m
                found = 0
                best, best_value = NO_NODE, -_INF
                last = NO_NODE
                child = first_child[node]
                while child != NO_NODE:
                    last = child
                    k = keys[child]
                    if k < OWN_DRAW and legal >> k & 1:
                        found |= 1 << k
                        avail[child] += 1
                        n = chosen[child]
                        if n == 0:
                            value = _INF    # only ever forced here so far: still untried
                        else:
                            value = (reward_sum[child] / n * scale
                                     + explore * math.sqrt(math.log(float(avail[child])) / n))
                        if value > best_value:
                            best_value, best = value, child
                    child = next_sibling[child]
                untried = legal & ~found
                if node == 0 and self._forced >= 0:
                    # `run_move`: the root's choice is the move being topped up.
                    m = self._forced
                    if found >> m & 1:
                        child, _ = self._child(0, m)
                    else:
                        expanded = True
                elif untried:
                    m = _nth_bit(untried, self._rng.below(bin(untried).count("1")))
                    expanded = True
                else:
                    child = best
                    m = keys[best]
                if depth == 1:
                    root_key = m
                if expanded:
                    if not self._can_add(depth):
                        s = s.apply(m)          # the tree is full: played out, no node
                        break
                    child = self._new_child(node, last, m, side)
                    avail[child] = 1
            s = s.apply(m)
            path.append(child)
            by_choice.append(step_by_choice)
            node = child
            if expanded:
                break
        s = play_out(rules, self.objective, self.playout, s, self._rng)
        self._backpropagate(s, root_key, path, by_choice)

    def _backpropagate(self, s: State, root_key: int, path: list, by_choice: list) -> None:
        """The played-out world's rewards up the `path` (the chosen statistics where `by_choice`);
        each side's raw outcome summed by root edge."""
        chosen, reward_sum = self._chosen, self._reward_sum
        n_sides = self._rules.n_sides
        gain = self._root_gain[root_key]
        reward = [0.0] * n_sides
        gain_total = 0.0
        for i in range(n_sides):
            reward[i] = outcome(self.objective, s, self._base, i)
            gain[i] += reward[i]
            gain_total += reward[i]
        if self.objective != OBJECTIVE_MATCH:
            for i in range(n_sides):
                reward[i] -= (gain_total - reward[i]) / (n_sides - 1)
        visits, sides, reward_sq = self._visits, self._side, self._reward_sq
        visits[0] += 1
        for i in range(1, len(path)):
            c = path[i]
            visits[c] += 1
            if by_choice[i]:
                r = reward[sides[c]]
                chosen[c] += 1
                reward_sum[c] += r
                reward_sq[c] += r * r

    def _run(self, limit: int, seconds: float) -> int:
        done = 0
        start = clock() if seconds > 0 else 0.0
        while limit <= 0 or done < limit:
            # The clock is read before every iteration (the core reads it every 64).
            if seconds > 0 and done > 0 and clock() - start >= seconds:
                break
            if self.iterations >= MAX_ITERATIONS:
                break
            if not self.full and not self._reserve():
                self.full, self.full_at = True, self.iterations     # at the cap, as the core
            self._iterate()
            done += 1
            self.iterations += 1
        return done

    def run_move(self, move, iterations, seconds):
        """As `run`, every iteration taking the root move `move` (a merged twin: its left twin)."""
        if type(move) is not int or not 0 <= move < DRAW:
            raise BergenError(f"run_move: {move!r} is not a play", field="move")
        moves = _choices(self._base, self.merge_twins)
        move = self._stats_key(move)
        if len(moves) < 2 or move not in moves:
            raise BergenError(f"run_move: {move} is not one of the root's choices", field="move")
        self._forced = move
        try:
            return self.run(iterations, seconds)
        finally:
            self._forced = -1

    def run(self, iterations, seconds):
        """Up to `iterations` more iterations for at most `seconds` (0: no limit; one is needed):
        the iterations done."""
        if type(iterations) is not int or not 0 <= iterations < 2 ** 63:
            raise BergenError(f"iterations must be a non-negative integer (0: no limit; a "
                              f"tree stops at MAX_ITERATIONS), got {iterations!r}",
                              field="iterations")
        if (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                or not 0 <= seconds <= MAX_SECONDS):
            raise BergenError(f"seconds must be a number 0..{MAX_SECONDS:g} (0: no limit), got "
                              f"{seconds!r}", field="seconds")
        seconds = float(seconds)
        if iterations <= 0 and seconds <= 0:
            raise BergenError("run needs a limit: iterations > 0 or seconds > 0")
        if self._running:
            raise RuntimeError("this tree is already running a search in another thread")
        self._running = True
        try:
            return self._run(iterations, seconds)
        finally:
            self._running = False

    def _stats_key(self, move: int) -> int:
        return self._twins.get(move, move)

    @property
    def twins(self) -> dict:
        """{move: its twin at the left end} for the merged root moves."""
        return dict(sorted(self._twins.items()))

    def _play_on(self, s: State, node: int, rng: Rng) -> State:
        """Play on from `s` at `node` without exploring: the best mean for its mover while the
        tree has a child, then the playout policy; the final state."""
        keys = self._key
        chosen, reward_sum = self._chosen, self._reward_sum
        while s.ended is None and node != NO_NODE:
            moves = _choices(s, self.merge_twins)
            if len(moves) == 1:
                m = moves[0]
                node, _ = self._child(node, _edge_key(s, m, self.seat))
                s = s.apply(m)
                continue
            legal = 0
            for m in moves:
                legal |= 1 << m
            best, best_value = NO_NODE, -_INF
            for child in self._kids(node):
                k = keys[child]
                if k < OWN_DRAW and legal >> k & 1 and chosen[child] > 0:
                    v = reward_sum[child] / chosen[child]
                    if v > best_value:
                        best_value, best = v, child
            if best == NO_NODE:
                break
            s = s.apply(keys[best])
            node = best
        return play_out(self._rules, self.objective, self.playout, s, rng)

    def evaluate_root(self, worlds, seed, only=None, prefix=0):
        """[(move, sum, sum of squares, [each side's raw outcome summed])]: each root move played
        on, on the same `worlds` worlds of Rng(seed). `only`: that move's row alone;
        `prefix`: each row ends with its sum over the first `prefix` worlds."""
        if type(worlds) is not int or not 1 <= worlds <= MAX_PASS_WORLDS:
            raise BergenError(f"worlds must be an integer 1..{MAX_PASS_WORLDS}, got {worlds!r}",
                              field="worlds")
        if type(prefix) is not int or not 0 <= prefix <= worlds:
            raise BergenError(f"prefix must be an integer 0..{worlds}, got {prefix!r}",
                              field="prefix")
        moves = self._base.legal_moves()
        if only is not None and (type(only) is not int or only not in moves):
            raise BergenError(f"evaluate_root: {only!r} is not a root move", field="only")
        pick = -1 if only is None else self._stats_key(only)
        n_sides, side = self._rules.n_sides, self._rules.side_of(self.seat)
        sums = [0.0] * len(moves)
        sqs = [0.0] * len(moves)
        gains = [[0.0] * n_sides for _ in moves]
        firsts = list(sums)
        world_rng, play_rng = Rng(seed & MASK64), Rng(0)
        for w in range(worlds):
            if w == prefix:
                firsts = list(sums)
            world = self.sampler.world(world_rng)
            play_seed = mix64(world_rng.state ^ GOLDEN)
            for i, m in enumerate(moves):
                if self._stats_key(m) != m or (pick >= 0 and m != pick):
                    continue
                node, _ = self._child(0, _edge_key(world, m, self.seat))
                play_rng.state = play_seed
                s = self._play_on(world.apply(m), node, play_rng)
                v = reward(self._rules, self.objective, s, self._base, side)
                sums[i] += v
                sqs[i] += v * v
                for j in range(n_sides):
                    gains[i][j] += outcome(self.objective, s, self._base, j)
        if prefix == worlds:
            firsts = list(sums)
        out = []
        for i, m in enumerate(moves):
            k = i - 1 if self._stats_key(m) != m else i
            if pick < 0 or m == only:
                row = (m, sums[k], sqs[k], list(gains[k]))
                out.append(row + (firsts[k],) if prefix else row)
        return out

    def root_stats(self):
        """[(move, visits, reward_sum, reward_sq_sum)] for the observer's legal root moves in move
        order (a draw sums every tile's child; a merged twin reports its twin's)."""
        out = []
        for m in self._base.legal_moves():
            visits, total, sq = 0, 0.0, 0.0
            key = self._stats_key(m)
            for child in self._kids(0):
                k = self._key[child]
                if k == key or (m == DRAW and k >= OWN_DRAW):
                    visits += self._visits[child]
                    total += self._reward_sum[child]
                    sq += self._reward_sq[child]
            out.append((m, visits, total, sq))
        return out

    def root_side_stats(self):
        """[(move, visits, [each side's raw outcome summed])], as root_stats."""
        n_sides = self._rules.n_sides
        visits = {m: n for m, n, _, _ in self.root_stats()}
        out = []
        for m in self._base.legal_moves():
            keys = ([self._stats_key(m)] if m != DRAW
                    else [DRAW] + [OWN_DRAW + t for t in range(28)])
            sums = [0.0] * n_sides
            for k in keys:
                for j in range(n_sides):
                    sums[j] += self._root_gain[k][j]
            out.append((m, visits[m], sums))
        return out

    def children(self, keys=()):
        """[(key, side, visits, availability, reward_sum, reward_sq_sum)] of the children of the
        node reached along `keys`, in creation order; None if there is no such node."""
        node = 0
        for key in keys:
            node, _ = self._child(node, key)
            if node == NO_NODE:
                return None
        return [(self._key[c], self._side[c], self._visits[c], self._avail[c],
                 self._reward_sum[c], self._reward_sq[c]) for c in self._kids(node)]

    @property
    def n_nodes(self) -> int:
        return len(self._key)

    @property
    def memory_bytes(self) -> int:
        return NODE_BYTES * len(self._key)

