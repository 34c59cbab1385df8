#!/bin/bash
# gen7 at H = 512 (the default) fine-tuned on gen8.bin (gen7's self-play, 3,000 nodes a move)
# with the games' results blended into the target (--lambda below 1; every network up to it
# trained on the search's score alone): the move-limit games of its SPRT against gen7 showed
# endings the evaluation rates won that the games draw (docs/design/search.md). gen7's K (585),
# the last 5% validate, and the run prints the starting network's loss on them first (epoch 0).
# One core; run it again to go on (--resume). LAMBDA=0.5 tries another blend beside it.
export PATH=/work/venv/bin:$PATH
DATA=${DATA:-/work/data}
H512=$(cd "$(dirname "$0")" && pwd)/gen7-h512.nnue
LAMBDA=${LAMBDA:-0.75}; LR=${LR:-0.0001}; EPOCHS=${EPOCHS:-3}
cd "$DATA" || exit 1
NET=h512-blend-l$LAMBDA.nnue
[ -e "$NET.ckpt" ] && R=--resume || R=
exec tuong-train gen8.bin -o "$NET" --init "$H512" --scale 585 --limit 7200000 --lr "$LR" \
  --lambda "$LAMBDA" --epochs "$EPOCHS" --seed 9 --threads 1 $R >> "train-h512-blend-l$LAMBDA.log" 2>&1
