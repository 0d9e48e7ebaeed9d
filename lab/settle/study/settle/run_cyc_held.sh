#!/bin/bash
# Part 2, the held-out sets (test, val, fresh), written to data/cyc_held.jsonl and not read
# before the method is frozen (cyc_method.py, md5 in reports/cyc_frozen_md5.txt): 100k seed 1
# deepened to 1.6M (DEEPEN=4; its first three cycles are the 100k search), seeds 2 and 3, and
# 20k seeds 1-3. After run_cyc_dev.sh (one core, nice 5).
PY=/work/venvs/settle/bin/python
P=/work/lab50/settle/cyc_probe.py
cd /tmp
while kill -0 "$(cat /work/lab50/settle/logs/run_cyc_dev.pid)" 2>/dev/null; do sleep 20; done
for S in test val fresh; do
  TAG=held DEEPEN=4 nice -n 5 $PY $P $S 100000 1
  TAG=held nice -n 5 $PY $P $S 100000 2 3
  TAG=held nice -n 5 $PY $P $S 20000 1 2 3
done
echo done
