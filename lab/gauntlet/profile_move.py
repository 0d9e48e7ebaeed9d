"""Where a 100 ms move's time goes (issue 31): positions from a gauntlet OpenSpiel cell's
journal, searched again by the default engine with counters around its parts.

    python lab/gauntlet/profile_move.py [--cell default-vs-openspiel-100ms-2p]
        [--dir gauntlet-runs] [--per-phase 25] [--time 0.1] [--profile]
        [--group draw|solved|fell-back]

Needs the shared instrument's referee (BERGEN_OPENSPIEL_TOOLS, as lab/gauntlet/gauntlet.py) to
deal the journal's rounds again (same seeds). Takes A's searched decisions (more than one
legal play) in three groups: the first plays and the draw phase, the end where the exact
endgame solved, the end where it fell back to ISMCTS; per group the wall time of the search,
of the endgame's attempt, ISMCTS's iterations and the replicates that finished. With
--profile, cProfile's top functions over every search.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time

import gauntlet as g
from bergen_search.formats.game import load_game
from bergen_search.search import Limits, search
from bergen_search.search.endgame import step as exact


def positions(path: str, per_phase: int, tools) -> dict:
    header, sets, _ = g.Journal(path).read()
    ref, st = tools.referee, tools.strength
    out = {"first plays and draw phase": [], "end: endgame solved": [],
           "end: endgame fell back": []}
    for i in sorted(sets):
        rj, hands, _ = g.os_deal(tools, header, i)
        rules = ref.Rules(**rj)
        for game in sets[i]["games"]:
            for d in game["decisions"]:
                if d["engine"] != "A" or d["plays"] < 2:
                    continue
                key = ("end: endgame solved" if d.get("endgame") is True else
                       "end: endgame fell back" if d.get("endgame") is False else
                       "first plays and draw phase")
                if len(out[key]) >= per_phase:
                    continue
                evs = game["events"][:d["event"]]
                rec = st.view_record(rules, [0] * rules.sides, [set(h) for h in hands], evs,
                                     d["seat"])
                out[key].append(json.dumps(rec))
        if all(len(v) >= per_phase for v in out.values()):
            break
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cell", default="default-vs-openspiel-100ms-2p")
    ap.add_argument("--dir", default=g.DEFAULT_DIR)
    ap.add_argument("--per-phase", type=int, default=25)
    ap.add_argument("--time", type=float, default=0.1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--group", choices=("draw", "solved", "fell-back"), default=None,
                    help="only this group of positions")
    ns = ap.parse_args(argv)
    tools, why = g.find_tools(None)
    if tools is None:
        print(f"profile_move: {why}", file=sys.stderr)
        return 2
    groups = positions(os.path.join(ns.dir, ns.cell + ".jsonl"), ns.per_phase, tools)
    spent = []
    real_attempt = exact.attempt

    def timed(*a, **k):
        t0 = time.perf_counter()
        try:
            return real_attempt(*a, **k)
        finally:
            spent.append(time.perf_counter() - t0)

    exact.attempt = timed
    prof = cProfile.Profile() if ns.profile else None
    print(f"{ns.cell}: A's positions searched again at {ns.time * 1000:.0f} ms, load "
          f"{g.loadavg()}")
    pick = {"draw": "first plays and draw phase", "solved": "end: endgame solved",
            "fell-back": "end: endgame fell back"}
    for name, recs in groups.items():
        if ns.group and pick[ns.group] != name:
            continue
        wall, att, its, reps = [], [], [], []
        for k, text in enumerate(recs):
            info = load_game(text)
            spent.clear()
            t0 = time.perf_counter()
            if prof:
                prof.enable()
            res = search(info, Limits(time=ns.time), seed=k)
            if prof:
                prof.disable()
            wall.append(1000 * (time.perf_counter() - t0))
            att.append(1000 * sum(spent))
            its.append(res.info.get("iterations") or 0)
            reps.append(res.info.get("replicates") or 0)
        if not recs:
            continue
        med = statistics.median
        print(f"  {name}: {len(recs)} positions; median wall {med(wall):.1f} ms, endgame "
              f"attempt {med(att):.1f} ms (mean {statistics.mean(att):.1f}), ISMCTS iterations "
              f"{med(its):.0f}, replicates finished {med(reps):.0f}")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
