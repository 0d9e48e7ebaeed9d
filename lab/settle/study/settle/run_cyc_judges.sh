#!/bin/bash
# Part 2 (the cycle engine): the fresh set (make_fresh.sh) and today's raw judges it needs,
# 1.6M and 320k seeds 41 and 42 (data/big.jsonl); the test set's 320k judges (analyze's 16x,
# which part 1 did not make). One core, nice 5. Nothing here reads a result.
PY=/work/venvs/settle/bin/python
cd /tmp
nice -n 5 bash /work/lab50/settle/make_fresh.sh
for s in 41 42; do nice -n 5 $PY /work/lab50/settle/run_big.py fresh 1600000 $s; done
for s in 41 42; do nice -n 5 $PY /work/lab50/settle/run_big.py fresh 320000 $s; done
for s in 41 42; do nice -n 5 $PY /work/lab50/settle/run_big.py test 320000 $s; done
echo done
