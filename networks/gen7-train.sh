#!/bin/bash
# gen7's candidates, when gen7.bin holds 20,000,000 positions (networks/gen7-datagen.sh):
# gen6's self-play only, two widths on the same data, split and seed, one core each:
# H = 256 (gen6's shape) and H = 512 (about 9% fewer nodes a second, docs/measurements/network.md).
# Run it again to go on: each run resumes from its checkpoint if it has one.
export PATH=/work/venv/bin:$PATH
DATA=${DATA:-/work/data}
cd "$DATA" || exit 1
# Not before the data are all there: a run on fewer would train, then refuse to resume
# once the file had grown (its checkpoint names the count it trained on).
HAVE=$(python -c "from tuong.tools.training import dataset; print(dataset.count('gen7.bin'))") || exit 1
[ "$HAVE" -ge 20000000 ] || { echo "gen7.bin holds $HAVE positions: wait for 20,000,000" >&2; exit 1; }
COMMON="--epochs 10 --seed 7 --threads 1 --limit 20000000"
for H in 256 512; do
  NET=gen7-h$H.nnue
  [ -e "$NET.ckpt" ] && R=--resume || R=
  nice -n 5 tuong-train gen7.bin -o $NET --hidden $H $COMMON $R >> train7-h$H.log 2>&1 &
done
wait
