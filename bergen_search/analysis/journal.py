"""A review's searches kept in a long run's journal, so that a resumed `bergen analyze`
searches only from where it stopped."""
from __future__ import annotations

import hashlib

from ..errors import BergenError
from ..search.api import search


def journal_searcher(journal, record: int):
    """A `searcher` for `analyze` that keeps record `record`'s finished searches in `journal`
    as ("search", record, n), checked against what was asked when answered again."""
    calls = iter(range(1 << 62))

    def run(info, limits=None, **kwargs):
        key = ("search", record, next(calls))
        mark = _fingerprint(info, limits, kwargs)
        if key in journal.done:
            kept, result = journal.done[key]
            if kept != mark:
                raise BergenError(f"{journal.path} does not match this analysis (search "
                                  f"{key[2]} of record {record + 1} asked something else); "
                                  f"delete it to start again")
            return result
        result = search(info, limits, **kwargs)
        if not result.info.get("interrupted"):
            journal.add(key, (mark, result))
        return result

    return run


def _fingerprint(info, limits, kwargs) -> str:
    text = repr((info.key(), limits, sorted(kwargs.items())))
    return hashlib.sha256(text.encode()).hexdigest()[:32]
