#!/bin/bash
# gen7's data: gen6's self-play (engine/default.nnue since a798f02) at 3,000 nodes a move, seed 11.
# The same command goes on where the file stops (its count sets the next seeds). CONCURRENCY=2
# when nothing else runs. Counts as they grow: docs/testing.md, "Training data".
DATA=${DATA:-/work/data}
mkdir -p "$DATA"
exec nice -n 19 tuong-datagen --out "$DATA/gen7.bin" --positions 20000000 --nodes 3000 \
  --concurrency "${CONCURRENCY:-1}" --seed 11 --eval-file "$(dirname "$0")/gen6.nnue" \
  >> "$DATA/gen7.log" 2>&1
