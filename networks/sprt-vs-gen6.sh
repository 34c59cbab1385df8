#!/bin/bash
# A candidate network ($1: the network file, $2: its name) against gen6 (networks/gen6.nnue):
# gen7's SPRTs (sprt-network.sh says how). Run again to resume.
exec "$(dirname "$0")/sprt-network.sh" "$1" "$2" "$(dirname "$0")/gen6.nnue"
