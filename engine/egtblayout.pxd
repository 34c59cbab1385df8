# The layout of a tablebase (engine/egtblayout.pyx): the pieces of an
# endgame, the squares each can stand on (and the steps between them), a
# position's index, and the folded values a file stores. The generator
# (egtb.pyx) and the search's probe (egtbprobe.pyx) both index tables
# through it.
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


# The table's own board: squares 0-89 (rank * 9 + file), Red's ranks 0-4.
# The steps of the pieces as (file, rank) parts, constants of every module
# that cimports them (the generator's moves, egtb.pyx, read them directly):
# the horse's eight jumps and, for each, the leg next to its start that
# must be empty; the four orthogonal and the four diagonal steps.
cdef extern from *:
    """
    static const int H_JUMP_F[8] = {1, -1, 1, -1, 2, 2, -2, -2};
    static const int H_JUMP_R[8] = {2, 2, -2, -2, 1, -1, 1, -1};
    static const int H_LEG_F[8] = {0, 0, 0, 0, 1, 1, -1, -1};
    static const int H_LEG_R[8] = {1, 1, -1, -1, 0, 0, 0, 0};
    static const int ORTH_F[4] = {1, -1, 0, 0};
    static const int ORTH_R[4] = {0, 0, 1, -1};
    static const int DIAG_F[4] = {1, 1, -1, -1};
    static const int DIAG_R[4] = {1, -1, 1, -1};
    """
    const int H_JUMP_F[8]
    const int H_JUMP_R[8]
    const int H_LEG_F[8]
    const int H_LEG_R[8]
    const int ORTH_F[4]
    const int ORTH_R[4]
    const int DIAG_F[4]
    const int DIAG_R[4]


cdef inline int sq_of(int f, int r) noexcept nogil:
    return r * 9 + f


cdef inline bint in_palace(int colour, int f, int r) noexcept nogil:
    if f < 3 or f > 5:
        return False
    return (0 <= r <= 2) if colour == 0 else (7 <= r <= 9)


cdef inline bint own_half(int colour, int r) noexcept nogil:
    return r <= 4 if colour == 0 else r >= 5


cdef inline int piece_at(const Spec* s, const Pos* p, int f, int r) noexcept nogil:
    """-1 empty, else the piece number."""
    return <int>p.board[r * 9 + f] - 1


cdef inline bint can_stand(const Spec* s, int i, int f, int r) noexcept nogil:
    """May piece i stand on (f, r)? (Its domain, and the board's edge.)"""
    if f < 0 or f > 8 or r < 0 or r > 9:
        return False
    cdef int kind = s.kind[i], colour = s.colour[i]
    if kind == KING or kind == ADVISOR:
        return in_palace(colour, f, r)
    if kind == ELEPHANT:
        return own_half(colour, r)
    return True


cdef inline void move_piece(Pos* p, int i, int to) noexcept nogil:
    p.board[p.sq[i]] = 0
    p.sq[i] = to
    p.board[to] = <uint8_t>(i + 1)


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
