#!/bin/bash
# The probes of the dev set at the curve's budgets and seeds (so that the final values
# are the curve's own): 100k s1-3, 200k s21, 400k s21, 800k s31, 1.6M s41 and s42.
PY=/work/venvs/settle/bin/python
P=/work/lab50/settle/probe.py
cd /tmp
$PY $P dev 100000 1 2 3
$PY $P dev 200000 21
$PY $P dev 400000 21
$PY $P dev 800000 31
$PY $P dev 1600000 41
$PY $P dev 1600000 42
echo done
