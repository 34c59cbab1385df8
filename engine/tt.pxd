from libc.stdint cimport uint8_t, uint16_t, int16_t, uint64_t
from tuong.engine.game cimport MATE_BOUND

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
    TTBucket* buckets         # from tt_alloc: cache-line aligned, huge pages where allowed
    uint64_t count            # number of buckets
    uint8_t generation

cdef extern from *:
    """
    /* The high half of a 64x64-bit product maps a key onto [0, count)
       without a division, and leaves the low bits free for verification. */
    static inline uint64_t tt_bucket_index(uint64_t key, uint64_t count) {
        return (uint64_t) (((unsigned __int128) key * count) >> 64);
    }
    #define tt_prefetch_line(address) __builtin_prefetch(address)
    """
    uint64_t tt_bucket_index(uint64_t key, uint64_t count) nogil
    void tt_prefetch_line(const void* address) nogil

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


cdef inline void tt_prefetch(const TTable* tt, uint64_t key) noexcept nogil:
    # Start loading key's bucket into the cache; a probe soon after finds it
    # there instead of waiting on memory.
    tt_prefetch_line(&tt.buckets[tt_bucket_index(key, tt.count)])


cdef inline int tt_cutoff(const TTEntry* entry, int ply, int alpha, int beta, int* score) noexcept nogil:
    """Whether the stored bound settles the window (alpha, beta): its score
    in `score`."""
    cdef int bound = entry.age_bound & 3
    score[0] = score_from_tt(entry.score, ply)
    return bound == BOUND_EXACT or (bound == BOUND_LOWER and score[0] >= beta) \
        or (bound == BOUND_UPPER and score[0] <= alpha)
