"""The exact endgame as a step of a search: the `endgame` engine's whole answer, ISMCTS's
first step (its setting `endgame`), or a step beside a live search (`beside`).
"""
from __future__ import annotations

import dataclasses
import threading

from ...runs.threads import QuietThread
from ..limits import STOP_SLICE_SECONDS, Limits, now
from ..registry import SearchRun, Solved
from ..results import BracketReport, EndgameReport

#: The attempt's budget given neither iterations nor time, in ISMCTS iterations.
BUDGET = 100_000


def attempt(info, limits, run, *, alone: bool = False, bracketing: bool = False,
            tolerance: float | None = None, hand_tolerance: float | None = None,
            inference: str = "off") -> Solved:
    """Solve the endgame of `info` within `limits`, for the `endgame` engine (`alone`) or
    ISMCTS: the result, or the limits left for the search and why not. `bracketing`: where
    it declines, bracket each move (not `alone`). `tolerance`, `hand_tolerance` (None:
    `endgame.budget`'s) and `inference`: the `endgame` engine's settings."""
    from .. import endgame  # here: the solver's modules load only when it is tried
    if run.backend.name != "core" or endgame.compiled() is None:
        # The Python solver is the tests' oracle, too slow for a search.
        why: str | None = "the exact endgame needs the compiled core"
        return Solved(limits=limits, info={"endgame": {"solved": False, "why": why}}
                      if alone or endgame.at_stage(info) else {})
    tried = endgame.attempt(info, limits, seed=run.seed, objective=run.objective,
                            started=run.started, budget=BUDGET,
                            tolerance=endgame.budget.TOLERANCE if tolerance is None else tolerance,
                            hand_tolerance=(endgame.budget.HAND_TOLERANCE if hand_tolerance is None
                                            else hand_tolerance),
                            inference=alone and inference == "on", stop=run.stop,
                            memory_bytes=limits.memory_bytes,
                            clock=now, bracketing=bracketing and not alone)
    if tried.result is not None:
        res = tried.result
        res.info.update({"algorithm": run.algorithm, "settings": dict(run.settings),
                         "backend": run.backend.name, "objective": run.objective,
                         "replicates": None, "empty": False})
        if run.on_info is not None:
            ri = res.info
            run.on_info({"iterations": ri["iterations"], "seconds": ri["seconds"],
                         "speed": ri["iterations"] / max(ri["seconds"], 1e-9),
                         "best": res.best, "value": res.value, "stderr": res.stderr,
                         "moves": res.moves, "exact": True})
        return Solved(result=res)
    why = tried.why or (endgame.applicable(info) if alone else None)
    report: EndgameReport = {"solved": False, "why": why}
    if tried.bracket is not None:
        report["bracket"] = bracket_report(tried.bracket)
    elif tried.bracket_why is not None:
        report["bracket_why"] = tried.bracket_why
    out = Solved(limits=limits, info={"endgame": report} if why else {})
    if tried.interrupted:
        # No time is left: the answer comes from a short search.
        out.limits = Limits(iterations=max(BUDGET // 100, 1),
                            memory_mb=limits.memory_mb)
        out.interrupted = True
    return out


def bracket_report(b) -> BracketReport:
    """An `endgame.Bracket` as `info["endgame"]["bracket"]`: per move its floor and ceiling,
    the horizons of those cut, and what it cost."""
    return {"shown": True, "floor": dict(b.floors), "ceiling": dict(b.ceilings),
            "horizon": {m: {"floor": f, "ceiling": c} for m, (f, c) in b.horizons.items()},
            "deals": b.deals, "iterations": b.iterations, "work": b.work,
            "seconds": b.seconds, "exploitability": b.exploitability,
            "missing": list(b.missing)}


def beside(info, limits, run: SearchRun, **attempted) -> Solved:
    """The attempt run on a thread beside a live search (watched through `run.on_info`): the
    answer still to come (`Solved.later`, a `Beside`)."""
    return Solved(limits=limits, later=Beside(info, limits, run, attempted))


class Beside:
    """An attempt on a thread beside a live search (`registry.Later`). The search hears
    `stop` (the caller's, or the attempt solved) and reports through `on_info` until the
    attempt's own report; `finish()` waits for the attempt and returns its `Solved`. The
    search's memory and the attempt's are each held to the cap."""

    def __init__(self, info, limits, run: SearchRun, attempted: dict):
        assert run.on_info is not None      # a live search: watched
        self.caller_stop, self.caller_info = run.stop, run.on_info
        self.found = threading.Event()      # the attempt solved: the search is over
        self.quit = threading.Event()       # the search was stopped: so is the attempt
        self.lock = threading.Lock()
        self.solved: Solved | None = None
        self.error: BaseException | None = None
        self.stop = _Either(self.caller_stop, self.found)
        inner = dataclasses.replace(run, stop=self.quit, on_info=self._exact_info)
        self.thread = QuietThread(target=self._attempt, args=(info, limits, inner, attempted),
                                  name="bergen-exact")
        self.thread.start()

    def _attempt(self, info, limits, inner, attempted):
        try:
            self.solved = attempt(info, limits, inner, **attempted)
            if self.solved.result is not None:
                self.found.set()
        except BaseException as e:       # raised again in the search's thread
            self.error = e

    def _exact_info(self, progress: dict):
        with self.lock:
            self.found.set()
            self.caller_info({**progress, "exact": True})

    def on_info(self, progress: dict):
        with self.lock:
            if not self.found.is_set():
                self.caller_info(progress)

    def finish(self, stopped: bool) -> Solved:
        """The attempt's `Solved`, once it has ended (stopped at once when the search was:
        `stopped`)."""
        if stopped:
            self.quit.set()
        try:
            while self.thread.is_alive():
                if self.caller_stop is not None and self.caller_stop.is_set():
                    self.quit.set()
                self.thread.join(STOP_SLICE_SECONDS)
        except KeyboardInterrupt:
            self.quit.set()
            self.thread.join()
            raise
        if self.error is not None:
            raise self.error
        assert self.solved is not None
        return self.solved


class _Either:
    """Set when either event is (`workers.Hooks.stopped` reads `is_set()`)."""

    def __init__(self, *events):
        self.events = [e for e in events if e is not None]

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)
