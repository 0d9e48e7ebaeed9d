"""Luck that adds up: a review's luck, in the objective's unit, counts the seat's own chance
events: its deal (its hand's value before the lead less `start`, the side's value before the
deal) and its draws (the value at its play after the draws less the value where it had to
draw). Per round and analysed seat (`RoundLuck`),

    result = start + luck of the deal + luck of the draws − own losses + others' losses
             + residual

`result` is the round's margin, or with the match objective the chance to win at the next
deal; the residual (the other seats' chance events and the searches' noise) has mean zero.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

from ..constants import DEAL_STREAM
from ..formats.position import Position
from ..game.rng import derive_seed
from ..information.infoset import from_position
from ..search.api import Limits
from ..search.before_lead import start_values
from ..stats import json_number

#: The identity's terms, in the order it adds them (`RoundLuck`).
TERMS = ("start", "luck_deal", "luck_draws", "loss", "others")
#: A deal's value before the lead is searched with a DEAL_SHARE-th of a decision's iterations,
#: at least MIN_DEAL_PLAYOUTS.
DEAL_SHARE, MIN_DEAL_PLAYOUTS = 20, 20


@dataclass
class RoundLuck:
    """One seat's round as the identity reads it (`others`: the other analysed seats' losses
    by `others_weight`); `result` None: unfinished; `round` None: a sum (`identity_sum`)."""
    round: int | None
    seat: int
    start: float = 0.0
    luck_deal: float = 0.0
    luck_draws: float = 0.0
    loss: float = 0.0
    others: float = 0.0
    result: float | None = None

    @property
    def residual(self) -> float | None:
        if self.result is None:
            return None
        return (self.result - self.start - self.luck_deal - self.luck_draws + self.loss
                - self.others)

    def to_json(self) -> dict:
        out = {} if self.round is None else {"round": self.round, "seat": self.seat}
        out["result"] = json4(self.result)
        out.update({k: json4(getattr(self, k)) for k in TERMS})
        out["residual"] = json4(self.residual)
        return out


#: A figure of an analysis for JSON: 4 places, null when not finite.
json4 = partial(json_number, places=4)


def others_weight(rules, seat: int, other: int) -> float:
    """How a loss of `other` counts in `seat`'s side's margin (or chance).

    >>> from bergen_search.game.rules import Rules
    >>> others_weight(Rules(players=3), 0, 2), others_weight(Rules(4, partnerships=True), 0, 2)
    (0.5, -1.0)
    """
    if rules.side_of(seat) == rules.side_of(other):
        return -1.0
    return 1.0 / (rules.n_sides - 1)


def identity_sum(rows) -> RoundLuck | None:
    """The terms of `rows` (one seat's) summed over their finished rounds; None when none is."""
    done = [x for x in rows if x.result is not None]
    if not done:
        return None
    total = RoundLuck(None, done[0].seat, result=math.fsum(x.result for x in done))
    for k in TERMS:
        setattr(total, k, math.fsum(getattr(x, k) for x in done))
    return total


def rounds_of(summary) -> list:
    """Every `RoundLuck` of an analysis's `summary` (its `SeatSummary`s), by round, then seat."""
    return sorted((x for sm in summary for x in sm.rounds), key=lambda x: x.round)


def deal_limits(limits: Limits) -> Limits:
    """The budget of a deal's value in a review of decisions searched with `limits`."""
    if limits.iterations is None:
        return Limits(time=limits.time)
    return Limits(iterations=max(MIN_DEAL_PLAYOUTS, limits.iterations // DEAL_SHARE))


class Book:
    """The identity kept as a review walks a record; `rows`: {seat: `RoundLuck`} this round."""

    def __init__(self, rules, ask) -> None:
        self.rules, self.ask = rules, ask
        self.rows: dict = {}
        self.starts: dict = {}       # scores: each side's value before a deal at them
        self.scores: tuple = ()      # as the round began

    def round_start(self, r: int, state, seats, summary) -> None:
        """Round `r` dealt: each analysed seat's `RoundLuck` (start, luck of the deal, searched
        as `bergen eval` would), added to its `summary`."""
        rules, ask, self.scores = self.rules, self.ask, tuple(state.scores)
        self.rows = {}
        for s in seats:
            start = self.start(r, self.scores)[rules.side_of(s)]
            pos = Position(rules, self.scores, s, state.hands[s], (),
                           (rules.hand_size,) * rules.players, rules.reserve_start)
            res = ask.search(from_position(pos), deal_limits(ask.limits),
                             derive_seed(ask.seed, DEAL_STREAM + 4 * r + s))
            self.rows[s] = RoundLuck(r, s, start, res.value - start)
            summary[s].luck_deal += self.rows[s].luck_deal
            summary[s].rounds.append(self.rows[s])

    def start(self, r: int, scores: tuple) -> tuple:
        """Each side's value before a deal at `scores` (once each; round `r` seeds it)."""
        if scores not in self.starts:
            ask = self.ask
            self.starts[scores] = start_values(
                self.rules, scores, objective=ask.objective,
                playout=dict(ask.settings).get("playout", "safe"),
                playouts=deal_limits(ask.limits).iterations or MIN_DEAL_PLAYOUTS,
                seed=derive_seed(ask.seed, DEAL_STREAM - 1 - r))
        return self.starts[scores]

    def decision(self, seat: int, loss: float) -> None:
        """A decision of `seat` judged: its loss, and the others' share of it."""
        for s, row in self.rows.items():
            if s == seat:
                row.loss += loss
            else:
                row.others += others_weight(self.rules, s, seat) * loss

    def round_end(self, r: int, state) -> None:
        """The round ended in `state` (`ended` None: the record stops in it)."""
        rules = self.rules
        gains = [a - b for a, b in zip(state.scores, self.scores)]
        for s, row in self.rows.items():
            side = rules.side_of(s)
            if state.ended is None:
                row.result = None
            elif self.ask.objective != "points":
                row.result = (float(state.winner == side) if state.winner is not None else
                              self.start(r + 1, tuple(state.scores))[side])
            else:
                row.result = gains[side] - math.fsum(
                    g for j, g in enumerate(gains) if j != side) / (rules.n_sides - 1)
