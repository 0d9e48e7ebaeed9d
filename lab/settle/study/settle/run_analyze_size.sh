#!/bin/bash
# (e) analyze's budget: dev probes at 20k (8 trees of 2.5k, analyze's default per decision)
# seeds 1-3, and today's raw judges at 320k (16x) seeds 41 and 42 (data/big.jsonl).
PY=/work/venvs/settle/bin/python
cd /tmp
while pgrep -f "run_deepen.sh" > /dev/null; do sleep 20; done
$PY /work/lab50/settle/probe.py dev 20000 1 2 3
$PY /work/lab50/settle/run_big.py dev 320000 41
$PY /work/lab50/settle/run_big.py dev 320000 42
echo done
