# Move generation, attack detection and perft. Hot code: every function is
# noexcept nogil, walks the piece lists (never the whole board) and relies on
# the OFF border to stop sliders and reject jumps off the board.

from libc.stdint cimport uint8_t, uint64_t
from tuong.engine.position cimport (
    Position, Move, KIND_OF, OFF, EMPTY, RED, BLACK, KING, ADVISOR, ELEPHANT,
    HORSE, ROOK, CANNON, PAWN, XQ_MAX_MOVES, side_tag, make_move, move_from,
    move_to, rank_of, file_of, make, unmake, ORTH, DIAG_V, DIAG_H, HORSE_LEG, HORSE_JUMP,
    IN_PALACE, IN_HALF,
)
from tuong.engine.attack cimport horse_reaching, pawn_reaching, line_attackers


cdef int is_attacked(const Position* p, int sq, int by_side) noexcept nogil:
    """Whether a piece of by_side attacks sq (asked for king squares only)."""
    cdef const uint8_t* b = p.board
    cdef int k = 7 * by_side
    cdef int i, first, second, kind
    for i in range(4):
        line_attackers(b, sq, ORTH[i], &first, &second)
        if first:
            kind = KIND_OF[b[first]]
            # A king as the first piece on the file is the "flying general".
            if kind == ROOK + k or kind == KING + k:
                return 1
        if second and KIND_OF[b[second]] == CANNON + k:
            return 1
    # Advisors and elephants never leave their own side: no king to attack.
    return horse_reaching(b, sq, HORSE + k) != 0 or pawn_reaching(b, sq, by_side, PAWN + k) != 0


cdef int in_check(const Position* p) noexcept nogil:
    return is_attacked(p, p.square[side_tag(p.side)], p.side ^ 1)


cdef inline int wanted(int cell, GenMode mode, int mine, int theirs) noexcept nogil:
    # mine = own tag | OFF: cells that can never be entered.
    if mode == GEN_ALL:
        return not (cell & mine)
    if mode == GEN_CAPTURES:
        return cell & theirs
    return cell == EMPTY


cdef int generate(const Position* p, Move* out, GenMode mode) noexcept nogil:
    """Pseudo-legal moves of the side to move; returns how many."""
    cdef const uint8_t* b = p.board
    cdef int side = p.side
    cdef int tag = side_tag(side)
    cdef int mine = tag | OFF, theirs = side_tag(side ^ 1)
    cdef int n = 0, piece, frm, to, i, d, forward
    # King and advisors: one step, inside the palace.
    frm = p.square[tag]
    for i in range(4):
        to = frm + ORTH[i]
        if IN_PALACE[to] and wanted(b[to], mode, mine, theirs):
            out[n] = make_move(frm, to); n += 1
    for piece in range(tag + 1, tag + 3):
        frm = p.square[piece]
        if frm == 0:
            continue
        for i in range(4):
            to = frm + DIAG_V[i] + DIAG_H[i]
            if IN_PALACE[to] and wanted(b[to], mode, mine, theirs):
                out[n] = make_move(frm, to); n += 1
    # Elephants: two diagonal steps over an empty eye, never across the river.
    for piece in range(tag + 3, tag + 5):
        frm = p.square[piece]
        if frm == 0:
            continue
        for i in range(4):
            d = DIAG_V[i] + DIAG_H[i]
            to = frm + 2 * d
            if b[frm + d] == EMPTY and IN_HALF[side][to] and wanted(b[to], mode, mine, theirs):
                out[n] = make_move(frm, to); n += 1
    # Horses: one orthogonal step over an empty leg, then one diagonal step.
    for piece in range(tag + 5, tag + 7):
        frm = p.square[piece]
        if frm == 0:
            continue
        for i in range(8):
            to = frm + HORSE_JUMP[i]
            if b[frm + HORSE_LEG[i]] == EMPTY and wanted(b[to], mode, mine, theirs):
                out[n] = make_move(frm, to); n += 1
    # Rooks slide; the first piece met is captured if it is an enemy.
    for piece in range(tag + 7, tag + 9):
        frm = p.square[piece]
        if frm == 0:
            continue
        for i in range(4):
            d = ORTH[i]
            to = frm + d
            while b[to] == EMPTY:
                if mode != GEN_CAPTURES:
                    out[n] = make_move(frm, to); n += 1
                to += d
            if (b[to] & theirs) and mode != GEN_QUIETS:
                out[n] = make_move(frm, to); n += 1
    # Cannons slide like rooks but capture by jumping exactly one screen.
    for piece in range(tag + 9, tag + 11):
        frm = p.square[piece]
        if frm == 0:
            continue
        for i in range(4):
            d = ORTH[i]
            to = frm + d
            while b[to] == EMPTY:
                if mode != GEN_CAPTURES:
                    out[n] = make_move(frm, to); n += 1
                to += d
            if b[to] == OFF or mode == GEN_QUIETS:
                continue
            to += d
            while b[to] == EMPTY:
                to += d
            if b[to] & theirs:
                out[n] = make_move(frm, to); n += 1
    # Pawns step forward and, once across the river, sideways too.
    forward = 16 if side == RED else -16
    for piece in range(tag + 11, tag + 16):
        frm = p.square[piece]
        if frm == 0:
            continue
        to = frm + forward
        if wanted(b[to], mode, mine, theirs):
            out[n] = make_move(frm, to); n += 1
        if not IN_HALF[side][frm]:
            if wanted(b[frm + 1], mode, mine, theirs):
                out[n] = make_move(frm, frm + 1); n += 1
            if wanted(b[frm - 1], mode, mine, theirs):
                out[n] = make_move(frm, frm - 1); n += 1
    return n


cdef inline void mark_danger(Legality* lg, int sq) noexcept nogil:
    lg.danger[sq >> 6] |= (<uint64_t> 1) << (sq & 63)


cdef inline int is_danger(const Legality* lg, int sq) noexcept nogil:
    return (lg.danger[sq >> 6] >> (sq & 63)) & 1


cdef void prepare_legality(const Position* p, Legality* lg, int in_check=-1) noexcept nogil:
    """in_check: whether the side to move is in check, or -1 if not known."""
    cdef const uint8_t* b = p.board
    cdef int side = p.side, k = 7 * (side ^ 1)
    cdef int ksq = p.square[side_tag(side)]
    cdef int i, d, t, last, kind, leg, blockers, first = 0, second = 0
    lg.king = ksq
    lg.in_check = is_attacked(p, ksq, side ^ 1) if in_check < 0 else in_check
    if lg.in_check:
        return              # every move is tested: the danger map is unused
    lg.danger[0] = lg.danger[1] = lg.danger[2] = lg.danger[3] = 0
    for i in range(4):
        # Along each line from the king, a move can only expose him by
        # changing how many pieces stand between him and an enemy slider:
        # taking away the one blocker in front of a rook or the other king,
        # one of the two in front of a cannon, or stepping in front of a
        # cannon that has none. Those squares are marked; nothing past a
        # third piece can matter.
        d = ORTH[i]
        blockers = 0
        t = ksq + d
        while b[t] != OFF and blockers < 3:
            if b[t] != EMPTY:
                kind = KIND_OF[b[t]] - k
                if blockers == 0 and kind == CANNON:
                    last = ksq + d
                    while last != t:
                        mark_danger(lg, last)
                        last += d
                elif blockers == 1 and (kind == ROOK or kind == KING):
                    mark_danger(lg, first)
                elif blockers == 2 and kind == CANNON:
                    mark_danger(lg, first)
                    mark_danger(lg, second)
                if blockers == 0:
                    first = t
                elif blockers == 1:
                    second = t
                blockers += 1
            t += d
    for i in range(4):
        leg = ksq + DIAG_V[i] + DIAG_H[i]
        if b[leg] != EMPTY and b[leg] != OFF and (
                KIND_OF[b[leg + DIAG_V[i]]] == HORSE + k
                or KIND_OF[b[leg + DIAG_H[i]]] == HORSE + k):
            mark_danger(lg, leg)


cdef int is_legal(Position* p, const Legality* lg, Move m) noexcept nogil:
    """Whether a pseudo-legal move leaves the mover's king safe."""
    cdef int frm = move_from(m), to = move_to(m)
    if not lg.in_check and frm != lg.king and not is_danger(lg, frm) and not is_danger(lg, to):
        return 1
    cdef uint8_t piece = p.board[frm], captured = p.board[to]
    cdef int ksq = to if frm == lg.king else lg.king
    # Try the move on the board alone: the attack test reads nothing else.
    p.board[to] = piece
    p.board[frm] = EMPTY
    cdef int safe = not is_attacked(p, ksq, p.side ^ 1)
    p.board[frm] = piece
    p.board[to] = captured
    return safe


cdef int generate_legal(Position* p, Move* out) noexcept nogil:
    cdef Legality lg
    cdef int n = generate(p, out, GEN_ALL), i, kept = 0
    prepare_legality(p, &lg)
    for i in range(n):
        if is_legal(p, &lg, out[i]):
            out[kept] = out[i]
            kept += 1
    return kept


cdef int has_legal_move(Position* p) noexcept nogil:
    cdef Move moves[XQ_MAX_MOVES]
    cdef Legality lg
    cdef int n = generate(p, moves, GEN_ALL), i
    prepare_legality(p, &lg)
    for i in range(n):
        if is_legal(p, &lg, moves[i]):
            return 1
    return 0


cdef uint64_t perft(Position* p, int depth) noexcept nogil:
    cdef Move moves[XQ_MAX_MOVES]
    cdef Legality lg
    cdef int n, i
    cdef uint64_t total = 0
    if depth == 0:
        return 1
    n = generate(p, moves, GEN_ALL)
    prepare_legality(p, &lg)
    if depth == 1:
        # Bulk counting: the last ply is counted, never made.
        for i in range(n):
            total += is_legal(p, &lg, moves[i])
        return total
    for i in range(n):
        if is_legal(p, &lg, moves[i]):
            make(p, moves[i])
            total += perft(p, depth - 1)
            unmake(p)
    return total
