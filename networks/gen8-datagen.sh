#!/bin/bash
# gen8's data (issue 57): gen7's self-play (networks/gen7.nnue, the shipped network then), seed 12.
exec "$(dirname "$0")/selfplay-data.sh" gen8 gen7.nnue 12
