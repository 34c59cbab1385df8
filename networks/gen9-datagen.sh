#!/bin/bash
# gen9's data (issue 57): h512-blend's self-play (networks/h512-blend.nnue, the shipped network)
# at 3,000 nodes a move, seed 13. The same command goes on where the file stops (its count sets
# the next seeds); nice 19, so it takes only what the session's other work leaves. CONCURRENCY=2
# when nothing else runs. Counts as they grow: docs/testing.md, "Training data".
DATA=${DATA:-/work/data}
mkdir -p "$DATA"
# nice alone weighs only within an autogroup: a run started from its own session
# (setsid) is an autogroup of its own, so the group is niced too where Linux allows.
echo 19 > /proc/self/autogroup 2>/dev/null || true
exec nice -n 19 tuong-datagen --out "$DATA/gen9.bin" --positions 20000000 --nodes 3000 \
  --concurrency "${CONCURRENCY:-1}" --seed 13 --eval-file "$(dirname "$0")/h512-blend.nnue" \
  >> "$DATA/gen9.log" 2>&1
