# Static exchange evaluation: would the capture sequence that a move starts
# on its target square, each side always recapturing with its cheapest
# piece, leave the mover at least `threshold` ahead? Played out on the board
# array itself (and taken back), so cannon screens appear and vanish as
# pieces are taken and horse legs open, exactly as in play. Pins are ignored, as SEE
# usually does: it orders and prunes, it does not decide legality.

from tuong.engine.position cimport (
    Position, Move, KIND_OF, EMPTY, KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN,
    PIECE_VALUE, IN_PALACE, ORTH, move_from, move_to,
)
from tuong.engine.attack cimport (
    pawn_reaching, advisor_reaching, elephant_reaching, horse_reaching, line_attackers,
)

# Exchanges are counted in the nominal piece values (engine/position.pxd),
# never the tuned ones; the king's is above everything, and he takes last.


cdef int least_attacker(const unsigned char* b, int to, int side) noexcept nogil:
    """The square of side's cheapest piece that can move to `to` on board
    b (kings last), or 0."""
    cdef int k = 7 * side, i, sq, first, second
    cdef int rook = 0, cannon = 0, king = 0
    sq = pawn_reaching(b, to, side, PAWN + k)
    if sq == 0:
        sq = advisor_reaching(b, to, ADVISOR + k)
    if sq == 0:
        sq = elephant_reaching(b, to, side, ELEPHANT + k)
    if sq == 0:
        sq = horse_reaching(b, to, HORSE + k)
    if sq:
        return sq
    # Lines: the first piece met may be a rook (or a king next door), the
    # second a cannon.
    for i in range(4):
        line_attackers(b, to, ORTH[i], &first, &second)
        if first and KIND_OF[b[first]] == ROOK + k:
            rook = first
        elif first == to + ORTH[i] and KIND_OF[b[first]] == KING + k and IN_PALACE[to]:
            king = first
        if second and KIND_OF[b[second]] == CANNON + k:
            cannon = second
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
