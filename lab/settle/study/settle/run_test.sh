#!/bin/bash
# The test set's probes (once the method is frozen they are read once): 100k s1-3 and
# 1.6M s41 (the new engine at 16x), 200k s21 and 400k s21 (the shapes of study 14).
# Waits for a running run_big.py first (one core at a time).
PY=/work/venvs/settle/bin/python
P=/work/lab50/settle/probe.py
cd /tmp
while pgrep -f "run_big.py dev" > /dev/null; do sleep 20; done
$PY $P test 100000 1 2 3
$PY $P test 1600000 41
$PY $P test 200000 21
$PY $P test 400000 21
echo done
