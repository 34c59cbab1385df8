#!/bin/bash
# gen5: 13,518,847 positions (gen4's 9,007,254 and 4,511,593 of gen4's self-play),
# two candidates on the same data, split and seed, one thread each: chunks as
# stretches of the files (gen4's recipe) and chunks mixed across them (--mix 4096).
cd /work/data
export PATH=/work/venv/bin:$PATH
DATA="gen3.bin gen3-dev.bin gen4.bin gen4-dev2.bin gen4-dev.bin gen5-dev.bin gen5-dev2.bin gen5.bin"
R=${RESUME:+--resume}
tuong-train $DATA -o gen5-h256.nnue --hidden 256 --epochs 10 --seed 5 --threads 1 --limit 13518847 $R >> train5-h256.log 2>&1 &
tuong-train $DATA -o gen5-h256m.nnue --hidden 256 --epochs 10 --seed 5 --threads 1 --limit 13518847 --mix 4096 $R >> train5-h256m.log 2>&1 &
wait
