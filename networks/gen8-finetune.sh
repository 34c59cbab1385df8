#!/bin/bash
# gen8 (issue 57): gen7 (networks/gen7.nnue) fine-tuned on gen8.bin's first 6,700,000 positions
# (gen7's self-play, networks/gen8-datagen.sh) with gen7's K (585), seed 8, one core. The last
# 5% validate, and the run prints gen7's own loss on them first (epoch 0: 0.000885).
# Shipped: --lr 0.0001, 3 epochs (0.000837, 0.000836, 0.000834; epoch 3 kept). Tried beside it
# with 6 epochs: --lr 0.0003 (best 0.000840 at epoch 1) and --lr 0.001 (0.000860 at epoch 1,
# rising after; stopped at epoch 4): LR=0.0003 EPOCHS=6 runs one again.
# Run it again to go on (--resume).
export PATH=/work/venv/bin:$PATH
DATA=${DATA:-/work/data}
GEN7=$(cd "$(dirname "$0")" && pwd)/gen7.nnue
LR=${LR:-0.0001}; EPOCHS=${EPOCHS:-3}
cd "$DATA" || exit 1
NET=gen8-ft-lr$LR.nnue
[ -e "$NET.ckpt" ] && R=--resume || R=
exec tuong-train gen8.bin -o "$NET" --init "$GEN7" --scale 585 --limit 6700000 --lr "$LR" \
  --epochs "$EPOCHS" --seed 8 --threads 1 $R >> "train8-ft-lr$LR.log" 2>&1
