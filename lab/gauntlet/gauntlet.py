"""The gauntlet: the default engine against several engines that differ from it (issue 31).

    python lab/gauntlet/gauntlet.py list [--budgets 10,100,1000] [--modes 2p,3p,4p,4pp]
    python lab/gauntlet/gauntlet.py run CELL [CELL ...] [--pairs 300] [--seed 31001]
                                  [--dir gauntlet-runs] [--openspiel-tools DIR]
    python lab/gauntlet/gauntlet.py table [--dir ...] [--write lab/gauntlet/GAUNTLET.md]
    python lab/gauntlet/gauntlet.py phases CELL [--dir ...]

A cell is `A-vs-B-MSms-MODE`: engine A against engine B at MS milliseconds a move for both, in
MODE (`2p`, `3p`, `4p`: that many individual players; `4pp`: four in two partnerships), as
duplicate single rounds from 0-0 (every deal and reserve order played in every seating: A on
each side once). The engines (`ENGINES`):

- `default`: the default engine (`ismcts` with today's defaults);
- `classic`: the same engine with the old default's settings
  (`ismcts:root=ucb,replicates=1,stats=all,endgame=off`; not the arena's `classic` preset,
  which is the engine before inference and safe playouts);
- `flat`: flat Monte Carlo over the same worlds (`flat`);
- `greedy`: the core's greedy bot (no search, no clock);
- `openspiel`: OpenSpiel 2.0.2's ISMCTS on an independent port of the rules, through the
  shared instrument (`strength.py`, `referee.py`, `openspiel_bergen.py`): the directory is
  `--openspiel-tools` or the environment's BERGEN_OPENSPIEL_TOOLS; without it, or without
  open_spiel importable, its cells are skipped with one line saying so. Its rounds are dealt
  and refereed by the instrument's own referee (`referee.py`, the same seeds as
  `strength.py A B --seed S`), our engine plays them in process;
- `openspiel10x`: the same, given ten times the cell's clock (ours keeps the cell's).

Cells against our own engines run `play.arena.run_arena` (the code of `bergen arena --round`).
Every cell's margin is A's points minus B's a round (the arena's unit: with 3 or 4 individual
players, A's side minus the mean of the others), less the luck of the draws (`play.luck`: the
arena's AIVAT correction, unbiased whatever the engines; the OpenSpiel cells' rounds are
replayed through our rules to compute it, and the replay must reproduce the referee's
scores), with the raw margin beside it; 95% interval = margin ± 1.96 standard errors over the
independent sets. One journal per cell (`DIR/CELL.jsonl`): a header line with the cell's
settings, a line per finished set (written and flushed as it finishes), and a line with the
load average (`/proc/loadavg`) at the start and end of every run of the cell. A killed run
started again with the same command resumes: the finished sets are read back, not replayed;
a journal whose header differs (other seed or settings) is refused (exit 2).

`table` writes the cells found in DIR as a markdown table (between the markers in
`--write`'s file, the rest of the file kept), each with its command. `phases` splits an
OpenSpiel cell's margin (2 sides only) by where the two games of a pair first part: the
phase of the round (the lead and first plays; the draw phase; the end, once no draw is left,
where the exact endgame runs), the kind of decision (a choice of tile; the same tile at the
other end), and which engine was to move there; pairs whose games never part score 0.
"""
from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import importlib
import json
import math
import os
import random
import sys
import time
from dataclasses import dataclass

from bergen_search.errors import BergenError
from bergen_search.game.match import RoundLog
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS
from bergen_search.play.arena import SetResult, run_arena
from bergen_search.play.luck import default_estimate, round_luck, side_margin
from bergen_search.runs.files import OutputLock
from bergen_search.stats import Z95, sample_sd

#: The engines of the gauntlet: name -> engine spec without its clock (`time=` is added per
#: cell; greedy takes none).
ENGINES = {
    "default": "ismcts",
    "classic": "ismcts:root=ucb,replicates=1,stats=all,endgame=off",
    "flat": "flat",
    "greedy": "greedy",
    "openspiel": "openspiel",
    # OpenSpiel given ten times the cell's clock (the issue's aim: +0.3 against it).
    "openspiel10x": "openspiel",
    # Experiments (issue 31, lab/gauntlet/GAUNTLET.md): the default with fewer trees.
    "rep1": "ismcts:replicates=1",
    "rep2": "ismcts:replicates=2",
}
#: The default engine's opponents, in the table's order.
OPPONENTS = ("openspiel", "classic", "flat", "greedy")
MODES = {"2p": (2, False), "3p": (3, False), "4p": (4, False), "4pp": (4, True)}
BUDGETS_MS = (10, 100, 1000)
DEFAULT_DIR = "gauntlet-runs"
DEFAULT_SEED = 31001
TOOLS_ENV = "BERGEN_OPENSPIEL_TOOLS"
MARKER_BEGIN = "<!-- gauntlet table: begin (written by lab/gauntlet/gauntlet.py table) -->"
MARKER_END = "<!-- gauntlet table: end -->"


class Busy(Exception):
    """A cell's journal is being written by another run: that cell is skipped (the others
    of the command go on)."""


class Refused(Exception):
    """Bad input: one line and exit 2."""


# ---- cells ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    a: str
    b: str
    ms: int
    mode: str

    @property
    def name(self) -> str:
        return f"{self.a}-vs-{self.b}-{self.ms}ms-{self.mode}"

    @property
    def players(self) -> int:
        return MODES[self.mode][0]

    @property
    def partnerships(self) -> bool:
        return MODES[self.mode][1]

    @property
    def openspiel(self) -> bool:
        return any(ENGINES[n] == "openspiel" for n in (self.a, self.b))

    def spec(self, which: str) -> str:
        """The engine's spec with the cell's clock: our spec (arena cells) or the
        instrument's (`bergen:...`, `openspiel:time=...`) in OpenSpiel cells."""
        name = self.a if which == "a" else self.b
        base = ENGINES[name]
        if base in ("greedy", "random"):
            return base
        secs = f"time={self.ms * (10 if name == 'openspiel10x' else 1) / 1000:g}"
        if self.openspiel:
            if base == "openspiel":
                return f"openspiel:{secs}"
            head, _, rest = base.partition(":")
            opts = ([] if head == "ismcts" else [f"algorithm={head}"]) + [secs] + (
                rest.split(",") if rest else [])
            return "bergen:" + ",".join(opts)
        return f"{base},{secs}" if ":" in base else f"{base}:{secs}"

    def settings(self, pairs: int, seed: int) -> dict:
        return {"cell": self.name, "a": self.spec("a"), "b": self.spec("b"), "ms": self.ms,
                "players": self.players, "partnerships": self.partnerships, "pairs": pairs,
                "seed": seed, "kind": "openspiel" if self.openspiel else "arena"}


def parse_cell(text: str) -> Cell:
    try:
        ab, _, rest = text.rpartition("-vs-")
        a = ab
        b, ms, mode = rest.rsplit("-", 2)
        if not ms.endswith("ms"):
            raise ValueError
        ms = int(ms[:-2])
    except ValueError:
        raise Refused(f"bad cell {text!r}: write A-vs-B-MSms-MODE, e.g. "
                      f"default-vs-openspiel-100ms-2p") from None
    for name in (a, b):
        if name not in ENGINES:
            raise Refused(f"bad cell {text!r}: unknown engine {name!r} "
                          f"(known: {', '.join(ENGINES)})")
    if mode not in MODES:
        raise Refused(f"bad cell {text!r}: mode must be one of {', '.join(MODES)}")
    if not 1 <= ms <= 60000:
        raise Refused(f"bad cell {text!r}: the clock must be 1 to 60000 ms a move")
    return Cell(a, b, ms, mode)


def all_cells(budgets=BUDGETS_MS, modes=tuple(MODES)) -> list:
    """The gauntlet's cells: the default against each opponent, and the old settings against
    OpenSpiel (the reference line of issue 31), per budget and mode."""
    out = []
    for mode in modes:
        for ms in budgets:
            for b in OPPONENTS:
                out.append(Cell("default", b, ms, mode))
            out.append(Cell("classic", "openspiel", ms, mode))
    return out


def expand(patterns) -> list:
    """Cells named, or matched by shell patterns over `all_cells()` (e.g. '*-100ms-2p')."""
    out = []
    for p in patterns:
        if any(ch in p for ch in "*?["):
            hit = [c for c in all_cells() if fnmatch.fnmatch(c.name, p)]
            if not hit:
                raise Refused(f"no cell matches {p!r} (see `gauntlet.py list`)")
            out += hit
        else:
            out.append(parse_cell(p))
    return list(dict.fromkeys(out))


# ---- journals ---------------------------------------------------------------------------------
def loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "n/a"


class Journal:
    """`DIR/CELL.jsonl`: header, one line per finished set, load lines. A torn last line (a
    kill in mid-write) is dropped on reading and cut off before appending. One writer at a
    time: `open` takes the product's lock of a long run's output (`runs.files.OutputLock`,
    `CELL.jsonl.lock`), so a second run of the same cell is refused instead of playing the
    same sets again into the same file; `close` gives it back (a killed run's lock is freed
    by the kernel)."""

    def __init__(self, path: str):
        self.path = path
        self.lock = OutputLock(path)

    def read(self) -> tuple:
        """(header or None, {set index: line}, [load lines])."""
        header, sets, loads = None, {}, []
        if not os.path.exists(self.path):
            return header, sets, loads
        with open(self.path) as f:
            for line in f:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue          # a torn line from a kill: its set is played again
                if "header" in obj:
                    header = obj["header"]
                elif "load" in obj:
                    loads.append(obj)
                elif "set" in obj:
                    sets[obj["set"]["index"]] = obj["set"]
        return header, sets, loads

    def _heal(self):
        """Cut a torn last line so that the next line starts clean."""
        if not os.path.exists(self.path):
            return
        with open(self.path, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)

    def append(self, obj: dict):
        with open(self.path, "a") as f:
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def open(self, settings: dict) -> dict:
        """Take the journal's lock (Refused when another run holds it), check or write the
        header; the finished sets."""
        try:
            self.lock.acquire()
        except BergenError as e:
            raise Busy(e.message) from None
        header, sets, _ = self.read()
        if header is not None and header != settings:
            diff = [k for k in settings if header.get(k) != settings.get(k)]
            self.close()
            raise Refused(f"{self.path} holds a run with other settings ({', '.join(diff)}): "
                          f"give another --dir or remove it")
        self._heal()
        if header is None:
            self.append({"header": settings})
        return sets

    def close(self) -> None:
        self.lock.release()


# ---- arena cells -------------------------------------------------------------------------------
def set_line(sr: SetResult) -> dict:
    d = dataclasses.asdict(sr)
    d.pop("logs")
    return d


def set_result(d: dict) -> SetResult:
    d = dict(d)
    d["a_wins_by_seating"] = tuple(d["a_wins_by_seating"])
    d["search_time"] = tuple(tuple(x) for x in d["search_time"])
    return SetResult(logs=None, **d)


def run_arena_cell(cell: Cell, settings: dict, journal: Journal, done: dict, log) -> None:
    rules = Rules(players=cell.players, partnerships=cell.partnerships)
    finished = {i: set_result(d) for i, d in done.items()}

    def arrived(i, sr):
        journal.append({"set": set_line(sr)})
        log(f"{cell.name}: set {i + 1}/{settings['pairs']} margin "
            f"{(sr.a_points - sr.b_points) / sr.rounds:+.2f}")

    run_arena(rules, settings["a"], settings["b"], settings["pairs"], settings["seed"],
              workers=1, single_round=True, done=finished, on_result=arrived)


# ---- OpenSpiel cells ---------------------------------------------------------------------------
class Tools:
    """The shared instrument, imported from its directory without writing there."""

    def __init__(self, path: str):
        if not path or not os.path.isfile(os.path.join(path, "strength.py")):
            raise FileNotFoundError(path)
        sys.dont_write_bytecode = True
        if path not in sys.path:
            sys.path.insert(0, path)
        self.path = path
        self.referee = importlib.import_module("referee")
        self.strength = importlib.import_module("strength")
        importlib.import_module("pyspiel")
        self.ob = importlib.import_module("openspiel_bergen")


def find_tools(option: str | None):
    """The instrument, or (None, why not)."""
    path = option or os.environ.get(TOOLS_ENV)
    if not path:
        return None, f"no OpenSpiel instrument: give --openspiel-tools DIR or set {TOOLS_ENV}"
    try:
        return Tools(path), None
    except FileNotFoundError:
        return None, f"no OpenSpiel instrument at {path} (strength.py not found)"
    except ImportError as e:
        return None, f"OpenSpiel instrument at {path} does not import ({e})"


def bergen_move(opts: dict, rec: dict, seed: int) -> tuple:
    """Our engine's move in the instrument's terms, and what the search said about the
    exact endgame (True: solved it; False: tried and fell back; None: not tried)."""
    from bergen_search.search import Limits, search
    from bergen_search.formats.game import load_game
    info = load_game(json.dumps(rec))
    lim = Limits(iterations=int(opts["iterations"]) if "iterations" in opts else None,
                 time=float(opts["time"]) if "time" in opts else None)
    kw = {k: v for k, v in opts.items() if k not in ("iterations", "time")}
    res = search(info, lim, seed=seed, **kw)
    eg = res.info.get("endgame")
    solved = None
    if isinstance(eg, dict):
        solved = not eg.get("why")
    elif res.info.get("algorithm") == "endgame" or res.info.get("exact"):
        solved = True
    return str(res.best), solved


def choose(tools: Tools, spec: str, rnd, seat, rng, ctx) -> tuple:
    """(play, extra) for the seat to move: the instrument's `choose`, with our engine's
    endgame flag kept."""
    st, ref = tools.strength, tools.referee
    name, opts = st.parse_engine(spec)
    plays = rnd.legal_plays(seat)
    if name != "bergen" or len(plays) == 1:
        clock = st.Clock()
        return st.choose(spec, rnd, seat, rng, ctx, clock), {}
    rec = st.view_record(rnd.r, ctx["start_scores"], ctx["hands"], ctx["events"], seat)
    seed = rng.randrange(1 << 30)
    move, solved = bergen_move(opts, rec, seed)
    t_text, _, end = move.partition(":")
    t = ref.tile(t_text)
    for p in plays:
        if p[0] == t and (not end or p[1] == end):
            return p, {"endgame": solved}
    raise RuntimeError(f"{spec} chose an illegal move {move} among {plays}")


def play_os_round(tools: Tools, rules, hands, stock, engines, labels, rng) -> dict:
    """One round (from 0-0) refereed by the instrument; its events, decisions and points."""
    ref = tools.referee
    scores = [0] * rules.sides
    rnd = ref.Round(rules, hands, stock, scores)
    ctx = {"start_scores": list(scores), "hands": [set(h) for h in hands], "events": []}
    events, decisions = ctx["events"], []
    plays_made = 0
    while not rnd.over:
        seat = rnd.to_move
        drew = False
        while rnd.may_draw(seat):
            t = rnd.draw(seat)
            drew = True
            events.append({"seat": seat, "draw": ref.fmt(t)})
            if rules.draw == "one":
                break
        plays = rnd.legal_plays(seat)
        if plays:
            reserve = len(rnd.stock)
            t0 = time.perf_counter()
            (t, end), extra = choose(tools, engines[seat], rnd, seat, rng, ctx)
            ms = 1000 * (time.perf_counter() - t0)
            decisions.append({"event": len(events), "seat": seat, "engine": labels[seat],
                              "plays": len(plays), "tiles": len({p[0] for p in plays}),
                              "plays_made": plays_made, "reserve": reserve,
                              "ms": round(ms, 2), **extra})
            rnd.play(seat, t, end)
            plays_made += 1
            events.append({"seat": seat, "play": ref.fmt(t) + (f":{end}" if end else "")})
        else:
            rnd.pass_(seat, drew)
            events.append({"seat": seat, "pass": True})
    return {"events": events, "decisions": decisions, "gained": list(scores)}


def os_record(rules_json: dict, hands, stock, events, fmt) -> dict:
    """A refereed round (from 0-0) as a complete `bergen-record/1` dict."""
    sides = 2 if rules_json["partnerships"] else rules_json["players"]
    return {"format": "bergen-record/1", "rules": rules_json, "start_scores": [0] * sides,
            "rounds": [{"hands": [[fmt(t) for t in sorted(h)] for h in hands],
                        "reserve": [fmt(t) for t in stock], "events": events}]}


def os_luck(rules_json: dict, hands, stock, events, gained, fmt) -> list:
    """Per side, the luck of the draws of a refereed round, replayed through our rules (which
    must give the referee's points)."""
    from bergen_search.formats.record import parse_record
    from bergen_search.formats.replay import Draw, Play, events as replay_events
    from bergen_search.game.state import NO_TILE
    record = parse_record(os_record(rules_json, hands, stock, events, fmt))
    rules = record.rules
    rnd = record.rounds[0]
    log_events, end_state = [], None
    for step in replay_events(record):
        if isinstance(step, Draw):
            log_events.append((step.seat, DRAW, step.after.last_drawn))
        elif isinstance(step, Play):
            log_events.append((step.seat, step.action, step.action >> 1))
        elif hasattr(step, "action"):
            log_events.append((step.seat, PASS, NO_TILE))
        elif hasattr(step, "state") and step.state.ended is not None:
            end_state = step.state
    if end_state is None or list(end_state.scores) != list(gained):
        raise RuntimeError(f"our rules do not reproduce the referee's round: "
                           f"{None if end_state is None else list(end_state.scores)} "
                           f"against {gained}")
    log = RoundLog(list(rnd.hands), list(rnd.reserve), log_events)
    luck = round_luck(rules, log, (0,) * rules.n_sides, default_estimate())
    return list(luck[:rules.n_sides])


def play_os_set(tools: Tools, settings: dict, index: int) -> dict:
    """Set `index`: the instrument's deal for (seed, index) played in every seating, as
    `strength.run_pair` plays it (the same seeds), with the decisions and the luck kept."""
    st, ref = tools.strength, tools.referee
    rj = ref.Rules(players=settings["players"], partnerships=settings["partnerships"]).as_json()
    rj["target"] = max(rj["target"], 15)
    rules = ref.Rules(**rj)
    seed = settings["seed"]
    games, margins, lucks = [], [], []
    spent = {"A": [0, 0.0], "B": [0, 0.0]}
    for k, seating in enumerate(st.seatings(rules.players, rules.partnerships)):
        engines = [settings["a"] if isA else settings["b"] for isA in seating]
        labels = ["A" if isA else "B" for isA in seating]
        rng = random.Random(f"{seed}/{index}/play")
        drng = random.Random(f"{seed}/{index}/deal")
        hands, stock = ref.deal(rules, drng)
        g = play_os_round(tools, rules, hands, stock, engines, labels, rng)
        luck = os_luck(rj, hands, stock, g["events"], g["gained"], ref.fmt)
        margins.append(side_margin(g["gained"], k))
        lucks.append(side_margin(luck, k))
        for d in g["decisions"]:
            spec = settings["a"] if d["engine"] == "A" else settings["b"]
            if d["plays"] > 1 and spec.partition(":")[0] in ("bergen", "openspiel"):
                acc = spent[d["engine"]]
                acc[0] += 1
                acc[1] += d["ms"] / 1000
        games.append(g)
    n = len(margins)
    return {"index": index, "margin": math.fsum(margins) / n, "luck": math.fsum(lucks) / n,
            "rounds": n, "search_time": spent, "games": games}


def run_os_cell(cell: Cell, settings: dict, journal: Journal, done: dict, tools: Tools,
                log) -> None:
    for i in range(settings["pairs"]):
        if i in done:
            continue
        line = play_os_set(tools, settings, i)
        journal.append({"set": line})
        log(f"{cell.name}: set {i + 1}/{settings['pairs']} margin {line['margin']:+.2f} "
            f"luck {line['luck']:+.2f}")


# ---- figures ------------------------------------------------------------------------------------
@dataclass
class Figures:
    cell: str
    settings: dict
    sets: int
    margin: float | None          # luck-adjusted where the luck is known, else raw
    stderr: float | None
    raw: float | None
    raw_stderr: float | None
    adjusted: bool
    ms_a: float | None
    ms_b: float | None
    loads: list

    @property
    def ci95(self):
        if self.margin is None or self.stderr is None:
            return None
        return (self.margin - Z95 * self.stderr, self.margin + Z95 * self.stderr)


def set_margins(settings: dict, sets: dict) -> tuple:
    """Per set in index order: (raw margin a round, luck a round or None)."""
    out = []
    for i in sorted(sets):
        s = sets[i]
        if settings["kind"] == "arena":
            raw = (s["a_points"] - s["b_points"]) / s["rounds"]
            luck = None if s.get("luck") is None else s["luck"] / s["rounds"]
        else:
            raw, luck = s["margin"], s.get("luck")
        out.append((raw, luck))
    return out


def mean_se(xs) -> tuple:
    if not xs:
        return None, None
    m = math.fsum(xs) / len(xs)
    sd = sample_sd(xs)
    return m, (None if sd is None else sd / math.sqrt(len(xs)))


def compare(before: str, after: str) -> str:
    """Two runs on the same deals (the same seed, players and kind of cell: two builds of a
    cell, or two engines against the same opponent), paired set by set: the mean of after's margin minus before's over the
    sets both finished, with the standard error of those differences (the deals' own spread
    cancels, so a pair of cells resolves a difference far better than two independent
    intervals would). Luck-adjusted when both runs have the luck of every common set."""
    (ha, sa, _), (hb, sb, _) = Journal(before).read(), Journal(after).read()
    for path, h in ((before, ha), (after, hb)):
        if h is None or "kind" not in h:
            raise Refused(f"{path}: not a cell's journal")
    differ = [k for k in ("seed", "players", "partnerships", "kind")
              if ha.get(k) != hb.get(k)]
    if differ:
        raise Refused(f"{before} and {after} were not played on the same deals "
                      f"({', '.join(differ)} differ)")
    common = sorted(set(sa) & set(sb))
    if len(common) < 2:
        raise Refused(f"{before} and {after} have {len(common)} finished sets in common: "
                      f"at least 2 are needed")
    ma = dict(zip(sorted(sa), set_margins(ha, sa)))
    mb = dict(zip(sorted(sb), set_margins(hb, sb)))
    adjusted = all(ma[i][1] is not None and mb[i][1] is not None for i in common)
    rows = []
    for label, f in (("raw", lambda m: m[0]), ("luck-adjusted", lambda m: m[0] - m[1])):
        if label == "luck-adjusted" and not adjusted:
            continue
        b, sb_ = mean_se([f(ma[i]) for i in common])
        a, sa_ = mean_se([f(mb[i]) for i in common])
        d, sd = mean_se([f(mb[i]) - f(ma[i]) for i in common])
        rows.append(f"| {label} | {fmt_num(b)} ± {fmt_num(sb_, '.3f')} | "
                    f"{fmt_num(a)} ± {fmt_num(sa_, '.3f')} | {fmt_num(d)} ± "
                    f"{fmt_num(sd, '.3f')} | [{fmt_num(d - Z95 * sd)}, "
                    f"{fmt_num(d + Z95 * sd)}] |")
    return "\n".join([
        f"before `{ha['cell']}`, after `{hb['cell']}`, seed {ha['seed']}: {len(common)} "
        f"sets in common (before {len(sa)}, after {len(sb)})", "",
        "| margin a round | before ± se | after ± se | after − before, paired ± se | 95% interval |",
        "|---|---|---|---|---|", *rows])


def figures(path: str) -> Figures | None:
    header, sets, loads = Journal(path).read()
    if header is None or "kind" not in header:      # none, or a `losses` journal
        return None
    ms = set_margins(header, sets)
    raw, raw_se = mean_se([r for r, _ in ms])
    adjusted = bool(ms) and all(lk is not None for _, lk in ms)
    if adjusted:
        margin, se = mean_se([r - lk for r, lk in ms])
    else:
        margin, se = raw, raw_se
    spent = [[0, 0.0], [0, 0.0]]
    for s in sets.values():
        st = s["search_time"]
        pairs = (st["A"], st["B"]) if isinstance(st, dict) else st
        for k in (0, 1):
            spent[k][0] += pairs[k][0]
            spent[k][1] += pairs[k][1]
    ms_ab = [1000 * t / n if n else None for n, t in spent]
    return Figures(header["cell"], header, len(sets), margin, se, raw, raw_se, adjusted,
                   ms_ab[0], ms_ab[1], loads)


def pairs_for(stderr: float, sets: int, diff: float = 0.1) -> int | None:
    """Sets needed for a difference `diff` to be 1.96 standard errors, at this cell's spread."""
    if not stderr or not sets:
        return None
    sd = stderr * math.sqrt(sets)
    return math.ceil((Z95 * sd / diff) ** 2)


def command(settings: dict) -> str:
    """The command that plays the cell (arena cells: and the `bergen arena` line that plays
    the same sets)."""
    seed = settings["seed"]
    out = (f"`python lab/gauntlet/gauntlet.py run {settings['cell']} --pairs {settings['pairs']} "
           f"--seed {seed}`")
    if settings["kind"] == "arena":
        mode = {(2, False): "", (3, False): " --players 3", (4, False): " --players 4",
                (4, True): " --players 4 --partnerships"}[
            (settings["players"], settings["partnerships"])]
        out += (f" (the same sets: `bergen arena {settings['a']} {settings['b']} --round "
                f"--games {settings['pairs']} --seed {seed}{mode}`)")
    return out


def fmt_num(x, spec="+.3f"):
    return "—" if x is None else format(x, spec)


def table(dirpath: str) -> str:
    rows = []
    for fn in sorted(os.listdir(dirpath)) if os.path.isdir(dirpath) else []:
        if fn.endswith(".jsonl"):
            f = figures(os.path.join(dirpath, fn))
            if f is not None:
                rows.append(f)
    order = {c.name: i for i, c in enumerate(all_cells())}
    rows.sort(key=lambda f: (order.get(f.cell, len(order)), f.cell))
    lines = ["| cell | A | B | sets | margin a round ± se | 95% interval | raw ± se | "
             "ms/move A, B | 0.1 needs | load start→end | seed |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for f in rows:
        s = f.settings
        ci = f.ci95
        cis = "—" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
        kind = "adj" if f.adjusted else "raw"
        loads = f.loads
        first = next((ln["load"] for ln in loads if ln.get("at") == "start"), "?")
        last = next((ln["load"] for ln in reversed(loads) if ln.get("at") == "end"), "running")
        done = f"{f.sets}" + ("" if f.sets >= s["pairs"] else f" of {s['pairs']}")
        need = pairs_for(f.stderr, f.sets)
        lines.append(
            f"| `{f.cell}` | `{s['a']}` | `{s['b']}` | {done} | "
            f"{fmt_num(f.margin)} ± {fmt_num(f.stderr, '.3f')} ({kind}) | {cis} | "
            f"{fmt_num(f.raw)} ± {fmt_num(f.raw_stderr, '.3f')} | "
            f"{fmt_num(f.ms_a, '.0f')}, {fmt_num(f.ms_b, '.0f')} | "
            f"{'—' if need is None else need} | {first} → {last} | {s['seed']} |")
    lines.append("")
    lines.append("Commands (from the checkout, with `BERGEN_OPENSPIEL_TOOLS` set for the "
                 "OpenSpiel cells):")
    lines.append("")
    for f in rows:
        lines.append(f"- `{f.cell}`: {command(f.settings)}")
    return "\n".join(lines)


def write_table(text: str, path: str):
    """Put `text` between the markers of `path` (appended with them if absent)."""
    old = open(path).read() if os.path.exists(path) else ""
    block = f"{MARKER_BEGIN}\n{text}\n{MARKER_END}"
    if MARKER_BEGIN in old and MARKER_END in old:
        head, _, rest = old.partition(MARKER_BEGIN)
        _, _, tail = rest.partition(MARKER_END)
        new = head + block + tail
    else:
        new = old + ("\n" if old and not old.endswith("\n") else "") + block + "\n"
    with open(path, "w") as f:
        f.write(new)


# ---- where the points are ----------------------------------------------------------------------
def phase_of(decision: dict, players: int, kept: int = 2) -> str:
    if decision["plays_made"] < 2 * players:
        return "lead and first plays"
    if decision["reserve"] <= kept:
        return "end (no draw left: exact endgame)"
    return "draw phase"


def first_split(g0: dict, g1: dict) -> tuple | None:
    """The first decision where the two games of a pair part: (decision in game 0, in game 1,
    event in game 0, in game 1, its index), or None when they never do."""
    e0, e1 = g0["events"], g1["events"]
    for j, (a, b) in enumerate(zip(e0, e1)):
        if a != b:
            d0 = next((d for d in g0["decisions"] if d["event"] == j), None)
            d1 = next((d for d in g1["decisions"] if d["event"] == j), None)
            if d0 is None or d1 is None:
                raise RuntimeError(f"the games part at event {j}, which is no decision")
            return d0, d1, a, b, j
    return None


def line_ends(events) -> tuple | None:
    """After these events of a round: (left value, right value, left tile a double, right
    tile a double), or None before the lead."""
    ends = None
    for ev in events:
        if "play" not in ev:
            continue
        text, _, end = ev["play"].partition(":")
        a, b = (int(x) for x in text.split("-"))
        if ends is None:
            ends = [a, b, a == b, a == b]
            continue
        k = 0 if end == "L" else 1
        ends[k] = b if a == ends[k] else a
        ends[k + 2] = a == b
    return None if ends is None else tuple(ends)


def mirror_ends(events) -> bool:
    """Whether the two ends of the line look alike (same value, both doubles or neither):
    the same tile at either end is then the mirror twin of the other (one choice)."""
    ends = line_ends(events)
    return ends is not None and ends[0] == ends[1] and ends[2] == ends[3]


def phases(path: str) -> str:
    header, sets, _ = Journal(path).read()
    if header is None or header["kind"] != "openspiel":
        raise Refused(f"{path}: not an OpenSpiel cell's journal")
    if len(sets[next(iter(sets))]["games"]) != 2 if sets else True:
        raise Refused(f"{path}: phases needs a finished set with two seatings")
    buckets = {}
    same = 0
    n = len(sets)
    rows = []
    for i in sorted(sets):
        s = sets[i]
        adj = s["margin"] - s["luck"]
        split = first_split(*s["games"])
        if split is None:
            same += 1
            rows.append(("never part", adj))
            continue
        d0, _, a, b, j = split
        if a["play"].partition(":")[0] != b["play"].partition(":")[0]:
            kind = "tile"
        elif mirror_ends(s["games"][0]["events"][:j]):
            kind = "end only, mirror twins (one choice)"
        else:
            kind = "end only (same tile)"
        key = (phase_of(d0, header["players"]), kind)
        rows.append((key, adj))
        buckets.setdefault(key, []).append(adj)
    out = [f"{header['cell']}: {n} sets; where the two games of a pair first part "
           f"(margin a round, luck-adjusted; its share of the total = sum / sets)",
           "", "| phase | decision | sets | mean ± se | contributes |",
           "|---|---|---|---|---|"]
    total = math.fsum(a for _, a in rows) / n
    for key in sorted(buckets):
        xs = buckets[key]
        m, se = mean_se(xs)
        out.append(f"| {key[0]} | {key[1]} | {len(xs)} | {m:+.3f} ± "
                   f"{fmt_num(se, '.3f')} | {math.fsum(xs) / n:+.3f} |")
    for ph in ("lead and first plays", "draw phase", "end (no draw left: exact endgame)"):
        xs = [x for k, v in buckets.items() if k[0] == ph for x in v]
        if xs:
            out.append(f"| **{ph}** | all | {len(xs)} | {mean_se(xs)[0]:+.3f} ± "
                       f"{fmt_num(mean_se(xs)[1], '.3f')} | {math.fsum(xs) / n:+.3f} |")
    out.append(f"| never part | — | {same} | 0 | 0 |")
    out.append(f"| **all** | | {n} | | {total:+.3f} |")
    solved = [d.get("endgame") for s in sets.values() for g in s["games"]
              for d in g["decisions"] if d["engine"] == "A" and "endgame" in d]
    if solved:
        ends = [d for s in sets.values() for g in s["games"] for d in g["decisions"]
                if d["engine"] == "A" and "endgame" in d and d["reserve"] <= 2]
        out.append("")
        out.append(f"A's searched decisions: {len(solved)}; in the end phase {len(ends)}, "
                   f"solved exactly {sum(1 for d in ends if d['endgame'])}, "
                   f"tried and fell back {sum(1 for d in ends if d['endgame'] is False)}")
    return "\n".join(out)


def os_deal(tools, header: dict, index: int) -> tuple:
    """(rules json, hands, stock) of set `index` of an OpenSpiel cell, dealt again."""
    ref = tools.referee
    rj = ref.Rules(players=header["players"], partnerships=header["partnerships"]).as_json()
    rj["target"] = max(rj["target"], 15)
    hands, stock = ref.deal(ref.Rules(**rj), random.Random(f"{header['seed']}/{index}/deal"))
    return rj, hands, stock


def losses(path: str, tools, sets_max: int, iterations: int, log=print) -> str:
    """Every decision of an OpenSpiel cell's games judged by `bergen analyze`'s review (our
    engine at `iterations` a search, the exact endgame where it applies): each engine's
    loss (the judged value of the best play minus that of the play made) summed per round,
    by phase. Resumable: `PATH.losses-N.jsonl` keeps each set's judgement."""
    from bergen_search.analysis.review import analyze
    from bergen_search.search import Limits
    header, sets, _ = Journal(path).read()
    if header is None or header["kind"] != "openspiel":
        raise Refused(f"{path}: not an OpenSpiel cell's journal")
    out = Journal(path[:-len(".jsonl")] + f".losses-{iterations}.jsonl")
    done = out.open({"cell": header["cell"], "iterations": iterations, "seed": header["seed"]})
    todo = [i for i in sorted(sets)[:sets_max] if i not in done]
    for n, i in enumerate(todo):
        rj, hands, stock = os_deal(tools, header, i)
        per = []
        for k, game in enumerate(sets[i]["games"]):
            rec = os_record(rj, hands, stock, game["events"], tools.referee.fmt)
            an = analyze(rec, limits=Limits(iterations=iterations), seed=1000 * i + k)
            mine = {d["event"]: d for d in game["decisions"]}
            for d in an.decisions:
                md = mine[d.event]
                per.append({"game": k, "event": d.event, "engine": md["engine"],
                            "phase": phase_of(md, header["players"]), "loss": d.loss,
                            "se": d.loss_stderr, "exact": d.exact, "played": str(d.played),
                            "best": str(d.best), "position": d.position})
        out.append({"set": {"index": i, "decisions": per}})
        log(f"losses {header['cell']}: set {i} ({n + 1}/{len(todo)})")
    out.close()
    _, judged, _ = out.read()
    return losses_table(header, judged, iterations)


PHASES = ("lead and first plays", "draw phase", "end (no draw left: exact endgame)")


def losses_table(header: dict, judged: dict, iterations: int) -> str:
    n = len(judged)
    rounds = 2 * n
    lines = [f"{header['cell']}: the decisions of {n} sets ({rounds} rounds) judged by the "
             f"review at {iterations} iterations a search (the exact endgame where it "
             f"applies): points lost a round, mean ± se over the sets",
             "", "| phase | A's decisions | A loses | B's decisions | B loses | B − A |",
             "|---|---|---|---|---|---|"]
    for ph in PHASES + ("all",):
        row = {}
        for eng in ("A", "B"):
            per_set = [math.fsum(d["loss"] for d in s["decisions"] if d["engine"] == eng and
                                 (ph == "all" or d["phase"] == ph)) / 2
                       for s in judged.values()]
            count = sum(1 for s in judged.values() for d in s["decisions"]
                        if d["engine"] == eng and (ph == "all" or d["phase"] == ph))
            row[eng] = (count, per_set)
        diff = [b - a for a, b in zip(row["A"][1], row["B"][1])]
        ma, sa = mean_se(row["A"][1])
        mb, sb = mean_se(row["B"][1])
        md, sd = mean_se(diff)
        lines.append(f"| {ph} | {row['A'][0]} | {fmt_num(ma)} ± {fmt_num(sa, '.3f')} | "
                     f"{row['B'][0]} | {fmt_num(mb)} ± {fmt_num(sb, '.3f')} | "
                     f"{fmt_num(md)} ± {fmt_num(sd, '.3f')} |")
    exact = [d for s in judged.values() for d in s["decisions"] if d["exact"]]
    lines.append("")
    lines.append(f"{len(exact)} of the judged decisions were valued by the exact endgame.")
    worst = sorted((d for s in judged.values() for d in s["decisions"]),
                   key=lambda d: -d["loss"])[:8]
    lines.append("")
    lines.append("The costliest decisions (loss ± se, by whom, where):")
    for d in worst:
        lines.append(f"- {d['loss']:.2f} ± {d['se']:.2f}: {d['engine']} played {d['played']} "
                     f"for {d['best']} ({d['phase']}{', exact' if d['exact'] else ''}) "
                     f"`{d['position']}`")
    return "\n".join(lines)


# ---- main ----------------------------------------------------------------------------------------
def run(ns) -> int:
    cells = expand(ns.cells)
    os.makedirs(ns.dir, exist_ok=True)
    tools = why = None
    if any(c.openspiel for c in cells):
        tools, why = find_tools(ns.openspiel_tools)
    for cell in cells:
        if cell.openspiel and tools is None:
            print(f"{cell.name}: skipped: {why}", flush=True)
            continue
        settings = cell.settings(ns.pairs, ns.seed)
        journal = Journal(os.path.join(ns.dir, cell.name + ".jsonl"))
        try:
            done = journal.open(settings)
        except Busy as e:
            print(f"{cell.name}: skipped: {e}", flush=True)
            continue
        if len(done) >= ns.pairs:
            journal.close()
            print(f"{cell.name}: done ({len(done)} sets)", flush=True)
            continue
        journal.append({"load": loadavg(), "at": "start", "time": time.time(),
                        "pid": os.getpid(), "resumed": len(done)})
        log = (lambda msg: None) if ns.quiet else (lambda msg: print(msg, flush=True))
        if cell.openspiel:
            run_os_cell(cell, settings, journal, done, tools, log)
        else:
            run_arena_cell(cell, settings, journal, done, log)
        journal.append({"load": loadavg(), "at": "end", "time": time.time()})
        journal.close()
        f = figures(journal.path)
        print(f"{cell.name}: {f.sets} sets, margin {fmt_num(f.margin)} ± "
              f"{fmt_num(f.stderr, '.3f')} ({'luck-adjusted' if f.adjusted else 'raw'}), "
              f"raw {fmt_num(f.raw)} ± {fmt_num(f.raw_stderr, '.3f')}", flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="the cells")
    p = sub.add_parser("run", help="play cells (resumable)")
    p.add_argument("cells", nargs="+")
    p.add_argument("--pairs", type=int, default=300)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--dir", default=DEFAULT_DIR)
    p.add_argument("--openspiel-tools", default=None)
    p.add_argument("--quiet", action="store_true")
    p = sub.add_parser("table", help="the table of the cells in --dir")
    p.add_argument("--dir", default=DEFAULT_DIR)
    p.add_argument("--write", default=None)
    p = sub.add_parser("phases", help="an OpenSpiel cell's margin by where the games part")
    p.add_argument("cell")
    p.add_argument("--dir", default=DEFAULT_DIR)
    p = sub.add_parser("compare", help="two runs of a cell on the same deals, paired")
    p.add_argument("before")
    p.add_argument("after")
    p = sub.add_parser("losses", help="an OpenSpiel cell's decisions judged, by phase")
    p.add_argument("cell")
    p.add_argument("--dir", default=DEFAULT_DIR)
    p.add_argument("--sets", type=int, default=100)
    p.add_argument("--iterations", type=int, default=4000)
    p.add_argument("--openspiel-tools", default=None)
    ns = ap.parse_args(argv)
    try:
        if ns.command == "list":
            for c in all_cells():
                print(c.name)
            return 0
        if ns.command == "run":
            if not 1 <= ns.pairs <= 1_000_000:
                raise Refused(f"--pairs must be 1 to 1,000,000, got {ns.pairs}")
            return run(ns)
        if ns.command == "table":
            text = table(ns.dir)
            if ns.write:
                write_table(text, ns.write)
            print(text)
            return 0
        if ns.command == "losses":
            tools, why = find_tools(ns.openspiel_tools)
            if tools is None:
                raise Refused(why)
            print(losses(os.path.join(ns.dir, parse_cell(ns.cell).name + ".jsonl"), tools,
                         ns.sets, ns.iterations))
            return 0
        if ns.command == "compare":
            print(compare(ns.before, ns.after))
            return 0
        if ns.command == "phases":
            print(phases(os.path.join(ns.dir, parse_cell(ns.cell).name + ".jsonl")))
            return 0
    except (Refused, BergenError) as e:
        print(f"gauntlet: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
