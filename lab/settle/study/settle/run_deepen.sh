#!/bin/bash
# Part 5's deepening prototype on dev, seed 1 (after the test probes: one core at a time).
PY=/work/venvs/settle/bin/python
cd /tmp
while pgrep -f "run_test.sh" > /dev/null; do sleep 20; done
$PY /work/lab50/settle/deepen.py dev 1
echo done
