"""The val set's positions: make_corpus.py's own functions (the lab's, unchanged) on the val
records (make_val.sh), the set drawn with seed 503; checks that no position is in dev or
test. Writes corpus/val.jsonl.

    python make_val_corpus.py        (the lab's venv, from any directory but the snapshot's)
"""
import glob
import json
import os
import random
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import make_corpus as mc  # noqa: E402

mc.REC = os.path.join(HERE, "corpus", "records")


def main():
    mix = mc.mixes()
    taken = {json.loads(l)["string"] for s in ("dev", "test")
             for l in open(os.path.join(os.path.dirname(HERE), "corpus", f"{s}.jsonl"))}
    rng = random.Random(503)
    cells = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(mc.REC, "val_*.jsonl"))):
        cfg = os.path.basename(path).split("_")[1]
        for c in mc.candidates(path):
            cells[(cfg, c["stage"])].append(c)
    rows = []
    for cfg in mc.CONFIGS:
        for st in mc.STAGES:
            chosen = mc.pick(cells[(cfg, st)], rng)
            print(f"val {cfg:4s} {st:6s}: {len(cells[(cfg, st)]):4d} candidates, {len(chosen)} chosen",
                  file=sys.stderr)
            for k, c in enumerate(chosen):
                c["id"], c["set"], c["config"] = f"val-{cfg}-{st}-{k}", "val", cfg
                c["source"].update(mix.get(c["source"]["file"], {}))
                assert c["string"] not in taken, ("in dev or test", c["id"])
                rows.append(c)
    with open(os.path.join(HERE, "corpus", "val.jsonl"), "w") as fh:
        for c in rows:
            fh.write(json.dumps({k: c[k] for k in ("id", "set", "config", "players",
                                                   "partnerships", "stage", "reserve",
                                                   "choices", "legal", "source",
                                                   "string", "doc")}) + "\n")
    print(f"val: {len(rows)} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
