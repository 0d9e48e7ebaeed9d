#!/bin/bash
# A third, fresh set "val" (60 positions), made as the lab made dev and test (make_records.sh,
# make_corpus.py: the same engine mixes and rules, 2 games a match), from selfplay seeds
# 4000+k (2 players), 4100+k (3), 4200+k (4), 4300+k (partnerships), the positions drawn with
# seed 503. For the second method (v2, fitted on dev + test once test was spent): its one
# held-out measurement. Records in corpus/records/, the set in corpus/val.jsonl.
set -euo pipefail
B=/work/venvs/lab50/bin/bergen
OUT=/work/lab50/settle/corpus/records
mkdir -p "$OUT"
cd "$OUT"
: > MANIFEST.tsv
I3=ismcts:iterations=300
MIX2=("greedy,flat" "expectimax,random" "$I3,expectimax" "flat,$I3" "random,greedy" "$I3,greedy")
MIX3=("greedy,flat,expectimax" "$I3,random,greedy" "expectimax,$I3,flat" "random,flat,$I3")
MIX4=("greedy,flat,expectimax,$I3" "random,expectimax,greedy,flat" "$I3,greedy,flat,random" "expectimax,$I3,random,greedy")
play() {
  local set=$1 base=$2 cfg=$3 flags=$4; shift 4
  local k=0
  for mix in "$@"; do
    local seed=$((base + k))
    local f="${set}_${cfg}_m${k}.jsonl"
    if [ ! -s "$f" ]; then
      # shellcheck disable=SC2086
      "$B" selfplay --games 2 --seed "$seed" --engine "$mix" $flags --quiet --out "$f" --force
    fi
    printf '%s\tseed=%s\tengine=%s\tflags=%s\n' "$f" "$seed" "$mix" "$flags" >> MANIFEST.tsv
    k=$((k + 1))
  done
}
play val 4000 p2  "--players 2"                 "${MIX2[@]}"
play val 4100 p3  "--players 3"                 "${MIX3[@]}"
play val 4200 p4  "--players 4"                 "${MIX4[@]}"
play val 4300 p4p "--players 4 --partnerships"  "${MIX4[@]}"
cd /tmp && /work/venvs/lab50/bin/python /work/lab50/settle/make_val_corpus.py
