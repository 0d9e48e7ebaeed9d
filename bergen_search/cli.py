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

from . import __version__
from .backend import ACTIVE
from .engines import parse_engine_list, play_match
from .errors import BergenError
from .rng import derive_seed
from .rules import BLOCKEDS, DRAWS, LEADS, NO_DOUBLES, Rules

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
    from .record import parse_json
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
                 help="A rule set as JSON (FORMATS.md `rules`), inline or @FILE."),
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
    click.echo(json.dumps(obj, separators=(",", ":")))


# ---- the group ---------------------------------------------------------------------------


class BergenGroup(click.Group):
    """Turns bad input into one line on stderr and exit 2; anything else into exit 1."""

    def main(self, args=None, prog_name=None, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "bergen",
                              standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo("bergen: aborted", err=True)
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

    Rules: RULES.md; notation and JSON formats: FORMATS.md (see the README).
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
    from .record import load_records, replay as replay_record
    text = _read_text(record_path)
    try:
        records = load_records(text)
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
@click.option("--games", type=click.IntRange(1), default=1, show_default=True,
              help="Number of matches to play.")
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
@rule_options
def selfplay(games, seed, engines, out_path, start_scores, workers, cluster, quiet, **kw):
    """Play whole matches between engines and write complete bergen-record/1 records.

    Every record replays with `bergen replay`. Same seed, same records, byte for byte, on
    either backend, with any --workers or --cluster. With --out, the file appears only once
    every match is played (Ctrl-C leaves none).
    """
    from .engines import selfplay as run_selfplay
    rules = rules_from_options(kw)
    specs = parse_engine_list(engines, rules.players)
    start = _start_scores(start_scores, rules)
    t0 = time.perf_counter()
    rows = run_selfplay(rules, specs, games, seed, start, workers=workers, cluster=cluster,
                        progress=_progress_bar("selfplay", "matches", quiet))
    wins = [0] * rules.n_sides
    for _, winner in rows:
        wins[winner] += 1
    write_lines(out_path, [line for line, _ in rows])
    dt = time.perf_counter() - t0
    click.echo(f"{games} matches in {dt:.2f} s ({ACTIVE.name}); wins by side: "
               + ", ".join(f"{s}: {w}" for s, w in enumerate(wins)), err=True)


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
    for option in reversed(POSITION_FLAGS):
        f = option(f)
    return rule_options(f)


def info_from_options(game, kw):
    """The information set of the seat to move: from GAME (a record or a position file, or -
    for standard input) or from the position flags. Pops the options it reads from kw."""
    from .infoset import from_position
    from .position import position_from_flags
    from .viewpoint import load_game
    flags = {k: kw.pop(k, None) for k in _POSITION_FIELDS}
    given = [k for k, v in flags.items() if v is not None]
    if game is not None:
        if given:
            raise click.UsageError(f"give either GAME or the position flags, not both "
                                   f"(got GAME and --{given[0].replace('_', '-')})")
        rules_given = [k for k in _RULE_FIELDS + ("rules_json",) if kw.get(k) is not None]
        if rules_given:
            raise click.UsageError("the rules of a GAME file come from the file; rule flags go "
                                   "with the position flags")
        for k in _RULE_FIELDS + ("rules_json",):
            kw.pop(k, None)
        return load_game(_read_text(game))
    if flags["hand"] is None:
        raise click.UsageError("give a GAME file (a record or a position, or - for stdin) or "
                               "the position flags starting with --hand")
    voids = None
    if flags["voids"] is not None:
        from .record import parse_json
        try:
            voids = parse_json(flags["voids"], "--voids")
        except BergenError as e:
            raise BergenError(f"--voids: {e.message}", field="voids") from None
    rules = rules_from_options(kw)
    pos = position_from_flags(flags["hand"], flags["line"], flags["hand_sizes"],
                              flags["reserve_size"], flags["scores"], None, None,
                              flags["to_move"], rules, voids)
    return from_position(pos)


ALGORITHM_HELP = ("The search algorithm: ismcts (the default engine), expectimax, or classic "
                  "(ISMCTS as it was before inference and safe playouts).")


def _algorithm_option():
    from .search import ALGORITHM_NAMES
    return click.option("--algorithm", type=click.Choice(ALGORITHM_NAMES), default="ismcts",
                        show_default=True, help=ALGORITHM_HELP)


def _set_option():
    return click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                        help="An algorithm setting, e.g. --set inference=off, --set "
                             "playout=random (repeatable; see the README's settings).")


SEARCH_FLAGS = [
    _algorithm_option(),
    click.option("--objective", type=click.Choice(("points", "match")), default="points",
                 show_default=True,
                 help="points: expected points to the end of the round, relative to the other "
                      "sides; match: probability of winning the match."),
    click.option("--iterations", type=click.IntRange(1), default=None,
                 help="ISMCTS iterations or expectimax worlds (default 20000 / 200)."),
    click.option("--time", "seconds", type=click.FloatRange(min=0.001), default=None,
                 help="Seconds to search (with --iterations: whichever comes first)."),
    click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
                 help="Seed: same seed and iterations, same answer."),
    click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
                 help="Processes searching in parallel (root parallelism)."),
    click.option("--depth", type=click.IntRange(1, 200), default=None,
                 help="Expectimax: actions searched before the horizon (default 6)."),
    click.option("--exploration", type=click.FloatRange(min=0.0), default=None,
                 help="ISMCTS: the UCB exploration constant (default 0.7)."),
    _set_option(),
]


def search_options(f):
    for option in reversed(SEARCH_FLAGS):
        f = option(f)
    return f


def search_settings(algorithm, depth=None, exploration=None, sets=()) -> dict:
    """The algorithm's settings from --depth, --exploration and --set KEY=VALUE (checked
    against the algorithm: an unknown or unfitting setting is a clear error)."""
    from .search import resolve
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


def run_search(info, algorithm, objective, iterations, seconds, seed, workers, settings):
    from .search import Limits, search
    return search(info, Limits(iterations=iterations, time=seconds), seed=seed,
                  algorithm=algorithm, objective=objective, workers=workers, **settings)


def _num(x):
    """A float for JSON: rounded to 6 places; infinity (one sample) as null."""
    return None if x is None or math.isinf(x) or math.isnan(x) else round(x, 6)


def _describe(info) -> str:
    from .notation import format_hand, format_line
    line = format_line(info.line) or "(empty)"
    return (f"seat {info.seat} to move   scores {_fmt_scores(info.scores)}   reserve "
            f"{info.reserve_size}   hands {','.join(map(str, info.hand_sizes))}\n"
            f"line  {line}\nhand  {' '.join(format_hand(info.hand))}")


@main.command()
@game_input
@search_options
@json_option
def best(game, algorithm, objective, iterations, seconds, seed, workers, depth, exploration,
         sets, as_json, **kw):
    """Rank every legal move of the seat to move, best first.

    GAME is a bergen-record/1 (its last round unfinished: the seat to move is the viewpoint)
    or a bergen-position/1, a path or - for standard input; or give the position flags.
    The search uses only what the seat to move could know.
    """
    from .search import choices, resolve
    settings = search_settings(algorithm, depth, exploration, sets)
    info = info_from_options(game, kw)
    result = run_search(info, algorithm, objective, iterations, seconds, seed, workers, settings)
    ri = result.info
    alg = resolve(algorithm, settings)[0]
    if as_json:
        emit_json({"to_move": info.seat, "best": result.best,
                   "moves": [dict({"move": m.move, "value": _num(m.value),
                                   "stderr": _num(m.stderr), "visits": m.visits},
                                  **({"twin": m.twin} if m.twin else {}),
                                  **({"share": _num(m.share)} if m.share is not None else {}))
                             for m in result.moves],
                   "value": _num(result.value), "stderr": _num(result.stderr),
                   "objective": objective, "algorithm": algorithm,
                   "iterations": ri["iterations"], "seconds": round(ri["seconds"], 3),
                   "seed": seed, "workers": workers, "exact": ri["exact"],
                   "worlds_consistent": ri["worlds_consistent"],
                   "interrupted": ri.get("interrupted", False),
                   "settings": dict(ri["settings"]),
                   **({"endgame": _endgame_json(ri["endgame"])} if "endgame" in ri else {})})
        return
    unit = alg.unit
    click.echo(_describe(info))
    solved = ri.get("endgame", {}).get("solved")
    if solved:
        click.echo(f"{_exact_text(ri)}, objective {objective}, {ri['seconds']:.2f} s, "
                   f"seed {seed}")
    else:
        click.echo(f"{algorithm} ({_settings_text(ri['settings'])}), objective {objective}, "
                   f"{ri['iterations']} {unit}{_worlds_note(ri)}, "
                   f"{ri['seconds']:.2f} s, seed {seed}"
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
            click.echo(f"  {m.move:<9} {m.value:>+8.3f} {se:>9} {100.0 * m.share:>7.1f}%")
            continue
        click.echo(f"  {m.move:<9} {m.value:>+8.3f} {se:>9} {m.visits:>8}"
                   + (f" {100.0 * m.visits / total:>6.1f}%" if ismcts else ""))
    if any(m.twin for m in result.moves):
        click.echo("\n  a-b:L/R: either end, the same position mirrored (one choice)")
    if solved:
        click.echo(f"\nbest: {result.best} (drawn from the mix with seed {seed})")
    else:
        click.echo(f"\nbest: {result.best}")


def _exact_text(ri) -> str:
    """The header of a solved endgame: what was solved and how exactly."""
    eg = ri["endgame"]
    return (f"exact: equilibrium, {eg['deals']:,} deals ({eg['worlds']:,} with this hand), "
            f"exploitability ≤ {eg['exploitability']:.3g} ({ri['algorithm']}: "
            f"{eg['iterations']} DCFR iterations, {eg['nodes']:,} nodes)")


def _endgame_json(eg: dict) -> dict:
    """The exact endgame's report for --json (floats rounded as elsewhere)."""
    out = {}
    for k, v in eg.items():
        if isinstance(v, float):
            v = _num(v)
        elif isinstance(v, list):
            v = [_num(x) for x in v]
        elif isinstance(v, dict):
            v = {kk: _num(vv) for kk, vv in v.items()}
        out[k] = v
    return out


def _worlds_note(ri) -> str:
    if ri.get("exact"):
        return " (all consistent worlds: exact)"
    if ri.get("all_worlds"):
        return " (all consistent worlds, random playouts at the horizon, solved twice)"
    return ""


def _settings_text(settings: dict) -> str:
    """An algorithm's settings for a header line: `playout safe, inference on, ...`."""
    from .search import setting_text
    return ", ".join(f"{k} {setting_text(v)}" for k, v in settings.items())


# ---- arena -------------------------------------------------------------------------------


@main.command()
@click.argument("engine_a", metavar="A")
@click.argument("engine_b", metavar="B")
@click.option("--games", type=click.IntRange(1), default=100, show_default=True,
              help="Duplicate sets: each plays the same deals with the engines' seats swapped.")
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
@cluster_option
@click.option("--quiet", is_flag=True, help="No progress on standard error.")
@rule_options
@json_option
def arena(engine_a, engine_b, games, seed, workers, out_path, single_round, start_scores,
          cluster, quiet, as_json, **kw):
    """Play many matches between engines A and B, as duplicate sets so that luck cancels.

    Engines: random, greedy, ismcts[:iterations=N,time=S,...] (the default engine), classic[:...]
    (ISMCTS before inference and safe playouts), expectimax[:worlds=N,depth=D,...].
    Reports A's win rate with a 95% interval computed from the sets, and points per round.
    """
    from .arena import format_arena, run_arena
    from .engines import parse_engine_spec
    from .record import dump_record, write_record
    rules = rules_from_options(kw)
    spec_a, spec_b = parse_engine_spec(engine_a), parse_engine_spec(engine_b)
    start = _start_scores(start_scores, rules)
    result = run_arena(rules, spec_a, spec_b, games, seed, workers=workers,
                       progress=_progress_bar("arena", "sets", quiet),
                       keep_logs=out_path is not None, start_scores=start,
                       single_round=single_round, cluster=cluster)
    if out_path:
        write_lines(out_path, [dump_record(write_record(log)) for log in result.logs])
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(format_arena(result))


# ---- analyze -----------------------------------------------------------------------------


@main.command()
@click.argument("record_path", metavar="RECORD")
@click.option("--seat", "seats", type=click.IntRange(0, 3), multiple=True,
              help="Analyse this seat only (repeatable; default every seat whose hands the "
                   "record shows).")
@click.option("--iterations", type=click.IntRange(1), default=None,
              help="Search budget per decision (default 4000 ISMCTS iterations / 100 worlds).")
@click.option("--time-per-decision", "seconds", type=click.FloatRange(min=0.001), default=None,
              help="Seconds of search per decision (instead of --iterations).")
@_algorithm_option()
@_set_option()
@click.option("--objective", type=click.Choice(("points", "match")), default="points",
              show_default=True, help="The unit of the values and losses.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed: same seed and budget, same analysis.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes per search (root parallelism).")
@click.option("--recheck", type=click.IntRange(1, 100), default=4, show_default=True,
              help="A suspected error is searched again with this many times the budget.")
@click.option("--inaccuracy", type=click.FloatRange(min=0), default=None,
              help="Loss from which a play is an inaccuracy (default 0.25 points; 0.03 for "
                   "the match objective).")
@click.option("--mistake", type=click.FloatRange(min=0), default=None,
              help="Loss from which a play is a mistake (default 0.6 points; 0.07 match).")
@click.option("--blunder", type=click.FloatRange(min=0), default=None,
              help="Loss from which a play is a blunder (default 1.2 points; 0.15 match).")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Analyse the matches of a .jsonl file on the Dask scheduler at ADDRESS, one "
                   "task per match; the same analysis. Needs pip install "
                   "'bergen_search[cluster]'.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Also write the report as one self-contained HTML file "
                                   "(graph, every decision drawn, summary).")
@click.option("--quiet", is_flag=True, help="No progress bar on standard error.")
@json_option
def analyze(record_path, seats, iterations, seconds, algorithm, sets, objective, seed, workers,
            recheck, inaccuracy, mistake, blunder, cluster, html_path, quiet, as_json):
    """Review every decision of a game: the best play, the loss, and a label for errors.

    Each decision is judged from what the seat knew then (never the hands it could not see).
    A suspected error is searched again with a bigger budget before it is labelled, and a
    loss within two standard errors is never labelled. RECORD may hold several matches, one
    per line (.jsonl, as selfplay and arena write them): each is analysed as it would be
    alone, then the seats' totals over all of them.
    """
    from . import report
    from .analysis import THRESHOLDS, analyze_all
    from .record import load_records
    from .search import Limits, resolve
    settings = search_settings(algorithm, sets=sets)
    records = load_records(_read_text(record_path))
    defaults = dict(THRESHOLDS) if objective == "points" else {
        "inaccuracy": 0.03, "mistake": 0.07, "blunder": 0.15}
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
    if iterations is None and seconds is None:
        iterations = 4000 if resolve(algorithm, settings)[0].unit == "iterations" else 100
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

    results = analyze_all(records, seats=set(seats) or None,
                          limits=Limits(iterations=iterations, time=seconds), seed=seed,
                          algorithm=algorithm, objective=objective, workers=workers,
                          thresholds=thresholds, recheck=recheck, progress=progress,
                          cluster=cluster, **settings)
    if show and time.perf_counter() - t0 > 1.0:
        click.echo("", err=True)
    seconds_taken = time.perf_counter() - t0
    if html_path is not None:
        write_atomic(html_path, report.html_report(results))
    if as_json:
        emit_json(report.to_json(results, seconds_taken))
    elif html_path is None:
        click.echo(report.text(results[0]) if len(results) == 1 else report.text_all(results))
    else:
        click.echo(f"wrote {html_path}: {sum(len(r.decisions) for r in results)} decisions of "
                   f"{len(results)} match{'es' if len(results) != 1 else ''}")


# ---- play -------------------------------------------------------------------------------


@main.command()
@click.option("--engine", "engine_spec", default="ismcts:iterations=20000", show_default=True,
              metavar="SPEC", help="The engine you play against (random, greedy, ismcts:..., "
                                   "expectimax:...).")
@click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Your seat (0 leads the turn order).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Seed of the deals (default: from the clock).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Where to save the game (default bergen-game-SEED.json).")
@rule_options
def play(engine_spec, seat, seed, out_path, **kw):
    """Play a match against the engine in the terminal.

    Type moves as a-b:L or a-b:R (a bare a-b when it fits one end only); 'hint' asks the
    engine, 'undo' takes back your last play, 'quit' (or Ctrl-C, or end of input) saves the
    game as a bergen-record/1 that `bergen analyze` can read.
    """
    from .engines import parse_engine_spec
    from .interactive import HELP, PlaySession
    from .record import pretty_json
    rules = rules_from_options(kw)
    if seat >= rules.players:
        raise click.BadParameter(f"seat {seat} does not exist with {rules.players} players",
                                 param_hint="--seat")
    spec = parse_engine_spec(engine_spec)
    if seed is None:
        seed = time.time_ns() % 1_000_000
    out_path = out_path or f"bergen-game-{seed}.json"
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
        click.echo("\ninterrupted")
    finally:
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(pretty_json(session.record()) + "\n")
        click.echo(f"game saved to {out_path}")


# ---- eval --------------------------------------------------------------------------------


@main.command(name="eval")
@game_input
@search_options
@json_option
def eval_(game, algorithm, objective, iterations, seconds, seed, workers, depth, exploration,
          sets, as_json, **kw):
    """Score the position for every side: expected points to the end of the round and the
    probability of winning the match.

    The value (with its standard error) is the best move's, from the side to move, by the
    chosen algorithm and objective. Each side's expected points and match chances come from
    ISMCTS searches with the points and the match objective (same budget and seed; the
    chosen algorithm's settings when it is ISMCTS, else ISMCTS's defaults).
    """
    from .search import resolve
    settings = search_settings(algorithm, depth, exploration, sets)
    info = info_from_options(game, kw)
    result = run_search(info, algorithm, objective, iterations, seconds, seed, workers, settings)
    alg = resolve(algorithm, settings)[0]
    side_alg, side_settings = (algorithm, settings) if alg.name == "ismcts" else ("ismcts", {})
    per_side = {}
    for obj in ("points", "match"):
        res = result if (side_alg, obj) == (algorithm, objective) else run_search(
            info, side_alg, obj, iterations, seconds, seed, workers, side_settings)
        best = res.moves[0].move
        per_side[obj] = res.info["sides"][best]
    rules = info.rules
    sides = [{"side": k, "expected_points": _num(per_side["points"][k]),
              "p_win_match": _num(per_side["match"][k])} for k in range(rules.n_sides)]
    ri = result.info
    solved = ri.get("endgame", {}).get("solved")
    if as_json:
        emit_json({"to_move": info.seat, "side_to_move": rules.side_of(info.seat),
                   "sides": sides, "value": _num(result.value), "stderr": _num(result.stderr),
                   "best": result.best, "objective": objective, "algorithm": algorithm,
                   "iterations": ri["iterations"], "seconds": round(ri["seconds"], 3),
                   "seed": seed, "settings": dict(ri["settings"]), "exact": ri["exact"],
                   **({"endgame": _endgame_json(ri["endgame"])} if "endgame" in ri else {})})
        return
    click.echo(_describe(info))
    unit = "points" if objective == "points" else "probability of winning the match"
    how = (_exact_text(ri) if solved else
           f"{algorithm}, {ri['iterations']} {alg.unit}, seed {seed}")
    click.echo(f"value {result.value:+.3f} ± {result.stderr:.3f} ({unit}, side "
               f"{rules.side_of(info.seat)}, best {result.best}; {how})")
    if "endgame" in ri and not solved:
        click.echo(f"exact: not solved, {ri['endgame']['why']}; {algorithm} instead")
    click.echo("")
    click.echo(f"  {'side':<5} {'expected points':>16} {'p(win match)':>13}")
    for row in sides:
        click.echo(f"  {row['side']:<5} {row['expected_points']:>16.3f} "
                   f"{100 * row['p_win_match']:>12.1f}%")
    if solved and objective == "points":
        click.echo("\n  expected points: the solved equilibrium's; p(win match): ismcts (the "
                   "exact endgame solves the round's points only)")


# ---- bench --------------------------------------------------------------------------------


@main.command()
@click.option("--quick", is_flag=True, help="A few seconds instead of about a minute.")
@click.option("--seconds", type=click.FloatRange(min=0.01), default=None,
              help="Seconds per measurement slice (default 1.6, or 0.2 with --quick).")
@click.option("--repeats", type=click.IntRange(1, 50), default=None,
              help="Slices per figure; the median is reported (default 3, or 1 with --quick).")
@json_option
def bench(quick, seconds, repeats, as_json):
    """Measure the speed of the core and the reference, and print a search signature.

    Each figure is the median of several timed slices on one core. The signature (node counts
    of fixed-seed searches) is the same on every run for the same code.
    """
    from .bench import run_bench
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
