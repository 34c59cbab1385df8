# The transposition table: buckets of four slots, one cache line each,
# shared by all search threads without locks (see TTSlot in tt.pxd).
# Replacement keeps deep entries of the current search and evicts the
# shallowest, preferring entries left over from earlier searches.

from libc.stdlib cimport free
from libc.string cimport memset
from tuong.engine.game cimport NO_MOVE

cdef extern from *:
    """
    /* Slots are read and written by several threads: relaxed atomic
       accesses (plain moves on x86-64) keep each 64-bit word whole. */
    static inline uint64_t tt_load(uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void tt_put(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    /* The table on 2 MB pages where the kernel allows (Linux's transparent
       huge pages in "madvise" mode): a probe lands on a random cache line,
       and with 4 KB pages nearly every probe of a large table also misses
       the TLB. Elsewhere, plain 64-byte-aligned memory. */
    #include <stdlib.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    static void *tt_alloc(size_t size) {
        void *p = NULL;
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        size_t huge = (size_t) 2 << 20, rounded = (size + huge - 1) / huge * huge;
        if (size >= huge && posix_memalign(&p, huge, rounded) == 0) {
            madvise(p, rounded, MADV_HUGEPAGE);
            return p;
        }
    #endif
        if (posix_memalign(&p, 64, size) != 0)
            return NULL;
        return p;
    }
    """
    void* tt_alloc(size_t size) nogil
    uint64_t tt_load(uint64_t* p) nogil
    void tt_put(uint64_t* p, uint64_t v) nogil


cdef inline uint64_t pack(uint16_t move, int score, int eval, int depth, int age_bound) noexcept nogil:
    return (<uint64_t> move) | (<uint64_t> <uint16_t> score) << 16 \
        | (<uint64_t> <uint16_t> eval) << 32 | (<uint64_t> <uint8_t> depth) << 48 \
        | (<uint64_t> <uint8_t> age_bound) << 56


cdef inline void unpack(uint64_t data, TTEntry* e) noexcept nogil:
    e.move = <uint16_t> data
    e.score = <int16_t> <uint16_t> (data >> 16)
    e.eval = <int16_t> <uint16_t> (data >> 32)
    e.depth = <uint8_t> (data >> 48)
    e.age_bound = <uint8_t> (data >> 56)


cdef int tt_resize(TTable* tt, size_t megabytes) noexcept nogil:
    cdef uint64_t count = (<uint64_t> megabytes << 20) // sizeof(TTBucket)
    cdef TTBucket* buckets
    if count < 1:
        count = 1
    buckets = <TTBucket*> tt_alloc(count * sizeof(TTBucket))
    if buckets is NULL:
        return 0
    tt_free(tt)
    tt.buckets = buckets
    tt.count = count
    tt_clear(tt)
    return 1


cdef void tt_free(TTable* tt) noexcept nogil:
    free(tt.buckets)
    tt.buckets = NULL
    tt.count = 0


cdef void tt_clear(TTable* tt) noexcept nogil:
    memset(tt.buckets, 0, tt.count * sizeof(TTBucket))
    tt.generation = 0


cdef void tt_new_search(TTable* tt) noexcept nogil:
    tt.generation = (tt.generation + 1) & 63


cdef int tt_probe(TTable* tt, uint64_t key, TTEntry* out) noexcept nogil:
    """Copy the entry for `key` into *out and return 1, or return 0."""
    cdef TTBucket* b = &tt.buckets[tt_bucket_index(key, tt.count)]
    cdef uint64_t data
    cdef int i
    for i in range(4):
        data = tt_load(&b.slots[i].data)
        # data 0 is an empty slot; an entry with BOUND_NONE holds a move only.
        if data and tt_load(&b.slots[i].check) ^ data == key:
            unpack(data, out)
            return 1
    return 0


cdef void tt_store(TTable* tt, uint64_t key, uint16_t move, int score, int eval,
                   int depth, int bound) noexcept nogil:
    cdef TTBucket* b = &tt.buckets[tt_bucket_index(key, tt.count)]
    cdef TTSlot* victim = &b.slots[0]
    cdef TTEntry e, old
    cdef uint64_t data
    cdef int i, worth, worst = 1 << 30, age, same = 0
    # The slot of the same key, else the first empty one, else the one least
    # worth keeping (a slot holding a move only is worth least). Slots fill
    # in order and are never emptied, so no key lives past an empty slot.
    for i in range(4):
        data = tt_load(&b.slots[i].data)
        if data == 0:
            victim = &b.slots[i]
            break
        unpack(data, &e)
        if tt_load(&b.slots[i].check) ^ data == key:
            victim = &b.slots[i]
            old = e
            same = 1
            break
        if not (e.age_bound & 3):
            worth = -(1 << 29)
        else:
            # Each generation of age counts as eight plies of depth.
            age = (tt.generation - (e.age_bound >> 2)) & 63
            worth = e.depth - 8 * age
        if worth < worst:
            worst = worth
            victim = &b.slots[i]
    if same:
        if move == NO_MOVE:
            move = old.move               # keep the best move we knew
        if bound != BOUND_EXACT and depth + 2 < old.depth and (old.age_bound >> 2) == tt.generation:
            return                        # a much deeper result of this search
    data = pack(move, score, eval, depth if depth > 0 else 0, (tt.generation << 2) | bound)
    tt_put(&victim.data, data)
    tt_put(&victim.check, key ^ data)


cdef int tt_hashfull(const TTable* tt) noexcept nogil:
    """Permille of sampled entries written by the current search."""
    cdef uint64_t i, n = 250 if tt.count > 250 else tt.count
    cdef int j, used = 0
    cdef uint8_t age_bound
    for i in range(n):
        for j in range(4):
            age_bound = <uint8_t> (tt.buckets[i].slots[j].data >> 56)
            if (age_bound & 3) and (age_bound >> 2) == tt.generation:
                used += 1
    return <int> (used * 1000 // (n * 4))
