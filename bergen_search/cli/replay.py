"""`bergen replay`: check records and score them event by event."""
from __future__ import annotations

import sys

import click

from ..errors import BergenError
from ..formats.jsondoc import MAX_RECORDS_BYTES
from ..formats.record_io import load_records
from ..formats.replay import replay as replay_record
from ..views.replay import error_document, replay_document, replay_text, replays_text
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
    text = read_text(record_path, MAX_RECORDS_BYTES)
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
            emit_json(error_document(e))
        click.echo(f"bergen replay: {source_name(record_path)}: {e}", err=True)
        sys.exit(2)
    if as_json:
        emit_json(replay_document(reports))
    elif len(reports) == 1:
        click.echo(replay_text(reports[0]))
    else:
        click.echo(replays_text(reports))
