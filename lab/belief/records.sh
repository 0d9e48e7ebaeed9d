set -e
cd "${1:-.}"
uptime > gen_fast.load
bergen selfplay --games 4000 --seed 43001 --engine ismcts:iterations=2000 --out train_it2000.jsonl --quiet
bergen selfplay --games 600 --seed 43101 --engine ismcts:iterations=2000 --out heldout_it2000.jsonl --quiet
bergen selfplay --games 1500 --seed 43003 --players 3 --engine ismcts:iterations=2000 --out train3_it2000.jsonl --quiet
bergen selfplay --games 1500 --seed 43004 --players 4 --engine ismcts:iterations=2000 --out train4_it2000.jsonl --quiet
bergen selfplay --games 1500 --seed 43005 --players 4 --partnerships --engine ismcts:iterations=2000 --out trainp_it2000.jsonl --quiet
bergen selfplay --games 300 --seed 43103 --players 3 --engine ismcts:iterations=2000 --out heldout3_it2000.jsonl --quiet
bergen selfplay --games 300 --seed 43104 --players 4 --engine ismcts:iterations=2000 --out heldout4_it2000.jsonl --quiet
bergen selfplay --games 300 --seed 43105 --players 4 --partnerships --engine ismcts:iterations=2000 --out heldoutp_it2000.jsonl --quiet
uptime >> gen_fast.load
