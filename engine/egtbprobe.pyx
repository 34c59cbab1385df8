# The tablebases in the search: the tables installed (from Python: the
# TablebasePath option) and the probe of a position, without the GIL.

from libc.stdint cimport uint8_t, int64_t, uint64_t
from tuong.engine.position cimport Position, KIND_OF, file_of, rank_of
from tuong.engine.egtb cimport Table
from tuong.engine.egtblayout cimport Spec, Pos, DRAW, encode, flipped_square

from tuong.engine.egtblayout import draws_proven

cdef extern from *:
    """
    static inline void egtb_probe_count(long long* p) {
        __atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
    }
    """
    void egtb_probe_count(long long* p) nogil

#
# Installed from Python (protocol: the TablebasePath option) and probed by the
# search without the GIL: a sorted array of material keys, each with its
# table and whether the position's colours must be flipped to match it.

cdef struct Entry:
    uint64_t key                 # 3 bits per (colour, kind): the count of such pieces
    const Spec* spec
    const uint8_t* values
    int flip
    int draws                    # draws_proven: else a draw is no answer

cdef Entry ENTRIES[2048]
cdef int ENTRY_COUNT = 0
cdef int MAX_PIECES = 0
cdef long long HITS = 0
_installed = []                  # the Tables in ENTRIES, kept alive


cdef inline uint64_t material_bit(int colour, int kind) noexcept nogil:
    return (<uint64_t>1) << (3 * (colour * 7 + kind))


def material_key(pieces):
    """The key of [(colour, kind)]."""
    key = 0
    for colour, kind in pieces:
        key += material_bit(colour, kind)
    return key


def install(tables):
    """Make the search probe these Tables (both colourings of each); [] for none."""
    global ENTRY_COUNT, MAX_PIECES
    tables = list(tables)            # walked twice below: a generator would be empty the second time
    entries = []
    for table in tables:
        pieces = table.pieces()
        key = material_key(pieces)
        entries.append((key, table, 0))
        flipped = material_key([(1 - c, k) for c, k in pieces])
        if flipped != key:
            entries.append((flipped, table, 1))
    if len(entries) > 2048:
        raise ValueError(f"{len(entries)} table colourings: at most 2048 are probed")
    entries.sort(key=lambda e: e[0])
    ENTRY_COUNT = 0
    _installed[:] = [table for _, table, _ in entries]
    cdef Table held
    pieces_of = [table.pieces() for _, table, _ in entries]
    for i, (key, table, flip) in enumerate(entries):
        held = table
        ENTRIES[i].key = key
        ENTRIES[i].spec = &held.spec
        ENTRIES[i].values = held.values
        ENTRIES[i].flip = flip
        ENTRIES[i].draws = draws_proven(pieces_of[i])
    MAX_PIECES = max([len(table.pieces()) for table in tables], default=0)
    ENTRY_COUNT = len(entries)


def hits():
    """Probes answered since the last reset_hits()."""
    return HITS


def reset_hits():
    global HITS
    HITS = 0


cdef int probe_position(const Position* p, int* value) noexcept nogil:
    """The value byte of the engine's position if a table holds it, else 0."""
    if ENTRY_COUNT == 0:
        return 0
    cdef int id_, sq, n = 0, kind, colour, j, lo, hi, mid
    cdef int squares[32]
    cdef int kinds[32]
    cdef uint64_t key = 0
    for id_ in range(16, 48):
        sq = p.square[id_]
        if sq == 0:
            continue
        if n == MAX_PIECES:
            return 0
        kind = KIND_OF[p.board[sq]]
        kinds[n] = kind
        squares[n] = rank_of(sq) * 9 + file_of(sq)
        key += material_bit(kind // 7, kind % 7)
        n += 1
    lo = 0
    hi = ENTRY_COUNT - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ENTRIES[mid].key < key:
            lo = mid + 1
        else:
            hi = mid
    if ENTRIES[lo].key != key:
        return 0
    cdef const Entry* e = &ENTRIES[lo]
    cdef const Spec* s = e.spec
    cdef Pos q
    cdef int used[32]
    for j in range(n):
        used[j] = 0
    for j in range(s.n):                 # each table piece takes the next like piece
        for id_ in range(n):
            colour = kinds[id_] // 7
            if not used[id_] and (colour ^ e.flip) == s.colour[j] and kinds[id_] % 7 == s.kind[j]:
                used[id_] = 1
                q.sq[j] = flipped_square(squares[id_]) if e.flip else squares[id_]
                break
    q.side = p.side ^ e.flip
    cdef int64_t index = encode(s, &q)
    if index < 0 or (e.values[index] == DRAW and not e.draws):
        return 0
    value[0] = e.values[index]
    egtb_probe_count(&HITS)
    return 1
