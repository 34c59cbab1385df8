# Xiangqi behind the search interface (engine/game.pxd): legal move lists,
# the incremental evaluation, move text, and the repetition rule.

from libc.stdint cimport uint16_t, uint64_t
from libc.string cimport memcpy
from tuong.engine.repetition cimport Verdict, find_cycle, judge
from tuong.engine.game cimport (
    GameOps, MATE, MAX_MOVES, NO_QUICK_ESTIMATE, PRUNE_FORWARD, PRUNE_REDUCTIONS,
    PRUNE_NULL_MOVE,
)
from tuong.engine.position cimport (
    Position, Undo, Move, KIND_OF, EMPTY, XQ_MAX_MOVES, side_tag, move_from, move_to,
    make_move, square_at, file_of, rank_of, make, unmake, make_null, unmake_null, key_after,
    HORSE, ROOK, CANNON, PAWN, KING, PIECE_VALUE, header_size, stale_accumulators,
)
from tuong.engine.movegen cimport (
    Legality, GenMode, GEN_ALL, GEN_CAPTURES, generate, prepare_legality,
    is_legal, in_check,
)
from tuong.engine.evaluate cimport evaluate, quick_evaluate
from tuong.engine.nnue cimport nn_active, nn_push, nn_pop, nn_evaluate
from tuong.engine.see cimport see_ge
from tuong.engine.egtbprobe cimport probe_position

# Offsets (square - king + REACH_OFFSET) from which a horse could give
# check, and from which a piece standing on a horse's leg could uncover
# one. Two board squares differ by at most 9 ranks and 8 files, so by
# -152..152 on the 16-wide board: the tables cover all of it.
cdef enum:
    REACH_OFFSET = 256
cdef unsigned char HORSE_REACH[2 * REACH_OFFSET]
cdef unsigned char KING_DIAGONAL[2 * REACH_OFFSET]


cdef void init_offsets():
    for d in (33, 31, 18, 14, -14, -18, -31, -33):
        HORSE_REACH[d + REACH_OFFSET] = 1
    for d in (17, 15, -15, -17):
        KING_DIAGONAL[d + REACH_OFFSET] = 1


init_offsets()

# Capture ordering (MVV-LVA): victims by ORDER_VALUE, the nominal piece
# values (engine/position.pxd) in whole pawns, rounded (a cannon is 5, more
# than a horse); the king is never captured. A capture's key is
# victim * ORDER_VICTIM_SCALE - attacker + ORDER_BIAS, always positive.
cdef int ORDER_VALUE[7]
cdef enum:
    ORDER_VICTIM_SCALE = 16
    ORDER_BIAS = 8


cdef void init_order():
    cdef int kind
    ORDER_VALUE[KING] = 0
    for kind in range(1, 7):
        ORDER_VALUE[kind] = (PIECE_VALUE[kind] + 50) // 100


init_order()


cdef void xq_copy_state(void* dst, const void* src) noexcept nogil:
    # The header and the part of the history in use (the rest is garbage).
    cdef const Position* p = <const Position*> src
    memcpy(dst, src, header_size(p) + p.ply * sizeof(Undo))
    stale_accumulators(<Position*> dst)


cdef int xq_generate(void* state, uint16_t* out, int capacity, int tactical, int checked) noexcept nogil:
    # Pseudo-legal moves go straight into `out` when it can hold the most a
    # position can have (the search's buffers can), else through a buffer
    # of our own; the legal ones are kept, up to `capacity`.
    cdef Position* p = <Position*> state
    cdef Legality lg
    cdef Move own[XQ_MAX_MOVES]
    cdef int n, i, kept = 0
    if capacity >= XQ_MAX_MOVES:
        n = generate(p, out, GEN_CAPTURES if tactical else GEN_ALL)
        prepare_legality(p, &lg, checked)
        for i in range(n):
            if is_legal(p, &lg, out[i]):
                out[kept] = out[i]
                kept += 1
        return kept
    n = generate(p, own, GEN_CAPTURES if tactical else GEN_ALL)
    prepare_legality(p, &lg, checked)
    for i in range(n):
        if kept < capacity and is_legal(p, &lg, own[i]):
            out[kept] = own[i]
            kept += 1
    return kept


cdef int xq_make(void* state, uint16_t move, int may_check) noexcept nogil:
    # Whether the move gave check is recorded with it: the repetition rule
    # reads it (perpetual check).
    cdef Position* p = <Position*> state
    if nn_active:
        nn_push(p, move)
    make(p, move)
    if not may_check:
        return 0
    cdef int checked = in_check(p)
    p.history[p.ply - 1].gives_check = checked
    return checked


cdef void xq_unmake(void* state) noexcept nogil:
    unmake(<Position*> state)
    if nn_active:
        nn_pop(<Position*> state)


cdef void xq_make_null(void* state) noexcept nogil:
    make_null(<Position*> state)


cdef void xq_unmake_null(void* state) noexcept nogil:
    unmake_null(<Position*> state)


cdef int xq_null_move_ok(void* state) noexcept nogil:
    # With only king, advisors and elephants a side may be in zugzwang, where
    # a pass is better than any move and the null-move test lies.
    cdef Position* p = <Position*> state
    cdef int tag = side_tag(p.side), piece
    for piece in range(tag + 5, tag + 16):
        if p.square[piece]:
            return 1
    return 0


cdef uint64_t xq_key(void* state) noexcept nogil:
    return (<Position*> state).key


cdef uint64_t xq_key_after(void* state, uint16_t move) noexcept nogil:
    return key_after(<Position*> state, move)


cdef int xq_evaluate(void* state) noexcept nogil:
    if nn_active:
        return nn_evaluate(<Position*> state)
    return evaluate(<Position*> state)


cdef int xq_quick_evaluate(void* state) noexcept nogil:
    # With a network there is nothing cheaper to try first: asking it twice
    # (here and in evaluate) cost a second output pass at most quiescence nodes.
    if nn_active:
        return NO_QUICK_ESTIMATE
    return quick_evaluate(<Position*> state)


cdef int xq_in_check(void* state) noexcept nogil:
    return in_check(<Position*> state)


cdef int xq_rule_result(void* state, int ply, int* score, int* cycle) noexcept nogil:
    """Repetition (engine/repetition.pyx): within the search a position
    repeated once is judged; one that reaches back to the root or before it
    needs a third occurrence. A win or loss by the rules scores as a mate at
    this ply; any other repetition draws. Then the endgame tables."""
    cdef Position* p = <Position*> state
    cdef Verdict verdict
    cdef int plies = find_cycle(p, ply), value
    if plies == 0:
        # After a capture, a position the endgame tables hold has its exact
        # value: a mate in the table's plies from here, or a draw.
        if ply > 0 and p.ply > 0 and p.history[p.ply - 1].captured \
                and probe_position(p, &value) and value != 255:
            cycle[0] = 0
            # A mate beyond the search's horizon still scores as a mate at
            # its distance: the mate band (MATE_BOUND) reaches that far.
            plies = ply + value - 1
            if value == 0:
                score[0] = 0
            elif (value - 1) % 2:
                score[0] = MATE - plies
            else:
                score[0] = -(MATE - plies)
            return 1
        return 0
    judge(p, plies, &verdict)
    cycle[0] = plies
    if verdict.loser < 0:
        score[0] = 0
    elif verdict.loser == p.side:
        score[0] = -(MATE - ply)
    else:
        score[0] = MATE - ply
    return 1


cdef int xq_no_move_score(void* state, int ply) noexcept nogil:
    return -(MATE - ply)            # no legal move loses, in check or not


cdef int xq_may_give_check(void* state, uint16_t move) noexcept nogil:
    # Checks come from the moved piece at `to` (rook, cannon, pawn on the
    # king's lines; a horse a knight's jump away), from a line or horse leg
    # opened at `from`, or from a cannon screen made at `to`: all lie on
    # the king's rank or file, a horse jump away, or next to him diagonally.
    cdef Position* p = <Position*> state
    cdef int king = p.square[side_tag(p.side ^ 1)]
    cdef int frm = move_from(move), to = move_to(move)
    if (frm ^ king) & 15 == 0 or (frm ^ king) >> 4 == 0:
        return 1
    if (to ^ king) & 15 == 0 or (to ^ king) >> 4 == 0:
        return 1
    return HORSE_REACH[to - king + REACH_OFFSET] | KING_DIAGONAL[frm - king + REACH_OFFSET]


cdef int xq_capture_value(void* state, uint16_t move) noexcept nogil:
    cdef Position* p = <Position*> state
    cdef int victim = p.board[move_to(move)]
    if victim == EMPTY:
        return 0
    return ORDER_VALUE[KIND_OF[victim] % 7] * ORDER_VICTIM_SCALE \
        - ORDER_VALUE[KIND_OF[p.board[move_from(move)]] % 7] + ORDER_BIAS


cdef int xq_see_ge(void* state, uint16_t move, int threshold) noexcept nogil:
    return see_ge(<Position*> state, move, threshold)


cdef int xq_move_text(const void* state, uint16_t move, char* out) noexcept nogil:
    cdef int i, sq
    for i in range(2):
        sq = move_from(move) if i == 0 else move_to(move)
        out[2 * i] = 97 + file_of(sq)
        out[2 * i + 1] = 48 + rank_of(sq)
    out[4] = 0
    return 4


cdef int parse_square(const char* text) noexcept nogil:
    """'e0' -> mailbox square, or -1."""
    if text[0] < 97 or text[0] > 105 or text[1] < 48 or text[1] > 57:
        return -1
    return square_at(text[0] - 97, text[1] - 48)


cdef int xq_parse_move(void* state, const char* text, uint16_t* move) noexcept nogil:
    cdef Position* p = <Position*> state
    cdef Move moves[XQ_MAX_MOVES]
    cdef int i, n, frm, to
    if text[0] == 0 or text[1] == 0 or text[2] == 0 or text[3] == 0 or text[4] != 0:
        return 0
    frm = parse_square(text)
    to = parse_square(text + 2)
    if frm < 0 or to < 0:
        return 0
    n = xq_generate(state, moves, XQ_MAX_MOVES, 0, in_check(p))
    for i in range(n):
        if moves[i] == make_move(frm, to):
            move[0] = moves[i]
            return 2
    return 1


cdef int xq_move_kind(void* state, uint16_t move) noexcept nogil:
    # Piece kind (0..13, both colours) and destination (0..89).
    cdef Position* p = <Position*> state
    cdef int to = move_to(move)
    return KIND_OF[p.board[move_from(move)]] * 90 + rank_of(to) * 9 + file_of(to)


XIANGQI_OPS.name = b"xiangqi"
XIANGQI_OPS.state_size = sizeof(Position)
XIANGQI_OPS.max_moves = XQ_MAX_MOVES
XIANGQI_OPS.pruning = PRUNE_FORWARD | PRUNE_REDUCTIONS | PRUNE_NULL_MOVE
XIANGQI_OPS.copy_state = xq_copy_state
XIANGQI_OPS.move_text = xq_move_text
XIANGQI_OPS.parse_move = xq_parse_move
XIANGQI_OPS.order_hint = NULL
XIANGQI_OPS.move_kinds = 14 * 90
XIANGQI_OPS.move_kind = xq_move_kind
XIANGQI_OPS.generate = xq_generate
XIANGQI_OPS.make = xq_make
XIANGQI_OPS.unmake = xq_unmake
XIANGQI_OPS.make_null = xq_make_null
XIANGQI_OPS.unmake_null = xq_unmake_null
XIANGQI_OPS.null_move_ok = xq_null_move_ok
XIANGQI_OPS.key = xq_key
XIANGQI_OPS.key_after = xq_key_after
XIANGQI_OPS.evaluate = xq_evaluate
XIANGQI_OPS.quick_evaluate = xq_quick_evaluate
XIANGQI_OPS.in_check = xq_in_check
XIANGQI_OPS.rule_result = xq_rule_result
XIANGQI_OPS.no_move_score = xq_no_move_score
XIANGQI_OPS.may_give_check = xq_may_give_check
XIANGQI_OPS.capture_value = xq_capture_value
XIANGQI_OPS.see_ge = xq_see_ge

assert XQ_MAX_MOVES <= MAX_MOVES, "Xiangqi's move lists must fit the search's buffers"
