"""The tests' fixture, fixture/sample.json.gz: a few positions of the test set with what the
study stored for them: their lines of data/corpus/test.jsonl, their cycle probes at 100k seed
2 (data/cyc_held.jsonl) and their judges at 1.6M seeds 41 and 42 (data/judges.jsonl).

    python lab/settle/fixture.py [ID ...]     (default: the four the fixture holds)
"""
import gzip
import json
import os
import sys

from cyc_probe import DATA, HERE

IDS = ("test-p2-middle-2", "test-p3-late-1", "test-p4p-late-0", "test-p4-early-0")
PATH = os.path.join(HERE, "fixture", "sample.json.gz")


def lines(path, keep):
    return [line for line in open(path) if keep(json.loads(line))]


def main():
    ids = set(sys.argv[1:] or IDS)
    out = {"corpus/test.jsonl": lines(os.path.join(DATA, "corpus", "test.jsonl"),
                                      lambda d: d["id"] in ids),
           "cyc_held.jsonl": lines(os.path.join(DATA, "cyc_held.jsonl"),
                                   lambda d: d["id"] in ids and d["iterations"] == 100_000
                                   and d["seed"] == 2 and d["deepen"] == 0),
           "judges.jsonl": lines(os.path.join(DATA, "judges.jsonl"),
                                 lambda d: d["id"] in ids and d["iterations"] == 1_600_000
                                 and d["seed"] in (41, 42))}
    assert [len(v) for v in out.values()] == [len(ids), len(ids), 2 * len(ids)], out.keys()
    os.makedirs(os.path.dirname(PATH), exist_ok=True)
    with gzip.GzipFile(PATH, "wb", mtime=0) as fh:
        fh.write(json.dumps(out, sort_keys=True).encode())


def unpack(folder):
    """The fixture as a data folder (SETTLE_DATA): its files written under `folder`."""
    with gzip.open(PATH, "rt") as fh:
        files = json.load(fh)
    for name, rows in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.writelines(rows)
    return folder


if __name__ == "__main__":
    main()
