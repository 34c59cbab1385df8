# The transposition table: buckets of four entries, one cache line each.
# Replacement keeps deep entries of the current search and evicts the
# shallowest, preferring entries left over from earlier searches.

from libc.stdint cimport uintptr_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

cdef extern from *:
    """
    /* The high half of a 64x64-bit product maps a key onto [0, count)
       without a division, and leaves the low bits free for verification. */
    static inline uint64_t tt_bucket_index(uint64_t key, uint64_t count) {
        return (uint64_t) (((unsigned __int128) key * count) >> 64);
    }
    """
    uint64_t tt_bucket_index(uint64_t key, uint64_t count) nogil


cdef int tt_resize(TTable* tt, size_t megabytes) noexcept nogil:
    cdef uint64_t count = (<uint64_t> megabytes << 20) // sizeof(TTBucket)
    cdef void* memory
    if count < 1:
        count = 1
    memory = malloc(count * sizeof(TTBucket) + 64)
    if memory is NULL:
        return 0
    tt_free(tt)
    tt.memory = memory
    tt.buckets = <TTBucket*> ((<uintptr_t> memory + 63) & ~(<uintptr_t> 63))
    tt.count = count
    tt_clear(tt)
    return 1


cdef void tt_free(TTable* tt) noexcept nogil:
    free(tt.memory)
    tt.memory = NULL
    tt.buckets = NULL
    tt.count = 0


cdef void tt_clear(TTable* tt) noexcept nogil:
    memset(tt.buckets, 0, tt.count * sizeof(TTBucket))
    tt.generation = 0


cdef void tt_new_search(TTable* tt) noexcept nogil:
    tt.generation = (tt.generation + 1) & 63


cdef inline TTBucket* bucket_of(TTable* tt, uint64_t key) noexcept nogil:
    return &tt.buckets[tt_bucket_index(key, tt.count)]


cdef TTEntry* tt_probe(TTable* tt, uint64_t key) noexcept nogil:
    cdef TTBucket* b = bucket_of(tt, key)
    cdef int i
    for i in range(4):
        if b.entries[i].key == key and b.entries[i].age_bound & 3:
            return &b.entries[i]
    return NULL


cdef void tt_store(TTable* tt, uint64_t key, uint16_t move, int score, int eval,
                   int depth, int bound) noexcept nogil:
    cdef TTBucket* b = bucket_of(tt, key)
    cdef TTEntry* victim = &b.entries[0]
    cdef TTEntry* e
    cdef int i, worth, worst = 1 << 30, age
    for i in range(4):
        e = &b.entries[i]
        if e.key == key or not (e.age_bound & 3):
            victim = e
            break
        # Each generation of age counts as eight plies of depth.
        age = (tt.generation - (e.age_bound >> 2)) & 63
        worth = e.depth - 8 * age
        if worth < worst:
            worst = worth
            victim = e
    if victim.key == key and move == 0:
        move = victim.move            # keep the best move we knew
    if victim.key == key and bound != BOUND_EXACT and depth + 2 < victim.depth \
            and (victim.age_bound >> 2) == tt.generation:
        return                        # a much deeper result of this search
    victim.key = key
    victim.move = move
    victim.score = <int16_t> score
    victim.eval = <int16_t> eval
    victim.depth = <uint8_t> (depth if depth > 0 else 0)
    victim.age_bound = <uint8_t> ((tt.generation << 2) | bound)


cdef int tt_hashfull(const TTable* tt) noexcept nogil:
    """Permille of sampled entries written by the current search."""
    cdef uint64_t i, n = 250 if tt.count > 250 else tt.count
    cdef int j, used = 0
    for i in range(n):
        for j in range(4):
            if (tt.buckets[i].entries[j].age_bound & 3) and \
                    (tt.buckets[i].entries[j].age_bound >> 2) == tt.generation:
                used += 1
    return <int> (used * 1000 // (n * 4))
