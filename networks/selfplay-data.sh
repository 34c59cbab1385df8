#!/bin/bash
# A generation's training data: NETWORK's self-play at 3,000 nodes a move into $DATA/NAME.bin,
# its progress appended to $DATA/NAME.log. Each generation's recipe (genN-datagen.sh) names its
# network and seed. The same command goes on where the file stops (its count sets the next
# seeds); nice 19, so it takes only what the session's other work leaves. CONCURRENCY=2 when
# nothing else runs. Counts as they grow: docs/testing.md, "Training data".
#   usage: selfplay-data.sh NAME NETWORK SEED     (NETWORK relative to networks/)
[ $# -eq 3 ] || { echo "usage: $0 NAME NETWORK SEED" >&2; exit 2; }
NAME=$1; NET=$(cd "$(dirname "$0")" && pwd)/$2; SEED=$3
[ -f "$NET" ] || { echo "$0: no network $NET" >&2; exit 2; }
command -v tuong-datagen > /dev/null || { echo "$0: tuong-datagen is not on PATH (activate the venv tuong is installed in)" >&2; exit 2; }
DATA=${DATA:-/work/data}
mkdir -p "$DATA"
# nice alone weighs only within an autogroup: a run started from its own session
# (setsid) is an autogroup of its own, so the group is niced too where Linux allows.
echo 19 > /proc/self/autogroup 2>/dev/null || true
exec nice -n 19 tuong-datagen --out "$DATA/$NAME.bin" --positions 20000000 --nodes 3000 \
  --concurrency "${CONCURRENCY:-1}" --seed "$SEED" --eval-file "$NET" >> "$DATA/$NAME.log" 2>&1
