"""A record checked and scored (`formats.replay.replay`'s report), as `bergen replay` prints
it: event by event for one record, a line of wins for several. The JSON document is the
report itself (`replay_document`)."""
from __future__ import annotations

from .search import scores_text


def replay_text(report: dict) -> str:
    """One record's rounds, event by event: who did what, the points it gained and the
    scores after; then who won."""
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


def replays_text(reports: list) -> str:
    """Several records, all legal: how many, and the wins by side."""
    wins: dict = {}
    for rep in reports:
        wins[rep["winner"]] = wins.get(rep["winner"], 0) + 1
    return (f"{len(reports)} records, all legal; wins by side: "
            + ", ".join(f"{k}: {v}" for k, v in sorted(wins.items(), key=str)))


def replay_document(reports: list) -> dict:
    """`bergen replay --json`: one record's report, or every record's under `records`."""
    return reports[0] if len(reports) == 1 else {"ok": True, "records": reports}


def error_document(error) -> dict:
    """`bergen replay --json` for an illegal record: the message and where (a BergenError)."""
    return {"ok": False, "error": str(error), "round": error.round, "event": error.event,
            "field": error.field}
