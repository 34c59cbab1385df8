#!/bin/bash
# A candidate network ($1: the network file, $2: its name) against a base network ($3, a file
# named, so the script means the same when the default changes), same build, 10 s + 0.1 s,
# bounds [0, 30] and adjudication as every network's SPRT since gen4. Run again to resume.
# CONCURRENCY=1 leaves a core to something else (a training); -resume takes either.
export PATH=/work/venv/bin:$PATH
[ $# -eq 3 ] || { echo "usage: $0 NETWORK NAME BASE-NETWORK" >&2; exit 2; }
NET=$(realpath "$1") || exit 1; NAME=$2; BASE=$(realpath "$3") || exit 1
BASE_NAME=$(basename "$BASE" .nnue)
# A network the engine cannot read would leave it on its own (tuong-match stops too).
for F in "$NET" "$BASE"; do
  python -c "from tuong.engine import network; network.read('$F')" || exit 1
done
tuong-match -engine name=$NAME cmd=tuong option.Hash=64 option.EvalFile=$NET \
  -engine name=$BASE_NAME cmd=tuong option.Hash=64 option.EvalFile=$BASE \
  -each tc=10+0.1 -sprt elo0=0 elo1=30 -games 800 -concurrency ${CONCURRENCY:-2} \
  -resign movecount=5 score=1000 -draw movenumber=60 movecount=8 score=10 \
  -pgnout /work/data/sprt-$NAME.pgn -resume >> /work/data/sprt-$NAME.log 2>&1
