"""`bergen replay`: check records and score them event by event."""
from __future__ import annotations

import collections
import sys

import click

from ..errors import BergenError
from ..formats.jsondoc import MAX_RECORDS_BYTES
from ..formats.record_io import load_records
from ..formats.replay import replay as replay_record
from ..views.search import scores_text
from .options import json_option, read_text, source_name
from .output import emit_json


@click.command()
@click.argument("record_path", metavar="RECORD")
@json_option
def replay(record_path, as_json):
    """Check a record (bergen-record/1, or one per line in .jsonl) and score it event by event.

    RECORD is a file path, or - for standard input. An illegal record exits 2 naming the
    round, the event and what is wrong.
    """
    try:
        text = read_text(record_path, MAX_RECORDS_BYTES)
    except BergenError as e:    # the file itself: the line every command gives, and the document
        if as_json:
            emit_json({"ok": False, "error": str(e), "round": None, "event": None,
                       "field": None})
        raise
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
        if as_json:         # the message and where it is wrong
            emit_json({"ok": False, "error": str(e), "round": e.round, "event": e.event,
                       "field": e.field})
        click.echo(f"bergen replay: {source_name(record_path)}: {e}", err=True)
        sys.exit(2)
    if as_json:         # one record's report, or every record's under `records`
        emit_json(reports[0] if len(reports) == 1 else {"ok": True, "records": reports})
    elif len(reports) == 1:
        click.echo(replay_text(reports[0]))
    else:
        wins = collections.Counter(rep["winner"] for rep in reports)
        click.echo(f"{len(reports)} records, all legal; wins by side: "
                   + ", ".join(f"{k}: {v}" for k, v in sorted(wins.items(), key=str)))


def replay_text(report: dict) -> str:
    """One record's rounds, event by event, then who won."""
    lines = []
    for r, rnd in enumerate(report["rounds"]):
        lines.append(f"round {r + 1}  start {scores_text(rnd['start_scores'])}")
        for ev in rnd["events"]:
            pts = ev["points"]
            gained = " ".join(f"+{p} side {s}" for s, p in enumerate(pts) if p)
            lines.append(f"  {ev['event']:>3}  seat {ev['seat']}  {ev['action']:<10} "
                         f"{gained:<16} {scores_text(ev['scores'])}")
        lines.append(f"  end: {rnd['end']}  scores {scores_text(rnd['scores'])}")
    w = report["winner"]
    tail = f"side {w} wins" if w is not None else "match not finished"
    lines.append(f"{tail}: {scores_text(report['scores'])}")
    return "\n".join(lines)
