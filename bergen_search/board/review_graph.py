"""The review's evaluation graph for the board's page: each `decision` line of an `analyze`
gets `graph`, the placing (`views.graph.place`) of every decision judged so far with the
sides' names, and `decisions_total`. Every other line passes as it is."""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

from ..analysis.review import count_decisions
from ..errors import BergenError
from ..formats.record import parse_record
from ..views.graph import Column, place
from ..views.report import side_name


@dataclass
class _Review:
    rules: object
    objective: str
    total: int
    columns: list = field(default_factory=list)


class ReviewGraphs:
    """The graphs of a connection's reviews, by query id."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reviews: dict = {}

    def command(self, raw) -> None:
        """Start a review's graph when `raw` is an `analyze` command the engine will take."""
        if isinstance(raw, bytes) or '"analyze"' not in raw:
            return
        try:
            cmd = json.loads(raw)
            if not isinstance(cmd, dict) or cmd.get("cmd") != "analyze" or "id" not in cmd:
                return
            record = cmd.get("record")
            record = parse_record(json.loads(record) if isinstance(record, str) else record)
            seats, rounds = cmd.get("seats"), cmd.get("rounds")
            total = count_decisions(record, set(seats) if seats else None,
                                    set(rounds) if rounds else None)
        except (ValueError, TypeError, BergenError):
            return
        objective = cmd.get("objective", "points")
        with self.lock:
            self.reviews[_key(cmd["id"])] = _Review(record.rules, objective if objective in
                                                    ("points", "match") else "points", total)

    def line(self, line: str) -> str:
        """`line` as the page gets it: a review's decision with the placing so far."""
        if '"decision"' not in line and '"analysis"' not in line and '"error"' not in line:
            return line
        try:
            msg = json.loads(line)
        except ValueError:
            return line
        key = _key(msg.get("id"))
        with self.lock:
            review = self.reviews.get(key)
            if review is None:
                return line
            if msg.get("type") != "decision":
                if msg.get("type") in ("analysis", "error"):
                    del self.reviews[key]           # its last line: the review is over
                return line
            played = msg["played"]
            review.columns.append(Column(msg["round"], review.rules.side_of(msg["seat"]),
                                         None, msg["values"].get(played), msg["index"],
                                         msg.get("label"), bool(msg.get("borderline")),
                                         bool(msg.get("exact"))))
            placing = place(review.columns, review.rules.n_sides, review.objective)
            sides = [side_name(review.rules, s) for s in range(review.rules.n_sides)]
        return json.dumps({**msg, "decisions_total": review.total,
                           "graph": {**placing.to_json(), "sides": sides}},
                          separators=(",", ":"))


def _key(query_id) -> str:
    return json.dumps(query_id)
