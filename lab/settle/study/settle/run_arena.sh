#!/bin/bash
# Part 2, strength: the cycle engine (cycles=on, the move by the final pass's raw value, as
# today) against today's default at equal time per move, duplicate deals (luck-adjusted),
# seeds never used in tuning. 2 players, 300 sets; then 3 players, 150 sets. One core, nice 5.
B=/work/venvs/settle/bin/bergen
cd /work/lab50/settle/arena
nice -n 5 $B arena 'ismcts:cycles=on,time=0.1' 'ismcts:time=0.1' --games 300 --seed 7101 \
  --workers 1 --out arena_p2_t01.jsonl --force --quiet > arena_p2_t01.txt 2>&1
nice -n 5 $B arena 'ismcts:cycles=on,time=0.1' 'ismcts:time=0.1' --games 150 --seed 7201 \
  --players 3 --workers 1 --out arena_p3_t01.jsonl --force --quiet > arena_p3_t01.txt 2>&1
echo done
