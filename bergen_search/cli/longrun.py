"""A long run of `selfplay`, `arena` or `analyze`: its journal and its ends, in one place."""
from __future__ import annotations

import os

import click

from ..errors import BergenError, Interrupted
from ..play.external import ExternalEngineError
from ..runs.journal import Journal, journal_path
from ..runs.parallel import ClusterLost
from .output import BESIDE, check_distinct, check_writable


class LongRun:
    """The journal of a run writing `output` (None: no journal), as a context manager:
    leaving normally finishes the journal; a lost scheduler or a failed external engine
    leaves as one error saying where the work is kept; Ctrl-C is kept in `interrupted`, and
    `stop()` then says how far the run got. `total`, `unit`, `partial` and `done(journal)`
    say how far when the library had not; `also`, the run's other outputs (no journal)."""

    def __init__(self, output, command: str, seed: int, resume: bool, *, total, unit: str,
                 option: str = "--out", partial=None, done=None, force: bool | None = None,
                 also=()):
        self.output, self.command, self.seed, self.resume = output, command, seed, resume
        #: None: an existing output may be replaced; False: only with --force, or by a
        #: --resume of the run its journal holds.
        self.force = force
        self.also = tuple(also)
        self.total, self.unit, self.option = total, unit, option
        self.partial, self.count_done = partial, done
        self.journal: Journal | None = None
        self.interrupted: Interrupted | None = None

    def start(self, arguments: dict) -> Journal | None:
        """Check the output writable and open the journal (`arguments`: what --resume checks)."""
        if self.output is None:
            if self.resume:
                raise click.UsageError(f"--resume needs {self.option}: the journal lives "
                                       f"beside the output file")
            return None
        check_distinct({}, {self.option: self.output})
        check_writable(self.output, self.option, regular=True, beside=tuple(BESIDE))
        if self.force is False and not self.resume and os.path.exists(self.output):
            raise click.BadParameter(f"{self.output} exists: give --force to replace it, or "
                                     f"another {self.option}", param_hint=self.option)
        kept = (self.output, *self.also) if self.force is False else ()
        self.journal = Journal.start(self.output, self.command, self.seed, arguments,
                                     self.resume, kept=kept)
        return self.journal

    @property
    def hooks(self) -> dict:
        """The `done` and `on_result` of a library run that keeps the journal."""
        j = self.journal
        return {} if j is None else {"done": j.done, "on_result": j.add}

    @property
    def resumed(self) -> int:
        return self.journal.resumed if self.journal is not None else 0

    def __enter__(self) -> "LongRun":
        return self

    def __exit__(self, kind, error, traceback) -> bool:
        if error is None:
            try:
                if self.journal is not None:
                    self.journal.finish()
                return False
            except KeyboardInterrupt as caught:
                error = caught
        if isinstance(error, (ClusterLost, ExternalEngineError)):
            raise self._kept(error) from None
        if isinstance(error, KeyboardInterrupt):
            self.interrupted = self._as_interrupted(error)
            return True
        if self.journal is not None:
            self.journal.close()
        return False

    def _as_interrupted(self, caught) -> Interrupted:
        if isinstance(caught, Interrupted):
            return caught
        done = (self.count_done(self.journal) if self.count_done is not None
                else len(self.journal.done) if self.journal is not None else 0)
        total = self.total() if callable(self.total) else self.total
        return Interrupted(self.partial, done, total, self.unit)

    def _close(self) -> str:
        """Close the journal; where the finished work is kept ("" when nowhere)."""
        if self.journal is not None:
            self.journal.close()
        if self.output is None or not os.path.exists(journal_path(self.output)):
            return ""
        return (f"; the finished work is kept in {journal_path(self.output)}: run the same "
                f"command with --resume to go on")

    def _kept(self, error):
        kept = self._close()
        return BergenError(error.message + kept, field=error.field) if kept else error

    def stop(self, extra: str = "") -> int:
        """Say how far the interrupted run got and where its work is kept; 130."""
        e = self.interrupted
        where = self._close() or (" (give --out to keep a journal of the finished work)"
                                  if self.output is None else "")
        click.echo(f"bergen: interrupted after {e.done} of {e.total} {e.unit}{extra}{where}",
                   err=True)
        return 130
