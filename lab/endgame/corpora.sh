#!/usr/bin/env bash
# The stage corpora of endgame_stage.py and endgame_merge.py, made again into
# lab/endgame/data/ (out of git): self-play of the default engine, two seeds of 80 matches
# each. `corpora.sh` makes the first (20,000 iterations a move, about an hour on one core);
# `corpora.sh all` the two at the default 100,000 iterations too (several hours each).
#
# The records an engine plays change with the engine: these are today's engine's. The
# corpora every figure of BRACKET.md and docs/MEASUREMENTS.md was measured on are those of
# commit fa1c8c1 (`corpora.sh measured` copies them out of git: nothing is played).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = measured ]; then
    for name in stage_corpus stage_corpus_100k stage_corpus_100k_fresh; do
        git show "fa1c8c1:benchmarks/data/$name.jsonl.gz" > "data/$name.jsonl.gz"
    done
    exit 0
fi
corpus() {   # NAME ITERATIONS SEED SEED
    bergen selfplay --games 80 --seed "$3" --engine "ismcts:iterations=$2" --out "$tmp/a.jsonl" --quiet
    bergen selfplay --games 80 --seed "$4" --engine "ismcts:iterations=$2" --out "$tmp/b.jsonl" --quiet
    cat "$tmp/a.jsonl" "$tmp/b.jsonl" | gzip -9n > "data/$1.jsonl.gz"
    rm -f "$tmp/a.jsonl" "$tmp/b.jsonl"
}
corpus stage_corpus 20000 9101 9102
if [ "${1:-}" = all ]; then
    corpus stage_corpus_100k 100000 30301 30302
    corpus stage_corpus_100k_fresh 100000 30303 30304
fi
