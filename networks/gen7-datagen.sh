#!/bin/bash
# gen7's data: gen6's self-play (engine/default.nnue since a798f02), seed 11.
exec "$(dirname "$0")/selfplay-data.sh" gen7 gen6.nnue 11
