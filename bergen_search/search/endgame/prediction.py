"""The size of an endgame, predicted before anything is built (`predict`)."""
from __future__ import annotations

from dataclasses import dataclass

from ...game.state import PASS
from ...information.infoset import InfoSet
from ...information.sampler import merge_groups
from . import public
from . import budget, native
from .deals import shown_free


@dataclass(frozen=True)
class Prediction:
    """An endgame's predicted size: `deals`, the deals of both hands; `pairs`, the terminal
    deals of its public tree; `steps` and `walks`, what the estimate cost."""
    deals: float
    pairs: float
    steps: int
    walks: int


def predict(info: InfoSet, stop_above: float = 0.0, shown: bool = False,
            move: int | None = None) -> Prediction | None:
    """The size of the endgame of `info`, predicted from its public view alone by Knuth's
    estimator (`_endgame.predict`, at most PREDICT_STEPS steps; `stop_above`: stop once past
    it). None without the compiled core or with too many groups. `shown`: the seat's own
    hand shown; `move` (with `shown`): the subgame after that move."""
    core = native.compiled()
    if core is None or budget.PREDICT_WALKS <= 0:
        return None
    pub = info.public
    assert pub is not None
    free = shown_free(info) if shown else pub.free
    merged, allowed, _ = merge_groups(pub.groups, free)
    # Groups no tile enters drop out.
    kept = [g for g, (_, c) in enumerate(merged) if c > 0]
    if len(kept) > core.PREDICT_MAX_GROUPS:
        return None
    allowed = [sum(1 << k for k, g in enumerate(kept) if a >> g & 1) for a in allowed]
    merged = [merged[g] for g in kept]
    tiles = [t for t, _ in free]
    root = public.Root(info.left, info.right, bool(info.left_double),
                            bool(info.right_double), tuple(info.scores), info.seat,
                            info.passes, info.reserve_size, tuple(info.line))
    on_line = pub.played_free
    if move is not None:
        hands = [0, 0]
        hands[info.seat] = info.hand
        root = public.root_of(public.state_of(info.rules, root, hands).apply(move))
        if move != PASS:
            on_line |= 1 << (move >> 1)
    deals, pairs, steps, walks = core.predict(
        info.rules, root, [o for o, _ in merged], [c for _, c in merged], tiles, allowed,
        [bool(on_line >> t & 1) for t in tiles], budget.PREDICT_WALKS, budget.PREDICT_SEED,
        max_steps=budget.PREDICT_STEPS, stop_above=stop_above,
        min_walks=budget.PREDICT_MIN_WALKS)
    return Prediction(deals, pairs, steps, walks)


def round_figure(x: float) -> str:
    """A large estimate to two significant figures, in words past a million."""
    for size, name in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if x >= size:
            return f"{float(f'{x / size:.2g}'):g} {name}"
    return f"{float(f'{x:.2g}'):,.0f}"
