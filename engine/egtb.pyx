# Endgame tablebases: retrograde analysis of Xiangqi endgames with few
# pieces, and the tables' probe.
#
# A table holds one material signature, named as players write it: Red's
# pieces, "v", Black's (KRAvKEE: Red king, rook and advisor against the king
# and two elephants). Every position of it, either side to move, gets one
# byte: 0 a draw, 255 a position that cannot occur (two pieces on a square,
# the side not to move in check), else DTM + 1, where DTM is the number of
# plies to mate with best play (the fastest win, the slowest loss): odd for a
# win of the side to move, even for its loss (0: it is mated, or has no
# legal move, which loses too). Captures lead into smaller tables, which are
# generated first, so DTM counts through conversions.
#
# Rules. Moves are Xiangqi's, the flying general included (a move that
# leaves the two generals facing on an open file is illegal); a side with
# no legal move loses. A cycle is a draw. Under our rules (perpetual check,
# then perpetual chase, loses) a cycle could instead be a loss for a side
# that checks or chases throughout it. The tables' drawing lines never need
# either from the defender in the endgames of one attacker: K, advisors and
# elephants can neither check (a general "checks" only on an open file, which
# the side moving may not create) nor stay on a chase, see README
# (Endgame tablebases) and tests/test_egtb.py for the positions that show it.
# Where both sides have an attacker (KRvKH) a draw can rest on a perpetual
# check or chase (a horse checking on and on): those draws are not proven
# (draws_proven), and the search does not take them as draws.
#
# Indexing. Each piece's squares are limited to where it can ever stand
# (a general to its palace's 9 points, an advisor to 5, an elephant to 7, a
# pawn to the 55 squares in front of its start, others to all 90); two like
# pieces of a side share one index over unordered pairs. index = side to
# move + 2 * (mixed radix over the pieces in table order).
#
# Threads: generation splits every pass over the table between workers that
# run without the GIL (a count is decremented atomically).

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport uint8_t, int64_t, uint64_t
from tuong.engine.position cimport Position, KIND_OF, file_of, rank_of
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memset, memcpy

import array
import threading

from tuong.engine.rows import flip_square, mirror_square

cdef extern from *:
    """
    static inline unsigned char egtb_dec(unsigned char* p) {
        return __atomic_sub_fetch(p, 1, __ATOMIC_RELAXED);
    }
    static inline void egtb_count(long long* p) {
        __atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
    }
    """
    unsigned char egtb_dec(unsigned char* p) nogil
    void egtb_count(long long* p) nogil

cdef enum:
    KING = 0
    ADVISOR = 1
    ELEPHANT = 2
    HORSE = 3
    ROOK = 4
    CANNON = 5
    PAWN = 6
    MAXP = 12            # pieces in a table at most
    MAXG = 12
    MAXMOVES = 128
    DRAW = 0
    INVALID = 255

LETTERS = "KAEHRCP"
MAX_SIZE = 1 << 36               # positions in one table: 64 GiB of values
# Order of pieces within a side's part of the name and of the index.
ORDER = {k: i for i, k in enumerate("KRCHPAE")}

cdef int H_JUMP_F[8]
cdef int H_JUMP_R[8]
cdef int H_LEG_F[8]
cdef int H_LEG_R[8]
H_JUMP_F[:] = [1, -1, 1, -1, 2, 2, -2, -2]
H_JUMP_R[:] = [2, 2, -2, -2, 1, -1, 1, -1]
H_LEG_F[:] = [0, 0, 0, 0, 1, 1, -1, -1]
H_LEG_R[:] = [1, 1, -1, -1, 0, 0, 0, 0]
cdef int ORTH_F[4]
cdef int ORTH_R[4]
ORTH_F[:] = [1, -1, 0, 0]
ORTH_R[:] = [0, 0, 1, -1]
cdef int DIAG_F[4]
cdef int DIAG_R[4]
DIAG_F[:] = [1, 1, -1, -1]
DIAG_R[:] = [1, -1, 1, -1]


cdef inline int sq_of(int f, int r) noexcept nogil:
    return r * 9 + f


cdef inline bint in_palace(int colour, int f, int r) noexcept nogil:
    if f < 3 or f > 5:
        return False
    return (0 <= r <= 2) if colour == 0 else (7 <= r <= 9)


cdef inline bint own_half(int colour, int r) noexcept nogil:
    return r <= 4 if colour == 0 else r >= 5


def domain(kind, colour):
    """The squares (0-89, rank * 9 + file) where a piece can ever stand."""
    squares = []
    for r in range(10):
        for f in range(9):
            rr = r if colour == 0 else 9 - r
            if kind == KING:
                ok = 3 <= f <= 5 and rr <= 2
            elif kind == ADVISOR:
                ok = (f, rr) in ((3, 0), (5, 0), (4, 1), (3, 2), (5, 2))
            elif kind == ELEPHANT:
                ok = (f, rr) in ((2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4))
            elif kind == PAWN:
                ok = rr >= 5 or (rr in (3, 4) and f % 2 == 0)
            else:
                ok = True
            if ok:
                squares.append(r * 9 + f)
    return squares


def parse_name(name):
    """'KRAvKEE' -> [(colour, kind), ...] in table order; ValueError if malformed."""
    parts = name.split("v")
    if len(parts) != 2 or not all(p.startswith("K") and p.count("K") == 1 for p in parts):
        raise ValueError(f"not an endgame name: {name!r} (e.g. KRvK, KHvKAA, KCAvKEE)")
    pieces = []
    for colour, part in enumerate(parts):
        if any(c not in LETTERS for c in part):
            raise ValueError(f"{name!r}: pieces are K A E H R C P")
        if sorted(part, key=ORDER.get) != list(part):
            raise ValueError(f"{name!r}: write each side's pieces in the order K R C H P A E")
        for kind in ("A", "E"):
            if part.count(kind) > 2:
                raise ValueError(f"{name!r}: at most two {kind}")
        if part.count("P") > 5 or any(part.count(k) > 2 for k in "RCH"):
            raise ValueError(f"{name!r}: too many pieces of one kind")
        pieces += [(colour, LETTERS.index(c)) for c in part]
    if len(pieces) > MAXP:
        raise ValueError(f"{name!r}: at most {MAXP} pieces")
    # Kings first (the index's outer digits), then the rest in name order.
    return sorted(pieces, key=lambda p: (p[1] != KING, p[0], ORDER[LETTERS[p[1]]]))


def draws_proven(pieces):
    """Do the table's draws hold under our rules? Yes when at most one side
    has an attacker (rook, cannon, horse, pawn): the other side can neither
    check nor chase throughout a cycle. [(colour, kind)]."""
    return len({colour for colour, kind in pieces if kind not in (KING, ADVISOR, ELEPHANT)}) < 2


def name_of(pieces):
    """The inverse of parse_name: [(colour, kind)] -> 'KRAvKEE'."""
    sides = ["", ""]
    for colour, kind in sorted(pieces, key=lambda p: (p[0], ORDER[LETTERS[p[1]]])):
        sides[colour] += LETTERS[kind]
    return "v".join(sides)


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


cdef int64_t encode(const Spec* s, const Pos* p) noexcept nogil:
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


cdef bint decode(const Spec* s, int64_t index, Pos* p) noexcept nogil:
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


cdef inline int piece_at(const Spec* s, const Pos* p, int f, int r) noexcept nogil:
    """-1 empty, else the piece number."""
    return <int>p.board[r * 9 + f] - 1


cdef bint attacked(const Spec* s, const Pos* p, int colour) noexcept nogil:
    """Is `colour`'s general attacked (or facing the other on an open file)?"""
    cdef int k = -1, i, d, f, r, kf, kr, found, who, kind, hf, hr
    for i in range(s.n):
        if s.kind[i] == KING and s.colour[i] == colour:
            k = i
    kf = p.sq[k] % 9
    kr = p.sq[k] // 9
    # Lines: rook, facing general, cannon over one screen.
    for d in range(4):
        f = kf + ORTH_F[d]
        r = kr + ORTH_R[d]
        found = 0
        while 0 <= f < 9 and 0 <= r < 10:
            who = piece_at(s, p, f, r)
            if who >= 0:
                if s.colour[who] != colour:
                    kind = s.kind[who]
                    if found == 0 and (kind == ROOK or (kind == KING and ORTH_F[d] == 0)):
                        return True
                    if found == 1 and kind == CANNON:
                        return True
                found += 1
                if found == 2:
                    break
            f += ORTH_F[d]
            r += ORTH_R[d]
    # Horses: a horse at H attacks K = H + jump when its leg next to H is empty.
    for d in range(8):
        hf = kf - H_JUMP_F[d]
        hr = kr - H_JUMP_R[d]
        if 0 <= hf < 9 and 0 <= hr < 10:
            who = piece_at(s, p, hf, hr)
            if who >= 0 and s.colour[who] != colour and s.kind[who] == HORSE and \
                    piece_at(s, p, hf + H_LEG_F[d], hr + H_LEG_R[d]) < 0:
                return True
    # Pawns: from in front of the general, or beside it once across the river.
    for i in range(s.n):
        if s.kind[i] == PAWN and s.colour[i] != colour and p.sq[i] >= 0:
            f = p.sq[i] % 9
            r = p.sq[i] // 9
            if s.colour[i] == 0:
                if (f == kf and r + 1 == kr) or (r == kr and r >= 5 and (f - kf == 1 or kf - f == 1)):
                    return True
            else:
                if (f == kf and r - 1 == kr) or (r == kr and r <= 4 and (f - kf == 1 or kf - f == 1)):
                    return True
    return False


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


cdef int moves_of(const Spec* s, const Pos* p, int side, int* piece, int* target) noexcept nogil:
    """Pseudo-legal moves of `side`: (piece number, target square)."""
    cdef int n = 0, i, d, f, r, tf, tr, who, screen, kind
    for i in range(s.n):
        if s.colour[i] != side or p.sq[i] < 0:
            continue
        f = p.sq[i] % 9
        r = p.sq[i] // 9
        kind = s.kind[i]
        if kind == KING or kind == ADVISOR or kind == ELEPHANT or kind == PAWN:
            for d in range(4):
                if kind == KING or kind == PAWN:
                    tf = f + ORTH_F[d]
                    tr = r + ORTH_R[d]
                    if kind == PAWN:
                        if ORTH_R[d] == (-1 if side == 0 else 1):
                            continue                      # never backwards
                        if ORTH_F[d] != 0 and own_half(side, r):
                            continue                      # sideways only across the river
                elif kind == ADVISOR:
                    tf = f + DIAG_F[d]
                    tr = r + DIAG_R[d]
                else:
                    tf = f + 2 * DIAG_F[d]
                    tr = r + 2 * DIAG_R[d]
                    if not (0 <= tf < 9 and 0 <= tr < 10) or \
                            piece_at(s, p, f + DIAG_F[d], r + DIAG_R[d]) >= 0:
                        continue                          # off the board, or the eye blocked
                if not can_stand(s, i, tf, tr):
                    continue
                who = piece_at(s, p, tf, tr)
                if who < 0 or s.colour[who] != side:
                    piece[n] = i
                    target[n] = sq_of(tf, tr)
                    n += 1
        elif kind == HORSE:
            for d in range(8):
                tf = f + H_JUMP_F[d]
                tr = r + H_JUMP_R[d]
                if not (0 <= tf < 9 and 0 <= tr < 10) or \
                        piece_at(s, p, f + H_LEG_F[d], r + H_LEG_R[d]) >= 0:
                    continue
                who = piece_at(s, p, tf, tr)
                if who < 0 or s.colour[who] != side:
                    piece[n] = i
                    target[n] = sq_of(tf, tr)
                    n += 1
        else:                                             # rook, cannon
            for d in range(4):
                tf = f + ORTH_F[d]
                tr = r + ORTH_R[d]
                screen = 0
                while 0 <= tf < 9 and 0 <= tr < 10:
                    who = piece_at(s, p, tf, tr)
                    if screen == 0:
                        if who < 0:
                            piece[n] = i
                            target[n] = sq_of(tf, tr)
                            n += 1
                        else:
                            if kind == ROOK:
                                if s.colour[who] != side:
                                    piece[n] = i
                                    target[n] = sq_of(tf, tr)
                                    n += 1
                                break
                            screen = 1
                    elif who >= 0:
                        if s.colour[who] != side:
                            piece[n] = i
                            target[n] = sq_of(tf, tr)
                            n += 1
                        break
                    tf += ORTH_F[d]
                    tr += ORTH_R[d]
    return n


cdef int unmoves_of(const Spec* s, const Pos* p, int side, int* piece, int* target) noexcept nogil:
    """Moves that `side` could have just made without capturing: (piece,
    square it came from). The result may leave the other side in check."""
    cdef int n = 0, i, d, f, r, ff, fr, kind, back
    for i in range(s.n):
        if s.colour[i] != side or p.sq[i] < 0:
            continue
        f = p.sq[i] % 9
        r = p.sq[i] // 9
        kind = s.kind[i]
        if kind == KING or kind == ADVISOR or kind == ELEPHANT:
            for d in range(4):
                if kind == KING:
                    ff = f + ORTH_F[d]
                    fr = r + ORTH_R[d]
                elif kind == ADVISOR:
                    ff = f + DIAG_F[d]
                    fr = r + DIAG_R[d]
                else:
                    ff = f + 2 * DIAG_F[d]
                    fr = r + 2 * DIAG_R[d]
                    if not (0 <= ff < 9 and 0 <= fr < 10) or \
                            piece_at(s, p, f + DIAG_F[d], r + DIAG_R[d]) >= 0:
                        continue
                if can_stand(s, i, ff, fr) and piece_at(s, p, ff, fr) < 0:
                    piece[n] = i
                    target[n] = sq_of(ff, fr)
                    n += 1
        elif kind == PAWN:
            back = -1 if side == 0 else 1
            ff, fr = f, r + back                          # it stepped forward
            if 0 <= fr < 10 and piece_at(s, p, ff, fr) < 0 and \
                    (not own_half(side, fr) or (ff % 2 == 0 and
                                                (fr in (3, 4) if side == 0 else fr in (5, 6)))):
                piece[n] = i
                target[n] = sq_of(ff, fr)
                n += 1
            if not own_half(side, r):                     # or sideways, across the river
                for d in range(2):
                    ff = f + ORTH_F[d]
                    if 0 <= ff < 9 and piece_at(s, p, ff, r) < 0:
                        piece[n] = i
                        target[n] = sq_of(ff, r)
                        n += 1
        elif kind == HORSE:
            # It came from F = T - jump, whose leg (next to F) must be empty.
            for d in range(8):
                ff = f - H_JUMP_F[d]
                fr = r - H_JUMP_R[d]
                if 0 <= ff < 9 and 0 <= fr < 10 and piece_at(s, p, ff, fr) < 0 and \
                        piece_at(s, p, ff + H_LEG_F[d], fr + H_LEG_R[d]) < 0:
                    piece[n] = i
                    target[n] = sq_of(ff, fr)
                    n += 1
        else:                                             # a rook or cannon slid here
            for d in range(4):
                ff = f + ORTH_F[d]
                fr = r + ORTH_R[d]
                while 0 <= ff < 9 and 0 <= fr < 10 and piece_at(s, p, ff, fr) < 0:
                    piece[n] = i
                    target[n] = sq_of(ff, fr)
                    n += 1
                    ff += ORTH_F[d]
                    fr += ORTH_R[d]
    return n


cdef inline void move_piece(Pos* p, int i, int to) noexcept nogil:
    p.board[p.sq[i]] = 0
    p.sq[i] = to
    p.board[to] = <uint8_t>(i + 1)


cdef struct SubMap:
    # Where a capture of one piece leads: the smaller table (its Spec and
    # values), whether it is stored with the colours flipped, and for each
    # of its pieces the piece number here.
    Spec* spec
    const uint8_t* values
    int flip
    int draws                    # draws_proven: else a draw is no answer
    int source[MAXP]


# rows.flip_square as a table, for the probes (nogil).
cdef int FLIPPED[90]
for _sq in range(90):
    FLIPPED[_sq] = flip_square(_sq)


cdef int sub_value(const SubMap* m, const Pos* p) noexcept nogil:
    """The value in the smaller table of `p` (a capture just made: the side
    to move is the other side), from that side's view."""
    cdef Pos q
    cdef int j, sq
    for j in range(m.spec.n):
        sq = p.sq[m.source[j]]
        q.sq[j] = FLIPPED[sq] if m.flip else sq
    q.side = (1 - p.side) ^ m.flip
    cdef int64_t index = encode(m.spec, &q)
    if index < 0:
        return INVALID
    return m.values[index]


cdef class Table:
    """One endgame's values in memory (generated here or read from a file)."""
    cdef Spec spec
    cdef uint8_t* values
    cdef uint8_t* counts
    cdef uint8_t* floors         # while generating: the longest loss a capture leads to
    cdef SubMap subs[MAXP]       # by captured piece number
    cdef int nsubs
    cdef readonly str name
    cdef readonly int max_dtm
    cdef object sub_tables       # keeps the smaller tables alive
    cdef int overflow

    def __cinit__(self):
        self.values = NULL
        self.counts = NULL
        self.floors = NULL

    def __dealloc__(self):
        free(self.values)
        free(self.counts)
        free(self.floors)

    def __init__(self, str name):
        pieces = parse_name(name)
        self.name = name
        self.sub_tables = []
        cdef Spec* s = &self.spec
        memset(s, 0, sizeof(Spec))
        s.n = len(pieces)
        for i, (colour, kind) in enumerate(pieces):
            s.colour[i], s.kind[i] = colour, kind
        s.size = 2
        g = -1
        for i, (colour, kind) in enumerate(pieces):
            if g >= 0 and (s.colour[s.gstart[g]], s.kind[s.gstart[g]]) == (colour, kind):
                s.gsize[g] += 1
                if s.gsize[g] > 2:
                    raise ValueError(f"{name}: more than two like pieces are not indexed")
                continue
            g += 1
            s.gstart[g], s.gsize[g] = i, 1
            squares = domain(kind, colour)
            s.dsize[g] = len(squares)
            for q in range(90):
                s.dpos[g][q] = -1
            for k, q in enumerate(squares):
                s.dom[g][k] = q
                s.dpos[g][q] = k
        s.ngroups = g + 1
        size = 2
        for g in range(s.ngroups):
            s.radix[g] = s.dsize[g] * (s.dsize[g] - 1) // 2 if s.gsize[g] == 2 else s.dsize[g]
            size *= s.radix[g]
        if size > MAX_SIZE:
            raise ValueError(f"{name}: {size:,} positions, more than this generator holds "
                             f"({MAX_SIZE:,})")
        s.size = size
        self.values = <uint8_t*> calloc(s.size, 1)
        if self.values == NULL:
            raise MemoryError(f"{name}: {s.size} bytes")

    @property
    def size(self):
        return self.spec.size

    def pieces(self):
        return [(self.spec.colour[i], self.spec.kind[i]) for i in range(self.spec.n)]

    def captures(self):
        """(piece number, name of the table a capture of it leads to)."""
        pieces = self.pieces()
        return [(i, name_of(pieces[:i] + pieces[i + 1:])) for i in range(len(pieces))
                if pieces[i][1] != KING]

    def link(self, int captured, Table sub not None, bint flip):
        """Say where a capture of piece `captured` leads."""
        cdef SubMap* m = &self.subs[captured]
        cdef Spec* s = &self.spec
        m.spec = &sub.spec
        m.values = sub.values
        m.flip = flip
        used = set()
        for j in range(sub.spec.n):
            want = (sub.spec.colour[j] ^ flip, sub.spec.kind[j])
            for i in range(s.n):
                if i != captured and i not in used and (s.colour[i], s.kind[i]) == want:
                    m.source[j] = i
                    used.add(i)
                    break
            else:
                raise ValueError(f"{sub.name} is not {self.name} less one piece")
        self.sub_tables.append(sub)

    # -- generation ------------------------------------------------------------

    cdef int outcomes(self, Pos* p, bint quiet_values, int* best_win, int* worst_loss,
                      int* open_moves) noexcept nogil:
        """Over the legal moves of the side to move in `p`: how many there
        are (returned); the quickest win (`best_win`, a value byte; 1000 if
        none), the longest loss (`worst_loss`, plies; -1 if none) and how
        many moves lead to a draw or to what is not known yet (`open_moves`).
        A capture's value comes from its smaller table; a quiet move's from
        this table if `quiet_values`, else it is open."""
        cdef Spec* s = &self.spec
        cdef int piece[MAXMOVES]
        cdef int target[MAXMOVES]
        cdef int n, k, i, to, frm, taken, v, legal = 0
        cdef int64_t j
        best_win[0] = 1000
        worst_loss[0] = -1
        open_moves[0] = 0
        n = moves_of(s, p, p.side, piece, target)
        for k in range(n):
            i = piece[k]
            to = target[k]
            frm = p.sq[i]
            taken = <int>p.board[to] - 1
            if taken >= 0:
                p.sq[taken] = -1
            move_piece(p, i, to)
            if not attacked(s, p, p.side):
                legal += 1
                v = DRAW
                if taken >= 0:
                    v = sub_value(&self.subs[taken], p)
                elif quiet_values:
                    p.side = 1 - p.side
                    j = encode(s, p)
                    p.side = 1 - p.side
                    v = self.values[j] if j >= 0 else INVALID
                if v == DRAW or v == INVALID:
                    open_moves[0] += 1
                elif (v - 1) % 2 == 0:               # the opponent is lost in v - 1
                    if v < best_win[0]:
                        best_win[0] = v
                elif v - 1 > worst_loss[0]:          # the opponent wins in v - 1
                    worst_loss[0] = v - 1
            move_piece(p, i, frm)
            if taken >= 0:
                p.sq[taken] = to
                p.board[to] = <uint8_t>(taken + 1)
        return legal

    cdef void init_range(self, int64_t start, int64_t end) noexcept nogil:
        """Values of positions decided at once: invalid, no legal move,
        and the captures' results; counts of the moves still open."""
        cdef Spec* s = &self.spec
        cdef Pos p
        cdef int legal, open_moves, best_win, worst_loss
        cdef int64_t index
        for index in range(start, end):
            if not decode(s, index, &p) or attacked(s, &p, 1 - p.side):
                self.values[index] = INVALID
                continue
            legal = self.outcomes(&p, False, &best_win, &worst_loss, &open_moves)
            if legal == 0:
                self.values[index] = 1               # lost now: mated or no move
            elif best_win < 1000:
                self.values[index] = <uint8_t>(best_win + 1)
            elif open_moves == 0:
                self.values[index] = <uint8_t>(worst_loss + 2)
            else:
                self.values[index] = DRAW
                self.counts[index] = <uint8_t>open_moves
                # A capture into a lost position for us: the loss, if it comes
                # to that, is at least this long.
                self.floors[index] = <uint8_t>(worst_loss + 1)

    cdef int level_range(self, int d, int64_t start, int64_t end) noexcept nogil:
        """Spread the positions decided at DTM d to their predecessors
        (wins at d + 1 from losses; losses at d + 1 when a position's last
        open move turns out to lose). Returns how many it found at d."""
        cdef Spec* s = &self.spec
        cdef Pos p
        cdef int piece[MAXMOVES]
        cdef int target[MAXMOVES]
        cdef int n, k, i, frm, mover, found = 0
        cdef int64_t index, j
        cdef uint8_t code = <uint8_t>(d + 1), next_code = <uint8_t>(d + 2), old
        for index in range(start, end):
            if self.values[index] != code:
                continue
            found += 1
            if d + 2 >= INVALID:
                self.overflow = 1
                continue
            decode(s, index, &p)
            mover = 1 - p.side
            n = unmoves_of(s, &p, mover, piece, target)
            for k in range(n):
                i = piece[k]
                frm = p.sq[i]
                move_piece(&p, i, target[k])
                p.side = mover
                if not attacked(s, &p, 1 - mover):
                    j = encode(s, &p)
                    if j >= 0:
                        old = self.values[j]
                        if d % 2 == 0:                   # p was lost: its predecessor wins
                            if old == DRAW or (old != INVALID and old % 2 == 0 and old > next_code):
                                self.values[j] = next_code
                        elif old == DRAW and self.counts[j] > 0:
                            if egtb_dec(&self.counts[j]) == 0:
                                # The longest of the losses: this level's, or a
                                # capture's (then it is spread at its own level).
                                self.values[j] = next_code if self.floors[j] + 1 <= next_code \
                                    else <uint8_t>(self.floors[j] + 1)
                p.side = 1 - mover
                move_piece(&p, i, frm)
        return found

    cdef int64_t verify_range(self, int64_t start, int64_t end) noexcept nogil:
        """Positions whose value does not follow from their moves' values (a
        win in n: the best move reaches a loss in n - 1; a loss in n: every
        move reaches a win, the longest in n - 1; a draw: neither)."""
        cdef Spec* s = &self.spec
        cdef Pos p
        cdef int legal, open_moves, best_win, worst_loss, expected
        cdef int64_t index, wrong = 0
        for index in range(start, end):
            if self.values[index] == INVALID:
                continue
            decode(s, index, &p)
            legal = self.outcomes(&p, True, &best_win, &worst_loss, &open_moves)
            if legal == 0:
                expected = 1
            elif best_win < 1000:
                expected = best_win + 1
            elif open_moves:
                expected = DRAW
            else:
                expected = worst_loss + 2
            if expected != self.values[index]:
                wrong += 1
        return wrong

    def verify(self, int threads=2):
        """How many positions disagree with their moves (0 for a sound table)."""
        missing = [name for i, name in self.captures() if self.subs[i].spec == NULL]
        if missing:
            raise ValueError(f"{self.name}: link the smaller tables first: {missing}")
        bounds = [self.spec.size * t // threads for t in range(threads + 1)]
        return _parallel(lambda a, b: self._verify(a, b), bounds)

    def _verify(self, int64_t a, int64_t b):
        cdef int64_t wrong
        with nogil:
            wrong = self.verify_range(a, b)
        return wrong

    def generate(self, int threads=2, progress=None):
        """Fill the table (its smaller tables linked first). `progress(d)`
        is called after each DTM level."""
        missing = [name for i, name in self.captures() if self.subs[i].spec == NULL]
        if missing:
            raise ValueError(f"{self.name}: link the smaller tables first: {missing}")
        cdef int64_t size = self.spec.size
        self.counts = <uint8_t*> calloc(size, 1)
        self.floors = <uint8_t*> calloc(size, 1)
        if self.counts == NULL or self.floors == NULL:
            raise MemoryError(f"{self.name}: {2 * size} bytes of counts")
        self.overflow = 0
        bounds = [size * t // threads for t in range(threads + 1)]
        _parallel(lambda a, b: self._init(a, b), bounds)
        d = 0
        while True:
            found = _parallel(lambda a, b: self._level(d, a, b), bounds)
            if self.overflow:
                raise ValueError(f"{self.name}: a distance to mate over 253 plies")
            if progress is not None:
                progress(d)
            if found == 0 and not self._any_above(d):
                break
            d += 1
        self.max_dtm = d - 1
        free(self.counts)
        free(self.floors)
        self.counts = self.floors = NULL

    def _init(self, int64_t a, int64_t b):
        with nogil:
            self.init_range(a, b)
        return 0

    def _level(self, int d, int64_t a, int64_t b):
        cdef int found
        with nogil:
            found = self.level_range(d, a, b)
        return found

    def _any_above(self, int d):
        cdef int64_t i
        cdef uint8_t code = <uint8_t>(d + 1)
        for i in range(self.spec.size):
            if self.values[i] != INVALID and self.values[i] > code:
                return True
        return False

    # -- values ------------------------------------------------------------------

    def set_longest(self, int plies):
        self.max_dtm = plies

    def value_at(self, int64_t index):
        return self.values[index]

    def index_of(self, squares, int side):
        """The index of a position given each piece's square (table order)
        and the side to move; -1 if a square is outside its piece's domain."""
        cdef Pos p
        for i, sq in enumerate(squares):
            p.sq[i] = sq
        p.side = side
        return encode(&self.spec, &p)

    def position_at(self, int64_t index):
        """(squares in table order, side to move), or None for two pieces on a square."""
        cdef Pos p
        if not decode(&self.spec, index, &p):
            return None
        return [p.sq[i] for i in range(self.spec.n)], p.side

    # -- files -------------------------------------------------------------------

    def folded_size(self):
        """Bytes of folded()."""
        block = self.spec.size // self.spec.radix[0]
        return block * sum(1 for k in range(self.spec.radix[0]) if self.spec.dom[0][k] % 9 != 5)

    def folded(self):
        """The values with the left-right mirror folded away: the positions
        whose Red general stands on the d or e file (the f file's are their
        mirrors). Red's general is the index's outermost digit."""
        cdef int64_t block = self.spec.size // self.spec.radix[0]
        cdef int digit
        parts = []
        for digit in range(self.spec.radix[0]):
            if self.spec.dom[0][digit] % 9 != 5:
                parts.append(PyBytes_FromStringAndSize(<char*> self.values + digit * block, block))
        return b"".join(parts)

    def unfold(self, bytes data):
        """Fill the values from folded() data: a position whose Red general
        stands on the f file takes its mirror's value. The mirror of an
        index is a sum of each group's mirrored digit times its stride, so
        it is kept up to date digit by digit as the positions are walked in
        index order, rather than decoding each position."""
        cdef int64_t block = self.spec.size // self.spec.radix[0]
        cdef int64_t kept = 0, inner, count, mirror, dst, src
        cdef int digit, g, k, a, b, q, r
        cdef const uint8_t* raw = data
        cdef Spec* s = &self.spec
        expected = block * sum(1 for k in range(s.radix[0]) if s.dom[0][k] % 9 != 5)
        if len(data) != expected:
            raise ValueError(f"{self.name}: {len(data)} values, expected {expected}")
        for digit in range(s.radix[0]):
            if s.dom[0][digit] % 9 != 5:
                memcpy(self.values + digit * block, raw + kept, block)
                kept += block
        # Each group's digit -> its mirrored digit, and the groups' strides.
        cdef int64_t* mirrored[MAXG]
        cdef int64_t stride[MAXG]
        cdef int digits[MAXG]
        cdef int64_t radix
        maps = []
        for g in range(s.ngroups):
            table = array.array("q", [0] * s.radix[g])
            for k in range(s.radix[g]):
                if s.gsize[g] == 2:
                    b = 1
                    while (b + 1) * b // 2 <= k:
                        b += 1
                    a = k - b * (b - 1) // 2
                    q = s.dpos[g][mirror_square(s.dom[g][a])]
                    r = s.dpos[g][mirror_square(s.dom[g][b])]
                    table[k] = pair_index(min(q, r), max(q, r))
                else:
                    table[k] = s.dpos[g][mirror_square(s.dom[g][k])]
            maps.append(table)
        cdef int64_t[::1] view
        for g in range(s.ngroups):
            view = maps[g]
            mirrored[g] = &view[0]
        count = block // 2                   # the inner digits' positions
        stride[s.ngroups - 1] = 1
        for g in range(s.ngroups - 2, 0, -1):
            stride[g] = stride[g + 1] * s.radix[g + 1]
        with nogil:
            for digit in range(s.radix[0]):
                if s.dom[0][digit] % 9 != 5:
                    continue
                mirror = 0
                for g in range(1, s.ngroups):
                    digits[g] = 0
                    mirror += mirrored[g][0] * stride[g]
                src = mirrored[0][digit] * block
                dst = digit * block
                for inner in range(count):
                    self.values[dst + 2 * inner] = self.values[src + 2 * mirror]
                    self.values[dst + 2 * inner + 1] = self.values[src + 2 * mirror + 1]
                    g = s.ngroups - 1
                    while g >= 1:                    # the next index: an odometer
                        mirror -= mirrored[g][digits[g]] * stride[g]
                        digits[g] += 1
                        if digits[g] < s.radix[g]:
                            mirror += mirrored[g][digits[g]] * stride[g]
                            break
                        digits[g] = 0
                        mirror += mirrored[g][0] * stride[g]
                        g -= 1


def _parallel(work, bounds):
    """work(start, end) on each slice in its own thread; the sum of the results."""
    results = [0] * (len(bounds) - 1)

    def run(t):
        results[t] = work(bounds[t], bounds[t + 1])
    threads = [threading.Thread(target=run, args=(t,)) for t in range(len(bounds) - 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(results)


# -- the tables the engine searches with ------------------------------------------
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
                q.sq[j] = FLIPPED[squares[id_]] if e.flip else squares[id_]
                break
    q.side = p.side ^ e.flip
    cdef int64_t index = encode(s, &q)
    if index < 0 or (e.values[index] == DRAW and not e.draws):
        return 0
    value[0] = e.values[index]
    egtb_count(&HITS)
    return 1
