"""The `bergen` command line: it parses, calls the library, and formats. Nothing else.

Exit status: 0 done; 2 bad input or usage (one line on stderr); 1 an internal failure.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time

import click

from .. import __version__
from ..errors import BergenError
from ..game.backend import ACTIVE
from ..game.rng import derive_seed
from ..game.rules import BLOCKEDS, DRAWS, LEADS, NO_DOUBLES, Rules
from ..play.engines import parse_engine_list
from ..runs.parallel import ClusterLost
from ..search import backend

# ---- shared option groups ----------------------------------------------------------------


def _read_text(path: str) -> str:
    """The text of a file, or of standard input for '-'; a missing file is bad input."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else sys.stdin.read()
        if isinstance(data, bytes):
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise BergenError(f"cannot read standard input: not UTF-8 text (byte "
                                  f"{e.start})") from None
        return data
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise BergenError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise BergenError(f"cannot read {path}: not UTF-8 text") from None


def _rules_json(text: str) -> dict:
    from ..formats.jsondoc import parse_json
    if text.startswith("@"):
        text = _read_text(text[1:])
    try:
        obj = parse_json(text, "--rules")
    except BergenError as e:
        raise BergenError(f"--rules: {e.message}", field="rules") from None
    if not isinstance(obj, dict):
        raise BergenError("--rules must be a JSON object", field="rules")
    return obj


RULE_FLAGS = [
    click.option("--rules", "rules_json", metavar="JSON|@FILE",
                 help="A rule set as JSON (docs/FORMATS.md, `rules`), inline or @FILE."),
    click.option("--players", type=click.IntRange(2, 4), help="Number of players (2, 3 or 4)."),
    click.option("--partnerships/--no-partnerships", default=None,
                 help="Four players in two partnerships (seats 0+2 against 1+3)."),
    click.option("--target", type=int, help="Points that win the match (default 15 or 10)."),
    click.option("--hand-size", type=int, help="Tiles dealt to each player (default 6, or 5 with 4)."),
    click.option("--lead", type=click.Choice(LEADS), help="Which double leads each round."),
    click.option("--no-double", type=click.Choice(NO_DOUBLES),
                 help="What happens when nobody holds a double."),
    click.option("--draw", type=click.Choice(DRAWS), help="Draw until a tile fits, or draw one."),
    click.option("--reserve-kept", type=int, help="Reserve tiles never drawn (default 2)."),
    click.option("--out-bonus", type=int, help="Points for going out (default 2; variant 5)."),
    click.option("--blocked", type=click.Choice(BLOCKEDS), help="Who scores a blocked round."),
    click.option("--endgame-cap/--no-endgame-cap", default=None,
                 help="Reduce matches near the target (default on)."),
]
_RULE_FIELDS = ("players", "partnerships", "target", "hand_size", "lead", "no_double", "draw",
                "reserve_kept", "out_bonus", "blocked", "endgame_cap")


def rule_options(f):
    for option in reversed(RULE_FLAGS):
        f = option(f)
    return f


def rules_from_options(kw: dict) -> Rules:
    """--rules first, then each flag given overrides its field. Pops the options from kw."""
    text = kw.pop("rules_json", None)
    d = _rules_json(text) if text else {}
    for name in _RULE_FIELDS:
        v = kw.pop(name, None)
        if v is not None:
            d[name] = v
    return Rules.from_dict(d)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True,
                        help="Print exactly one JSON document on standard output.")(f)


def emit_json(obj) -> None:
    """One JSON document on standard output, with the version that wrote it."""
    if isinstance(obj, dict) and "version" not in obj:
        obj = {**obj, "version": __version__}
    click.echo(json.dumps(obj, separators=(",", ":")))


class FiniteFloat(click.FloatRange):
    """A float in a range, never infinite or NaN (FloatRange lets NaN through: every
    comparison with it is false)."""
    name = "float"

    def convert(self, value, param, ctx):
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


def _limit_types():
    from ..search.api import MAX_ITERATIONS, MAX_MEMORY_MB, MAX_SECONDS
    return (click.IntRange(1, MAX_ITERATIONS), FiniteFloat(0.001, MAX_SECONDS),
            click.IntRange(1, MAX_MEMORY_MB), MAX_ITERATIONS, MAX_SECONDS)


#: The types of the budget options, with the search's maxima (search.MAX_ITERATIONS...).
ITERATIONS_TYPE, SECONDS_TYPE, MEMORY_TYPE, _MAX_IT, _MAX_S = _limit_types()
#: The most sets or matches a run plays.
MAX_GAMES = 10_000_000


def memory_option(f):
    from ..search.api import DEFAULT_MEMORY_MB, MAX_MEMORY_MB
    return click.option("--memory", "memory_mb", type=MEMORY_TYPE, default=None, metavar="MB",
                        help=f"Memory cap of ISMCTS's search trees, in MB per process "
                             f"(default {DEFAULT_MEMORY_MB}, at most {MAX_MEMORY_MB:,}): at "
                             f"the cap a tree stops growing and the search goes on sampling "
                             f"within it (the output says so).")(f)


def resume_option(f):
    return click.option("--resume", is_flag=True,
                        help="Go on with the run whose journal (OUT.journal, beside the "
                             "output) an interruption left; it must be the same command, "
                             "seed, arguments and version.")(f)


def search_note(specs=None) -> None:
    """One line on standard error when the searches run in pure Python (no compiled core, or
    BERGEN_PURE_PYTHON=1): slowly, with smaller default budgets. With `specs` (engines), only
    when one of them searches."""
    if specs is not None and all(spec.simple_code is not None for spec in specs):
        return
    note = backend.SEARCH.note
    if note:
        click.echo(f"bergen: {note}", err=True)


# ---- the group ---------------------------------------------------------------------------


class _CtrlC(Exception):
    """A KeyboardInterrupt carried past click's own handler (which prints a blank line)."""


#: The last lines of every command's --help: where its reference lives.
DOCS_EPILOG = ("Every option: docs/COMMANDS.md (bergen {name}); the documents it reads and "
               "writes, field by field: docs/FORMATS.md.")


class BergenGroup(click.Group):
    """Turns bad input into one line on stderr and exit 2; Ctrl-C into one line and exit
    130; anything else into exit 1. Every command added gets DOCS_EPILOG."""

    def add_command(self, cmd, name=None):
        super().add_command(cmd, name)
        if cmd.epilog is None:
            cmd.epilog = DOCS_EPILOG.format(name=name or cmd.name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _CtrlC() from None

    def main(self, args=None, prog_name=None, **extra):
        import warnings

        from ..play.engines import EngineWarning

        def one_line_warning(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, EngineWarning):
                click.echo(f"bergen: warning: {message}", err=True)
            else:
                previous(message, category, filename, lineno, file, line)

        previous = warnings.showwarning
        warnings.showwarning = one_line_warning
        try:
            rv = super().main(args=args, prog_name=prog_name or "bergen",
                              standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except (click.Abort, _CtrlC, KeyboardInterrupt):
            click.echo("bergen: interrupted", err=True)
            sys.exit(130)
        except click.UsageError as e:
            ctx = e.ctx
            cmd = ctx.command_path if ctx else "bergen"
            click.echo(f"{cmd}: {e.format_message()} (see '{cmd} --help')", err=True)
            sys.exit(2)
        except BergenError as e:
            click.echo(f"bergen: {e}", err=True)
            sys.exit(2)
        except BrokenPipeError:
            sys.exit(0)
        except Exception as e:  # an internal failure: say so in one line, trace on request
            if os.environ.get("BERGEN_DEBUG") == "1":
                raise
            click.echo(f"bergen: internal error: {type(e).__name__}: {e} "
                       f"(set BERGEN_DEBUG=1 for a traceback)", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=BergenGroup)
@click.version_option(__version__, prog_name="bergen")
def main():
    """bergen: search, analysis and self-play for the domino game Bergen.

    The documentation is in docs/ (in the repository and the source distribution; a
    wheel installs it in <prefix>/share/doc/bergen-search): the
    rules and their variants docs/RULES.md, every command and option docs/COMMANDS.md,
    every JSON document and its fields docs/FORMATS.md, tiles, moves and position strings
    docs/NOTATION.md, the engine protocol docs/PROTOCOL.md.
    """


# ---- replay ------------------------------------------------------------------------------


def _fmt_scores(scores) -> str:
    return "-".join(str(s) for s in scores)


def _human_replay(report: dict) -> str:
    lines = []
    for r, rnd in enumerate(report["rounds"]):
        lines.append(f"round {r}  start {_fmt_scores(rnd['start_scores'])}")
        for ev in rnd["events"]:
            pts = ev["points"]
            gained = " ".join(f"+{p} side {s}" for s, p in enumerate(pts) if p)
            lines.append(f"  {ev['event']:>3}  seat {ev['seat']}  {ev['action']:<10} "
                         f"{gained:<16} {_fmt_scores(ev['scores'])}")
        lines.append(f"  end: {rnd['end']}  scores {_fmt_scores(rnd['scores'])}")
    w = report["winner"]
    tail = f"side {w} wins" if w is not None else "match not finished"
    lines.append(f"{tail}: {_fmt_scores(report['scores'])}")
    return "\n".join(lines)


@main.command()
@click.argument("record_path", metavar="RECORD")
@json_option
def replay(record_path, as_json):
    """Check a record (bergen-record/1, or one per line in .jsonl) and score it event by event.

    RECORD is a file path, or - for standard input. An illegal record exits 2 naming the
    round, the event and what is wrong.
    """
    from ..formats.record_io import load_records
    from ..formats.replay import replay as replay_record
    text = _read_text(record_path)
    try:
        records = load_records(text, needed_by="replay")
        reports = []
        for i, rec in enumerate(records):
            try:
                reports.append(replay_record(rec))
            except BergenError as e:
                if len(records) > 1:
                    raise BergenError(f"record {i + 1}: {e}") from None
                raise
    except BergenError as e:
        if as_json:
            emit_json({"ok": False, "error": str(e), "round": e.round, "event": e.event,
                       "field": e.field})
        click.echo(f"bergen replay: {record_path}: {e}", err=True)
        sys.exit(2)
    if as_json:
        emit_json(reports[0] if len(reports) == 1 else {"ok": True, "records": reports})
    elif len(reports) == 1:
        click.echo(_human_replay(reports[0]))
    else:
        wins = {}
        for rep in reports:
            wins[rep["winner"]] = wins.get(rep["winner"], 0) + 1
        click.echo(f"{len(reports)} records, all legal; wins by side: "
                   + ", ".join(f"{k}: {v}" for k, v in sorted(wins.items(), key=str)))


# ---- selfplay ----------------------------------------------------------------------------


def cluster_option(f):
    return click.option("--cluster", metavar="ADDRESS", default=None,
                        help="Run the work on the Dask scheduler at ADDRESS (e.g. "
                             "tcp://10.0.0.5:8786); the same output as --workers 1. Needs "
                             "pip install 'bergen_search[cluster]'.")(f)


def _progress_bar(what: str, unit: str, quiet: bool):
    """A progress callback writing `what done/total unit` on stderr (a terminal only)."""
    show = not quiet and sys.stderr.isatty()

    def progress(done, total):
        if show:
            click.echo(f"\r{what} {done}/{total} {unit}", err=True, nl=False)
            if done == total:
                click.echo("", err=True)
    return progress


def write_lines(path, lines) -> None:
    """The lines to standard output (path None) or to `path`, atomically: a temporary file
    beside it moved into place when complete, so a failure or Ctrl-C leaves the old file (or
    none), never half a file."""
    if path is None:
        for line in lines:
            click.echo(line)
        return
    write_atomic(path, "".join(line + "\n" for line in lines))


def _check_writable(path: str, option: str) -> None:
    """Fail before a long run, not after it, when `path` cannot be written."""
    import os
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise click.BadParameter(f"{path} is a directory", param_hint=option)
    if not os.path.isdir(folder):
        raise click.BadParameter(f"cannot write {path}: no folder {folder}", param_hint=option)
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"cannot write {path}: permission denied", param_hint=option)


def write_atomic(path: str, text: str) -> None:
    """`text` into `path` through a temporary file in the same folder and os.replace."""
    import os
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".bergen-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise BergenError(f"cannot write {path}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp makes the file private; give it the mode an ordinary new file would have
        # (or the mode of the file it replaces).
        umask = os.umask(0)
        os.umask(umask)
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        raise BergenError(f"cannot write {path}: {e.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _start_scores(text, rules):
    """--start-scores as a tuple by side (None if not given); no side may have the target."""
    if not text:
        return None
    start = _parse_int_list(text, rules.n_sides, "--start-scores")
    if max(start) >= rules.target:
        raise BergenError(f"--start-scores: a side already has the target {rules.target}")
    return start


@main.command()
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=1, show_default=True,
              help=f"Number of matches to play (at most {MAX_GAMES:,}).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the run; match i is seeded from it and i.")
@click.option("--engines", default="random", show_default=True, metavar="SPEC[,SPEC...]",
              help="Engine per seat (one for all, or one per seat): random, greedy, "
                   "ismcts[:iterations=N,time=S,exploration=C,objective=O,playout=P,"
                   "inference=on|off,twins=on|off], classic[:...], "
                   "expectimax[:worlds=N,time=S,depth=D,playouts=P,objective=O].")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the records here (.jsonl, one match per line) instead of stdout.")
@click.option("--start-scores", metavar="A,B,...", help="Scores by side at the start of each match.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes playing matches in parallel (the same records as one).")
@cluster_option
@click.option("--quiet", is_flag=True, help="No progress on standard error.")
@resume_option
@rule_options
def selfplay(games, seed, engines, out_path, start_scores, workers, cluster, quiet, resume,
             **kw):
    """Play whole matches between engines and write complete bergen-record/1 records.

    Every record replays with `bergen replay`. Same seed, same records, byte for byte, on
    either backend, with any --workers or --cluster. With --out, the file appears only once
    every match is played, and a journal beside it (OUT.journal) keeps each match as it
    finishes: after Ctrl-C, kill -9 or a lost scheduler, --resume plays only the rest and
    writes the same file. Ctrl-C exits 130 saying how far the run got.
    """
    from ..play.selfplay import selfplay as run_selfplay
    rules = rules_from_options(kw)
    specs = parse_engine_list(engines, rules.players)
    start = _start_scores(start_scores, rules)
    journal = None
    search_note(specs)
    t0 = time.perf_counter()
    try:
        journal = _journal(out_path, "selfplay", seed, resume, {
            "games": games, "engines": [str(x) for x in specs], "rules": rules.to_dict(),
            "start_scores": start})
        rows = run_selfplay(rules, specs, games, seed, start, workers=workers, cluster=cluster,
                            progress=_progress_bar("selfplay", "matches", quiet),
                            **_journal_hooks(journal))
        write_lines(out_path, [line for line, _ in rows])
        _finished(journal)
    except ClusterLost as e:
        raise _kept(e, journal, out_path) from None
    except KeyboardInterrupt as caught:
        e = _interrupted(caught, journal, games, "matches", [])
        if out_path is None:
            for line, _ in e.partial:           # the finished matches, in order
                click.echo(line)
        return _stopped(journal, e, out_path, f" (the first {len(e.partial)} printed)"
                        if out_path is None and e.partial else "")
    wins = [0] * rules.n_sides
    for _, winner in rows:
        wins[winner] += 1
    dt = time.perf_counter() - t0
    resumed = f", {journal.resumed} of them from the journal" if journal and journal.resumed else ""
    click.echo(f"{games} matches in {dt:.2f} s ({ACTIVE.name}{resumed}); wins by side: "
               + ", ".join(f"{s}: {w}" for s, w in enumerate(wins))
               + (f"; saved to {out_path}" if out_path else ""), err=True)


def _journal(out_path, command: str, seed: int, resume: bool, arguments: dict, option="--out"):
    """The journal of a run writing `out_path` (None without an output file: nothing to put
    it beside). The output is checked writable first, so a long run never fails at its end."""
    if out_path is None:
        if resume:
            raise click.UsageError(f"--resume needs {option}: the journal lives beside the "
                                   f"output file")
        return None
    _check_writable(out_path, option)
    from ..runs.journal import Journal
    return Journal.start(out_path, command, seed, arguments, resume)


def _journal_hooks(journal) -> dict:
    """The `done` and `on_result` of a library run that keeps `journal` (none without)."""
    if journal is None:
        return {}
    return {"done": journal.done, "on_result": journal.add}


def _finished(journal) -> None:
    if journal is not None:
        journal.finish()


def _interrupted(caught, journal, total: int, unit: str, partial=None, done=None):
    """`caught` as an `errors.Interrupted` (a Ctrl-C that came before the library's run had
    begun, or after it ended, carries nothing: how far the journal got, then)."""
    from ..errors import Interrupted
    if isinstance(caught, Interrupted):
        return caught
    if done is None:
        done = len(journal.done) if journal is not None else 0
    return Interrupted(partial, done, total, unit)


def _kept(error, journal, output):
    """A run's error (the scheduler lost) with where its finished work is kept."""
    from ..runs.journal import journal_path
    if journal is not None:
        journal.close()
    if output is None or not os.path.exists(journal_path(output)):
        return error
    return BergenError(f"{error.message}; the finished work is kept in {journal_path(output)}: "
                       f"run the same command with --resume to go on", field=error.field)


def _stopped(journal, e, output, extra: str = "") -> int:
    """Say on standard error that the run was interrupted, how far it got and where its work
    is kept (the journal of `output`); the exit status, 130."""
    from ..runs.journal import journal_path
    if journal is not None:
        journal.close()
    if output is not None and os.path.exists(journal_path(output)):
        where = (f"; the finished work is kept in {journal_path(output)}: run the same "
                 f"command with --resume to go on")
    elif output is None:
        where = " (give --out to keep a journal of the finished work)"
    else:
        where = ""
    click.echo(f"bergen: interrupted after {e.done} of {e.total} {e.unit}{extra}{where}",
               err=True)
    return 130


def _parse_int_list(text: str, n: int, what: str) -> list:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise BergenError(f"{what} must be {n} integers separated by commas, got {text!r}") from None
    if len(values) != n or min(values) < 0:
        raise BergenError(f"{what} must be {n} non-negative integers, got {text!r}")
    return values


# ---- reading a game: a file, standard input, or the position flags ------------------------

POSITION_FLAGS = [
    click.option("--hand", help="The hand of the seat to move, e.g. '0-3 1-2 2-5'."),
    click.option("--line", help="The line, left to right, e.g. '5-3 3-3 3-6'."),
    click.option("--hand-sizes", metavar="N,N,...", help="Every seat's hand size."),
    click.option("--reserve-size", type=int, help="Tiles left in the reserve."),
    click.option("--scores", metavar="N,N,...", help="Scores by side (default zeros)."),
    click.option("--to-move", type=int, help="The seat to move (default 0)."),
    click.option("--voids", metavar="JSON",
                 help='Numbers seats are known to lack, e.g. \'{"1": [1, 4]}\'.'),
]
_POSITION_FIELDS = ("hand", "line", "hand_sizes", "reserve_size", "scores", "to_move", "voids")


def game_input(f):
    f = click.argument("game", required=False, metavar="[GAME]")(f)
    f = click.option("--position", "position_string", metavar="STRING",
                     help="The position as a position string, e.g. "
                          "'bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14' "
                          "(docs/NOTATION.md); GAME may be such a string too.")(f)
    for option in reversed(POSITION_FLAGS):
        f = option(f)
    return rule_options(f)


def game_from_options(game, kw):
    """The game of the seat to move (a `formats.game.Game`): from GAME (a record or a position
    file, - for standard input, or a position string), from --position STRING, or from the
    position flags. Pops the options it reads from kw."""
    from ..formats.game import Game, load
    from ..formats.position import position_from_flags
    from ..formats.position_string import is_position_string
    from ..information.infoset import from_position
    flags = {k: kw.pop(k, None) for k in _POSITION_FIELDS}
    given = [k for k, v in flags.items() if v is not None]
    string = kw.pop("position_string", None)
    if string is not None:
        if game is not None:
            raise click.UsageError("give either GAME or --position, not both")
        game = string
        if not is_position_string(game):
            raise BergenError(f"--position: a position string starts with 'bergen1/', got "
                              f"{game[:20]!r}")
    if game is not None:
        if given:
            raise click.UsageError(f"give either GAME or the position flags, not both "
                                   f"(got GAME and --{given[0].replace('_', '-')})")
        rules_given = [k for k in _RULE_FIELDS + ("rules_json",) if kw.get(k) is not None]
        if rules_given:
            raise click.UsageError("the rules of a GAME come from the game; rule flags go "
                                   "with the position flags")
        for k in _RULE_FIELDS + ("rules_json",):
            kw.pop(k, None)
        return load(game if is_position_string(game) else _read_text(game))
    if flags["hand"] is None:
        raise click.UsageError("give a GAME (a record or a position file, - for stdin, or a "
                               "position string) or the position flags starting with --hand")
    voids = None
    if flags["voids"] is not None:
        from ..formats.jsondoc import parse_json
        try:
            voids = parse_json(flags["voids"], "--voids")
        except BergenError as e:
            raise BergenError(f"--voids: {e.message}", field="voids") from None
    rules = rules_from_options(kw)
    pos = position_from_flags(flags["hand"], flags["line"], flags["hand_sizes"],
                              flags["reserve_size"], flags["scores"], None, None,
                              flags["to_move"], rules, voids)
    return Game(from_position(pos), pos)


def _algorithm_help() -> str:
    """`--algorithm`'s help: every registered algorithm and preset with its line."""
    from ..search import registry
    parts = [f"{a.name}: {a.help}" for a in registry.algorithms().values()]
    parts += [f"{name}: {registry.preset_help(name)}" for name in registry.presets()]
    return "The search algorithm. " + "; ".join(parts) + "."


def _budget_help() -> str:
    """`--iterations`' help: each algorithm's unit and default budget, from the registry."""
    from ..search import registry
    units = {}
    for a in registry.algorithms().values():
        units.setdefault(a.unit, []).append(f"{a.default_budget:,} for {a.name}")
    return ("The budget: " + "; ".join(f"{unit} ({', '.join(d)})" for unit, d in units.items())
            + f"; 1/{backend.FALLBACK_DIVISOR} of it without the compiled core; at most "
              f"{_MAX_IT:,}.")


def _algorithm_option():
    from ..search.api import ALGORITHM_NAMES
    return click.option("--algorithm", type=click.Choice(ALGORITHM_NAMES), default="ismcts",
                        show_default=True, help=_algorithm_help())


def _set_option():
    return click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                        help="An algorithm setting, e.g. --set inference=off, --set "
                             "playout=random (repeatable; every setting: docs/COMMANDS.md, Search settings).")


SEARCH_FLAGS = [
    _algorithm_option(),
    click.option("--objective", type=click.Choice(("points", "match")), default="points",
                 show_default=True,
                 help="points: expected points to the end of the round, relative to the other "
                      "sides; match: probability of winning the match."),
    click.option("--iterations", type=ITERATIONS_TYPE, default=None,
                 help=_budget_help()),
    click.option("--time", "seconds", type=SECONDS_TYPE, default=None,
                 help=f"Seconds to search, 0.001 to {_MAX_S:,.0f} (with --iterations: "
                      f"whichever comes first)."),
    memory_option,
    click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
                 help="Seed: same seed and iterations, same answer."),
    click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
                 help="Processes searching in parallel (root parallelism)."),
    click.option("--depth", type=click.IntRange(1, 200), default=None,
                 help="Expectimax: actions searched before the horizon (default 6)."),
    click.option("--exploration", type=FiniteFloat(0.0, 100.0), default=None,
                 help="ISMCTS: the UCB exploration constant (default 0.7; 0..100)."),
    _set_option(),
]


def search_options(f):
    for option in reversed(SEARCH_FLAGS):
        f = option(f)
    return f


def search_settings(algorithm, depth=None, exploration=None, sets=()) -> dict:
    """The algorithm's settings from --depth, --exploration and --set KEY=VALUE (checked
    against the algorithm: an unknown or unfitting setting is a clear error)."""
    from ..search.api import resolve
    settings = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise BergenError(f"--set needs KEY=VALUE, got {item!r}", field="set")
        settings[key.strip()] = value.strip()
    for flag, key, value in (("--depth", "depth", depth), ("--exploration", "exploration",
                                                           exploration)):
        if value is not None:
            if key not in resolve(algorithm, {})[0].settings:
                raise BergenError(f"{flag} does not apply to {algorithm}", field=key)
            settings[key] = value
    resolve(algorithm, settings)
    return settings


def run_search(info, algorithm, objective, iterations, seconds, seed, workers, settings,
               memory_mb=None):
    """The search of `best` and `eval`. One that finished nothing is no answer: a line
    saying why, exit 2 (130 when Ctrl-C cut it)."""
    from ..search.api import Limits, resolve, search
    result = search(info, Limits(iterations=iterations, time=seconds, memory_mb=memory_mb),
                    seed=seed, algorithm=algorithm, objective=objective, workers=workers,
                    **settings)
    if result.info.get("empty"):
        alg, full = resolve(algorithm, settings)
        unit = "world" if alg.unit == "worlds" else "iteration"
        if result.info.get("interrupted"):
            click.echo(f"bergen: interrupted before the search finished a single {unit}: no "
                       f"answer", err=True)
            sys.exit(130)
        hint = (f" (expectimax at depth {full['depth']}: one world takes longer here); give "
                f"more --time or a smaller --depth" if unit == "world" else "; give more --time")
        limit = f"the time limit of {seconds:g} s" if seconds else "its budget"
        raise BergenError(f"the search finished no {unit} within {limit}{hint}", field="time")
    return result


def _interrupted_note(ri, unit) -> str:
    return (f"interrupted (Ctrl-C) after {ri['iterations']} {unit}: the values are the "
            f"search's so far")


def _memory_note(ri) -> str | None:
    """A line when the memory cap stopped a tree growing (None otherwise)."""
    mem = ri.get("memory") or {}
    if not mem.get("full"):
        return None
    trees = ri.get("replicates") or 1
    which = "the tree" if trees == 1 else f"{mem['full']} of the {trees} trees"
    return (f"memory: {which} reached the cap of {mem['cap_mb']} MB (the first after "
            f"{mem['full_at']:,} iterations) and stopped growing; the search went on sampling "
            f"within it (--memory raises the cap)")


def _describe(game) -> str:
    """The position of a `formats.game.Game` for people, with its string to paste back."""
    from ..formats.notation import format_hand, format_line
    from ..formats.position_string import to_string
    info = game.info
    line = format_line(info.line) or "(empty)"
    return (f"seat {info.seat} to move   scores {_fmt_scores(info.scores)}   reserve "
            f"{info.reserve_size}   hands {','.join(map(str, info.hand_sizes))}\n"
            f"line  {line}\nhand  {' '.join(format_hand(info.hand))}\n"
            f"position {to_string(game.position)}")


@main.command()
@game_input
@search_options
@json_option
def best(game, algorithm, objective, iterations, seconds, memory_mb, seed, workers, depth,
         exploration, sets, as_json, **kw):
    """Rank every legal move of the seat to move, best first.

    GAME is a bergen-record/1 (its last round unfinished: the seat to move is the viewpoint)
    or a bergen-position/1, a path or - for standard input; or give the position flags.
    The search uses only what the seat to move could know.
    """
    from ..search.api import choices, resolve
    from ..views.search import best_document, move_text
    settings = search_settings(algorithm, depth, exploration, sets)
    game_ = game_from_options(game, kw)
    info = game_.info
    search_note()
    result = run_search(info, algorithm, objective, iterations, seconds, seed, workers, settings,
                        memory_mb)
    ri = result.info
    alg = resolve(algorithm, settings)[0]
    status = 130 if ri.get("interrupted") else 0
    if as_json:
        emit_json(best_document(game_, result, seed=seed, workers=workers,
                                objective=objective, algorithm=algorithm))
        return status
    unit = alg.unit
    click.echo(_describe(game_))
    solved = ri.get("endgame", {}).get("solved")
    if solved:
        click.echo(f"{_exact_text(ri)}, objective {objective}, {ri['seconds']:.2f} s, "
                   f"seed {seed}" + _backend_text(ri)
                   + (", interrupted" if ri.get("interrupted") else ""))
    else:
        click.echo(f"{algorithm} ({_settings_text(ri['settings'])}), objective {objective}, "
                   f"{ri['iterations']} {unit}{_worlds_note(ri)}, "
                   f"{ri['seconds']:.2f} s, seed {seed}" + _backend_text(ri)
                   + (", interrupted" if ri.get("interrupted") else ""))
        if "endgame" in ri:
            click.echo(f"exact: not solved, {ri['endgame']['why']}; {algorithm} instead")
    total = sum(m.visits for m in result.moves if m.twin is None) or 1
    ismcts = alg.by_visits and not solved
    click.echo("")
    if solved:
        click.echo(f"  {'move':<9} {'value':>8} {'± ε':>9} {'mix':>8}")
    else:
        click.echo(f"  {'move':<9} {'value':>8} {'± stderr':>9} "
                   f"{'visits' if ismcts else 'worlds':>8}" + (f" {'share':>7}" if ismcts else ""))
    for m in choices(result.moves):
        se = "" if math.isinf(m.stderr) else f"{m.stderr:.3f}"
        if solved:
            click.echo(f"  {move_text(m):<9} {m.value:>+8.3f} {se:>9} {100.0 * m.share:>7.1f}%")
            continue
        click.echo(f"  {move_text(m):<9} {m.value:>+8.3f} {se:>9} {m.visits:>8}"
                   + (f" {100.0 * m.visits / total:>6.1f}%" if ismcts else ""))
    if any(m.twin for m in result.moves):
        click.echo("\n  a-b:L/R: either end, the same position mirrored (one choice)")
    if not solved:
        click.echo("\n" + values_note(ri, objective, alg))
    for note in (_memory_note(ri), _interrupted_note(ri, unit) if status else None):
        if note:
            click.echo("  " + note)
    if solved:
        click.echo(f"\nbest: {move_text(result.best)} (drawn from the mix with seed {seed})")
    else:
        click.echo(f"\nbest: {move_text(result.best)}")
    return status


def _exact_text(ri) -> str:
    """The header of a solved endgame: what was solved and how exactly."""
    eg = ri["endgame"]
    return (f"exact: equilibrium, {eg['deals']:,} deals ({eg['worlds']:,} with this hand), "
            f"exploitability ≤ {eg['exploitability']:.3g} ({ri['algorithm']}: "
            f"{eg['iterations']} DCFR iterations, {eg['nodes']:,} nodes)")


def _backend_text(ri) -> str:
    """`, pure Python` in a search's header when it ran without the compiled core."""
    return "" if ri.get("backend", "core") == "core" else ", pure Python"


def values_note(ri, objective, alg) -> str:
    """What a value estimates and what its ± covers, in two short lines (`alg`: the
    registry's Algorithm, which says what its values are)."""
    what = ("points still to come in the round (the mover's side's minus the others' mean)"
            if objective == "points" else "the mover's side's chance to win the match")
    reps = ri.get("replicates")
    if ri.get("exact"):
        return f"  value: {what},\n  exact over every consistent world (± 0)"
    if reps is not None:
        if reps < 2:
            return (f"  value: {what},\n  {alg.value_meaning}; ± not measured: one "
                    f"{alg.replicate_noun[:-1]} (replicates=1)")
        per = ri["iterations"] // reps
        return (f"  value: {what},\n  {alg.value_meaning}; ± from the spread of {reps} "
                f"independent\n  {alg.replicate_noun} of about {per} {alg.unit} each")
    return (f"  value: {what},\n  {alg.value_meaning}; ± over the {alg.unit} and the "
            f"horizon's playouts")


def _worlds_note(ri) -> str:
    if ri.get("exact"):
        return " (all consistent worlds: exact)"
    if ri.get("all_worlds"):
        return " (all consistent worlds, random playouts at the horizon, solved more than once)"
    return ""


def _settings_text(settings: dict) -> str:
    """An algorithm's settings for a header line: `playout safe, inference on, ...`."""
    from ..search.api import setting_text
    return ", ".join(f"{k} {setting_text(v)}" for k, v in settings.items())


# ---- show --------------------------------------------------------------------------------


@main.command()
@game_input
@click.option("--weighting", type=click.Choice(["uniform", "inference"]), default="uniform",
              show_default=True,
              help="How the hidden tiles' chances are weighed: every consistent history "
                   "alike, or by what the other seats' plays say about their hands.")
@json_option
def show(game, weighting, as_json, **kw):
    """Check a game and print what its seat to move knows: the hands and their sizes, the
    voids each other seat has proved and where, the tiles each may still hold, the lead's
    proof, where each hidden tile is (each seat's and the reserve's chance of holding it),
    the number of consistent deals (exact), and the position string.

    GAME is a record, a position, - for standard input, or a position string; or give
    --position STRING or the position flags.
    """
    from ..views.show import knowledge
    known = knowledge(game_from_options(game, kw), weighting)
    if as_json:
        emit_json(known.to_json())
    else:
        click.echo(known.text())


# ---- engine ------------------------------------------------------------------------------


@main.command()
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Queries run at once (threads); the others wait in the queue.")
def engine(workers):
    """Run the engine on standard input and output: one JSON object per line
    (docs/PROTOCOL.md). Commands: hello, isready, position, go, analyze, stop, terminate,
    show, quit.

    Queries (go, analyze) carry an id, wait in a queue and answer with partial lines, then
    exactly one final line; a malformed line gets an error line and the engine keeps
    running. It exits cleanly on quit, at the end of its input, on SIGTERM and on SIGHUP.
    """
    from ..protocol.server import serve
    search_note()
    return serve(sys.stdin, sys.stdout, workers=workers)


# ---- arena -------------------------------------------------------------------------------


@main.command()
@click.argument("engine_a", metavar="A")
@click.argument("engine_b", metavar="B")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True,
              help=f"Duplicate sets: each plays the same deals with the engines' seats "
                   f"swapped (at most {MAX_GAMES:,}).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the run; set i is seeded from it and i.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes playing sets in parallel (same results as one).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True),
              help="Write every match as a complete record (.jsonl).")
@click.option("--round", "single_round", is_flag=True,
              help="Play single rounds instead of whole matches: each set is one deal played "
                   "in every seating from --start-scores (far less variance per game).")
@click.option("--start-scores", metavar="A,B,...",
              help="Scores by side at the start of every match (or round).")
@click.option("--no-luck-adjust", "no_luck_adjust", is_flag=True,
              help="Report only the raw margin (skip the correction for the luck of the "
                   "draws).")
@cluster_option
@click.option("--quiet", is_flag=True, help="No progress on standard error.")
@resume_option
@rule_options
@json_option
def arena(engine_a, engine_b, games, seed, workers, out_path, single_round, start_scores,
          no_luck_adjust, cluster, quiet, resume, as_json, **kw):
    """Play many matches between engines A and B, as duplicate sets so that luck cancels.

    Engines: random, greedy, ismcts[:iterations=N,time=S,...] (the default engine), classic[:...]
    (ISMCTS before inference and safe playouts), expectimax[:worlds=N,depth=D,...].
    Reports A's win rate with a 95% interval computed from the sets, and points per round:
    the margin less the luck of the draws (unbiased, smaller error) and the raw margin.
    With --out, a journal beside the file keeps each set as it finishes: --resume goes on
    after Ctrl-C, kill -9 or a lost scheduler. Ctrl-C prints the figures of the finished
    sets and exits 130.
    """
    from ..formats.record_io import dump_record, write_record
    from ..play.arena import format_arena, run_arena
    from ..play.engines import parse_engine_spec
    rules = rules_from_options(kw)
    spec_a, spec_b = parse_engine_spec(engine_a), parse_engine_spec(engine_b)
    start = _start_scores(start_scores, rules)
    journal = None
    search_note([spec_a, spec_b])
    try:
        journal = _journal(out_path, "arena", seed, resume, {
            "engines": [str(spec_a), str(spec_b)], "games": games, "rules": rules.to_dict(),
            "start_scores": start, "round": single_round})
        result = run_arena(rules, spec_a, spec_b, games, seed, workers=workers,
                           progress=_progress_bar("arena", "sets", quiet),
                           keep_logs=out_path is not None, start_scores=start,
                           single_round=single_round, cluster=cluster,
                           luck_adjust=not no_luck_adjust, **_journal_hooks(journal))
        if out_path:
            write_lines(out_path, [dump_record(write_record(log)) for log in result.logs])
        _finished(journal)
    except ClusterLost as e:
        raise _kept(e, journal, out_path) from None
    except KeyboardInterrupt as caught:
        e = _interrupted(caught, journal, games, "sets")
        how_far = {"interrupted": True, "done": e.done, "total": e.total}
        if as_json:
            emit_json({**(e.partial.to_json() if e.partial else {}), **how_far})
        elif e.partial:
            click.echo(format_arena(e.partial))
            click.echo(f"interrupted after {e.done} of {e.total} sets: the figures above "
                       f"cover those")
        return _stopped(journal, e, out_path)
    if as_json:
        emit_json({**result.to_json(), "backend": backend.SEARCH.name})
    else:
        click.echo(format_arena(result))
        if out_path:
            click.echo(f"saved to {out_path}"
                       + (f" ({journal.resumed} sets from the journal)" if journal.resumed
                          else ""))


# ---- analyze -----------------------------------------------------------------------------


@main.command()
@click.argument("record_path", metavar="RECORD")
@click.option("--seat", "seats", type=click.IntRange(0, 3), multiple=True,
              help="Analyse this seat only (repeatable; default every seat whose hands the "
                   "record shows).")
@click.option("--iterations", type=ITERATIONS_TYPE, default=None,
              help=f"Search budget per decision (default 20000 ISMCTS iterations / 100 "
                   f"worlds; 1/{backend.FALLBACK_DIVISOR} of it without the compiled core; at "
                   f"most {_MAX_IT:,}, rechecks included).")
@click.option("--time-per-decision", "seconds", type=SECONDS_TYPE, default=None,
              help=f"Seconds of search per decision (instead of --iterations; 0.001 to "
                   f"{_MAX_S:,.0f}).")
@memory_option
@_algorithm_option()
@_set_option()
@click.option("--objective", type=click.Choice(("points", "match")), default="points",
              show_default=True, help="The unit of the values and losses.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed: same seed and budget, same analysis.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes per search (root parallelism).")
@click.option("--recheck", type=click.IntRange(1, 100), default=4, show_default=True,
              help="A suspected error is searched again with this many times the budget "
                   "(and again, this many times more, while its interval straddles a "
                   "threshold).")
@click.option("--max-rechecks", type=click.IntRange(0, 5), default=2, show_default=True,
              help="The most searches of a decision after its first; a loss still undecided "
                   "then is marked borderline.")
@click.option("--inaccuracy", type=FiniteFloat(0, 1000), default=None,
              help="Loss from which a play is an inaccuracy (default 0.25 points; 0.03 for "
                   "the match objective).")
@click.option("--mistake", type=FiniteFloat(0, 1000), default=None,
              help="Loss from which a play is a mistake (default 0.6 points; 0.07 match).")
@click.option("--blunder", type=FiniteFloat(0, 1000), default=None,
              help="Loss from which a play is a blunder (default 1.2 points; 0.15 match).")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Analyse the matches of a .jsonl file on the Dask scheduler at ADDRESS, one "
                   "task per match; the same analysis. Needs pip install "
                   "'bergen_search[cluster]'.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Also write the report as one self-contained HTML file "
                                   "(graph, every decision drawn, summary).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Write the analysis as its JSON document (--json's, without "
                                   "the wall time) to FILE, atomically, keeping a journal "
                                   "beside it for --resume.")
@resume_option
@click.option("--quiet", is_flag=True, help="No progress bar on standard error.")
@json_option
def analyze(record_path, seats, iterations, seconds, memory_mb, algorithm, sets, objective, seed,
            workers, recheck, max_rechecks, inaccuracy, mistake, blunder, cluster, html_path,
            out_path, resume, quiet, as_json):
    """Review every decision of a game: the best play, the loss, and a label for errors.

    Each decision is judged from what the seat knew then (never the hands it could not see).
    A suspected error is searched again with a bigger budget before it is labelled; a label
    is given only when the loss's 99% interval lies within its band, else the decision is
    searched again (up to --max-rechecks) and, still undecided, marked borderline. RECORD
    may hold several matches, one per line (.jsonl, as selfplay and arena write them): each
    is analysed as it would be alone, then the seats' totals over all of them.

    With --out (or --html), a journal beside the file keeps every finished match and search:
    --resume goes on after Ctrl-C, kill -9 or a lost scheduler and writes the same file.
    Ctrl-C prints the decisions analysed so far and exits 130.
    """
    import hashlib

    from ..analysis.review import (
        analyze_all,
        check_budget,
        count_decisions,
        decision_limits,
        label_thresholds,
    )
    from ..formats.record_io import load_records
    from ..views import report
    settings = search_settings(algorithm, sets=sets)
    text = _read_text(record_path)
    records = load_records(text, needed_by="analyze")
    defaults = label_thresholds(objective)
    thresholds = {"inaccuracy": inaccuracy if inaccuracy is not None else defaults["inaccuracy"],
                  "mistake": mistake if mistake is not None else defaults["mistake"],
                  "blunder": blunder if blunder is not None else defaults["blunder"]}
    if not thresholds["inaccuracy"] <= thresholds["mistake"] <= thresholds["blunder"]:
        raise click.UsageError("thresholds must satisfy inaccuracy <= mistake <= blunder")
    for s in seats:
        for rec in records:
            if s >= rec.rules.players:
                raise click.BadParameter(f"seat {s} does not exist with {rec.rules.players} "
                                         f"players", param_hint="--seat")
    limits = decision_limits(algorithm, settings, iterations, seconds, memory_mb)
    iterations = limits.iterations
    search_note()
    check_budget(limits, recheck, max_rechecks, algorithm, settings)
    if html_path is not None:
        _check_writable(html_path, "--html")
    show = not quiet and sys.stderr.isatty()
    t0 = time.perf_counter()

    def progress(done, total):
        if show and time.perf_counter() - t0 > 1.0:
            width = 30
            filled = int(width * done / max(total, 1))
            click.echo(f"\ranalyze [{'#' * filled}{'.' * (width - filled)}] {done}/{total}",
                       err=True, nl=False)

    journal, kept = None, out_path or html_path
    try:
        journal = _journal(kept, "analyze", seed, resume, {
            "record": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "seats": sorted(seats), "iterations": iterations, "time": seconds,
            "memory": memory_mb, "algorithm": algorithm, "settings": settings,
            "objective": objective, "workers": workers, "recheck": recheck,
            "max_rechecks": max_rechecks, "thresholds": thresholds},
            option="--out" if out_path else "--html")
        hooks = {}
        if journal is not None:
            from ..analysis.review import journal_searcher
            hooks = {"done": {k[1]: v for k, v in journal.done.items()
                              if isinstance(k, tuple) and k[0] == "record"},
                     "on_result": lambda i, res: journal.add(("record", i), res),
                     "searcher_for": lambda i: journal_searcher(journal, i)}
        results = analyze_all(records, seats=set(seats) or None, limits=limits, seed=seed,
                              algorithm=algorithm, objective=objective, workers=workers,
                              thresholds=thresholds, recheck=recheck,
                              max_rechecks=max_rechecks, progress=progress,
                              cluster=cluster, **hooks, **settings)
        if show and time.perf_counter() - t0 > 1.0:
            click.echo("", err=True)
        seconds_taken = time.perf_counter() - t0
        if html_path is not None:
            write_atomic(html_path, report.html_report(results))
        if out_path is not None:
            # The document without its wall time, so that a resumed run writes the same
            # bytes.
            write_atomic(out_path, json.dumps({**report.to_json(results, None),
                                               "version": __version__},
                                              separators=(",", ":")) + "\n")
        _finished(journal)
    except ClusterLost as e:
        raise _kept(e, journal, kept) from None
    except KeyboardInterrupt as caught:
        if show:
            click.echo("", err=True)
        finished = [v for k, v in (journal.done.items() if journal else ())
                    if isinstance(k, tuple) and k[0] == "record"]
        e = _interrupted(caught, None, sum(count_decisions(r, set(seats) or None)
                                           for r in records), "decisions", [],
                         sum(len(a.decisions) for a in finished))
        partial = [r for r in e.partial if r is not None]
        how_far = {"interrupted": True, "decisions_done": e.done, "decisions_total": e.total}
        if as_json:
            emit_json({**(report.to_json(partial, time.perf_counter() - t0) if partial
                          else {}), **how_far})
        elif partial:
            click.echo(report.text(partial[0]) if len(partial) == 1
                       else report.text_all(partial))
            click.echo(f"interrupted after {e.done} of {e.total} decisions: the listing and "
                       f"the totals cover those")
        return _stopped(journal, e, kept)
    if as_json:
        emit_json(report.to_json(results, seconds_taken))
    elif html_path is None and out_path is None:
        click.echo(report.text(results[0]) if len(results) == 1 else report.text_all(results))
    else:
        wrote = " and ".join(p for p in (out_path, html_path) if p)
        click.echo(f"wrote {wrote}: {sum(len(r.decisions) for r in results)} decisions of "
                   f"{len(results)} match{'es' if len(results) != 1 else ''}")


# ---- play -------------------------------------------------------------------------------

#: The budget of `play`'s default engine (ISMCTS iterations a move).
PLAY_ITERATIONS = 20000


@main.command()
@click.option("--engine", "engine_spec", default=None, metavar="SPEC",
              help="The engine you play against (random, greedy, ismcts:..., expectimax:...; "
                   f"default ismcts:iterations={PLAY_ITERATIONS}, or 1/"
                   f"{backend.FALLBACK_DIVISOR} of it without the compiled core).")
@click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Your seat (0 leads the turn order).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Seed of the deals (default: from the clock).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Where to save the game (default bergen-game-SEED.json, or -SEED-2.json "
                   "and so on when that exists). Checked before the first move.")
@click.option("--force", is_flag=True, help="Let --out replace an existing file.")
@rule_options
def play(engine_spec, seat, seed, out_path, force, **kw):
    """Play a match against the engine in the terminal.

    Type moves as a-b:L or a-b:R (a bare a-b when it fits one end only); 'hint' asks the
    engine, 'undo' takes back your last play, 'quit' (or Ctrl-C, even while the engine
    thinks, or end of input) saves the game as a bergen-record/1 that `bergen analyze` can
    read. An existing file is never replaced without --force.
    """
    from ..formats.jsondoc import pretty_json
    from ..play.engines import parse_engine_spec
    from .session import HELP, PlaySession
    rules = rules_from_options(kw)
    if seat >= rules.players:
        raise click.BadParameter(f"seat {seat} does not exist with {rules.players} players",
                                 param_hint="--seat")
    spec = parse_engine_spec(engine_spec or
                             f"ismcts:iterations={backend.SEARCH.budget(PLAY_ITERATIONS)}")
    search_note([spec])
    if seed is None:
        seed = time.time_ns() % 1_000_000
    if out_path is None:
        out_path = _fresh_name(f"bergen-game-{seed}", ".json")
    elif os.path.exists(out_path) and not force:
        raise click.BadParameter(f"{out_path} exists: give --force to replace it, or "
                                 f"another --out", param_hint="--out")
    _check_writable(out_path, "--out")
    session = PlaySession(rules, spec, seat, seed)
    stdin = sys.stdin
    click.echo(f"Bergen against {spec}; you are seat {seat}; seed {seed}.\n{HELP}")
    try:
        for line in session.advance():
            click.echo(line)
        while not session.over:
            click.echo(session.view())
            click.echo("your move> ", nl=False)
            text = stdin.readline()
            if not text:
                click.echo("")
                break
            cmd = text.strip()
            if cmd in ("quit", "q", "exit"):
                break
            try:
                if cmd in ("help", "?"):
                    lines = [HELP]
                elif cmd == "hint":
                    lines = [session.hint()]
                elif cmd == "undo":
                    lines = session.undo()
                elif cmd == "moves":
                    lines = ["legal: " + ", ".join(session.legal())]
                elif not cmd:
                    lines = []
                else:
                    lines = session.play(cmd)
            except BergenError as e:
                lines = [f"not played: {e}"]
            for line in lines:
                click.echo(line)
    except KeyboardInterrupt:
        status = 130
        click.echo("\ninterrupted")
    else:
        status = 0
    write_atomic(out_path, pretty_json(session.record()) + "\n")
    click.echo(f"game saved to {out_path}")
    return status


def _fresh_name(stem: str, suffix: str) -> str:
    """`stem + suffix`, or `stem-2 + suffix`, -3 and so on: the first that does not exist."""
    name, n = stem + suffix, 1
    while os.path.exists(name):
        n += 1
        name = f"{stem}-{n}{suffix}"
    return name


# ---- eval --------------------------------------------------------------------------------


@main.command(name="eval")
@game_input
@search_options
@json_option
def eval_(game, algorithm, objective, iterations, seconds, memory_mb, seed, workers, depth,
          exploration, sets, as_json, **kw):
    """Score the position for every side: expected points to the end of the round and the
    probability of winning the match.

    The value (with its standard error) is the best move's, from the side to move, by the
    chosen algorithm and objective. Each side's expected points and match chances come from
    ISMCTS searches with the points and the match objective (same budget and seed; the
    chosen algorithm's settings when it is ISMCTS, else ISMCTS's defaults). Ctrl-C prints
    what the searches had found (a side's figure not searched yet is n/a) and exits 130.
    """
    from ..formats.position_string import to_string
    from ..search.api import resolve
    from ..views.search import endgame_json, move_text, num
    settings = search_settings(algorithm, depth, exploration, sets)
    game_ = game_from_options(game, kw)
    info = game_.info
    search_note()
    result = run_search(info, algorithm, objective, iterations, seconds, seed, workers, settings,
                        memory_mb)
    alg = resolve(algorithm, settings)[0]
    # Each side's figures: from the chosen algorithm when it reports them for either
    # objective (`Algorithm.sides`), else from the default engine.
    side_alg, side_settings = (algorithm, settings) if alg.sides else ("ismcts", {})
    per_side = {}
    interrupted = bool(result.info.get("interrupted"))
    for obj in ("points", "match"):
        if interrupted and (side_alg, obj) != (algorithm, objective):
            continue                    # Ctrl-C: no more searches
        try:
            res = result if (side_alg, obj) == (algorithm, objective) else run_search(
                info, side_alg, obj, iterations, seconds, seed, workers, side_settings,
                memory_mb)
        except SystemExit:              # interrupted before it found anything
            interrupted = True
            continue
        interrupted = interrupted or bool(res.info.get("interrupted"))
        per_side[obj] = res.info.get("sides", {}).get(res.moves[0].move)
    rules = info.rules
    na = [None] * rules.n_sides
    sides = [{"side": k, "expected_points": num((per_side.get("points") or na)[k]),
              "p_win_match": num((per_side.get("match") or na)[k])}
             for k in range(rules.n_sides)]
    ri = result.info
    solved = ri.get("endgame", {}).get("solved")
    status = 130 if interrupted else 0
    if as_json:
        emit_json({"to_move": info.seat, "side_to_move": rules.side_of(info.seat),
                   "sides": sides, "value": num(result.value), "stderr": num(result.stderr),
                   "best": move_text(result.best), "objective": objective,
                   "algorithm": algorithm,
                   "iterations": ri["iterations"], "seconds": round(ri["seconds"], 3),
                   "seed": seed, "settings": dict(ri["settings"]), "exact": ri["exact"],
                   "interrupted": interrupted, "memory": ri.get("memory"),
                   "position": to_string(game_.position), "backend": ri["backend"],
                   **({"endgame": endgame_json(ri["endgame"])} if "endgame" in ri else {})})
        return status
    click.echo(_describe(game_))
    unit = "points" if objective == "points" else "probability of winning the match"
    err = "n/a" if not math.isfinite(result.stderr) else f"{result.stderr:.3f}"
    how = (_exact_text(ri) if solved else
           f"{algorithm}, {ri['iterations']} {alg.unit}, seed {seed}{_backend_text(ri)}")
    click.echo(f"value {result.value:+.3f} ± {err} ({unit}, side "
               f"{rules.side_of(info.seat)}, best {move_text(result.best)}; {how})")
    if "endgame" in ri and not solved:
        click.echo(f"exact: not solved, {ri['endgame']['why']}; {algorithm} instead")
    click.echo("")
    click.echo(f"  {'side':<5} {'expected points':>16} {'p(win match)':>13}")
    for row in sides:
        points = "n/a" if row["expected_points"] is None else f"{row['expected_points']:.3f}"
        chance = "n/a" if row["p_win_match"] is None else f"{100 * row['p_win_match']:.1f}%"
        click.echo(f"  {row['side']:<5} {points:>16} {chance:>13}")
    if solved and objective == "points":
        click.echo("\n  expected points: the solved equilibrium's; p(win match): ismcts (the "
                   "exact endgame solves the round's points only)")
    for note in (_memory_note(ri), "interrupted (Ctrl-C): the figures are the searches' so far"
                 + ("; n/a: not searched" if len(per_side) < 2 else "") if interrupted else None):
        if note:
            click.echo("\n" + note)
    if not math.isfinite(result.stderr):
        click.echo("\n± n/a: not measured (one replicate, or too few worlds)")
    return status


# ---- bench --------------------------------------------------------------------------------


@main.command()
@click.option("--quick", is_flag=True, help="A few seconds instead of about a minute.")
@click.option("--seconds", type=FiniteFloat(0.01, 3600), default=None,
              help="Seconds per measurement slice (default 1.6, or 0.2 with --quick).")
@click.option("--repeats", type=click.IntRange(1, 50), default=None,
              help="Slices per figure; the median is reported (default 3, or 1 with --quick).")
@json_option
def bench(quick, seconds, repeats, as_json):
    """Measure the speed of the core and the reference, and print a search signature.

    Each figure is the median of several timed slices on one core. The signature (node counts
    of fixed-seed searches) is the same on every run for the same code.
    """
    from ..play.bench import run_bench
    seconds = seconds or (0.2 if quick else 1.6)
    repeats = repeats or (1 if quick else 3)

    tty = sys.stderr.isatty()

    def progress(i, n, what):
        if tty:
            click.echo(f"\r[{i + 1}/{n}] {what:<40}", err=True, nl=False)

    out = run_bench(seconds, repeats, progress=progress)
    if tty:
        click.echo("\r" + " " * 50 + "\r", err=True, nl=False)
    if as_json:
        emit_json(out)
        return
    names = list(out["core"]) + [n for n in out["reference"] if n not in out["core"]]
    click.echo(f"  {'figure':<32} {'core':>14} {'reference':>12} {'ratio':>8}")
    for name in names:
        core, ref = out["core"].get(name), out["reference"].get(name)
        ratio = out["speedup"].get(name)
        click.echo(f"  {name:<32} {_fmt_rate(core):>14} {_fmt_rate(ref):>12} "
                   f"{'' if ratio is None else f'{ratio:.0f}x':>8}")
    for name, value in out.get("search", {}).items():
        what = ("(a fixed endgame solved, the deals to the equilibrium)"
                if name.startswith("endgame") else "(the table of one search, Python)")
        click.echo(f"  {name:<32} {_fmt_rate(value):>14}   {what}")
    eg = out.get("endgame")
    if eg:
        within = next(k for k in eg if k.startswith("within_") and k != "within_0.1s")

        def sec(x):
            return "-" if x is None else f"{1000 * x:.0f} ms"
        click.echo(f"exact endgame: {eg['positions']} stage decisions of greedy self-play "
                   f"attempted as the engine does at {eg['limit_s']:g} s: median "
                   f"{sec(eg['median_s'])}, 90th percentile {sec(eg['p90_s'])}, worst solved "
                   f"{sec(eg['worst_solved_s'])}; solved within 100 ms "
                   f"{100 * eg['within_0.1s']:.0f}%, within {eg['limit_s']:g} s "
                   f"{100 * eg[within]:.0f}%; largest solved {eg['largest_deals_solved']} deals")
    sig = out["signature"]
    click.echo("signature: " + ", ".join(f"{k} {v}" for k, v in sig.items()))
    click.echo(f"(median of {repeats} slice(s) of {seconds:g} s per figure, one core)")


def _fmt_rate(x):
    return "" if x is None else f"{x:,.0f}"


if __name__ == "__main__":
    main()
