#!/bin/bash
# gen7's candidates, when gen7.bin holds 20,000,000 positions (networks/gen7-datagen.sh):
# gen6's self-play only, two widths on the same data, split and seed, one core each:
# H = 256 (gen6's shape) and H = 512 (about 9% fewer nodes a second, docs/guide/network.md).
# RESUME=1 goes on from the checkpoints (a run survives the end of a session).
DATA=${DATA:-/work/data}
cd "$DATA" || exit 1
COMMON="--epochs 10 --seed 7 --threads 1 --limit 20000000"
R=${RESUME:+--resume}
nice -n 5 tuong-train gen7.bin -o gen7-h256.nnue --hidden 256 $COMMON $R >> train7-h256.log 2>&1 &
nice -n 5 tuong-train gen7.bin -o gen7-h512.nnue --hidden 512 $COMMON $R >> train7-h512.log 2>&1 &
wait
