"""The fresh set's positions (make_fresh.sh; as make_val_corpus.py made val): make_corpus.py's
own functions (the lab's, unchanged) on the fresh records, the set drawn with seed 509;
checks that no position is in dev, test or val. Writes corpus/fresh.jsonl.

    python make_fresh_corpus.py      (the lab's venv, from any directory but the snapshot's)
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

mc.REC = os.path.join(HERE, "corpus", "records_fresh")


def main():
    mix = mc.mixes()
    taken = {json.loads(l)["string"] for s in ("dev", "test")
             for l in open(os.path.join(os.path.dirname(HERE), "corpus", f"{s}.jsonl"))}
    taken |= {json.loads(l)["string"] for l in open(os.path.join(HERE, "corpus", "val.jsonl"))}
    rng = random.Random(509)
    cells = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(mc.REC, "fresh_*.jsonl"))):
        cfg = os.path.basename(path).split("_")[1]
        for c in mc.candidates(path):
            cells[(cfg, c["stage"])].append(c)
    rows = []
    for cfg in mc.CONFIGS:
        for st in mc.STAGES:
            chosen = mc.pick(cells[(cfg, st)], rng)
            print(f"fresh {cfg:4s} {st:6s}: {len(cells[(cfg, st)]):4d} candidates, {len(chosen)} chosen",
                  file=sys.stderr)
            for k, c in enumerate(chosen):
                c["id"], c["set"], c["config"] = f"fresh-{cfg}-{st}-{k}", "fresh", cfg
                c["source"].update(mix.get(c["source"]["file"], {}))
                assert c["string"] not in taken, ("in dev, test or val", c["id"])
                rows.append(c)
    with open(os.path.join(HERE, "corpus", "fresh.jsonl"), "w") as fh:
        for c in rows:
            fh.write(json.dumps({k: c[k] for k in ("id", "set", "config", "players",
                                                   "partnerships", "stage", "reserve",
                                                   "choices", "legal", "source",
                                                   "string", "doc")}) + "\n")
    print(f"fresh: {len(rows)} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
