#!/bin/bash
# A fourth set "fresh" (60 positions, made for the cycle engine: issue 50 part 2), made as the lab made dev and test (make_records.sh,
# make_corpus.py: the same engine mixes and rules, 2 games a match), from selfplay seeds
# 5000+k (2 players), 5100+k (3), 5200+k (4), 5300+k (partnerships), the positions drawn with
# seed 509. Never read before the cycle method is frozen (cyc_method.py): its one
# fresh held-out measurement. Records in corpus/records_fresh/, the set in corpus/fresh.jsonl.
set -euo pipefail
B=/work/venvs/lab50/bin/bergen
OUT=/work/lab50/settle/corpus/records_fresh
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
play fresh 5000 p2  "--players 2"                 "${MIX2[@]}"
play fresh 5100 p3  "--players 3"                 "${MIX3[@]}"
play fresh 5200 p4  "--players 4"                 "${MIX4[@]}"
play fresh 5300 p4p "--players 4 --partnerships"  "${MIX4[@]}"
cd /tmp && /work/venvs/lab50/bin/python /work/lab50/settle/make_fresh_corpus.py
