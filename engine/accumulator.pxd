# The network's accumulators as a position carries them (engine/nnue.pyx
# fills and reads them; engine/position.pxd keeps them in the Position).
# Plain structs and sizes, cimporting nothing, so that the position can
# hold them without a circle of cimports.
#
# A ring of NN_RING entries, one a ply: make writes the next entry from the
# one below it (the moved and captured pieces' columns added and taken
# away), unmake steps back. The ring is valid while `generation` equals the
# network's (a network loaded later makes every ring stale) and `depth` >
# 0; a stale ring, or one unmade below its oldest entry, is recomputed from
# the board when it is next needed (a refresh).

from libc.stdint cimport int16_t, int32_t

cdef enum:
    NN_MAX_HIDDEN = 512         # accumulator values a perspective, at most
    NN_RING = 64                # plies the ring remembers

cdef struct Accumulator:
    int16_t values[2][NN_MAX_HIDDEN]    # [perspective: RED, BLACK][hidden]
    int32_t psqt[2]                     # the direct piece-square path (output units)
    int32_t view[2]                     # each perspective's feature block and mirror
                                        # (engine/nnue.pyx's king buckets); -1: to refresh

cdef struct AccumulatorRing:
    int generation              # the network these were computed for (0: none)
    int top                     # the entry of the current position
    int depth                   # valid entries, top included, down the ring
    Accumulator entries[NN_RING]
