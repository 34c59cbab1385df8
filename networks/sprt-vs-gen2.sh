#!/bin/bash
# The default network against gen2 (tests/data/gen2.nnue), same build: the issue's
# target is +150 Elo, its floor +60, so the SPRT's bounds are those two.
export PATH=/work/venv/bin:$PATH
NAME=${1:-gen6}
GEN2=$(cd "$(dirname "$0")/.." && pwd)/tests/data/gen2.nnue
tuong-match -engine name=$NAME cmd=tuong option.Hash=64 \
  -engine name=gen2 cmd=tuong option.Hash=64 option.EvalFile=$GEN2 \
  -each tc=10+0.1 -sprt elo0=60 elo1=150 -games 800 -concurrency 2 \
  -resign movecount=5 score=1000 -draw movenumber=60 movecount=8 score=10 \
  -pgnout /work/data/sprt-$NAME-gen2.pgn -resume > /work/data/sprt-$NAME-gen2.log 2>&1
