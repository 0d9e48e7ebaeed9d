#!/bin/bash
# Depth-limited passes on the same trees (LAB engine copy xengine/): the pass follows the
# tree for d decisions after the root move (d = 1, 2, 4, 8; 0: today's), then the playout.
export PYTHONPATH=/work/lab50/settle/xengine
export TAG=depth
export PASSES="0:0:0:0,0:0:0:1,0:0:0:2,0:0:0:4,0:0:0:8"
PY=/work/venvs/settle/bin/python
cd /tmp
$PY /work/lab50/settle/probe.py dev 100000 1 2 3
$PY /work/lab50/settle/probe.py dev 1600000 41
echo done
