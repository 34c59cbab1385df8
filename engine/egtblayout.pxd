# The layout of a tablebase (engine/egtblayout.pyx): the pieces of an
# endgame, the squares each can stand on, a position's index, and the
# folded values a file stores. The generator (egtb.pyx) and the search's
# probe (egtbprobe.pyx) both index tables through it.
from libc.stdint cimport uint8_t, int64_t
from libc.string cimport memset

# The piece types are the engine's (K A E H R C P = 0..6).
from tuong.engine.position cimport KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN

cdef enum:
    MAXP = 12            # pieces in a table at most
    MAXG = 12
    DRAW = 0
    INVALID = 255


cdef struct Spec:
    int n                       # pieces
    int colour[MAXP]
    int kind[MAXP]
    int ngroups
    int gstart[MAXG]            # first piece of each group (like pieces share a group)
    int gsize[MAXG]             # 1 or 2
    int dsize[MAXG]             # squares in the group's domain
    int dom[MAXG][90]           # the domain's squares
    int dpos[MAXG][90]          # square -> position in the domain, -1 outside
    int radix[MAXG]             # index digits: dsize, or dsize*(dsize-1)/2 for a pair
    int64_t size                # positions, both sides to move


cdef struct Pos:
    int sq[MAXP]                # -1: captured
    uint8_t board[90]           # 0 empty, else 1 + piece number
    int side


cdef inline int64_t pair_index(int a, int b) noexcept nogil:
    # a < b: the pairs (0,1), (0,2), (1,2), (0,3), ... numbered in that order
    return <int64_t>b * (b - 1) // 2 + a


# The index of a position and its inverse: inline, as every pass of the
# generator runs them.
cdef inline int64_t encode(const Spec* s, const Pos* p) noexcept nogil:
    """The index of a position (its pieces all on their domains), -1 if not."""
    cdef int64_t index = 0
    cdef int g, a, b, t
    for g in range(s.ngroups):
        a = s.dpos[g][p.sq[s.gstart[g]]]
        if a < 0:
            return -1
        if s.gsize[g] == 2:
            b = s.dpos[g][p.sq[s.gstart[g] + 1]]
            if b < 0 or a == b:
                return -1
            if a > b:
                t = a
                a = b
                b = t
            index = index * s.radix[g] + pair_index(a, b)
        else:
            index = index * s.radix[g] + a
    return index * 2 + p.side


cdef inline bint decode(const Spec* s, int64_t index, Pos* p) noexcept nogil:
    """Set up position `index`; False if two pieces share a square."""
    cdef int g, i, digit, a, b
    cdef int64_t rest = index >> 1
    p.side = <int>(index & 1)
    memset(p.board, 0, 90)
    for g in range(s.ngroups - 1, -1, -1):
        digit = <int>(rest % s.radix[g])
        rest //= s.radix[g]
        i = s.gstart[g]
        if s.gsize[g] == 2:
            b = 1
            while <int64_t>(b + 1) * b // 2 <= digit:
                b += 1
            a = digit - b * (b - 1) // 2
            p.sq[i] = s.dom[g][a]
            p.sq[i + 1] = s.dom[g][b]
        else:
            p.sq[i] = s.dom[g][digit]
    for i in range(s.n):
        if p.board[p.sq[i]]:
            return False
        p.board[p.sq[i]] = <uint8_t>(i + 1)
    return True


cdef int flipped_square(int sq) noexcept nogil
cdef int init_spec(Spec* s, str name) except -1
cdef bytes fold(const Spec* s, const uint8_t* values)
cdef int unfold(const Spec* s, uint8_t* values, bytes data, str name) except -1
cdef int64_t folded_size(const Spec* s)
