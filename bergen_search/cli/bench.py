"""`bergen bench`: the speed of the core and the reference, and the search signature."""
from __future__ import annotations

import sys

import click

from ..play.bench import run_bench
from ..views.bench import bench_text
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
