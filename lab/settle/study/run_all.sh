#!/bin/bash
# The one background chain of long runs, one process at a time, each resumable:
#   section 2 blocks A (dev) and B (test): 100k seeds 1-3 and 1.6M seed 41
#   section 4: analyze of 6 matches at the default budget and with the 16x judge
#   section 2 block C: 200k/400k seed 21, 800k seed 31, 1.6M seed 42 (dev, then test)
# Run: cd /tmp && nohup nice -n 5 bash /work/lab50/run_all.sh > /work/lab50/logs/run_all.log 2>&1 &
PY=/work/venvs/lab50/bin/python
L=/work/lab50
cd /tmp || exit 1
echo "start $(date)"
$PY $L/run_curve.py A B
echo "curve A B exit $? $(date)"
$PY $L/run_analyze.py
echo "analyze exit $? $(date)"
$PY $L/run_curve.py C
echo "curve C exit $? $(date)"
