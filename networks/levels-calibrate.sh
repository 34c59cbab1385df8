#!/bin/bash
# The playing levels' calibration (docs/guide/levels.md), run again for each new default
# network: the same parameters play at another strength with another network.
#   steps  100 games between neighbouring rungs: engine/levels.py's ANCHORS, by their Elo
#   anchors 100 games each: maxqi at 2+0.02 against level 2200, ElephantEye at depth 3
#          against 2400 and at depth 4 against 2700 (their stated Elo)
#   pairs  levels 200 apart, 100 games a pair
# Every game at 2 s + 0.02 s, two at a time; nothing else running (maxqi plays on a clock).
# ELEEYE is ElephantEye's binary (the build line is in the guide). Results in $OUT.
set -e
export PATH=/work/venv/bin:$PATH
ELEEYE=${ELEEYE:-/tmp/eleeye/eleeye.bin}
OUT=${OUT:-/work/data/levels}
mkdir -p "$OUT"
level() { echo "-engine name=tuong-$1 cmd=tuong option.UCI_LimitStrength=true option.UCI_Elo=$1 tc=2+0.02"; }
play() { local name=$1; shift
  tuong-match "$@" -games 100 -concurrency 2 -pgnout "$OUT/$name.pgn" -resume > "$OUT/$name.log" 2>&1
  grep -E '^Score|^Elo' "$OUT/$name.log"; }
RUNGS=$(python -c "from tuong.engine.levels import ANCHORS; print(*[a[0] for a in ANCHORS])")
case "$1" in
steps) set -- $RUNGS; low=$1; shift
       for high in "$@"; do play step-$high-$low $(level $high) $(level $low); low=$high; done ;;
anchors) play maxqi $(level 2200) -engine name=maxqi cmd=/usr/games/maxqi proto=xboard tc=2+0.02
         play eleeye-d3 $(level 2400) -engine name=eleeye-d3 cmd=$ELEEYE proto=ucci depth=3
         play eleeye-d4 $(level 2700) -engine name=eleeye-d4 cmd=$ELEEYE proto=ucci depth=4 ;;
pairs) top=${RUNGS##* }
       for low in $(seq 800 200 $((top - 200))); do play pair-$((low + 200))-$low $(level $((low + 200))) $(level $low); done ;;
*) echo "usage: $0 steps|anchors|pairs" >&2; exit 2 ;;
esac
