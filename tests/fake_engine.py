"""A fake engine for tests/test_arena_external.py: just enough of docs/PROTOCOL.md, and it
misbehaves on request. A `go` is answered by --mode: `first` (the first legal move), `illegal`,
`die` (exit 3), `hang`, `refuse` (an error line), `empty` (a bestmove that measured nothing),
`after:N` (N first moves, then an illegal one); --mode-file reads the mode at every `go`;
--record appends every line read to FILE; --pid-dir writes a file named by its pid into DIR;
--delay waits before each answer.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time


def legal_moves(game) -> list:
    from bergen_search.formats.game import load
    from bergen_search.game.state import move_str
    from bergen_search.search.api import root_moves
    info = load(game).info
    return [move_str(m, not info.line) for m in root_moves(info)]


def illegal_move(game) -> str:
    """The lead's tile at the left end: on the line already, so never legal."""
    lead = next(e["play"] for e in game["rounds"][-1]["events"] if "play" in e)
    return lead.split(":")[0] + ":L"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--record")
    ap.add_argument("--pid-dir")
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--mode", default="first")
    ap.add_argument("--mode-file")
    args = ap.parse_args()
    if args.pid_dir:
        open(os.path.join(args.pid_dir, str(os.getpid())), "w").close()
    played = 0

    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        if args.record:
            with open(args.record, "a", encoding="utf-8") as f:
                f.write(line if line.endswith("\n") else line + "\n")
        cmd = json.loads(line)
        ident = cmd.get("id")
        name = cmd.get("cmd")
        if name == "quit":
            return 0
        if name == "isready":
            send({"type": "readyok", "id": ident})
        elif name == "hello":
            send({"type": "hello", "protocol": "bergen-engine/2", "name": "fake", "id": ident})
        elif name == "go":
            mode = args.mode
            if args.mode_file:
                with open(args.mode_file, encoding="utf-8") as f:
                    mode = f.read().strip()
            time.sleep(args.delay)
            if mode == "die":
                sys.stderr.write("fake engine: dying as asked\n")
                return 3
            if mode == "hang":
                while True:
                    time.sleep(60)
            if mode == "empty":              # nothing measured in its time
                send({"type": "bestmove", "best": None, "moves": [], "empty": True,
                      "id": ident})
                continue
            if mode == "refuse":
                send({"type": "error", "error": "fake has no setting 'depth'", "id": ident})
                continue
            limit = int(mode.split(":")[1]) if mode.startswith("after:") else None
            if mode == "illegal" or (limit is not None and played >= limit):
                move = illegal_move(cmd["game"])
            else:
                move = legal_moves(cmd["game"])[0]
            played += 1
            send({"type": "bestmove", "best": move, "value": None, "stderr": None,
                  "id": ident})
        else:
            send({"type": "error", "error": f"fake engine: no {name!r}", "id": ident})
    return 0


if __name__ == "__main__":
    sys.exit(main())
