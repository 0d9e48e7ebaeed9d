#!/bin/bash
# The val set (make_val.sh), then today's judges at 1.6M (seeds 41, 42; data/big.jsonl)
# and the probes at 100k (seeds 1-3), after the runs before it (one core at a time).
PY=/work/venvs/settle/bin/python
cd /tmp
while pgrep -f "run_analyze_size.sh" > /dev/null; do sleep 20; done
bash /work/lab50/settle/make_val.sh
$PY /work/lab50/settle/run_big.py val 1600000 41
$PY /work/lab50/settle/run_big.py val 1600000 42
$PY /work/lab50/settle/probe.py val 100000 1 2 3
echo done
