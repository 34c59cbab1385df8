from libc.stdint cimport uint8_t, uint16_t, int16_t, uint64_t
from engine.game cimport MATE_BOUND

cdef enum Bound:
    BOUND_NONE = 0            # no score: the entry keeps a move (and eval) only
    BOUND_UPPER = 1           # score <= true value (failed low)
    BOUND_LOWER = 2           # score >= true value (failed high)
    BOUND_EXACT = 3

# One entry as the search reads it: a decoded copy, never a pointer into the
# table (another search thread may be rewriting the slot meanwhile).
cdef struct TTEntry:
    uint16_t move
    int16_t score             # mate scores relative to this node
    int16_t eval
    uint8_t depth
    uint8_t age_bound         # generation << 2 | bound

# As stored: the entry packed into one 64-bit word, and the key XOR-ed with
# it. Threads read and write slots without locks; a slot torn by two writers
# (or read half-written) fails the XOR check and reads as a miss.
cdef struct TTSlot:
    uint64_t check            # key ^ data
    uint64_t data

# Four slots of 16 bytes: one 64-byte cache line.
cdef struct TTBucket:
    TTSlot slots[4]

cdef struct TTable:
    TTBucket* buckets
    void* memory              # what malloc returned (buckets is aligned in it)
    uint64_t count            # number of buckets
    uint8_t generation

cdef int tt_resize(TTable* tt, size_t megabytes) noexcept nogil
cdef void tt_free(TTable* tt) noexcept nogil
cdef void tt_clear(TTable* tt) noexcept nogil
cdef void tt_new_search(TTable* tt) noexcept nogil
cdef int tt_probe(TTable* tt, uint64_t key, TTEntry* out) noexcept nogil
cdef void tt_store(TTable* tt, uint64_t key, uint16_t move, int score, int eval,
                   int depth, int bound) noexcept nogil
cdef int tt_hashfull(const TTable* tt) noexcept nogil


cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    # Forced results are stored as distance from this node, not from
    # the root.
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score
