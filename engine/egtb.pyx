# Endgame tablebases: retrograde analysis of Xiangqi endgames with few
# pieces.
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
# Three rooms: this module generates and verifies tables (the Table class
# and the rules of moves in a table's own position format); egtblayout.pyx
# names endgames, indexes positions (its .pxd: the table's board, the
# pieces' steps on it) and folds the values for the files;
# egtbprobe.pyx is the search's probe of the tables installed.
#
# Threads: generation splits every pass over the table between workers that
# run without the GIL (a count is decremented atomically).

from libc.stdint cimport uint8_t, int64_t
from libc.stdlib cimport free, calloc
from libc.string cimport memset
from tuong.engine.position cimport KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN
from tuong.engine.egtblayout cimport (
    Spec, Pos, MAXP, DRAW, INVALID, encode, decode, flipped_square, init_spec, fold, unfold,
    folded_size, H_JUMP_F, H_JUMP_R, H_LEG_F, H_LEG_R, ORTH_F, ORTH_R, DIAG_F, DIAG_R, sq_of,
    own_half, piece_at, can_stand, move_piece)

import threading

# The names of endgames, kept importable from here.
from tuong.engine.egtblayout import (  # noqa: F401
    LETTERS, MAX_SIZE, ORDER, domain, draws_proven, name_of, parse_name)

cdef extern from *:
    """
    static inline unsigned char egtb_dec(unsigned char* p) {
        return __atomic_sub_fetch(p, 1, __ATOMIC_RELAXED);
    }
    """
    unsigned char egtb_dec(unsigned char* p) nogil

cdef enum:
    MAXMOVES = 128

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


cdef int sub_value(const SubMap* m, const Pos* p) noexcept nogil:
    """The value in the smaller table of `p` (a capture just made: the side
    to move is the other side), from that side's view."""
    cdef Pos q
    cdef int j, sq
    for j in range(m.spec.n):
        sq = p.sq[m.source[j]]
        q.sq[j] = flipped_square(sq) if m.flip else sq
    q.side = (1 - p.side) ^ m.flip
    cdef int64_t index = encode(m.spec, &q)
    if index < 0:
        return INVALID
    return m.values[index]


cdef class Table:
    """One endgame's values in memory (generated here or read from a file)."""

    def __cinit__(self):
        self.values = NULL
        self.counts = NULL
        self.floors = NULL

    def __dealloc__(self):
        free(self.values)
        free(self.counts)
        free(self.floors)

    def __init__(self, str name):
        self.name = name
        self.sub_tables = []
        memset(&self.spec, 0, sizeof(Spec))
        init_spec(&self.spec, name)
        self.values = <uint8_t*> calloc(self.spec.size, 1)
        if self.values == NULL:
            raise MemoryError(f"{name}: {self.spec.size} bytes")

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

    # -- files (engine/egtblayout.pyx: fold, unfold) -----------------------------

    def folded_size(self):
        """Bytes of folded()."""
        return folded_size(&self.spec)

    def folded(self):
        """The values with the left-right mirror folded away (egtblayout.fold)."""
        return fold(&self.spec, self.values)

    def unfold(self, bytes data):
        """Fill the values from folded() data (egtblayout.unfold)."""
        unfold(&self.spec, self.values, data, self.name)


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
