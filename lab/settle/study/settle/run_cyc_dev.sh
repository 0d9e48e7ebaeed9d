#!/bin/bash
# Part 2, dev: the cycle engine's probes (cyc_probe.py -> data/cyc.jsonl) after the judges
# (run_cyc_judges.sh): 100k seed 1 deepened to 1.6M (DEEPEN=4), 100k seeds 2 and 3, 20k
# seeds 1-3 (analyze's budget), the product's 3 cycles at 1.6M (seed 41: is its raw 1.6M
# the reference?), and today's direct 50k (seeds 51, 52; data/big.jsonl) for the check that
# the tree after the second cycle is a half-budget search in distribution. One core, nice 5.
PY=/work/venvs/settle/bin/python
P=/work/lab50/settle/cyc_probe.py
cd /tmp
while kill -0 "$(cat /work/lab50/settle/logs/run_cyc_judges.pid)" 2>/dev/null; do sleep 20; done
DEEPEN=4 nice -n 5 $PY $P dev 100000 1
nice -n 5 $PY $P dev 100000 2 3
nice -n 5 $PY $P dev 20000 1 2 3
nice -n 5 $PY $P dev 1600000 41
for s in 51 52; do nice -n 5 $PY /work/lab50/settle/run_big.py dev 50000 $s; done
echo done
