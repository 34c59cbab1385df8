# Make/unmake, the Zobrist key and the incremental score. put_piece and the
# two halves of make() are the only places that change the board, so the
# board, the piece lists, the key and the score cannot drift apart.

from libc.string cimport memset

# Slot (0..15 within a side) -> piece type.
cdef int SLOT_TYPE[16]
SLOT_TYPE[:] = [KING, ADVISOR, ADVISOR, ELEPHANT, ELEPHANT, HORSE, HORSE,
                ROOK, ROOK, CANNON, CANNON, PAWN, PAWN, PAWN, PAWN, PAWN]


cdef uint64_t splitmix64(uint64_t* state) noexcept nogil:
    # A fixed, well-mixed sequence: keys are the same in every run.
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void init_tables():
    cdef int cell, kind, sq
    cdef uint64_t seed = 20261122
    for cell in range(256):
        KIND_OF[cell] = NO_KIND
    for cell in range(16, 48):
        KIND_OF[cell] = SLOT_TYPE[cell & 15] + 7 * ((cell >> 5) & 1)
    for kind in range(14):
        for sq in range(256):
            ZOBRIST[kind][sq] = splitmix64(&seed)
            PIECE_SQUARE[kind][sq] = 0
    global ZOBRIST_SIDE
    ZOBRIST_SIDE = splitmix64(&seed)
    cdef int f, r, on_board
    for sq in range(256):
        f = file_of(sq)
        r = rank_of(sq)
        on_board = 0 <= f <= 8 and 0 <= r <= 9
        IN_PALACE[sq] = on_board and 3 <= f <= 5 and (r <= 2 or r >= 7)
        IN_HALF[RED][sq] = on_board and r <= 4
        IN_HALF[BLACK][sq] = on_board and r >= 5


init_tables()


cdef void clear_position(Position* p) noexcept nogil:
    cdef int sq
    memset(p, 0, header_size(p))
    stale_accumulators(p)
    for sq in range(256):
        if rank_of(sq) < 0 or rank_of(sq) > 9 or file_of(sq) < 0 or file_of(sq) > 8:
            p.board[sq] = OFF


cdef void put_piece(Position* p, int piece, int sq) noexcept nogil:
    cdef int kind = KIND_OF[piece]
    p.board[sq] = piece
    p.square[piece] = sq
    p.key ^= ZOBRIST[kind][sq]
    p.score += PIECE_SQUARE[kind][sq]


cdef uint64_t compute_key(const Position* p) noexcept nogil:
    cdef uint64_t key = ZOBRIST_SIDE if p.side == BLACK else 0
    cdef int piece, sq
    for piece in range(16, 48):
        sq = p.square[piece]
        if sq:
            key ^= ZOBRIST[KIND_OF[piece]][sq]
    return key


cdef int32_t compute_score(const Position* p) noexcept nogil:
    cdef int32_t score = 0
    cdef int piece, sq
    for piece in range(16, 48):
        sq = p.square[piece]
        if sq:
            score += PIECE_SQUARE[KIND_OF[piece]][sq]
    return score


cdef void make(Position* p, Move m) noexcept nogil:
    cdef int frm = move_from(m), to = move_to(m)
    cdef int piece = p.board[frm], captured = p.board[to]
    cdef int kind = KIND_OF[piece]
    cdef Undo* u = &p.history[p.ply]
    u.key = p.key
    u.move = m
    u.captured = captured
    u.gives_check = 0
    p.ply += 1
    p.key = key_after(p, m)
    if captured:
        p.square[captured] = 0
        p.score -= PIECE_SQUARE[KIND_OF[captured]][to]
    p.board[frm] = EMPTY
    p.board[to] = piece
    p.square[piece] = to
    p.score += PIECE_SQUARE[kind][to] - PIECE_SQUARE[kind][frm]
    p.side ^= 1


cdef void unmake(Position* p) noexcept nogil:
    p.ply -= 1
    cdef Undo* u = &p.history[p.ply]
    cdef int frm = move_from(u.move), to = move_to(u.move)
    cdef int piece = p.board[to], captured = u.captured
    cdef int kind = KIND_OF[piece]
    p.side ^= 1
    p.board[frm] = piece
    p.square[piece] = frm
    p.board[to] = captured
    p.score -= PIECE_SQUARE[kind][to] - PIECE_SQUARE[kind][frm]
    if captured:
        p.square[captured] = to
        p.score += PIECE_SQUARE[KIND_OF[captured]][to]
    p.key = u.key


cdef void make_null(Position* p) noexcept nogil:
    # A pass, for null-move pruning: recorded so that repetition walks stay
    # aligned, but it blocks them (see the repetition test in search).
    cdef Undo* u = &p.history[p.ply]
    u.key = p.key
    u.move = NO_MOVE
    u.captured = 0
    u.gives_check = 0
    p.ply += 1
    p.key ^= ZOBRIST_SIDE
    p.side ^= 1


cdef void unmake_null(Position* p) noexcept nogil:
    p.ply -= 1
    p.key = p.history[p.ply].key
    p.side ^= 1
