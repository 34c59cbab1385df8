#!/bin/bash
# A candidate network ($1: the network file, $2: its name) against gen6 (networks/gen6.nnue,
# named, so the script means the same when the default changes), same build, 10 s + 0.1 s,
# bounds [0, 30] and adjudication as gen4's and gen6's SPRTs. Run again to resume.
# CONCURRENCY=1 leaves a core to something else (a training); -resume takes either.
export PATH=/work/venv/bin:$PATH
[ $# -eq 2 ] || { echo "usage: $0 NETWORK NAME" >&2; exit 2; }
NET=$(realpath "$1") || exit 1; NAME=$2; GEN6=$(cd "$(dirname "$0")" && pwd)/gen6.nnue
# A network the engine cannot read would leave it on its own (tuong-match stops too).
python -c "from tuong.engine import network; network.read('$NET')" || exit 1
tuong-match -engine name=$NAME cmd=tuong option.Hash=64 option.EvalFile=$NET \
  -engine name=gen6 cmd=tuong option.Hash=64 option.EvalFile=$GEN6 \
  -each tc=10+0.1 -sprt elo0=0 elo1=30 -games 800 -concurrency ${CONCURRENCY:-2} \
  -resign movecount=5 score=1000 -draw movenumber=60 movecount=8 score=10 \
  -pgnout /work/data/sprt-$NAME.pgn -resume >> /work/data/sprt-$NAME.log 2>&1
