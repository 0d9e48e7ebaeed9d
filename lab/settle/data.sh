#!/usr/bin/env bash
# The settle study's data, made again into lab/settle/data/ (out of git), one core:
#
#   lab/settle/data.sh corpus   the self-play records (data/records/, 168 matches of bots other
#                               than the default engine) and the four sets of 60 positions
#                               (data/corpus/{dev,test,val,fresh}.jsonl)           (~5 min)
#   lab/settle/data.sh judges   today's search (settle=off) of every position: 1.6M and 320k
#                               s41, s42 of every set, 100k s1-3 of dev and test, 50k s51, s52,
#                               200k s21, 400k s21, 800k s31 of dev (data/judges.jsonl) (~40 min)
#   lab/settle/data.sh probes   the cycle probes (data/cyc.jsonl: dev; data/cyc_held.jsonl:
#                               test, val, fresh): 100k s1 deepened to 1.6M, 100k s2, s3, 20k
#                               s1-3; and dev's product cycles at 1.6M s41          (~20 min)
#   lab/settle/data.sh          all three, in that order (about an hour on an idle core)
#
# Every step is resumable (what a file has is not made again). The bots' ismcts plays with
# settle=off, the engine the records were first played with. Run from anywhere, with the
# package installed (bergen on the PATH).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python}
mkdir -p data/records data/corpus

records() {
  cd data/records
  : > MANIFEST.tsv   # file, seed, engines, rule flags: what make_corpus.py reads as each position's source
  local I3=ismcts:iterations=300,settle=off
  local MIX2=("greedy,flat" "expectimax,random" "$I3,expectimax" "flat,$I3" "random,greedy" "$I3,greedy")
  local MIX3=("greedy,flat,expectimax" "$I3,random,greedy" "expectimax,$I3,flat" "random,flat,$I3")
  local MIX4=("greedy,flat,expectimax,$I3" "random,expectimax,greedy,flat" "$I3,greedy,flat,random" "expectimax,$I3,random,greedy")
  play() {  # set base config flags mixes...
    local set=$1 base=$2 cfg=$3 flags=$4; shift 4
    local k=0
    for mix in "$@"; do
      local seed=$((base + k)) f="${set}_${cfg}_m${k}.jsonl"
      # shellcheck disable=SC2086
      [ -s "$f" ] || bergen selfplay --games 2 --seed "$seed" --engine "$mix" $flags --quiet --out "$f" --force
      printf '%s\tseed=%s\tengine=%s\tflags=%s\n' "$f" "$seed" "$mix" "$flags" >> MANIFEST.tsv
      k=$((k + 1))
    done
  }
  local set b
  for set in dev:1000 test:2000 val:4000 fresh:5000; do
    b=${set#*:}; set=${set%:*}
    play "$set" "$b"         p2  "--players 2"                 "${MIX2[@]}"
    play "$set" $((b + 100)) p3  "--players 3"                 "${MIX3[@]}"
    play "$set" $((b + 200)) p4  "--players 4"                 "${MIX4[@]}"
    play "$set" $((b + 300)) p4p "--players 4 --partnerships"  "${MIX4[@]}"
  done
  cd ../..
}

corpus() {
  records
  $PY make_corpus.py dev test val fresh
}

judges() {
  local s
  for s in dev test val fresh; do
    nice -n 5 $PY judges.py $s 1600000 41 42
    nice -n 5 $PY judges.py $s 320000 41 42
  done
  for s in dev test; do nice -n 5 $PY judges.py $s 100000 1 2 3; done
  nice -n 5 $PY judges.py dev 50000 51 52
  nice -n 5 $PY judges.py dev 200000 21
  nice -n 5 $PY judges.py dev 400000 21
  nice -n 5 $PY judges.py dev 800000 31
}

probes() {
  DEEPEN=4 nice -n 5 $PY cyc_probe.py dev 100000 1
  nice -n 5 $PY cyc_probe.py dev 100000 2 3
  nice -n 5 $PY cyc_probe.py dev 20000 1 2 3
  nice -n 5 $PY cyc_probe.py dev 1600000 41
  local s
  for s in test val fresh; do
    TAG=held DEEPEN=4 nice -n 5 $PY cyc_probe.py $s 100000 1
    TAG=held nice -n 5 $PY cyc_probe.py $s 100000 2 3
    TAG=held nice -n 5 $PY cyc_probe.py $s 20000 1 2 3
  done
}

case "${1:-all}" in
  corpus) corpus ;;
  judges) judges ;;
  probes) probes ;;
  all) corpus; judges; probes ;;
  *) echo "usage: data.sh [corpus|judges|probes]" >&2; exit 2 ;;
esac
