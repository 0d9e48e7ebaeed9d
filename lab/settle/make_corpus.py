"""The positions: decisions cut out of the self-play records (data.sh plays them into
data/records/) and drawn into a set of 60, written to data/corpus/SET.jsonl.

A decision: a play (after the lead) where the seat to move has at least 2 distinct choices
(mirror twins folded) and has not drawn this turn (a bergen-position/1 cannot say that a
seat drew this turn). It is rebuilt as review.py does (an Observer per seat: only what that
seat knew), then written as the bergen-position/1 of that information set with the voids
the seat had proven (the history itself, which inference would read, is not kept: the
engine is measured on the position documents as `bergen best POSITION` would read them).

Stage, from the reserve r against the dealt reserve R0 (16 with 2 players, 10 with 3, 8
with 4) and the kept 2: f = (r - 2) / (R0 - 2); early f >= 0.6, late r <= 3 (2 players:
r <= 4), middle otherwise.

Per set: 4 configurations (p2, p3, p4, p4p: 4 in partnerships) x 3 stages x 5 positions,
drawn by the set's seed (dev 501, test 502, val 503, fresh 509) with at most one position
per (record file, match, round) where the pool allows it, spread over the engine mixes; the
records of SET_*.jsonl only. Checks that no position is in a set made before it (of dev,
test, val, fresh, in that order).

    python lab/settle/make_corpus.py SET [SET ...]
"""
import glob
import json
import os
import random
import sys
from collections import defaultdict

from bergen_search.formats.position import position_from_infoset, write_position
from bergen_search.formats.position_string import to_string, parse_string
from bergen_search.formats.record_io import load_records
from bergen_search.formats.replay import RoundStart, RoundEnd, events
from bergen_search.game.state import DRAW
from bergen_search.information.infoset import Observer, from_position
from bergen_search.search.api import root_moves, mirror_twins

HERE = os.path.dirname(os.path.abspath(__file__))
REC = os.path.join(HERE, "data", "records")
CORPUS = os.path.join(HERE, "data", "corpus")
SEEDS = {"dev": 501, "test": 502, "val": 503, "fresh": 509}
PER_CELL = 5
CONFIGS = ["p2", "p3", "p4", "p4p"]
STAGES = ["early", "middle", "late"]


def stage_of(rules, reserve):
    r0 = 28 - rules.players * rules.hand_size
    kept = rules.reserve_kept
    f = (reserve - kept) / (r0 - kept)
    late_max = kept + (2 if rules.players == 2 else 1)
    if reserve <= late_max:
        return "late"
    if f >= 0.6:
        return "early"
    return "middle"


def mixes():
    """{record file name: its selfplay seed, engines and rule flags} from the records'
    MANIFEST.tsv (make_records.sh)."""
    out = {}
    log = os.path.join(REC, "MANIFEST.tsv")
    for line in open(log):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 3 and parts[0].endswith(".jsonl"):
            out[parts[0]] = {"seed": int(parts[1].split("=")[1]),
                             "engine": parts[2].split("=", 1)[1],
                             "flags": parts[3].split("=", 1)[1] if len(parts) > 3 else ""}
    return out


def candidates(path):
    name = os.path.basename(path)
    out = []
    for mi, record in enumerate(load_records(open(path).read())):
        observers = {}
        for item in events(record):
            if isinstance(item, RoundStart):
                observers = {s: Observer(record.rules, {s}, item.state)
                             for s in range(record.rules.players)}
                continue
            if isinstance(item, RoundEnd):
                continue
            s, before = item.seat, item.before
            if before.led and item.action < DRAW:
                obs = observers[s]
                info = obs.infoset(s)
                moves = root_moves(info)
                twins = mirror_twins(info)
                distinct = len(moves) - len(twins)
                if distinct >= 2 and info.draws_this_turn == 0:
                    voids = {j: obs.proven_voids(j) for j in obs.hist}
                    pos = position_from_infoset(info, voids)
                    string = to_string(pos)
                    # the position must give the same root choices as the information set
                    back = from_position(parse_string(string))
                    assert sorted(root_moves(back)) == sorted(moves), (name, mi, item.round)
                    out.append({
                        "string": string, "doc": write_position(pos),
                        "players": record.rules.players,
                        "partnerships": bool(record.rules.partnerships),
                        "reserve": info.reserve_size,
                        "stage": stage_of(record.rules, info.reserve_size),
                        "choices": distinct, "legal": len(moves),
                        "source": {"file": name, "match": mi, "round": item.round,
                                   "event": item.event, "seat": s}})
            for o in observers.values():
                o.step(s, item.action, item.after)
    return out


def pick(pool, rng):
    """PER_CELL candidates: spread over engine mixes (round robin over files), at most one
    per (file, match, round) while the pool allows."""
    by_file = defaultdict(list)
    for c in pool:
        by_file[c["source"]["file"]].append(c)
    files = sorted(by_file)
    rng.shuffle(files)
    for f in files:
        rng.shuffle(by_file[f])
    chosen, used_rounds, seen = [], set(), set()
    for strict in (True, False):
        progress = True
        while len(chosen) < PER_CELL and progress:
            progress = False
            for f in files:
                if len(chosen) >= PER_CELL:
                    break
                for c in by_file[f]:
                    key = (f, c["source"]["match"], c["source"]["round"])
                    if c["string"] in seen or (strict and key in used_rounds):
                        continue
                    chosen.append(c)
                    used_rounds.add(key)
                    seen.add(c["string"])
                    progress = True
                    break
    return chosen


def make(set_name, mix):
    """The set's rows, drawn from its records."""
    rng = random.Random(SEEDS[set_name])
    cells = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(REC, f"{set_name}_*.jsonl"))):
        cfg = os.path.basename(path).split("_")[1]
        for c in candidates(path):
            cells[(cfg, c["stage"])].append(c)
    rows = []
    for cfg in CONFIGS:
        for st in STAGES:
            pool = cells[(cfg, st)]
            chosen = pick(pool, rng)
            print(f"{set_name} {cfg:4s} {st:6s}: {len(pool):4d} candidates, {len(chosen)} chosen",
                  file=sys.stderr)
            for k, c in enumerate(chosen):
                c["id"] = f"{set_name}-{cfg}-{st}-{k}"
                c["set"] = set_name
                c["config"] = cfg
                c["source"].update(mix.get(c["source"]["file"], {}))
                rows.append(c)
    return rows


def main():
    mix = mixes()
    names = sys.argv[1:]
    if not names or any(n not in SEEDS for n in names):
        sys.exit(f"usage: make_corpus.py SET [SET ...] (SET in {', '.join(SEEDS)})")
    taken = {}
    for earlier in SEEDS:
        path = os.path.join(CORPUS, f"{earlier}.jsonl")
        if earlier not in names and os.path.exists(path):
            taken.update((json.loads(line)["string"], json.loads(line)["id"])
                         for line in open(path))
    os.makedirs(CORPUS, exist_ok=True)
    for set_name in [n for n in SEEDS if n in names]:
        rows = make(set_name, mix)
        for c in rows:
            assert c["string"] not in taken, ("duplicate position", c["id"], taken[c["string"]])
            taken[c["string"]] = c["id"]
        with open(os.path.join(CORPUS, f"{set_name}.jsonl"), "w") as fh:
            for c in rows:
                fh.write(json.dumps({k: c[k] for k in ("id", "set", "config", "players",
                                                       "partnerships", "stage", "reserve",
                                                       "choices", "legal", "source",
                                                       "string", "doc")}) + "\n")
        print(f"{set_name}: {len(rows)} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
