#!/bin/bash
# gen9's data (issue 57): h512-blend's self-play (networks/h512-blend.nnue, the shipped network),
# seed 13.
exec "$(dirname "$0")/selfplay-data.sh" gen9 h512-blend.nnue 13
