from libc.stdint cimport uint8_t, uint64_t
from tuong.engine.position cimport Position, Move

cdef enum GenMode:
    GEN_ALL = 0
    GEN_CAPTURES = 1
    GEN_QUIETS = 2

# What legality testing needs to know about one position. Pseudo-legal moves
# that neither start nor end on a "danger" square (the blocker that alone
# shields the king from an enemy rook or king, either of the two in front of
# a cannon, an empty square between him and a cannon with no screen, the
# leg of an enemy horse aimed at him) and are not king moves cannot expose
# the king, so only the rest are tested.
cdef struct Legality:
    int king
    int in_check
    uint64_t danger[4]        # a bit per square (256 bits: cheap to clear)


cdef int is_attacked(const Position* p, int sq, int by_side) noexcept nogil
cdef int in_check(const Position* p) noexcept nogil
cdef int generate(const Position* p, Move* out, GenMode mode) noexcept nogil
cdef void prepare_legality(const Position* p, Legality* lg, int in_check=*) noexcept nogil
cdef int is_legal(Position* p, const Legality* lg, Move m) noexcept nogil
cdef int generate_legal(Position* p, Move* out) noexcept nogil
cdef int has_legal_move(Position* p) noexcept nogil
cdef uint64_t perft(Position* p, int depth) noexcept nogil
