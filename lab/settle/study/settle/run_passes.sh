#!/bin/bash
# Pass variants on the same trees (LAB engine copy xengine/): dev 100k s1 and 1.6M s41.
export PYTHONPATH=/work/lab50/settle/xengine
export TAG=passes
export PASSES="0:0:0,0:1:0,8:0:0,32:0:0,8:1:0,32:1:0,0:2:4,1073741824:0:0"
PY=/work/venvs/settle/bin/python
cd /tmp
$PY /work/lab50/settle/probe.py dev 100000 1
$PY /work/lab50/settle/probe.py dev 1600000 41
$PY /work/lab50/settle/probe.py dev 100000 2 3
echo done
