"""`bergen bench`: the speed of the core and the reference, and the search signature."""
from __future__ import annotations

import sys

import click

from ..play.bench import run_bench
from .options import FiniteFloat, json_option
from .output import emit_json


@click.command()
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
    click.echo(bench_text(out, seconds, repeats))


def rate_text(x) -> str:
    """A rate with thousands separators (blank when there is none)."""
    return "" if x is None else f"{x:,.0f}"


def time_text(x, limit_s: float) -> str:
    """A solve time in ms; None, a position the limit cut, as such."""
    return f"over {limit_s:g} s (unsolved)" if x is None else f"{1000 * x:.0f} ms"


def endgame_text(eg: dict) -> str:
    """The exact endgame's solve times at the stage, in one line."""
    within = next(k for k in eg if k.startswith("within_") and k != "within_0.1s")
    limit = eg["limit_s"]
    worst = ("none solved" if eg["worst_solved_s"] is None
             else f"worst solved {1000 * eg['worst_solved_s']:.0f} ms")
    largest = eg["largest_deals_solved"]
    return (f"exact endgame: {eg['positions']} stage decisions of greedy self-play "
            f"attempted as the engine does at {limit:g} s: median "
            f"{time_text(eg['median_s'], limit)}, 90th percentile "
            f"{time_text(eg['p90_s'], limit)}, {worst}; solved within 100 ms "
            f"{100 * (eg['within_0.1s'] or 0):.0f}%, within {limit:g} s "
            f"{100 * (eg[within] or 0):.0f}%; largest solved "
            + ("none" if largest is None else f"{largest} deals"))


def bench_text(out: dict, seconds: float, repeats: int) -> str:
    """`bergen bench`'s text: the figures, the endgame's solve times and the signature."""
    lines = []
    names = list(out["core"]) + [n for n in out["reference"] if n not in out["core"]]
    lines.append(f"  {'figure':<32} {'core':>14} {'reference':>12} {'ratio':>8}")
    for name in names:
        core, ref = out["core"].get(name), out["reference"].get(name)
        ratio = out["speedup"].get(name)
        lines.append(f"  {name:<32} {rate_text(core):>14} {rate_text(ref):>12} "
                     f"{'' if ratio is None else f'{ratio:.0f}x':>8}")
    for name, value in out.get("search", {}).items():
        what = ("(a fixed endgame solved, the deals to the equilibrium)"
                if name.startswith("endgame") else "(the table of one search, Python)")
        lines.append(f"  {name:<32} {rate_text(value):>14}   {what}")
    if out.get("endgame"):
        lines.append(endgame_text(out["endgame"]))
    sig = out["signature"]
    lines.append("signature: " + ", ".join(f"{k} {v}" for k, v in sig.items()))
    lines.append(f"(median of {repeats} slice(s) of {seconds:g} s per figure, one core)")
    return "\n".join(lines)
