"""Post-game analysis: every decision of every seat, judged from that seat's information at
that moment (GNU Backgammon's analysis, for Bergen).

For each play where the seat had a choice, every legal play is valued by a search of the
seat's information set, rebuilt from the record's public events and the seat's own hand (an
`Observer` per seat: the hands it could not see are never read). The loss is the value of the
best play minus the value of the play made. A suspected error is searched again with a larger
budget before it is labelled, and a loss within the search's own uncertainty (two standard
errors of the difference) is never labelled.

Luck: for each seat, the deal (its expected value at its first decision of a round, plus what
its side scored before it) and its draws (the value at the decision after drawing minus the
value of the position where it had to draw), in the unit of the objective.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

from .errors import BergenError
from .infoset import Observer
from .notation import format_line
from .record import _run, parse_record
from .rng import derive_seed
from .search import Limits, root_moves, search
from .state import DRAW, move_str

#: Default thresholds on the loss, in points of the round (objective `points`). Chosen from the
#: loss distributions measured on self-play (README, "Analysis").
THRESHOLDS = {"inaccuracy": 0.25, "mistake": 0.6, "blunder": 1.2}
LABELS = ("inaccuracy", "mistake", "blunder")


@dataclass
class Decision:
    round: int
    event: int
    seat: int
    played: str
    best: str
    loss: float
    loss_stderr: float
    label: str | None
    values: dict            # move -> value
    stderrs: dict           # move -> stderr
    rechecked: bool = False
    exact: bool = False     # valued by the exact endgame (loss_stderr: its exploitability)

    def to_json(self) -> dict:
        return {"round": self.round, "event": self.event, "seat": self.seat,
                "played": self.played, "best": self.best, "loss": _r(self.loss),
                "loss_stderr": _r(self.loss_stderr), "label": self.label,
                "values": {m: _r(v) for m, v in self.values.items()},
                "stderr": {m: _r(v) for m, v in self.stderrs.items()},
                "rechecked": self.rechecked, "exact": self.exact}


@dataclass
class SeatSummary:
    seat: int
    decisions: int = 0
    forced: int = 0
    total_loss: float = 0.0
    counts: dict = field(default_factory=lambda: {k: 0 for k in LABELS})
    luck_deal: float = 0.0
    luck_draws: float = 0.0

    @property
    def mean_loss(self) -> float:
        return self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def error_rate(self) -> float:
        return sum(self.counts.values()) / self.decisions if self.decisions else 0.0

    def to_json(self) -> dict:
        return {"seat": self.seat, "decisions": self.decisions, "forced": self.forced,
                "total_loss": _r(self.total_loss), "mean_loss": _r(self.mean_loss),
                "inaccuracies": self.counts["inaccuracy"], "mistakes": self.counts["mistake"],
                "blunders": self.counts["blunder"], "error_rate": _r(self.error_rate),
                "luck": _r(self.luck_deal + self.luck_draws), "luck_deal": _r(self.luck_deal),
                "luck_draws": _r(self.luck_draws)}


@dataclass
class Moment:
    """A position of the record the analysis searched, in order: a decision (a choice of
    plays), a forced play it valued, or the start of a draw turn. `value` is the mover's side's
    value there (after its play: the played move's value; for a draw, the position where it
    had to draw), in the unit of the objective; `luck` the deal's or the draws' luck credited
    there (see the module doc), or None. For the report's graph."""
    round: int
    event: int
    seat: int
    kind: str              # "decision", "forced" or "draw"
    value: float
    luck: float | None = None
    luck_kind: str | None = None   # "deal" or "draws"
    decision: int | None = None    # index in Analysis.decisions
    sides: tuple | None = None     # every side's value there, when it is known (2 sides always)


@dataclass
class Analysis:
    decisions: list
    summary: list
    settings: dict
    annotated: list        # per round: list of (event, seat, action text, line after, decision)
    moments: list = field(default_factory=list)   # Moment, in record order
    rules: object = None   # the record's Rules
    start_scores: tuple = ()   # by side, before each round
    hands: list = field(default_factory=list)     # per round: {event: hand before a decision}
    ends: list = field(default_factory=list)      # per round: (scores by side after it, why it ended)
    forced: set = field(default_factory=set)      # (round, event) of the analysed seats' forced plays

    def to_json(self) -> dict:
        return {"decisions": [d.to_json() for d in self.decisions],
                "summary": [s.to_json() for s in self.summary], "settings": self.settings}


def combined_summary(analyses) -> list:
    """Per-seat totals over several analyses (the matches of a `.jsonl` file): decisions,
    forced plays, loss, labels and luck summed seat by seat, in seat order."""
    total = {}
    for a in analyses:
        for sm in a.summary:
            acc = total.setdefault(sm.seat, SeatSummary(sm.seat))
            acc.decisions += sm.decisions
            acc.forced += sm.forced
            acc.total_loss += sm.total_loss
            acc.luck_deal += sm.luck_deal
            acc.luck_draws += sm.luck_draws
            for k in LABELS:
                acc.counts[k] += sm.counts[k]
    return [total[s] for s in sorted(total)]


def _r(x):
    return None if x is None or (isinstance(x, float) and (math.isinf(x) or math.isnan(x))) \
        else round(x, 4)


def label_for(loss: float, thresholds: dict):
    label = None
    for name in LABELS:
        if loss >= thresholds[name]:
            label = name
    return label


def analyze_all(records, *, seats=None, progress=None, cluster=None, **kwargs) -> list:
    """`analyze` each record (the matches of a `.jsonl` file) as it would be alone, with one
    `progress(done, total)` over all of them. With several records an error names the record
    (1-based): `record 2: round 0, event 3, ...`. `cluster`: a Dask scheduler's address (or a
    Client) to analyse the records on, one task each (`parallel.run_ordered`), with the same
    results; progress then counts whole records' decisions as they finish."""
    records = [parse_record(r) for r in records]

    def labelled(i, e):
        return BergenError(f"record {i + 1}: {e}") if len(records) > 1 else e

    counts = []
    for i, rec in enumerate(records):
        try:
            counts.append(count_decisions(rec, seats))
        except BergenError as e:
            raise labelled(i, e) from None
    total, offset, results = sum(counts), 0, []
    if cluster is not None:
        from .parallel import run_ordered
        task = partial(_analyze_one, seats=seats, kwargs=kwargs)
        outcome = run_ordered(task, list(enumerate(records)), cluster=cluster,
                              progress=progress, units=lambda item: counts[item[0]])
        for i, res in enumerate(outcome):
            if isinstance(res, BergenError):
                raise labelled(i, res)
        return outcome

    def overall(done, _total):
        progress(offset + done, total)

    for i, rec in enumerate(records):
        try:
            results.append(analyze(rec, seats=seats, progress=overall if progress else None,
                                   decisions_total=counts[i], **kwargs))
        except BergenError as e:
            raise labelled(i, e) from None
        offset += counts[i]
    return results


def _analyze_one(item, *, seats, kwargs):
    """One record of `analyze_all` on a cluster: its Analysis, or the BergenError it raised
    (sent back as a value, to be labelled with its record)."""
    _, record = item
    try:
        return analyze(record, seats=seats, **kwargs)
    except BergenError as e:
        return e


def analyze(record, *, seats=None, limits: Limits | None = None, seed: int = 0,
            algorithm: str = "ismcts", objective: str = "points", workers: int = 1,
            thresholds: dict | None = None, recheck: int = 4, luck: bool = True,
            progress=None, decisions_total: int | None = None, **settings) -> Analysis:
    """Analyse every decision of the seats in `seats` (default: every seat whose hands the
    record shows). `recheck`: the budget factor of the second search of a suspected error.
    `progress(done, total)` is called after each decision; `decisions_total` is that total
    if the caller has counted it (`count_decisions`), else it is counted here."""
    record = parse_record(record)
    limits = limits or Limits(iterations=4000)
    thresholds = dict(THRESHOLDS if thresholds is None else thresholds)
    n = record.rules.players
    todo = 0
    if progress is not None:
        todo = count_decisions(record, seats) if decisions_total is None else decisions_total
    decisions, annotated, moments, starts, hands, ends = [], [], [], [], [], []
    forced = set()
    summary = {s: SeatSummary(s) for s in range(n)}
    k = 0
    observers = {}
    pending_draw, first_seen, round_start = {}, set(), record.start_scores
    for item in _run(record):
        if item[0] == "deal":
            r, state = item[1], item[2]
            rnd = record.rounds[r]
            known = [s for s in range(n) if rnd.hands[s] is not None
                     and (seats is None or s in seats)]
            observers = {s: Observer(record.rules, {s}, state) for s in known}
            pending_draw, first_seen, round_start = {}, set(), state.scores
            annotated.append([])
            starts.append(tuple(state.scores))
            hands.append({})
            continue
        if item[0] == "end":
            ends.append((tuple(item[2].scores), item[2].ended))
            continue
        step = item[1]
        s, before = step.seat, step.before
        obs = observers.get(s)
        dec = None
        if obs is not None and before.led:
            info = obs.infoset(s)
            moves = root_moves(info)
            if step.action == DRAW and luck and s not in pending_draw:
                res = search(info, limits, seed=derive_seed(seed, 10_000_000 + k), algorithm=algorithm,
                             objective=objective, workers=workers, **settings)
                pending_draw[s] = res.value
                moments.append(Moment(r, step.event, s, "draw", res.value,
                                      sides=_side_values(record.rules, s, res.value, objective)))
            elif step.action < DRAW:
                if len(moves) == 1 and s not in pending_draw and s in first_seen:
                    summary[s].forced += 1
                    forced.add((r, step.event))
                else:
                    res = search(info, limits, seed=derive_seed(seed, k), algorithm=algorithm,
                                 objective=objective, workers=workers, **settings)
                    moment = Moment(r, step.event, s, "forced", res.value)
                    moment.sides = _side_values(record.rules, s, res.value, objective,
                                                res.info.get("sides", {}).get(res.best))
                    if luck and s in pending_draw:
                        moment.luck = res.value - pending_draw.pop(s)
                        moment.luck_kind = "draws"
                        summary[s].luck_draws += moment.luck
                    if luck and s not in first_seen:
                        side = record.rules.side_of(s)
                        others = [before.scores[o] - round_start[o]
                                  for o in range(record.rules.n_sides) if o != side]
                        mine = before.scores[side] - round_start[side]
                        moment.luck = res.value + mine - (sum(others) / len(others))
                        moment.luck_kind = "deal"
                        summary[s].luck_deal += moment.luck
                    first_seen.add(s)
                    moments.append(moment)
                    if len(moves) == 1:
                        summary[s].forced += 1
                        forced.add((r, step.event))
                    else:
                        dec = _judge(record, r, step, info, res, limits, seed, k, algorithm,
                                     objective, workers, thresholds, recheck, settings)
                        moment.kind, moment.decision = "decision", len(decisions)
                        moment.value = dec.values[dec.played]
                        moment.sides = _side_values(record.rules, s, moment.value, objective,
                                                    res.info.get("sides", {}).get(dec.played))
                        hands[-1][step.event] = info.hand
                        decisions.append(dec)
                        sm = summary[s]
                        sm.decisions += 1
                        sm.total_loss += max(dec.loss, 0.0)
                        if dec.label:
                            sm.counts[dec.label] += 1
                        k += 1
                        if progress:
                            progress(k, todo)
        for o in observers.values():
            o.step(s, step.action, step.after)
        line = format_line(step.after.line)
        annotated[-1].append((step.event, s, move_str(step.action, not before.led), line,
                              step.after.last_points, dec))
    wanted = sorted(summary) if seats is None else sorted(seats)
    settings_out = {"algorithm": algorithm, "objective": objective, "seed": seed,
                    "iterations": limits.iterations, "time": limits.time, "recheck": recheck,
                    "thresholds": thresholds, "workers": workers}
    if settings:
        settings_out["settings"] = dict(settings)
    return Analysis(decisions, [summary[s] for s in wanted if summary[s].decisions or
                                summary[s].forced], settings_out, annotated, moments,
                    record.rules, tuple(starts), hands, ends, forced)


def _side_values(rules, seat, value, objective, gains=None):
    """Every side's value where `seat`'s side has `value`: with two sides the other's follows
    (the margin's negative, or one minus the chance of winning the match); with more, from the
    search's expected points per side (`gains`, objective points) when it gave them; else None."""
    side, n = rules.side_of(seat), rules.n_sides
    if n == 2:
        other = -value if objective == "points" else 1.0 - value
        return tuple(value if i == side else other for i in range(2))
    if objective == "points" and gains and None not in gains and len(gains) == n:
        return tuple(value if i == side else g - (sum(gains) - g) / (n - 1)
                     for i, g in enumerate(gains))
    return None


def count_decisions(record, seats=None) -> int:
    """Plays with a choice, for the progress bar (counted without searching)."""
    n = 0
    for item in _run(record):
        if item[0] == "step":
            step = item[1]
            if (step.action < DRAW and step.before.led
                    and record.rounds[step.round].hands[step.seat] is not None
                    and (seats is None or step.seat in seats)
                    and len(step.before.legal_moves() if step.before.fully_known else [0, 0]) > 1):
                n += 1
    return n


def _judge(record, r, step, info, res, limits, seed, k, algorithm, objective, workers,
           thresholds, recheck, settings) -> Decision:
    played = move_str(step.action, False)

    def loss_of(result):
        vals = {m.move: m for m in result.moves}
        best = result.moves[0] if algorithm == "expectimax" else max(result.moves, key=lambda m: m.value)
        p = vals[played]
        loss = best.value - p.value
        # An estimate without a standard error (fewer than two samples) is never labelled.
        se = math.sqrt(best.stderr ** 2 + p.stderr ** 2) if best.move != played else 0.0
        if exact_of(result):
            # Exact values against the solved strategy of the other side: the error bound is
            # the exploitability (the same for every move), not a sampling error.
            se = result.stderr if best.move != played else 0.0
        return best, loss, se, vals

    def exact_of(result):
        return result.info.get("endgame", {}).get("solved", False)

    best, loss, se, vals = loss_of(res)
    rechecked = False
    if loss >= thresholds["inaccuracy"] and recheck > 1 and not exact_of(res):
        bigger = Limits(iterations=None if limits.iterations is None else limits.iterations * recheck,
                        time=None if limits.time is None else limits.time * recheck)
        res = search(info, bigger, seed=derive_seed(seed, 20_000_000 + k), algorithm=algorithm,
                     objective=objective, workers=workers, **settings)
        best, loss, se, vals = loss_of(res)
        rechecked = True
    # A sampled loss is labelled once it clears two standard errors; an exact one once it
    # clears the exploitability.
    label = label_for(loss, thresholds) if loss > (se if exact_of(res) else 2 * se) else None
    return Decision(r, step.event, step.seat, played, best.move, loss, se, label,
                    {m: v.value for m, v in vals.items()}, {m: v.stderr for m, v in vals.items()},
                    rechecked, exact_of(res))
