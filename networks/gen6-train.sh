#!/bin/bash
# gen6: 20,000,000 positions (gen4's 9,007,254 and 10,992,746 of gen4's self-play),
# two candidates on the same data, split and seed, one thread each: chunks as
# stretches of the files in a random order (gen4's recipe), and the same with
# gen4's own games last in every epoch (--newest: the 9,992,746 of them before
# the 1,000,000 that validate). RESUME=1 goes on from the checkpoints.
cd /work/data
export PATH=/work/venv/bin:$PATH
DATA="gen3.bin gen3-dev.bin gen4.bin gen4-dev2.bin gen4-dev.bin gen5-dev.bin gen5-dev2.bin gen5.bin"
COMMON="--hidden 256 --epochs 10 --seed 6 --threads 1 --limit 20000000"
R=${RESUME:+--resume}
tuong-train $DATA -o gen6-h256.nnue $COMMON $R >> train6-h256.log 2>&1 &
tuong-train $DATA -o gen6-h256n.nnue $COMMON --newest 9992746 $R >> train6-h256n.log 2>&1 &
wait
