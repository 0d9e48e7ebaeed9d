"""JSON at the edge: strict parsing, the field checks of the record and position formats,
and JSON for people (`pretty_json`).

>>> check_fields({"b": 1}, ("a",), "a thing")
Traceback (most recent call last):
...
bergen_search.errors.BergenError: unknown field 'b' in a thing (known: a)
"""
from __future__ import annotations

import json

from ..errors import BergenError, JSONError
from ..game.rules import Rules


#: The most bytes read of one document (a record, a position, a rule set, a protocol line).
MAX_DOCUMENT_BYTES = 16 << 20
#: The most bytes read of a file of records (`.jsonl`, about 3 kB a match).
MAX_RECORDS_BYTES = 256 << 20
#: How much is read at a time from a stream of unknown size.
READ_CHUNK = 1 << 20


def too_large(what: str, limit: int,
              why: str = "no record or position is that large (is it the right file?)") -> str:
    return f"{what} is larger than {limit >> 20} MB: {why}"


def read_bounded(stream, limit: int, what: str) -> bytes | str:
    """The stream's content (bytes or text), or BergenError once past `limit` bytes."""
    import os
    import stat
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        info = None             # not a file descriptor: read and count
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > limit:
        raise BergenError(too_large(what, limit))
    parts, size = [], 0
    while True:
        chunk = stream.read(min(READ_CHUNK, limit + 1 - size))
        parts.append(chunk)         # the last, empty, one too: the stream's type
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            raise BergenError(too_large(what, limit))
    return parts[0][:0].join(parts)


def _pairs_no_duplicates(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise BergenError(f"duplicate key {k!r} in a JSON object")
        obj[k] = v
    return obj


def _reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text, what: str = "the JSON text") -> object:
    """JSON text to Python objects; errors name the line and column, and `what` the text;
    duplicate keys and NaN/Infinity are errors.

    >>> parse_json('{"a": NaN}')
    Traceback (most recent call last):
    ...
    bergen_search.errors.BergenError: bad JSON: NaN is not a JSON number
    """
    what = what if what.startswith(("the ", "-")) else f"the {what}"
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise BergenError(f"{what} is not UTF-8 text (byte {e.start})") from None
    if not isinstance(text, str):
        raise BergenError(f"{what} must be text, got {type(text).__name__}")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise BergenError(f"{what} is empty")
    try:
        return json.loads(text, object_pairs_hook=_pairs_no_duplicates,
                          parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        msg = e.msg[0].lower() + e.msg[1:]
        extra = e.msg == "Extra data"
        if extra:
            msg = "extra data after the first JSON value (a .jsonl file holds one record per line)"
        raise JSONError(e.lineno, e.colno, msg, extra_data=extra) from None
    except RecursionError:
        raise BergenError("bad JSON: arrays or objects nested too deeply") from None
    except ValueError as e:
        if "digits" in str(e):
            raise BergenError("bad JSON: a number with thousands of digits") from None
        raise BergenError(f"bad JSON: {e}") from None


def type_name(v) -> str:
    if v is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(v), type(v).__name__)


def check_fields(obj, known, what, required=(), **where):
    if not isinstance(obj, dict):
        raise BergenError(f"{what} must be a JSON object, got {type_name(obj)}", **where)
    for k in obj:
        if k not in known:
            raise BergenError(f"unknown field {k!r} in {what} (known: {', '.join(known)})",
                              field=k if isinstance(k, str) else None, **where)
    for k in required:
        if k not in obj:
            raise BergenError(f"{what} has no {k!r} field", field=k, **where)


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_scores(value, rules: Rules, field: str, **where) -> tuple:
    """A scores tuple: one non-negative integer per side, each below the target."""
    n = rules.n_sides
    if not isinstance(value, list):
        raise BergenError(f"expected a list of {n} integers (one per side), got "
                          f"{type_name(value)}", field=field, **where)
    if len(value) != n:
        raise BergenError(f"expected {n} entries (one per side), got {len(value)}",
                          field=field, **where)
    for i, v in enumerate(value):
        if not is_int(v) or v < 0:
            raise BergenError(f"side {i}'s score must be a non-negative integer, got {v!r}",
                              field=f"{field}[{i}]", **where)
        if v >= rules.target:
            raise BergenError(f"side {i} has {v} points, which already reaches the target "
                              f"{rules.target}: the match would be over", field=f"{field}[{i}]",
                              **where)
    return tuple(value)


def parse_header(obj: dict, scores_field: str) -> tuple:
    """(version, rules, scores) of a record or position (scores in `scores_field`, or zeros)."""
    version = obj.get("version")
    if version is not None and (not isinstance(version, str) or len(version) > 100):
        raise BergenError(f"'version' must be the version string of the program that wrote "
                          f"the document, got {type_name(version)}", field="version")
    rules = Rules.from_dict(obj.get("rules"))
    scores = obj.get(scores_field)
    if scores is None:
        return version, rules, (0,) * rules.n_sides
    return version, rules, parse_scores(scores, rules, scores_field)


def pretty_json(obj, width: int = 96, indent: int = 2, _level: int = 0) -> str:
    """JSON for people: a list or object on one line when it fits `width` or nests nothing."""
    flat = json.dumps(obj, separators=(", ", ": "))
    pad = " " * (indent * _level)
    if not isinstance(obj, (list, dict)) or not obj or len(pad) + len(flat) <= width:
        return flat
    children = obj.values() if isinstance(obj, dict) else obj
    if not any(isinstance(v, (list, dict)) for v in children):
        return flat
    inner = " " * (indent * (_level + 1))
    if isinstance(obj, list):
        items = [inner + pretty_json(v, width, indent, _level + 1) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [inner + json.dumps(k) + ": " + pretty_json(v, width, indent, _level + 1).lstrip()
             for k, v in obj.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"
