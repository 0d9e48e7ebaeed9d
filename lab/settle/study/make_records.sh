#!/bin/bash
# Section 1, step 1: the matches the corpus is cut from (and the 6 matches of section 4).
# Bots other than the default engine only: greedy, random, flat, expectimax (their default
# budgets: flat 2,000 pulls, expectimax 64 worlds per move) and ismcts:iterations=300.
# dev records: selfplay seeds 1000+k; test records: 2000+k; analyze matches: 3000+k.
# Deterministic: the same command gives the same records byte for byte.
set -euo pipefail
B=${BERGEN:-/work/venvs/lab50/bin/bergen}
OUT=${OUT:-/work/lab50/corpus/records}
mkdir -p "$OUT"
cd "$OUT"
: > MANIFEST.tsv   # file, seed, engines, rule flags: what make_corpus.py reads as each position's source
I3=ismcts:iterations=300

# config name | rule flags | engine mixes (one spec per seat)
MIX2=("greedy,flat" "expectimax,random" "$I3,expectimax" "flat,$I3" "random,greedy" "$I3,greedy")
MIX3=("greedy,flat,expectimax" "$I3,random,greedy" "expectimax,$I3,flat" "random,flat,$I3")
MIX4=("greedy,flat,expectimax,$I3" "random,expectimax,greedy,flat" "$I3,greedy,flat,random" "expectimax,$I3,random,greedy")

play() {  # set base config flags mixes...
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

for set in dev test; do
  if [ $set = dev ]; then b=1000; else b=2000; fi
  play $set $((b + 0))  p2  "--players 2"                 "${MIX2[@]}"
  play $set $((b + 100)) p3  "--players 3"                "${MIX3[@]}"
  play $set $((b + 200)) p4  "--players 4"                "${MIX4[@]}"
  play $set $((b + 300)) p4p "--players 4 --partnerships" "${MIX4[@]}"
done

# Section 4: six independent matches (one game each), 2-4 players, non-default bots.
an() {  # name seed engines flags
  local f="analyze_$1.jsonl"
  # shellcheck disable=SC2086
  [ -s "$f" ] || "$B" selfplay --games 1 --seed "$2" --engine "$3" $4 --quiet --out "$f" --force
  printf '%s\tseed=%s\tengine=%s\tflags=%s\n' "$f" "$2" "$3" "$4" >> MANIFEST.tsv
}
an a1_p2 3001 "greedy,expectimax" "--players 2"
an a2_p2 3002 "flat,$I3" "--players 2"
an a3_p3 3003 "expectimax,random,flat" "--players 3"
an a4_p3 3004 "$I3,greedy,expectimax" "--players 3"
an a5_p4 3005 "flat,greedy,$I3,expectimax" "--players 4"
an a6_p4p 3006 "expectimax,random,$I3,flat" "--players 4 --partnerships"
cat MANIFEST.tsv
