# Static exchange evaluation: would the capture sequence that a move starts
# on its target square, each side always recapturing with its cheapest
# piece, leave the mover at least `threshold` ahead? Played out on the board
# array itself (and taken back), so cannon screens appear and vanish as
# pieces are taken and horse legs open, exactly as in play. Pins are ignored, as SEE
# usually does: it orders and prunes, it does not decide legality.

from engine.position cimport (
    Position, Move, KIND_OF, EMPTY, OFF, RED, KING, ADVISOR, ELEPHANT, HORSE,
    ROOK, CANNON, PAWN, PIECE_VALUE, move_from, move_to, rank_of, ORTH, DIAG_V, DIAG_H,
)
from engine.movegen cimport IN_PALACE, IN_HALF

# Exchanges are counted in the nominal piece values (engine/position.pxd),
# never the tuned ones; the king's is above everything, and he takes last.


cdef inline int is_kind(const unsigned char* b, int sq, int kind) noexcept nogil:
    return KIND_OF[b[sq]] == kind


cdef int least_attacker(const unsigned char* b, int to, int side) noexcept nogil:
    """The square of side's cheapest piece that can move to `to` on board
    b (kings last), or 0."""
    cdef int k = 7 * side, i, d, t, leg, forward = 16 if side == RED else -16
    cdef int rook = 0, cannon = 0, king = 0
    # Pawns: from behind, or from beside once across the river (a pawn
    # beside `to` is across exactly when `to` is on the far bank).
    if is_kind(b, to - forward, PAWN + k):
        return to - forward
    if (rank_of(to) >= 5) == (side == RED):
        if is_kind(b, to - 1, PAWN + k):
            return to - 1
        if is_kind(b, to + 1, PAWN + k):
            return to + 1
    if IN_PALACE[to]:
        for i in range(4):
            t = to + DIAG_V[i] + DIAG_H[i]
            if is_kind(b, t, ADVISOR + k):
                return t
    # Elephants never cross the river: only a square on their own bank.
    if IN_HALF[side][to]:
        for i in range(4):
            d = DIAG_V[i] + DIAG_H[i]
            if b[to + d] == EMPTY and is_kind(b, to + 2 * d, ELEPHANT + k):
                return to + 2 * d
    # A horse reaches `to` through a leg diagonal to it (see is_attacked).
    for i in range(4):
        leg = to + DIAG_V[i] + DIAG_H[i]
        if b[leg] == EMPTY:
            if is_kind(b, leg + DIAG_V[i], HORSE + k):
                return leg + DIAG_V[i]
            if is_kind(b, leg + DIAG_H[i], HORSE + k):
                return leg + DIAG_H[i]
    # Lines: the first piece met may be a rook (or a king next door), the
    # second a cannon.
    for i in range(4):
        d = ORTH[i]
        t = to + d
        while b[t] == EMPTY:
            t += d
        if b[t] == OFF:
            continue
        if is_kind(b, t, ROOK + k):
            rook = t
        elif t == to + d and is_kind(b, t, KING + k) and IN_PALACE[to]:
            king = t
        t += d
        while b[t] == EMPTY:
            t += d
        if is_kind(b, t, CANNON + k):
            cannon = t
    if cannon:
        return cannon
    if rook:
        return rook
    return king


cdef int see_ge(Position* p, Move m, int threshold) noexcept nogil:
    """Whether the exchange `m` starts nets at least `threshold`. The
    exchange is played on p's board array and taken back before returning
    (cheaper than copying the array)."""
    cdef unsigned char* b = p.board
    cdef int frm = move_from(m), to = move_to(m), side = p.side, sq, res = 1, n = 0
    cdef unsigned char moved = b[frm], target = b[to]
    cdef int vacated[32]
    cdef unsigned char vacated_piece[32]
    cdef int swap = PIECE_VALUE[KIND_OF[target] % 7] if target != EMPTY else 0
    swap -= threshold
    if swap < 0:
        return 0
    swap = PIECE_VALUE[KIND_OF[moved] % 7] - swap
    if swap <= 0:
        return 1
    b[to] = moved
    b[frm] = EMPTY
    while True:
        side ^= 1
        sq = least_attacker(b, to, side)
        if sq == 0:
            break
        res ^= 1
        if KIND_OF[b[sq]] % 7 == KING:
            # The king may take only if nothing can take him back.
            if least_attacker(b, to, side ^ 1):
                res ^= 1
            break
        swap = PIECE_VALUE[KIND_OF[b[sq]] % 7] - swap
        if swap < res:
            break
        b[to] = b[sq]
        vacated[n] = sq
        vacated_piece[n] = b[sq]
        n += 1
        b[sq] = EMPTY
    while n > 0:
        n -= 1
        b[vacated[n]] = vacated_piece[n]
    b[frm] = moved
    b[to] = target
    return res
