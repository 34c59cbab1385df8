from libc.stdint cimport uint8_t, uint16_t, int16_t, uint64_t

cdef enum Bound:
    BOUND_NONE = 0
    BOUND_UPPER = 1           # score <= true value (failed low)
    BOUND_LOWER = 2           # score >= true value (failed high)
    BOUND_EXACT = 3

# 16 bytes; four make a 64-byte bucket, one cache line.
cdef struct TTEntry:
    uint64_t key              # full key: no false hits worth mentioning
    uint16_t move
    int16_t score             # mate scores relative to this node
    int16_t eval
    uint8_t depth
    uint8_t age_bound         # generation << 2 | bound

cdef struct TTBucket:
    TTEntry entries[4]

cdef struct TTable:
    TTBucket* buckets
    void* memory              # what malloc returned (buckets is aligned in it)
    uint64_t count            # number of buckets
    uint8_t generation

cdef int tt_resize(TTable* tt, size_t megabytes) noexcept nogil
cdef void tt_free(TTable* tt) noexcept nogil
cdef void tt_clear(TTable* tt) noexcept nogil
cdef void tt_new_search(TTable* tt) noexcept nogil
cdef TTEntry* tt_probe(TTable* tt, uint64_t key) noexcept nogil
cdef void tt_store(TTable* tt, uint64_t key, uint16_t move, int score, int eval,
                   int depth, int bound) noexcept nogil
cdef int tt_hashfull(const TTable* tt) noexcept nogil
