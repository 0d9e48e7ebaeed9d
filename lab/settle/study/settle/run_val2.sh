#!/bin/bash
# val at analyze's budget: probes at 20k seeds 1-3 and today's 320k judges (seeds 41, 42),
# for the one held-out check of study21's constants; after run_val.sh.
PY=/work/venvs/settle/bin/python
cd /tmp
while pgrep -f "run_val.sh" > /dev/null; do sleep 20; done
$PY /work/lab50/settle/probe.py val 20000 1 2 3
$PY /work/lab50/settle/run_big.py val 320000 41
$PY /work/lab50/settle/run_big.py val 320000 42
echo done
