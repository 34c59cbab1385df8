#!/bin/bash
# A candidate network ($1: the network file, $2: its name) against gen4, the default, same build.
export PATH=/work/venv/bin:$PATH
NET=$1; NAME=$2
tuong-match -engine name=$NAME cmd=tuong option.Hash=64 option.EvalFile=$NET \
  -engine name=gen4 cmd=tuong option.Hash=64 \
  -each tc=10+0.1 -sprt elo0=0 elo1=30 -games 800 -concurrency 2 \
  -resign movecount=5 score=1000 -draw movenumber=60 movecount=8 score=10 \
  -pgnout /work/data/sprt-$NAME.pgn -resume > /work/data/sprt-$NAME.log 2>&1
