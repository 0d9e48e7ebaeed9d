"""The options the commands share (the rules, the position, the search, --json, --resume,
--cluster), and reading the inputs they name."""
from __future__ import annotations

import contextlib
import math
import sys

import click

from ..errors import BergenError, InFile, WriteFailed
from ..formats.game import Game, load
from ..formats.jsondoc import MAX_DOCUMENT_BYTES, parse_json, read_bounded, type_name
from ..formats.position import position_from_flags
from ..formats.position_string import is_position_string
from ..game.rules import BLOCKEDS, DRAWS, LEADS, NO_DOUBLES, Rules
from ..runs.parallel import STALL_TIMEOUT
from ..information.infoset import from_position
from ..play.engines import ENGINE_TIMEOUT
from ..play.external import refuse_cluster
from ..search import backend, registry
from ..search.api import DEFAULT_MEMORY_MB, MAX_ITERATIONS, MAX_MEMORY_MB, MAX_SECONDS


def read_text(path: str, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """The text of a file, or of standard input for '-', at most `limit` bytes."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = read_bounded(stream if stream is not None else sys.stdin, limit,
                            "standard input")
        if isinstance(data, bytes):
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise BergenError(f"cannot read standard input: not UTF-8 text (byte "
                                  f"{e.start})") from None
        return data
    try:
        with open(path, "rb") as f:
            data = read_bounded(f, limit, path)
    except OSError as e:
        raise BergenError(f"cannot read {path}: {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BergenError(f"cannot read {path}: not UTF-8 text") from None


def source_name(path: str) -> str:
    """How an input is named in a message: its path, or `standard input` for '-'."""
    return "standard input" if path == "-" else path


@contextlib.contextmanager
def naming(path: str):
    """Bad input found inside the block is said with the input's name first (`InFile`)."""
    try:
        yield
    except (InFile, WriteFailed):
        raise
    except BergenError as e:
        raise InFile(source_name(path), e) from None


def rules_json(text: str) -> dict:
    """--rules JSON|@FILE as a dict (the rule set's fields, not checked yet)."""
    what, where = "the value", "--rules"
    if text.startswith("@"):
        what, where, text = "the file", f"--rules {text[1:]}", read_text(text[1:])
    try:
        obj = parse_json(text, what)
    except BergenError as e:
        raise BergenError(f"{where}: {e.message}", field="rules") from None
    if not isinstance(obj, dict):
        raise BergenError(f"--rules must be a JSON object, got {type_name(obj)}",
                          field="rules")
    return obj


RULE_FLAGS = [
    click.option("--rules", "rules_json", metavar="JSON|@FILE",
                 help="A rule set as JSON (docs/FORMATS.md, `rules`), inline or @FILE."),
    click.option("--players", type=click.IntRange(2, 4), help="Number of players (2, 3 or 4)."),
    click.option("--partnerships/--no-partnerships", default=None,
                 help="Four players in two partnerships (seats 0+2 against 1+3)."),
    click.option("--target", type=int, help="Points that win the match (default 15 or 10)."),
    click.option("--hand-size", type=int,
                 help="Tiles dealt to each player (default 6, or 5 with 4)."),
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
RULE_FIELDS = ("players", "partnerships", "target", "hand_size", "lead", "no_double", "draw",
                "reserve_kept", "out_bonus", "blocked", "endgame_cap")


def _stacked(options):
    """A decorator putting `options` on a command, in their order."""
    def apply(f):
        for option in reversed(options):
            f = option(f)
        return f
    return apply


rule_options = _stacked(RULE_FLAGS)


def rules_from_options(kw: dict) -> Rules:
    """--rules first, then each flag given overrides its field. Pops the options from kw."""
    text = kw.pop("rules_json", None)
    d = rules_json(text) if text else {}
    for name in RULE_FIELDS:
        v = kw.pop(name, None)
        if v is not None:
            d[name] = v
    return Rules.from_dict(d)


def seed_option(help: str):
    return click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0,
                        show_default=True, help=help)


def workers_option(help: str):
    return click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
                        help=help)


json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print exactly one JSON document on standard output.")


class FiniteFloat(click.FloatRange):
    """A float in a range, never infinite or NaN (FloatRange lets NaN through)."""
    name = "float"

    def convert(self, value, param, ctx):
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


#: The types of the budget options, with the search's maxima.
ITERATIONS_TYPE = click.IntRange(1, MAX_ITERATIONS)
SECONDS_TYPE = FiniteFloat(0.001, MAX_SECONDS)
MEMORY_TYPE = click.IntRange(1, MAX_MEMORY_MB)
#: The most sets or matches a run plays.
MAX_GAMES = 10_000_000


memory_option = click.option(
    "--memory", "memory_mb", type=MEMORY_TYPE, default=None, metavar="MB",
    help=f"Memory cap of ISMCTS's search trees, in MB per process (default {DEFAULT_MEMORY_MB}, "
         f"at most {MAX_MEMORY_MB:,}): at the cap a tree stops growing and the search goes on "
         f"sampling within it (the output says so).")
resume_option = click.option(
    "--resume", is_flag=True,
    help="Go on with the run whose journal (OUT.journal, beside the output) an interruption "
         "left; it must be the same command, seed, arguments and version.")


def _cluster_timeout(ctx, param, value):
    ctx.meta["bergen.cluster_timeout"] = value


def _cluster(ctx, param, address):
    if address is None:
        return None
    from ..runs.parallel import Cluster
    return Cluster(address, ctx.meta.get("bergen.cluster_timeout", STALL_TIMEOUT),
                   lambda line: click.echo(f"bergen: {line}", err=True))


def cluster_option(f, help="Run the work on the Dask scheduler at ADDRESS (e.g. "
                           "tcp://10.0.0.5:8786); the same output as --workers 1. Needs pip "
                           "install 'bergen_search[cluster]'."):
    """--cluster ADDRESS and --cluster-timeout SECONDS, given as one `runs.parallel.Cluster`
    (None without --cluster)."""
    f = click.option("--cluster-timeout", type=click.FloatRange(1, 86400), default=STALL_TIMEOUT,
                     show_default=True, metavar="SECONDS", is_eager=True, expose_value=False,
                     callback=_cluster_timeout,
                     help="With --cluster: give up (keeping the journal, for --resume) once "
                          "the scheduler has not answered, or had no worker, for this long. "
                          "While no task finishes, a line on standard error says what the "
                          "run waits for.")(f)
    return click.option("--cluster", metavar="ADDRESS", default=None, callback=_cluster,
                        help=help)(f)


def external_options(f):
    """--external NAME=COMMAND (repeated) and --external-timeout SECONDS."""
    f = click.option("--external-timeout", "engine_timeout", type=FiniteFloat(1, MAX_SECONDS),
                     default=ENGINE_TIMEOUT, show_default=True, metavar="SECONDS",
                     help="How long an engine of --external may take to answer a move, past "
                          "the move's time limit; past it the run stops.")(f)
    return click.option("--external", "external_engines", multiple=True, metavar="NAME=COMMAND",
                        help="Register an engine in another process that speaks the engine "
                             "protocol (docs/PROTOCOL.md), e.g. old='/venv-old/bin/bergen "
                             "engine' (split as a shell would); NAME is then an engine spec: "
                             "NAME[:time=S,iterations=N,algorithm=A,objective=O,SETTING="
                             "VALUE,...]. Repeatable.")(f)


#: The options of a run that plays matches (arena, selfplay) after its own.
play_run_options = _stacked([
    external_options, cluster_option,
    click.option("--quiet", is_flag=True, help="No progress on standard error."),
    resume_option, rule_options])


def external_commands(specs, cluster) -> dict:
    """name -> command of the engines in other processes among `specs`, refusing --cluster
    with them."""
    refuse_cluster(specs, cluster)
    return {s.name: s.engine.command_text for s in specs if s.engine is not None}


def start_scores_from(text, rules):
    """--start-scores as a list by side (None if not given); no side may have the target."""
    if not text:
        return None
    n = rules.n_sides
    try:
        start = [int(x) for x in text.split(",")]
    except ValueError:
        raise BergenError(f"--start-scores must be {n} integers separated by commas, "
                          f"got {text!r}") from None
    if len(start) != n or min(start) < 0:
        raise BergenError(f"--start-scores must be {n} non-negative integers, got {text!r}")
    if max(start) >= rules.target:
        raise BergenError(f"--start-scores: a side already has the target {rules.target}")
    return start


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
    return rule_options(_stacked(POSITION_FLAGS)(f))


def game_from_options(game, kw):
    """The `Game` from GAME (a file, - or a position string), --position or the position
    flags. Pops the options it reads from kw."""
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
        if [k for k in RULE_FIELDS + ("rules_json",) if kw.pop(k, None) is not None]:
            raise click.UsageError("the rules of a GAME come from the game; rule flags go "
                                   "with the position flags")
        if is_position_string(game):
            return load(game)
        text = read_text(game)
        with naming(game):
            return load(text)
    if flags["hand"] is None:
        raise click.UsageError("give a GAME (a record or a position file, - for stdin, or a "
                               "position string) or the position flags starting with --hand")
    voids = None
    if flags["voids"] is not None:
        try:
            voids = parse_json(flags["voids"], "the value")
        except BergenError as e:
            raise BergenError(f"--voids: {e.message}", field="voids") from None
    rules = rules_from_options(kw)
    pos = position_from_flags(flags["hand"], line=flags["line"], hand_sizes=flags["hand_sizes"],
                              reserve_size=flags["reserve_size"], scores=flags["scores"],
                              to_move=flags["to_move"], rules=rules, voids=voids)
    return Game(from_position(pos), pos)


def _algorithm_help() -> str:
    parts = [f"{a.name}: {a.help}" for a in registry.algorithms().values()]
    parts += [f"{name}: {registry.preset_help(name)}" for name in registry.presets()]
    return "The search algorithm. " + "; ".join(parts) + "."


def _budget_help() -> str:
    units = {}
    for a in registry.algorithms().values():
        units.setdefault(a.unit, []).append(f"{a.default_budget:,} for {a.name}")
    return ("The budget: " + "; ".join(f"{unit} ({', '.join(d)})" for unit, d in units.items())
            + f"; 1/{backend.FALLBACK_DIVISOR} of it without the compiled core; at most "
              f"{MAX_ITERATIONS:,}.")


algorithm_option = click.option("--algorithm", type=click.Choice(registry.names()),
                                default="ismcts", show_default=True, help=_algorithm_help())
set_option = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                          help="An algorithm setting, e.g. --set inference=off, --set "
                               "playout=random (repeatable; every setting: docs/COMMANDS.md, "
                               "Search settings).")


SEARCH_FLAGS = [
    algorithm_option,
    click.option("--objective", type=click.Choice(("points", "match")), default="points",
                 show_default=True,
                 help="points: expected points to the end of the round, relative to the other "
                      "sides; match: probability of winning the match."),
    click.option("--iterations", type=ITERATIONS_TYPE, default=None,
                 help=_budget_help()),
    click.option("--time", "seconds", type=SECONDS_TYPE, default=None,
                 help=f"Seconds to search, 0.001 to {MAX_SECONDS:,.0f} (with --iterations: "
                      f"whichever comes first)."),
    memory_option,
    seed_option("Seed: same seed and iterations, same answer."),
    workers_option("Processes searching in parallel (root parallelism)."),
    set_option,
]


search_options = _stacked(SEARCH_FLAGS)


def search_settings(algorithm, sets=()) -> registry.Settings:
    """The algorithm's `Settings` from --set KEY=VALUE, checked against the algorithm."""
    settings = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise BergenError(f"--set needs KEY=VALUE, got {item!r}", field="set")
        if key.strip() in settings:
            raise BergenError(f"--set {key.strip()} is given twice ({settings[key.strip()]!r} "
                              f"and {value.strip()!r}): give it once", field="set")
        settings[key.strip()] = value.strip()
    return registry.Settings.of(algorithm, settings)


