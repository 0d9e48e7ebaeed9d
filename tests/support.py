"""Helpers shared by test files (`import support`; tests/ is on the path), so that no test file
loads another: `COMPILED` (one compiled module per src_cython/**/*.pyx); `console_script`,
`bergen`, `CMD`, `start`, `run_here` (the command installed, here, in a process of its own);
`entries`, `wait_for` (a run's progress); `require_compiled` (the conftest policy); seeded
games cut at decisions (`cuts`, `Cut`, `stage_cuts`); the brute force over deals and draws
(`brute_histories`, `EXHAUSTIVE`, `BRUTE_BUDGET`); `chi_square`, `chi2_sf`; `sizes(fast, full)`:
a smaller but real size for the default run, the thorough one behind `slow`."""
from __future__ import annotations

import itertools
import math
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import pytest

from bergen_search.errors import BergenError
from bergen_search.game.match import play_match
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS, State
from bergen_search.game.tiles import ALL_TILES, iter_mask, popcount
from bergen_search.information.infoset import InfoSet, from_state_and_events
from bergen_search.information.sampler import WorldTable

RANDOM = 0      # the random engine's code (playout.play_match)

#: The compiled modules (`game._core`, ...): one per .pyx file setup.py builds, read from the
#: sources, so that conftest.py requires a module added there without a list to keep.
COMPILED = tuple(sorted(
    ".".join(p.relative_to(Path(__file__).resolve().parents[1] / "src_cython" / "bergen_search")
             .with_suffix("").parts)
    for p in (Path(__file__).resolve().parents[1] / "src_cython" / "bergen_search").rglob("*.pyx")))

#: Examples per property of the fuzzers: `BERGEN_FUZZ_EXAMPLES`, default 12 (CI: 100).
FUZZ_EXAMPLES = int(os.environ.get("BERGEN_FUZZ_EXAMPLES", "12"))


def sizes(fast, full):
    """Parametrize values: `fast` by default, `full` behind `slow`; a tuple is one per name."""
    def values(v):
        return v if isinstance(v, tuple) else (v,)
    return [pytest.param(*values(fast), id="fast"),
            pytest.param(*values(full), id="full", marks=pytest.mark.slow)]


def console_script(name: str = "bergen") -> str | None:
    """The installed console script `name`: beside this Python first, then on PATH; or None."""
    folder = os.path.dirname(sys.executable)
    for candidate in (os.path.join(folder, name), os.path.join(folder, name + ".exe")):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)


def bergen(*args, input=None):
    """`bergen ARGS` in this process (click's CliRunner): the Result, stdout and stderr apart."""
    from click.testing import CliRunner

    from bergen_search.cli import main
    return CliRunner().invoke(main, [str(a) for a in args], input=input, prog_name="bergen")


def require_compiled(module, name):
    """`module` if it was built; else fail (or skip, with BERGEN_ALLOW_NO_CORE=1)."""
    if module is None:
        if os.environ.get("BERGEN_ALLOW_NO_CORE") == "1":
            pytest.skip(f"compiled {name} not built (BERGEN_ALLOW_NO_CORE=1)")
        pytest.fail(f"compiled {name} is not built; run `pip install -e .`")
    return module


# ---- the installed command in processes of its own -----------------------------------------
_EXE = console_script()
CMD = [_EXE] if _EXE else [sys.executable, "-m", "bergen_search"]


def start(args, cwd, stdin=None, **kwargs):
    """`bergen ARGS` started in `cwd` in a process of its own, its output piped as text."""
    return subprocess.Popen(CMD + [str(a) for a in args], cwd=cwd, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def run_here(args, cwd):
    """`bergen ARGS` in this process (CliRunner) in the folder `cwd`."""
    before = os.getcwd()
    os.chdir(cwd)
    try:
        return bergen(*args)
    finally:
        os.chdir(before)


def entries(path) -> int:
    """Finished tasks in a journal (0 while it does not exist or is read mid-append)."""
    from bergen_search.runs.journal import _read
    try:
        return len(_read(str(path)).done) if os.path.exists(path) else 0
    except BergenError:
        return 0


def running(call) -> bool:
    """Whether `call()` is refused as "already running": a search in another thread holds the
    object it reads (any other error is raised)."""
    try:
        call()
    except RuntimeError as e:
        if "already running" not in str(e):
            raise
        return True
    return False


def refused_during(run, seen, calls, tries=5) -> None:
    """Each of `calls` refused as "already running" while `run()` runs in another thread. The
    run is seen running first (`seen()` refused), so that the two surely overlap; tried again
    should it end before every call was made."""
    import threading
    for _ in range(tries):
        ended = threading.Event()
        worker = threading.Thread(target=lambda: (run(), ended.set()))
        worker.start()
        while not running(seen) and not ended.is_set():
            time.sleep(0.001)
        refused = [running(call) for call in calls]
        worker.join()
        if all(refused):
            return
        assert ended.is_set(), f"called while the run ran, not refused: {refused}"
    pytest.fail("the run always ended before it was seen running")


def wait_for(predicate, proc=None, timeout=60):
    """Poll until `predicate()`, failing if `proc` ends first or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc is None or proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.02)


# ---- seeded games cut at decisions ------------------------------------------------------------
class Cut(NamedTuple):
    rules: Rules
    game: int
    round: int
    k: int              # events of the round before the cut
    state: State        # the true state at the cut (everything known)
    seat: int           # the seat to move: the viewpoint
    dealt: tuple        # every hand as dealt
    scores: tuple       # the scores the round started with
    events: list        # the true events before the cut: (seat, action, tile drawn or -1)
    public: list        # the same as the viewpoint saw them: others' drawn tiles None

    @property
    def others(self):
        return [s for s in range(self.rules.players) if s != self.seat]

    def info(self) -> InfoSet:
        return from_state_and_events(self.rules, self.seat, self.dealt[self.seat], self.scores,
                                     self.public)

    def true_world(self):
        """(other hands now, reserve set now) of the true history."""
        rest = sum(1 << t for t in self.state.reserve)
        return tuple(self.state.hands[s] for s in self.others), rest


def public_events(events, seat):
    return [(w, a, t if (a == DRAW and w == seat) else None) for w, a, t in events]


def cuts(rules: Rules, seed: int, games: int, rounds: int = 2, decisions: bool = True):
    """Cut points of seeded random matches: after the lead, where the seat to move has a choice
    (decisions=False: acts at all)."""
    n = rules.players
    for g in range(games):
        log = play_match(rules, [RANDOM] * n, derive_seed(seed, g))
        scores = tuple(log.start_scores)
        for r, rnd in enumerate(log.rounds[:rounds]):
            state = State.deal(rules, rnd.hands, rnd.reserve, scores)
            for k, (w, a, t) in enumerate(rnd.events):
                if state.led and (not decisions or len(state.legal_moves()) > 1):
                    seat = state.to_move
                    yield Cut(rules, g, r, k, state, seat, tuple(rnd.hands), scores,
                              list(rnd.events[:k]), public_events(rnd.events[:k], seat))
                state = state.apply(a, w, t if a == DRAW else None)
            scores = tuple(rnd.scores)


def stage_cuts(first_seed: int, rounds: int, choices: int = 2):
    """Per round of greedy self-play from `first_seed`, the record cut at its first endgame-stage
    decision with `choices` legal moves: (JSON with every hand shown, the same as seen)."""
    import json

    from bergen_search.formats.record_io import write_record
    from bergen_search.play.engines import parse_engine_list
    from bergen_search.play.seats import play_engines
    rules = Rules()
    for i in range(rounds):
        log = play_engines(rules, parse_engine_list("greedy", 2), first_seed + i, max_rounds=1)
        rec = write_record(log)
        rnd = log.rounds[0]
        state = State.deal(rules, rnd.hands, rnd.reserve)
        for k, (w, a, t) in enumerate(rnd.events):
            if (state.led and state.reserve_size <= rules.reserve_kept
                    and len(state.legal_moves()) >= choices):
                cut = json.loads(json.dumps(rec))
                cut["rounds"] = cut["rounds"][:1]
                cut["rounds"][0]["events"] = cut["rounds"][0]["events"][:k]
                shown = json.dumps(cut)
                cut["rounds"][0]["hands"][1 - w] = None
                cut["rounds"][0]["reserve"] = None
                for ev in cut["rounds"][0]["events"]:
                    if ev["seat"] != w and "draw" in ev:
                        ev["draw"] = None
                yield shown, json.dumps(cut)
                break
            state = state.apply(a, w, t if a == DRAW else None)


# ---- the brute force ---------------------------------------------------------------------------
class Budget(Exception):
    """The brute force would take too long on this cut point."""


def brute_histories(rules: Rules, seat: int, own_dealt: int, events, start_scores=None,
                    budget: int = 10 ** 9):
    """Every history of deals and draws consistent with what `seat` saw, by replaying the public
    `events` through the reference `State`: [(dealt hands, {event: drawn tile} of the hidden
    seats, final State)]. Hidden seats are made known one at a time, the survivors extended; the
    tiles drawn and kept in one turn are tried in ascending order only (the same factor on every
    world, cancelled by normalising). `budget` bounds the State operations."""
    n = rules.players
    others = [s for s in range(n) if s != seat]
    own_drawn = 0
    for w, a, t in events:
        if w == seat and a == DRAW:
            own_drawn |= 1 << t
    # A draw is "kept" when the same seat's next event is another draw or a pass.
    kept = [a == DRAW and i + 1 < len(events) and events[i + 1][0] == w
            and events[i + 1][1] in (DRAW, PASS) for i, (w, a, _) in enumerate(events)]
    after_kept = [i > 0 and kept[i - 1] and events[i - 1][0] == w
                  for i, (w, a, _) in enumerate(events)]
    pool0 = ALL_TILES & ~own_dealt & ~own_drawn
    # A tile a seat plays before its first draw was dealt to it (saves trying other deals).
    must_hold = {s: 0 for s in others}
    drew = set()
    for w, a, _ in events:
        if a == DRAW:
            drew.add(w)
        elif a < DRAW and w in must_hold and w not in drew:
            must_hold[w] |= 1 << (a >> 1)
    spent = [0]
    out = []

    def spend():
        spent[0] += 1
        if spent[0] > budget:
            raise Budget

    def replay(hands, fixed, new_seat, emit):
        hidden = [rules.hand_size if h is None else 0 for h in hands]
        spend()
        try:
            state = State.deal(rules, hands, None, start_scores, hidden=hidden)
        except BergenError:
            return
        known_draws = {s for s in others if hands[s] is not None and s != new_seat}
        draws = {}

        def dfs(st, i, last_kept):
            if i == len(events):
                emit(st, dict(draws))
                return
            w, a, t = events[i]
            if a == DRAW and w != seat:
                if w in known_draws:
                    cands = [fixed[i]]
                elif w == new_seat:
                    cands = list(iter_mask(ALL_TILES & ~st.located()))
                    if kept[i] and after_kept[i]:
                        cands = [u for u in cands if u > last_kept]
                else:
                    cands = [None]
                for u in cands:
                    spend()
                    try:
                        s2 = st.apply(DRAW, w, u)
                    except BergenError:
                        continue
                    draws[i] = u
                    dfs(s2, i + 1, u if kept[i] and u is not None else -1)
                    del draws[i]
                return
            spend()
            try:
                s2 = st.apply(a, w, t if a == DRAW else None)
            except BergenError:
                return
            dfs(s2, i + 1, -1)

        dfs(state, 0, -1)

    def level(k, hands, fixed):
        s = others[k]
        used = 0
        for h in hands:
            used |= h or 0
        for u in fixed.values():
            used |= 1 << u
        last = k == len(others) - 1
        must = must_hold[s]
        rest = list(iter_mask(pool0 & ~used & ~must))
        for combo in itertools.combinations(rest, rules.hand_size - popcount(must)):
            hs = list(hands)
            hs[s] = must | sum(1 << x for x in combo)

            def emit(st, draws, hs=hs):
                nf = dict(fixed)
                nf.update((i, u) for i, u in draws.items() if events[i][0] == s)
                if last:
                    out.append((tuple(hs), nf, st))
                else:
                    level(k + 1, hs, nf)
            replay(hs, fixed, s, emit)

    hands = [None] * n
    hands[seat] = own_dealt
    level(0, hands, {})
    return out


def brute_distribution(histories, others):
    d = Counter()
    for _, _, st in histories:
        d[(tuple(st.hands[s] for s in others), ALL_TILES & ~st.located())] += 1
    return d


def table_distribution(table: WorldTable, others):
    d = Counter()
    for (hands, reserve), w in table.enumerate().items():
        d[(tuple(hands[s] for s in others), sum(1 << t for t in reserve))] += w
    return d


def normalised(d):
    total = sum(d.values())
    return {k: Fraction(v, total) for k, v in d.items()}


def describe_difference(dp, bf):
    a, b = normalised(dp), normalised(bf)
    only_dp = [k for k in a if k not in b]
    only_bf = [k for k in b if k not in a]
    diff = [k for k in a if k in b and a[k] != b[k]]
    return (f"{len(a)} worlds from the programme, {len(b)} from the brute force; "
            f"{len(only_dp)} only in the programme, {len(only_bf)} only in the brute force, "
            f"{len(diff)} with different weights")


# ---- exhaustive enumeration: the variants small enough for the brute force ----------------
EXHAUSTIVE = {
    "default-h2": dict(hand_size=2, reserve_kept=19),
    "default-h3": dict(hand_size=3, reserve_kept=17),
    "draw-one-h2": dict(hand_size=2, reserve_kept=18, draw="one"),
    "draw-one-h3": dict(hand_size=3, reserve_kept=16, draw="one"),
    "highest-double-h2": dict(hand_size=2, reserve_kept=19, lead="highest-double"),
    "highest-double-h3": dict(hand_size=3, reserve_kept=18, lead="highest-double"),
    "lowest-tile-h2": dict(hand_size=2, reserve_kept=19, no_double="lowest-tile"),
    "lowest-tile-h3": dict(hand_size=3, reserve_kept=17, no_double="lowest-tile"),
    "3p-h3": dict(players=3, hand_size=3, reserve_kept=17),
    "3p-h3-draw-one": dict(players=3, hand_size=3, reserve_kept=18, draw="one"),
}
BRUTE_BUDGET = 4000          # State operations per cut point; costlier cut points are skipped


# ---- chi-square: drawn frequencies against the exact weights -------------------------------
def chi2_sf(x: float, df: int) -> float:
    """P(X > x) for X chi-square with df degrees of freedom: the regularised upper incomplete
    gamma function Q(df/2, x/2) (series below a+1, Lentz's continued fraction above)."""
    a, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    log_front = -z + a * math.log(z) - math.lgamma(a)
    if z < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(100000):
            k += 1
            term *= z / k
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return math.exp(log_front) * h


def chi_square(observed: Counter, probs: dict, n: int):
    """(statistic, degrees of freedom, p-value) of the counts against the probabilities, bins
    expected below 5 pooled; every observed key must have a positive probability."""
    outside = [k for k in observed if k not in probs]
    assert not outside, f"{len(outside)} sampled worlds are not consistent worlds"
    bins = sorted(((n * float(p), observed.get(k, 0)) for k, p in probs.items()))
    merged, pool_e, pool_o = [], 0.0, 0
    for e, o in bins:
        if e < 5:
            pool_e, pool_o = pool_e + e, pool_o + o
        else:
            merged.append([e, o])
    if pool_e:
        if pool_e < 5 and merged:
            merged[0][0] += pool_e
            merged[0][1] += pool_o
        else:
            merged.append([pool_e, pool_o])
    stat = sum((o - e) ** 2 / e for e, o in merged)
    df = len(merged) - 1
    return stat, df, chi2_sf(stat, df)


# ---- an engine in this process -------------------------------------------------------------
class InProcessEngine:
    """An engine in this process (`EngineServer`) and the queue of the lines it wrote."""

    def __init__(self, workers: int = 1):
        import json
        import queue

        from bergen_search.protocol.server import EngineServer
        self.lines: queue.Queue = queue.Queue()
        self.server = EngineServer(lambda line: self.lines.put(json.loads(line)),
                                   workers=workers)

    def send(self, cmd: dict) -> None:
        import json
        assert self.server.handle_line(json.dumps(cmd))

    def until(self, kind: str, timeout: float = 60) -> list:
        """The lines written until one of type `kind` or an error, that one included."""
        got = [self.lines.get(timeout=timeout)]
        while got[-1]["type"] not in (kind, "error"):
            got.append(self.lines.get(timeout=timeout))
        return got

    def close(self) -> None:
        self.server.close()


# ---- a played match ply by ply, and its record cut and hidden as one seat saw it ------------
def plies(log, rounds=None, observe=False):
    """Every event of the played match `log` (its first `rounds` rounds): (round, k, the State
    before event k, {seat: an Observer that knows that seat alone} if `observe`, else None)."""
    from bergen_search.information.infoset import Observer
    rules, scores = log.rules, tuple(log.start_scores)
    for r, rnd in enumerate(log.rounds[:rounds]):
        state = State.deal(rules, rnd.hands, rnd.reserve, scores)
        obs = {s: Observer(rules, {s}, state) for s in range(rules.players)} if observe else None
        for k, (w, a, t) in enumerate(rnd.events):
            yield r, k, state, obs
            state = state.apply(a, w, t if a == DRAW else None)
            for o in (obs or {}).values():
                o.step(w, a, state)
        scores = tuple(rnd.scores)


def seen_record(log, r: int, k: int, seat=None, *, hands=True, draws=True, alone=True) -> dict:
    """The record of `log` cut after event k of round r (`alone`: that round only, from the
    scores it started with); with `seat`, as that seat saw it: the other hands and the reserve
    (`hands`) and the other seats' drawn tiles (`draws`) nulled."""
    from bergen_search.formats.record_io import write_record
    rec = write_record(log)
    last = rec["rounds"][r]
    last["events"] = last["events"][:k]
    if seat is not None and hands:
        last["hands"] = [h if s == seat else None for s, h in enumerate(last["hands"])]
        last["reserve"] = None
    for ev in last["events"] if seat is not None and draws else ():
        if "draw" in ev and ev["seat"] != seat:
            ev["draw"] = None
    if alone:
        rec["start_scores"] = list(log.rounds[r - 1].scores if r else log.start_scores)
    rec["rounds"] = [last] if alone else rec["rounds"][:r + 1]
    return rec


def tiles(text: str) -> int:
    """The mask of the tiles named, space-separated: `tiles("0-0 1-3")`."""
    from bergen_search.game.tiles import parse_tile
    return sum(1 << parse_tile(t) for t in text.split())


# ---- group D (test_formats, test_position_string): every variant of the rules' choices --------
#: Every seating (2, 3 or 4 players, 4 in partnerships) with every draw, no_double, lead and
#: blocked rule.
ALL_VARIANTS = [
    dict(players=p, partnerships=part, draw=draw, no_double=nd, lead=lead, blocked=blocked)
    for p, part, draw, nd, lead, blocked in itertools.product(
        [2, 3, 4], [False, True], ["until-playable", "one"], ["redeal", "lowest-tile"],
        ["lowest-double", "highest-double"], ["german", "pips", "american"])
    if not (part and p != 4)]


# ---- headless Chromium through playwright (tA: test_board.py, test_report.py) --------------
def chromium_browser():
    """A context manager: Debian's Chromium launched headless through playwright, or a skip
    saying what is missing (a failure with BERGEN_REQUIRE_BROWSER=1)."""
    import contextlib
    missing = []
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append("the playwright package (pip install -e '.[test]')")
    exe = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if exe is None:
        missing.append("chromium on the PATH (apt-get install chromium)")
    if missing:
        message = "the browser tests need " + " and ".join(missing)
        if os.environ.get("BERGEN_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)

    @contextlib.contextmanager
    def launched():
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            yield browser
            browser.close()
    return launched()
