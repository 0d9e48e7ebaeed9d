"""Post-game analysis: every decision of every seat judged from that seat's information at that
moment (an `Observer` per seat): the loss of the play made against the best, a suspected
error searched again with a larger budget, a label only when the loss's interval allows it
(`verdicts`); the luck of the deal and the draws, and the identity it adds up to: `luck`."""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import NamedTuple

from ..constants import DRAW_STREAM, RECHECK_STREAM
from ..errors import BergenError, Interrupted
from ..formats.notation import Line, Move
from ..formats.position import position_from_infoset
from ..formats.position_string import to_string
from ..formats.record import parse_record
from ..formats.replay import RoundEnd, RoundStart, events, walk
from ..game.rng import derive_seed
from ..game.state import DRAW
from ..information.infoset import Observer
from ..runs.parallel import prefix, run_ordered
from ..search import backend
from ..search.api import (
    MAX_ITERATIONS,
    MAX_REPLICATES,
    MAX_SECONDS,
    Limits,
    SearchResult,
    Settings,
    pool,
    root_moves,
    search,
)
from .luck import Book, identity_sum, json4, rounds_of
from .verdicts import CONFIDENCE, LABELS, THRESHOLDS, label_for, loss_bounds, verdict

#: The budget of a decision's first search (ISMCTS iterations), unless told.
DECISION_ITERATIONS = 20000
#: The same for an algorithm that counts worlds (expectimax).
DEFAULT_WORLDS = 100


def decision_limits(settings: Settings, iterations: int | None = None,
                    seconds: float | None = None, memory_mb: int | None = None) -> Limits:
    """The limits of a decision's first search: those given, else the engine's default."""
    if iterations is None and seconds is None:
        unit = settings.engine.unit
        iterations = backend.SEARCH.budget(DECISION_ITERATIONS if unit == "iterations"
                                           else DEFAULT_WORLDS)
    return Limits(iterations=iterations, time=seconds, memory_mb=memory_mb)


#: Searches of a decision after the first, at most.
MAX_RECHECKS = 2


@dataclass
class Decision:
    """A play with a choice, judged (`values`, `stderrs`: by every legal `notation.Move`).
    `borderline`: the interval settled on no label (`label` is then the loss's own); `exact`:
    valued by the exact endgame."""
    round: int
    event: int
    seat: int
    played: Move
    best: Move
    loss: float
    loss_stderr: float
    label: str | None
    values: dict            # Move -> value
    stderrs: dict           # Move -> stderr
    rechecked: bool = False
    borderline: bool = False
    loss_interval: tuple = (None, None)   # (lo, hi) at CONFIDENCE
    rechecks: int = 0       # searches after the first
    position: str | None = None   # the position before the play, as a position string
    exact: bool = False

    def to_json(self) -> dict:
        out = {"round": self.round, "event": self.event, "seat": self.seat,
               "played": str(self.played), "best": str(self.best), "loss": json4(self.loss),
               "loss_stderr": json4(self.loss_stderr), "label": self.label,
               "values": {str(m): json4(v) for m, v in self.values.items()},
               "stderr": {str(m): json4(v) for m, v in self.stderrs.items()},
               "rechecked": self.rechecked, "borderline": self.borderline,
               "loss_interval": [json4(x) for x in self.loss_interval],
               "rechecks": self.rechecks, "exact": self.exact}
        if self.position is not None:
            out["position"] = self.position
        return out


@dataclass
class SeatSummary:
    seat: int
    decisions: int = 0
    forced: int = 0
    total_loss: float = 0.0
    counts: dict = field(default_factory=lambda: {k: 0 for k in LABELS})
    luck_deal: float = 0.0
    luck_draws: float = 0.0
    borderline: int = 0
    rounds: list = field(default_factory=list)   # RoundLuck of each round analysed

    @property
    def mean_loss(self) -> float:
        return self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def error_rate(self) -> float:
        return sum(self.counts.values()) / self.decisions if self.decisions else 0.0

    def to_json(self) -> dict:
        return {"seat": self.seat, "decisions": self.decisions, "forced": self.forced,
                "total_loss": json4(self.total_loss), "mean_loss": json4(self.mean_loss),
                "inaccuracies": self.counts["inaccuracy"], "mistakes": self.counts["mistake"],
                "blunders": self.counts["blunder"], "borderline": self.borderline,
                "error_rate": json4(self.error_rate),
                "luck": json4(self.luck_deal + self.luck_draws), "luck_deal": json4(self.luck_deal),
                "luck_draws": json4(self.luck_draws),
                "identity": None if (t := identity_sum(self.rounds)) is None else t.to_json()}


@dataclass
class Moment:
    """A position the analysis searched: `value`, the mover's side's; `sides`, every side's."""
    round: int
    event: int
    seat: int
    kind: str              # "decision", "forced" or "draw"
    value: float
    luck: float | None = None
    luck_kind: str | None = None   # "deal" or "draws"
    decision: int | None = None    # index in Analysis.decisions
    sides: tuple | None = None


class Annotated(NamedTuple):
    """One event of an analysed round, with its `Decision` when it was a judged play."""
    event: int
    seat: int
    action: Move
    line: Line
    points: tuple
    decision: Decision | None


@dataclass
class Analysis:
    decisions: list
    summary: list
    settings: dict
    annotated: list        # per round: list of `Annotated`, one per event
    moments: list = field(default_factory=list)   # Moment, in record order
    rules: object = None   # the record's Rules
    start_scores: tuple = ()   # by side, before each round
    hands: list = field(default_factory=list)   # per round: {event: hand before a decision}
    ends: list = field(default_factory=list)    # per round: (scores by side, why it ended)
    forced: set = field(default_factory=set)    # (round, event) of the forced plays
    interrupted: bool = False       # by Ctrl-C, after len(decisions) of decisions_total
    decisions_total: int | None = None

    def to_json(self) -> dict:
        return {"decisions": [d.to_json() for d in self.decisions],
                "summary": [s.to_json() for s in self.summary],
                "rounds": [x.to_json() for x in rounds_of(self.summary)],
                "settings": self.settings}


def combined_summary(analyses) -> list:
    """Per-seat totals over several analyses, summed seat by seat."""
    total: dict = {}
    for a in analyses:
        for sm in a.summary:
            acc = total.setdefault(sm.seat, SeatSummary(sm.seat))
            for name in ("decisions", "forced", "total_loss", "luck_deal", "luck_draws",
                         "rounds", "borderline"):
                setattr(acc, name, getattr(acc, name) + getattr(sm, name))
            for k in LABELS:
                acc.counts[k] += sm.counts[k]
    return [total[s] for s in sorted(total)]


def analyze_all(records, *, seats=None, progress=None, cluster=None, done=None,
                on_result=None, searcher_for=None, **kwargs) -> list:
    """`analyze` each record as it would be alone (on a `cluster`, one task each), with one
    `progress` over all. `done` {record index: Analysis}: already analysed; `on_result(i,
    analysis)` hears of each. Ctrl-C raises `errors.Interrupted` with the analyses so far."""
    records = [parse_record(r) for r in records]
    done = dict(done or {})

    def labelled(i, e):
        return BergenError(f"record {i + 1}: {e}") if len(records) > 1 else e

    counts = []
    for i, rec in enumerate(records):
        try:
            counts.append(count_decisions(rec, seats))
        except BergenError as e:
            raise labelled(i, e) from None
    total = sum(counts)

    def finish(i, res):
        done[i] = res
        if on_result is not None:
            on_result(i, res)

    if cluster is not None:
        task = partial(_analyze_one, seats=seats, kwargs=kwargs)
        todo = [(i, rec) for i, rec in enumerate(records) if i not in done]

        def arrived(k, res):
            if isinstance(res, BergenError):
                raise labelled(todo[k][0], res)
            finish(todo[k][0], res)

        try:
            run_ordered(task, todo, cluster=cluster, progress=progress,
                        units=lambda item: counts[item[0]], on_result=arrived)
        except KeyboardInterrupt:
            raise Interrupted(prefix(done), sum(counts[i] for i in done), total,
                              "decisions") from None
        return [done[i] for i in range(len(records))]
    offset = sum(counts[i] for i in done)

    def overall(n, _total):
        progress(offset + n, total)

    for i, rec in enumerate(records):
        if i in done:
            continue
        try:
            res = analyze(rec, seats=seats, progress=overall if progress else None,
                          decisions_total=counts[i],
                          searcher=None if searcher_for is None else searcher_for(i),
                          **kwargs)
        except BergenError as e:
            raise labelled(i, e) from None
        except Interrupted as e:
            raise Interrupted([done[j] for j in range(i)] + [e.partial],
                              offset + e.done, total, "decisions") from None
        except KeyboardInterrupt:
            raise Interrupted(prefix(done), offset, total, "decisions") from None
        finish(i, res)
        offset += counts[i]
    return [done[i] for i in range(len(records))]


def _analyze_one(item, *, seats, kwargs):
    """One record on a cluster: its Analysis, or the BergenError it raised."""
    _, record = item
    try:
        return analyze(record, seats=seats, **kwargs)
    except BergenError as e:
        return e


def analyze(record, *, seats=None, decisions_total: int | None = None, **kwargs) -> Analysis:
    """Analyse every decision of `seats` (default: every seat whose hands the record shows),
    with `_Walk`'s arguments; `progress(done, total)` after each. Ctrl-C raises
    `errors.Interrupted` with the steps finished."""
    record = parse_record(record)
    walk = None
    try:
        walk = _Walk(record, seats, decisions_total=decisions_total, **kwargs)
        return walk.run()
    except KeyboardInterrupt:
        if walk is None or walk.before is None:
            raise                       # stopped before the first step: nothing to keep
        snap = walk.before
        del walk.decisions[snap.decisions:], walk.moments[snap.moments:]
        for moment in walk.moments:
            if moment.decision is not None and moment.decision >= snap.decisions:
                moment.decision = None
        result = walk.analysis(snap.summary, snap.forced)
        result.interrupted = True
        result.decisions_total = (count_decisions(record, seats, kwargs.get("rounds"))
                                  if decisions_total is None else decisions_total)
        raise Interrupted(result, snap.decisions, result.decisions_total, "decisions") from None


@dataclass(frozen=True)
class _Asking:
    """What every search of a review asks, and how (`find`: `search`, or a journal's)."""
    limits: Limits
    seed: int
    settings: Settings
    objective: str
    workers: int
    thresholds: dict
    recheck: int
    max_rechecks: int
    find: Callable[..., SearchResult]

    def search(self, info, limits: Limits, seed: int, focus=(), settings=None):
        return self.find(info, limits, seed=seed, objective=self.objective,
                         workers=self.workers, focus=focus,
                         settings=self.settings if settings is None else settings)


#: The counts before a step of the record, so that a Ctrl-C keeps the steps finished.
_Snapshot = namedtuple("_Snapshot", "decisions moments summary forced")


class _Walk:
    """A review walking its record; `before`: the counts before the step being walked.
    `rounds`: the round indexes (default all); `on_decision(decision, info, observer, round)`
    hears of each decision."""

    def __init__(self, record, seats=None, *, limits: Limits | None = None, seed: int = 0,
                 settings: Settings | None = None, objective: str = "points", workers: int = 1,
                 thresholds: dict | None = None, recheck: int = 4,
                 max_rechecks: int = MAX_RECHECKS, luck: bool = True, progress=None,
                 decisions_total: int | None = None, searcher=None, rounds=None,
                 on_decision=None):
        settings = Settings.of() if settings is None else settings
        limits = limits or Limits(iterations=backend.SEARCH.budget(DECISION_ITERATIONS))
        thresholds = dict(THRESHOLDS if thresholds is None else thresholds)
        check_budget(limits, recheck, max_rechecks, settings)
        self.todo = 0
        if progress is not None:
            self.todo = (count_decisions(record, seats) if decisions_total is None
                         else decisions_total)
        self.settings = {
            "algorithm": settings.algorithm, "objective": objective, "seed": seed,
            "iterations": limits.iterations, "time": limits.time, "recheck": recheck,
            "max_rechecks": max_rechecks, "confidence": CONFIDENCE, "thresholds": thresholds,
            "workers": workers, "backend": backend.SEARCH.name,
            **({"settings": dict(settings.given)} if settings.given else {})}
        # What the engine would spend on anything but values is not spent here unless asked.
        settings = settings.engine.for_review(settings)
        self.ask = _Asking(limits, seed, settings, objective, workers, thresholds, recheck,
                           max_rechecks, _searcher(searcher or search))
        self.record, self.seats, self.rounds, self.luck = record, seats, rounds, luck
        self.on_decision, self.progress = on_decision, progress
        self.decisions: list[Decision] = []
        self.annotated: list[list[Annotated]] = []
        self.moments: list[Moment] = []
        self.starts: list[tuple] = []
        self.hands: list[dict] = []
        self.ends: list[tuple] = []
        self.forced: set = set()
        self.summary = {s: SeatSummary(s) for s in range(record.rules.players)}
        self.observers: dict = {}
        self.pending_draw: dict = {}
        self.first_seen: set = set()
        self.book = Book(record.rules, self.ask)     # the luck identity (none without luck)
        self.before: _Snapshot | None = None

    def run(self) -> Analysis:
        for item in events(self.record):
            self.before = _Snapshot(
                len(self.decisions), len(self.moments),
                {q: replace(sm, counts=dict(sm.counts), rounds=[replace(x) for x in sm.rounds])
                 for q, sm in self.summary.items()}, set(self.forced))
            if isinstance(item, RoundStart):
                self.round_start(item)
            elif isinstance(item, RoundEnd):
                self.ends.append((tuple(item.state.scores), item.state.ended))
                self.book.round_end(item.round, item.state)
            else:
                self.step(item)
        return self.analysis(self.summary, self.forced)

    def analysis(self, summary: dict, forced: set) -> Analysis:
        wanted = sorted(summary) if self.seats is None else sorted(self.seats)
        return Analysis(self.decisions, [summary[s] for s in wanted
                                         if summary[s].decisions or summary[s].forced],
                        self.settings, self.annotated, self.moments, self.record.rules,
                        tuple(self.starts), self.hands, self.ends, forced)

    def round_start(self, item: RoundStart) -> None:
        r, state, record = item.round, item.state, self.record
        rnd = record.rounds[r]
        known = [s for s in range(record.rules.players) if rnd.hands[s] is not None
                 and (self.seats is None or s in self.seats)
                 and (self.rounds is None or r in self.rounds)]
        self.observers = {s: Observer(record.rules, {s}, state) for s in known}
        self.pending_draw, self.first_seen = {}, set()
        self.annotated.append([])
        self.starts.append(tuple(state.scores))
        self.hands.append({})
        self.book.round_start(r, state, known if self.luck else (), self.summary)

    def step(self, step) -> Decision | None:
        """One step of play searched, judged and annotated; its decision, if it was one."""
        s, before = step.seat, step.before
        obs = self.observers.get(s)
        dec = None
        if obs is not None and before.led:
            info = obs.infoset(s)
            if step.action == DRAW and self.luck and s not in self.pending_draw:
                self._draw(step, info)
            elif step.action < DRAW:
                dec = self._play(step, obs, info)
        for o in self.observers.values():
            o.step(s, step.action, step.after)
        self.annotated[-1].append(Annotated(step.event, s,
                                            Move.from_code(step.action, not before.led),
                                            Line(tuple(step.after.line)),
                                            step.after.last_points, dec))
        return dec

    def _draw(self, step, info) -> None:
        ask, s = self.ask, step.seat
        res = ask.search(info, ask.limits, derive_seed(ask.seed, DRAW_STREAM + len(self.decisions)))
        self.pending_draw[s] = res.value
        self.moments.append(Moment(step.round, step.event, s, "draw", res.value,
                                   sides=_side_values(self.record.rules, s, res.value,
                                                      ask.objective)))

    def _play(self, step, obs, info) -> Decision | None:
        ask, s, rules = self.ask, step.seat, self.record.rules
        forced = len(root_moves(info)) == 1
        # A forced play is searched only where luck is credited: after a draw, or its first.
        if not forced or s in self.pending_draw or s not in self.first_seen:
            k = len(self.decisions)             # the decisions judged before this one
            res = ask.search(info, ask.limits, derive_seed(ask.seed, k), focus=(step.action,))
            moment = Moment(step.round, step.event, s, "forced", res.value)
            moment.sides = _side_values(rules, s, res.value, ask.objective,
                                        res.info.get("sides", {}).get(res.best))
            self._luck(step, moment, res.value)
            self.moments.append(moment)
        if forced:
            self.summary[s].forced += 1
            self.forced.add((step.round, step.event))
            return None
        dec = _judge(ask, step, info, res, k)
        dec.position = to_string(position_from_infoset(
            info, {j: obs.proven_voids(j) for j in obs.hist}))
        moment.kind, moment.decision = "decision", len(self.decisions)
        moment.value = dec.values[dec.played]
        moment.sides = _side_values(rules, s, moment.value, ask.objective,
                                    res.info.get("sides", {}).get(dec.played))
        self.hands[-1][step.event] = info.hand
        self.decisions.append(dec)
        if self.on_decision is not None:
            self.on_decision(dec, info, obs, step.round)
        sm = self.summary[s]
        sm.decisions += 1
        sm.total_loss += max(dec.loss, 0.0)
        self.book.decision(s, max(dec.loss, 0.0))
        if dec.borderline:
            sm.borderline += 1
        elif dec.label:
            sm.counts[dec.label] += 1
        if self.progress:
            self.progress(len(self.decisions), self.todo)
        return dec

    def _luck(self, step, moment: Moment, value: float) -> None:
        """The luck of the draws, and of the deal at the seat's first searched play."""
        s = step.seat
        if self.luck and s in self.pending_draw:
            moment.luck, moment.luck_kind = value - self.pending_draw.pop(s), "draws"
            self.summary[s].luck_draws += moment.luck
            self.book.rows[s].luck_draws += moment.luck
        if self.luck and s not in self.first_seen:
            moment.luck, moment.luck_kind = self.book.rows[s].luck_deal, "deal"
        self.first_seen.add(s)


def _searcher(searcher):
    """`searcher` made to stop the analysis on Ctrl-C."""
    def find(*args, **kwargs):
        res = searcher(*args, **kwargs)
        if res.info.get("interrupted"):
            raise KeyboardInterrupt
        return res
    return find


def check_budget(limits: Limits, recheck: int, max_rechecks: int,
                 settings: Settings | None = None) -> None:
    """Refuse a budget whose largest recheck would pass one search's limits."""
    if not (type(recheck) is int and 1 <= recheck <= 1000 and type(max_rechecks) is int
            and 0 <= max_rechecks <= 20):
        raise BergenError(f"recheck must be 1..1000 and max_rechecks 0..20, got {recheck!r} "
                          f"and {max_rechecks!r}", field="recheck")
    if recheck < 2 or max_rechecks < 1:
        return
    settings = Settings.of() if settings is None else settings
    alg, full = settings.engine, dict(settings)
    replicated = alg.replicated and alg.units(full, 1) >= 2 and not alg.deepens(full)
    # Pooled: each recheck searches (recheck - 1) x all replicates so far again, with the first
    # budget per replicate; else each searches recheck times the last.
    factor = ((recheck - 1) * recheck ** (max_rechecks - 1) if replicated
              else recheck ** max_rechecks)
    iterations = limits.iterations
    if iterations is None and limits.time is None:
        iterations = DECISION_ITERATIONS
    what = f"--recheck {recheck} with --max-rechecks {max_rechecks}"
    if iterations is not None and iterations * factor > MAX_ITERATIONS:
        raise BergenError(f"{what} would search a decision with {iterations * factor:,} "
                          f"iterations, more than the {MAX_ITERATIONS:,} a search takes",
                          field="recheck")
    if limits.time is not None and limits.time * factor > MAX_SECONDS:
        raise BergenError(f"{what} would search a decision for {limits.time * factor:,.0f} s, "
                          f"more than the {MAX_SECONDS:,.0f} a search takes", field="recheck")
    if replicated and alg.units(full, 1) * factor > MAX_REPLICATES:
        raise BergenError(f"{what} would pool {alg.units(full, 1) * factor:,} replicates, more "
                          f"than the {MAX_REPLICATES:,} a search takes", field="recheck")


def _side_values(rules, seat, value, objective, gains=None):
    """Every side's value where `seat`'s side has `value` (with more than two, from `gains`),
    or None."""
    side, n = rules.side_of(seat), rules.n_sides
    if n == 2:
        other = -value if objective == "points" else 1.0 - value
        return tuple(value if i == side else other for i in range(2))
    if objective == "points" and gains and None not in gains and len(gains) == n:
        return tuple(value if i == side else g - (sum(gains) - g) / (n - 1)
                     for i, g in enumerate(gains))
    return None


def count_decisions(record, seats=None, rounds=None) -> int:
    """Plays with a choice, for the progress bar (counted without searching)."""
    n = 0
    for step in walk(record):
        if (step.action < DRAW and step.before.led
                and (rounds is None or step.round in rounds)
                and record.rounds[step.round].hands[step.seat] is not None
                and (seats is None or step.seat in seats)
                and len(step.before.legal_moves() if step.before.fully_known else [0, 0]) > 1):
            n += 1
    return n


#: A decision's loss by one search: the best row, the loss, its error, every row, the interval.
_Loss = namedtuple("_Loss", "best loss se vals lo hi")


def _judge(ask: _Asking, step, info, res, k: int) -> Decision:
    """Judge a decision from its search `res`: a suspected error searched again, bigger, while
    its interval straddles a threshold (up to `max_rechecks`), then labelled or borderline."""
    played = Move.from_code(step.action)
    limits, thresholds, recheck = ask.limits, ask.thresholds, ask.recheck

    def loss_of(result) -> _Loss:
        vals = {m.move: m for m in result.moves}
        best = max(result.moves, key=lambda m: m.value)
        p = vals[played]
        lo, hi, se = loss_bounds(p, result)
        return _Loss(best, best.value - p.value, se, vals, lo, hi)

    now_loss = loss_of(res)
    rechecks, searched, bigger, now = 0, [res], limits, res
    alg, full = ask.settings.engine, dict(ask.settings)
    replicated = len(res.moves[0].samples) >= 2 and not alg.deepens(full)
    while recheck > 1 and rechecks < ask.max_rechecks and not _solved(now) and (
            (rechecks == 0 and now_loss.hi >= thresholds["inaccuracy"])
            or (rechecks > 0 and verdict(now_loss.lo, now_loss.hi, thresholds)[1])):
        # Replicates that do not deepen: (recheck - 1) times as many again, pooled with those
        # before; else one search with `recheck` times the budget, judged alone.
        grow = (recheck - 1) * sum(r.info["replicates"] for r in searched) if replicated else 0
        scale = grow / res.info["replicates"] if replicated else recheck
        bigger = Limits(
            iterations=None if bigger.iterations is None else round(bigger.iterations * scale),
            time=None if bigger.time is None else bigger.time * scale,
            memory_mb=limits.memory_mb)
        seed = derive_seed(ask.seed, RECHECK_STREAM * (rechecks + 1) + k)
        if replicated:
            given = ask.settings.engine.with_replicates(dict(ask.settings.given), grow)
            more = ask.search(info, bigger, seed, focus=(step.action,),
                              settings=Settings.of(ask.settings.algorithm, given))
            searched.append(more)
            bigger = limits
            # The bigger budget may let the exact endgame solve it: its values, alone.
            now = more if _solved(more) else pool(
                searched, by_visits=alg.by_visits and not alg.value_pass(full))
        else:
            now = ask.search(info, bigger, seed, focus=(step.action,))
        now_loss = loss_of(now)
        rechecks += 1
    x = now_loss
    label, borderline = verdict(x.lo, x.hi, thresholds)
    if borderline:
        label = label_for(x.loss, thresholds)
    return Decision(step.round, step.event, step.seat, played, x.best.move, x.loss, x.se, label,
                    {m: v.value for m, v in x.vals.items()},
                    {m: v.plus_minus for m, v in x.vals.items()},
                    rechecks > 0, borderline, (x.lo, x.hi), rechecks, exact=_solved(now))


def _solved(result) -> bool:
    """Whether `result` is the exact endgame's (bounded values, which no recheck narrows)."""
    return result.info.get("endgame", {}).get("solved", False)
