"""`bergen engine`: JSON lines on standard input and output (docs/PROTOCOL.md).

`go` and `analyze` are queries, queued by `priority` then arrival and run on the worker
threads; everything else is answered at once by the reading thread, so that `isready`, `stop`
and `terminate` are heard while queries run."""
from __future__ import annotations

import heapq
import itertools
import json
import signal
import threading
import time
from dataclasses import dataclass, field
from functools import partial

from .. import __version__
from ..analysis.review import analyze, check_budget, decision_limits
from ..analysis.verdicts import label_thresholds
from ..errors import BergenError, Interrupted, JSONError, one_line
from ..formats.game import load
from ..formats.jsondoc import MAX_DOCUMENT_BYTES, parse_json, too_large
from ..formats.notation import format_hand, format_line
from ..formats.position_string import is_position_string, to_string
from ..formats.record import parse_record
from ..formats.replay import next_moves
from ..game.state import move_str
from ..game.tiles import tile_str
from ..information.beliefs import beliefs as beliefs_of
from ..information.lead import leads
from ..runs.threads import QuietThread
from ..search import backend, registry
from ..search.api import Limits, root_moves, search
from ..search.registry import resolve
from ..views import report
from ..views.search import best_document, measured_rows, move_text, num
from ..views.show import knowledge
from . import schema
from .schema import COMMANDS, SchemaError

PROTOCOL = "bergen-engine/2"
#: Said of a line holding part of a JSON value, or more than one (a pretty-printed document).
ONE_LINE = ("; a command is one JSON object on one line: send a pretty-printed (multi-line) "
            "document on one line")
#: The budget of an `infinite` search of an engine without replicates.
INFINITE_CAP = 5_000_000


class _Terminated(BaseException):
    """SIGTERM or SIGHUP, raised in the main thread where the engine reads its input."""


@dataclass(eq=False)
class Query:
    """A `go` or `analyze` in flight, queued or running."""
    cmd: schema.Command
    seq: int
    work: object                       # the Game of a go, the Record of an analyze
    limits: object = None              # an analyze's limits per decision (checked when read)
    stop: threading.Event = field(default_factory=threading.Event)
    terminated: bool = False
    started: bool = False
    answered: bool = False
    worker: int | None = None          # the worker it was handed to

    def __lt__(self, other):
        return (-self.cmd.fields["priority"], self.seq) < \
            (-other.cmd.fields["priority"], other.seq)


def _key(query_id):
    """A query id as a key: 1 and "1" are different ids."""
    return (type(query_id).__name__, query_id)


def _document(value, field_name: str):
    if isinstance(value, str) and not is_position_string(value) \
            and not value.lstrip().startswith(("{", "[")):
        takes = ("a document (a bergen-record/1 or bergen-position/1 object) or a position "
                 "string" if field_name == "game" else "a bergen-record/1 object")
        raise BergenError(f"{field_name!r} takes {takes}, not a file name ({value[:60]!r}): "
                          f"the engine reads no files; send the file's JSON as the field's "
                          f"value")
    return value


class EngineServer:
    """The engine between commands: the position, the queue, the queries in flight, the
    workers, and the output (`write(line)`, under a lock)."""

    def __init__(self, write, workers: int = 1, clock=time.perf_counter):
        self._write, self.clock = write, clock
        self.lock = threading.Condition()
        self.game = None
        self.queue: list = []              # a heap of Query
        self.inflight: dict = {}           # _key(id) -> Query, queued or running
        self.running: set = set()
        self.closed = False                # write nothing more
        self.lines_read = 0                # input lines (or messages) read so far
        self.shutdown = False
        self.seq = itertools.count()
        self.handlers = {"hello": self.cmd_hello,
                         "isready": lambda c: self.send({"type": "readyok"}, c.id),
                         "position": self.cmd_position, "moves": self.cmd_moves,
                         "show": self.cmd_show, "go": self.cmd_go, "analyze": self.cmd_analyze,
                         "stop": self.cmd_stop, "terminate": self.cmd_terminate}
        # A query goes to an idle worker as it arrives, so a `stop` right after finds it running.
        self.slots: list = [None] * workers
        self.idle = set(range(workers))
        self.workers = [QuietThread(target=self._work, args=(i,), name=f"bergen-worker-{i}")
                        for i in range(workers)]
        for t in self.workers:
            t.start()

    def send(self, obj: dict, line_id=None) -> None:
        if line_id is not None:
            obj = {**obj, "id": line_id}
        line = json.dumps(obj, separators=(",", ":"))
        with self.lock:
            if self.closed:
                return
            try:
                self._write(line)
            except (BrokenPipeError, OSError, ValueError):
                self.closed = True      # the other program has gone: write no more

    def error(self, message: str, line_id=None) -> None:
        self.send({"type": "error", "error": one_line(message)}, line_id)

    def final(self, query: Query, obj: dict) -> None:
        """A query's one final answer. Its worker is freed before the line is written, so that
        a command sent after it finds the engine as it says; both under the lock, so that the
        end of input (`finish`, then `close`) waits for the line, not only for the worker."""
        with self.lock:
            if query.answered:
                return
            query.answered = True
            if query.cmd.has_id:
                self.inflight.pop(_key(query.cmd.id), None)
            self._release(query)
            self.send(obj, query.cmd.id)

    def _release(self, query: Query) -> None:
        self.running.discard(query)
        i = query.worker
        if i is not None and self.slots[i] is query:
            self.slots[i] = None
            self.idle.add(i)
            self._dispatch()

    def handle_line(self, raw) -> bool:
        """One input line (bytes or text); False once the engine should exit."""
        self.lines_read += 1
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                self.error(f"input line {self.lines_read} is not UTF-8 text (byte {e.start})")
                return True
        if not raw.strip():
            return True
        where = f"input line {self.lines_read}"
        try:
            parsed = parse_json(raw, "command")
        except JSONError as e:
            if e.line > 1 or e.column > len(raw.rstrip("\r\n")):
                self.error(f"bad JSON: {where} ends inside a JSON value ({e.reason}){ONE_LINE}")
            elif e.extra_data:
                self.error(f"bad JSON in {where}, column {e.column}: more after the first JSON "
                           f"value{ONE_LINE}")
            else:
                self.error(f"bad JSON in {where}, column {e.column}: {e.reason}")
            return True
        except BergenError as e:    # NaN, a key twice, nested too deep: the line named too
            said = str(e)
            self.error(f"bad JSON in {where}: {said.removeprefix('bad JSON: ')}"
                       if said.startswith("bad JSON: ") else f"{where}: {said}")
            return True
        if not isinstance(parsed, dict):
            self.error(f'{where} is not a command: a command is a JSON object with "cmd", like '
                       f'{{"cmd": "isready"}}')
            return True
        try:
            command = schema.check(parsed)
        except BergenError as e:
            self.error(str(e), e.id if isinstance(e, SchemaError) else None)
            return True
        if command.name == "quit":
            return False
        try:
            self.handlers[command.name](command)
        except BergenError as e:
            self.error(str(e), command.id)
        except Exception as e:      # a bug: say so in one line and keep serving
            self.error(f"internal error: {type(e).__name__}: {e}", command.id)
        return True

    def cmd_hello(self, c):
        algorithms = {}
        for name in registry.names():
            alg, settings = resolve(name, {})
            algorithms[name] = {
                "help": alg.help, "unit": alg.unit,
                "default_budget": backend.SEARCH.budget(registry.default_iterations()[name]),
                "settings": {k: {"type": s.type.__name__, "default": settings[k],
                                 "help": s.help, **({"choices": list(s.choices)}
                                                    if s.choices else {})}
                             for k, s in alg.settings.items()}}
        self.send({"type": "hello", "protocol": PROTOCOL, "name": "bergen_search",
                   "version": __version__, "commands": list(COMMANDS),
                   "algorithms": algorithms, "backend": backend.SEARCH.name,
                   "workers": len(self.workers)}, c.id)

    def cmd_position(self, c):
        game = load(c.fields["game"])
        info = game.info
        # before the lead: the tile the lead rule makes the seat lead, if it leads at all
        moves = ([move_str(m) for m in root_moves(info)] if info.line else
                 [tile_str(t) for s, t, _ in leads(info.rules, info.seat, info.hand)
                  if s == info.seat])
        self.game = game
        self.send({"type": "position", "position": to_string(game.position),
                   "to_move": info.seat, "line": format_line(info.line),
                   "hand": format_hand(info.hand), "legal": moves,
                   "history": game.record is not None}, c.id)

    def cmd_moves(self, c):
        nxt = next_moves(_document(c.fields["record"], "record"))
        self.send({"type": "moves", "round": nxt.round, "to_move": nxt.seat, "seen": nxt.seen,
                   "moves": nxt.moves, **({"why": nxt.why} if nxt.why else {}),
                   **({"leads": [{"seat": s, "play": t} for s, t in nxt.leads]}
                      if nxt.seat is None else {})}, c.id)

    def cmd_show(self, c):
        game = self._game(c)
        self.send({"type": "show", **knowledge(game, c.fields["weighting"]).to_json(),
                   "version": __version__}, c.id)

    def _game(self, c):
        if c.fields["game"] is not None:
            return load(_document(c.fields["game"], "game"))
        if self.game is None:
            raise BergenError(f"no position yet: send position first, or give {c.name} a "
                              f"game")
        return self.game

    def cmd_stop(self, c):
        with self.lock:
            running = list(self.running)
        for q in running:
            q.stop.set()

    def cmd_terminate(self, c):
        ids, every = c.fields["queries"], c.fields["all"]
        if (ids is None) == (not every):
            raise BergenError('terminate takes "queries" (a list of ids) or "all": true')
        ended, not_started = [], []
        with self.lock:
            unknown = [i for i in ids or () if _key(i) not in self.inflight]
            chosen = list(self.inflight.values()) if every else \
                [self.inflight[_key(i)] for i in ids if _key(i) in self.inflight]
            for q in chosen:
                q.terminated = True
                q.stop.set()
                ended.append(q.cmd.id)
                if not q.started:
                    self.queue.remove(q)
                    not_started.append(q)
            heapq.heapify(self.queue)
        self.send({"type": "terminated", "queries": ended, "unknown": unknown}, c.id)
        for q in not_started:
            self.final(q, self._unstarted(q))

    def _enqueue(self, c, work, limits=None) -> None:
        q = Query(c, next(self.seq), work, limits)
        with self.lock:
            if c.has_id and _key(c.id) in self.inflight:
                self.send({"type": "error", "error": f"a query with id {c.id!r} is already "
                           f"in flight: give each query its own id", "in_flight": True}, c.id)
                return
            if c.has_id:
                self.inflight[_key(c.id)] = q
            heapq.heappush(self.queue, q)
            self._dispatch()

    def _dispatch(self) -> None:
        while self.idle and self.queue and not self.shutdown:
            i = min(self.idle)
            self.idle.discard(i)
            q = heapq.heappop(self.queue)
            q.started, q.worker = True, i
            self.running.add(q)
            self.slots[i] = q
        self.lock.notify_all()

    def _settings(self, c) -> registry.Settings:
        return registry.Settings.of(c.fields["algorithm"], c.fields["settings"])

    def cmd_go(self, c):
        game = self._game(c)
        if c.fields["infinite"] and c.fields["time"] is not None:
            raise BergenError("go: an infinite search takes no time limit: it runs until stop")
        self._settings(c)
        self._enqueue(c, game)

    def cmd_analyze(self, c):
        f = c.fields
        record = parse_record(_document(f["record"], "record"))
        for s in f["seats"] or ():
            if s >= record.rules.players:
                raise BergenError(f"analyze: seat {s} does not exist with "
                                  f"{record.rules.players} players")
        for r in f["rounds"] or ():
            if r >= len(record.rounds):
                n = len(record.rounds)
                raise BergenError(f"analyze: rounds: index {r} is not a round of the record "
                                  f"(round {r + 1}, counted from 1): it has {n} round"
                                  f"{'s' if n != 1 else ''}, indexes 0..{n - 1}")
        settings = self._settings(c)
        limits = decision_limits(settings, f["iterations"], f["time"])
        check_budget(limits, 4, 2, settings)
        self._enqueue(c, record, limits)

    def _work(self, i: int):
        while True:
            with self.lock:
                while self.slots[i] is None and not self.shutdown:
                    self.lock.wait()
                if self.shutdown:
                    return
                q = self.slots[i]
            try:
                (self._go if q.cmd.name == "go" else self._analyze)(q)
            except BergenError as e:
                self.final(q, {"type": "error", "error": one_line(str(e))})
            except MemoryError as e:
                self.final(q, {"type": "error", "error": f"the query ran out of memory: {e}"})
            except Exception as e:  # a bug: the query is over all the same
                self.final(q, {"type": "error", "error": one_line(
                    f"internal error: {type(e).__name__}: {e}")})
            finally:
                with self.lock:
                    self._release(q)

    def _unstarted(self, q: Query) -> dict:
        if q.cmd.name == "go":
            return {"type": "bestmove", "best": None, "moves": [], "value": None,
                    "stderr": None, "iterations": 0, "empty": True, "stopped": True,
                    "terminated": True}
        return {"type": "analysis", "decisions": [], "summary": [], "rounds": [], "empty": True,
                "interrupted": True, "stopped": True, "terminated": True,
                "version": __version__}

    def _go(self, q: Query):
        f = q.cmd.fields
        game = q.work
        iterations = f["iterations"]
        settings = self._settings(q.cmd)
        alg = settings.engine
        # An infinite search with replicates grows them until stopped; else up to a cap.
        until_stopped = f["infinite"] and alg.replicated
        if f["infinite"] and iterations is None and not until_stopped:
            iterations = INFINITE_CAP
        limits = Limits(iterations=iterations, time=f["time"])
        beliefs = (None if f["beliefs"] is None
                   else knowledge(game, f["beliefs"]).beliefs.to_json())
        every = f["report_every"]
        # A partial as each tree of the budget finishes; after them, on the clock alone.
        budget_trees = alg.units(dict(settings), 1) if alg.replicated else 0
        last = [None, 0]                # when the last partial was written, and its trees

        def on_info(progress):
            if "moves" not in progress:
                return
            now = self.clock()
            exact = progress.get("exact", False)
            trees = progress.get("trees", 0)
            if last[0] is not None and now - last[0] < every and not exact \
                    and not last[1] < trees <= budget_trees:
                return
            last[:] = [now, max(last[1], trees)]
            self.send(partial_answer(progress, exact), q.cmd.id)

        result = search(game.info, limits, settings=settings, seed=f["seed"],
                        objective=f["objective"], stop=q.stop,
                        on_info=on_info if every > 0 else None, until_stopped=until_stopped)
        doc = {"type": "bestmove", **best_document(
            game, result, seed=f["seed"], workers=1, objective=f["objective"],
            algorithm=f["algorithm"])}
        if result.info.get("empty"):
            doc.update(best=None, value=None, stderr=None, empty=True,
                       moves=measured_rows(result.moves, nothing=True))
        doc.update(stopped=q.stop.is_set(), terminated=q.terminated)
        if beliefs is not None:
            doc["beliefs"] = beliefs
        if f["infinite"]:
            if not q.stop.is_set() and every > 0:
                # It ended by itself: one last partial says so; the bestmove waits for stop.
                self.send(partial_answer({
                    "iterations": result.info["iterations"], "seconds": result.info["seconds"],
                    "best": result.best, "moves": result.moves,
                    "value": result.value, "stderr": result.plus_minus,
                    **({"trees": result.info.get("values", {}).get("replicates", 0)}
                       if until_stopped and not result.info.get("exact") else {})},
                    bool(result.info.get("exact")),
                    finished=True), q.cmd.id)
            q.stop.wait()
            doc.update(stopped=True, terminated=q.terminated)
        self.final(q, doc)

    def _analyze(self, q: Query):
        f = q.cmd.fields
        record, limits = q.work, q.limits
        weighting = f["beliefs"]
        count = itertools.count()

        def on_decision(dec, info, obs, r):
            line = {"type": "decision", "index": next(count), **dec.to_json()}
            if weighting is not None:
                line["beliefs"] = beliefs_of(info, obs, round_index=r,
                                             weighting=weighting).to_json()
            self.send(line, q.cmd.id)

        t0 = self.clock()
        how_far = {}
        try:
            result = analyze(record, seats=set(f["seats"]) if f["seats"] else None,
                             rounds=set(f["rounds"]) if f["rounds"] else None, limits=limits,
                             seed=f["seed"], settings=self._settings(q.cmd),
                             objective=f["objective"],
                             thresholds=label_thresholds(f["objective"]),
                             searcher=partial(search, stop=q.stop), on_decision=on_decision)
        except Interrupted as e:
            result = e.partial
            how_far = {"interrupted": True, "decisions_done": e.done,
                       "decisions_total": e.total}
        except KeyboardInterrupt:           # stopped before its first decision
            self.final(q, {**self._unstarted(q), "terminated": q.terminated})
            return
        self.final(q, {"type": "analysis", **report.to_json([result], self.clock() - t0),
                       **how_far, "stopped": q.stop.is_set(), "terminated": q.terminated,
                       "version": __version__})

    def finish(self) -> None:
        """Wait for every query in flight to answer, an `infinite` one stopped first."""
        with self.lock:
            for q in list(self.queue) + list(self.running):
                if q.cmd.name == "go" and q.cmd.fields.get("infinite"):
                    q.stop.set()
            while (self.queue or self.running) and not self.closed:
                self.lock.wait(0.1)

    def close(self, wait: float = 5.0) -> None:
        """Stop every query and write nothing more."""
        with self.lock:
            self.closed = True
            self.shutdown = True
            for q in list(self.inflight.values()) + list(self.running):
                q.stop.set()
            self.queue.clear()
            self.lock.notify_all()
        deadline = time.monotonic() + wait
        for t in self.workers:
            t.join(max(0.0, deadline - time.monotonic()))


def partial_answer(progress: dict, exact: bool, finished: bool = False) -> dict:
    """A `partial` line from a search's report (`finished`: the search ended by itself)."""
    rows = measured_rows(progress["moves"], exact=exact)
    # (no rows: a value before the lead that the seat may not lead)
    first = rows[0] if rows else {"visits": 0, "value": num(progress.get("value")),
                                  "stderr": num(progress.get("stderr"))}
    out = {"type": "partial", "iterations": progress["iterations"],
           "seconds": round(progress["seconds"], 3),
           "best": move_text(progress["best"]) if first["visits"] or exact else None,
           "value": first["value"], "stderr": first["stderr"], "moves": rows,
           "exact": exact}
    out.update({k: progress[k] for k in ("trees", "running", "settled", "deepening")
                if k in progress})
    return {**out, "finished": finished}


def _lines(source, limit: int):
    """The input's lines of at most `limit` bytes; a longer one is skipped a piece at a time
    (the memory stays bounded) and given as None."""
    end = source.readline(0)                # "" or b"": what a read at the end gives
    newline = b"\n" if isinstance(end, bytes) else "\n"
    for line in iter(lambda: source.readline(limit + 1), end):
        if len(line) > limit and not line.endswith(newline):
            for rest in iter(lambda: source.readline(limit + 1), end):
                if rest.endswith(newline):
                    break
            yield None
        else:
            yield line


def serve(stdin, stdout, workers: int = 1, stop_at_eof: bool = False) -> int:
    """Run the engine until `quit`, the end of `stdin`, SIGTERM or SIGHUP (0) or Ctrl-C (130)."""

    def write(line):
        stdout.write(line + "\n")
        stdout.flush()

    server = EngineServer(write, workers=workers)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        def terminate(signum, frame):
            raise _Terminated()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            previous[sig] = signal.signal(sig, terminate)
    source = getattr(stdin, "buffer", stdin)
    status = 0
    try:
        for raw in _lines(source, MAX_DOCUMENT_BYTES):
            if raw is None:
                server.lines_read += 1          # a line all the same: count it
                server.error(too_large(f"input line {server.lines_read}", MAX_DOCUMENT_BYTES,
                                       "no command is that long (its record may be at most "
                                       "that)"))
                continue
            if not server.handle_line(raw):
                break
        else:                        # the end of the input, not `quit`
            if not stop_at_eof:
                server.finish()
    except KeyboardInterrupt:
        status = 130
    except (_Terminated, BrokenPipeError):
        pass
    finally:
        try:
            server.close()
        except KeyboardInterrupt:
            status = 130            # Ctrl-C heard as the input ended: still an interruption
        except _Terminated:
            pass
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status
