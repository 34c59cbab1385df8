# Which pieces reach a square, each kind's reach written once. "Reach" is
# "could move there by its own moves", the own king's safety aside. Three
# readers ask it: legality (movegen.is_attacked: is a king attacked?), the
# static exchange (see.least_attacker: the cheapest piece that can take
# next) and the chase rules (repetition.piece_attacks: does this piece
# attack that one?). Header-only and inline: legality asks on every move.
#
# The *_reaches(frm, to) tests answer for a piece standing on frm; the
# *_reaching(to) scans look around `to` for a piece of one kind (a cell
# value's KIND_OF, colour included) that reaches it, in a fixed order, and
# confirm each candidate with the same test, so the two cannot disagree.

from libc.stdint cimport uint8_t
from tuong.engine.position cimport (
    KIND_OF, EMPTY, RED, NO_KIND, IN_PALACE, IN_HALF, DIAG_V, DIAG_H,
)


cdef inline int advisor_reaches(int frm, int to) noexcept nogil:
    cdef int d = to - frm
    return IN_PALACE[to] and (d == 17 or d == 15 or d == -15 or d == -17)


cdef inline int elephant_reaches(const uint8_t* b, int frm, int to, int side) noexcept nogil:
    """Two diagonal steps over an empty eye, never across the river."""
    cdef int d = to - frm
    if not IN_HALF[side][to] or not (d == 34 or d == 30 or d == -30 or d == -34):
        return 0
    return b[frm + d // 2] == EMPTY


cdef inline int horse_leg(int frm, int to) noexcept nogil:
    """The square a horse on frm must find empty to jump to `to` (one step
    toward it along the jump's long side), or 0 if `to` is no jump away."""
    cdef int d = to - frm
    if d == 33 or d == 31:
        return frm + 16
    if d == -31 or d == -33:
        return frm - 16
    if d == 18 or d == -14:
        return frm + 1
    if d == 14 or d == -18:
        return frm - 1
    return 0


cdef inline int horse_reaches(const uint8_t* b, int frm, int to) noexcept nogil:
    cdef int leg = horse_leg(frm, to)
    return leg != 0 and b[leg] == EMPTY


cdef inline int pawn_reaches(int frm, int to, int side) noexcept nogil:
    """One step forward, or sideways once across the river."""
    cdef int d = to - frm
    if d == (16 if side == RED else -16):
        return 1
    return (d == 1 or d == -1) and not IN_HALF[side][frm]


cdef inline int line_blockers(const uint8_t* b, int frm, int to) noexcept nogil:
    """Pieces strictly between frm and to on a rank or file, or -1 if the
    two squares do not share one: a rook (or a facing king) reaches with 0,
    a cannon captures with exactly 1."""
    cdef int d, t, n = 0
    if frm >> 4 == to >> 4:
        d = 1 if to > frm else -1
    elif (frm & 15) == (to & 15):
        d = 16 if to > frm else -16
    else:
        return -1
    t = frm + d
    while t != to:
        n += b[t] != EMPTY
        t += d
    return n


cdef inline int advisor_reaching(const uint8_t* b, int to, int advisor) noexcept nogil:
    cdef int i, t
    for i in range(4):
        t = to + DIAG_V[i] + DIAG_H[i]
        if KIND_OF[b[t]] == advisor and advisor_reaches(t, to):
            return t
    return 0


cdef inline int elephant_reaching(const uint8_t* b, int to, int side, int elephant) noexcept nogil:
    cdef int i, t
    for i in range(4):
        t = to + 2 * (DIAG_V[i] + DIAG_H[i])
        if KIND_OF[b[t]] == elephant and elephant_reaches(b, t, to, side):
            return t
    return 0


cdef inline int horse_reaching(const uint8_t* b, int to, int horse) noexcept nogil:
    """A horse's leg is a diagonal neighbour of its target: for the leg
    to + v + h, the horses using it stand at leg + v and leg + h."""
    cdef int i, leg
    for i in range(4):
        leg = to + DIAG_V[i] + DIAG_H[i]
        if KIND_OF[b[leg + DIAG_V[i]]] == horse and horse_reaches(b, leg + DIAG_V[i], to):
            return leg + DIAG_V[i]
        if KIND_OF[b[leg + DIAG_H[i]]] == horse and horse_reaches(b, leg + DIAG_H[i], to):
            return leg + DIAG_H[i]
    return 0


cdef inline int pawn_reaching(const uint8_t* b, int to, int side, int pawn) noexcept nogil:
    """From behind first, then from either side."""
    cdef int behind = to - (16 if side == RED else -16)
    if KIND_OF[b[behind]] == pawn and pawn_reaches(behind, to, side):
        return behind
    if KIND_OF[b[to - 1]] == pawn and pawn_reaches(to - 1, to, side):
        return to - 1
    if KIND_OF[b[to + 1]] == pawn and pawn_reaches(to + 1, to, side):
        return to + 1
    return 0


cdef inline void line_attackers(const uint8_t* b, int to, int d, int* first, int* second) noexcept nogil:
    """Along direction d from `to`: the first piece met (it reaches `to` as
    a rook, or as a king next door) and the piece behind it (which reaches
    `to` as a cannon, the first being its screen); 0 where there is none."""
    cdef int t = to + d
    first[0] = second[0] = 0
    while b[t] == EMPTY:
        t += d
    if KIND_OF[b[t]] == NO_KIND:        # the border
        return
    first[0] = t
    t += d
    while b[t] == EMPTY:
        t += d
    if KIND_OF[b[t]] != NO_KIND:
        second[0] = t
