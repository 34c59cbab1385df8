# Xiangqi behind the search interface (engine/game.pxd): legal move lists,
# the incremental evaluation, and the repetition rule.

from libc.stdint cimport uint16_t, uint64_t
from engine.game cimport GameOps, MATE
from engine.position cimport (
    Position, Undo, Move, KIND_OF, EMPTY, side_tag, move_from, move_to,
    make, unmake, make_null, unmake_null, HORSE, ROOK, CANNON, PAWN,
)
from engine.movegen cimport (
    Legality, GenMode, GEN_ALL, GEN_CAPTURES, generate, prepare_legality,
    is_legal, in_check,
)
from engine.evaluate cimport evaluate, quick_evaluate
from engine.see cimport see_ge

# Offsets (to - king + 128) from which a horse could give check, and from
# which a piece standing on a horse's leg could uncover one.
cdef unsigned char HORSE_REACH[256]
cdef unsigned char KING_DIAGONAL[256]


cdef void init_offsets():
    for d in (33, 31, 18, 14, -14, -18, -31, -33):
        HORSE_REACH[d + 128] = 1
    for d in (17, 15, -15, -17):
        KING_DIAGONAL[d + 128] = 1


init_offsets()

# Ordering values by piece type (K A B N R C P); the king is never captured.
cdef int ORDER_VALUE[7]
ORDER_VALUE[:] = [0, 2, 2, 4, 9, 5, 1]


cdef int xq_generate(void* state, uint16_t* out, int tactical, int checked) noexcept nogil:
    cdef Position* p = <Position*> state
    cdef Legality lg
    cdef int n = generate(p, out, GEN_CAPTURES if tactical else GEN_ALL)
    cdef int i, kept = 0
    prepare_legality(p, &lg, checked)
    for i in range(n):
        if is_legal(p, &lg, out[i]):
            out[kept] = out[i]
            kept += 1
    return kept


cdef void xq_make(void* state, uint16_t move) noexcept nogil:
    make(<Position*> state, move)


cdef void xq_unmake(void* state) noexcept nogil:
    unmake(<Position*> state)


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


cdef int xq_evaluate(void* state) noexcept nogil:
    return evaluate(<Position*> state)


cdef int xq_quick_evaluate(void* state) noexcept nogil:
    return quick_evaluate(<Position*> state)


cdef int xq_in_check(void* state) noexcept nogil:
    cdef Position* p = <Position*> state
    cdef int checked = in_check(p)
    if p.ply > 0:
        p.history[p.ply - 1].gives_check = checked
    return checked


cdef int xq_rule_result(void* state, int ply, int* score) noexcept nogil:
    """Repetition. Walk back through reversible moves (a capture or a null
    move ends the walk) to an earlier occurrence of this position with the
    same side to move. If one side gave check with every move of the cycle
    and the other did not, the checker loses; any other repetition draws."""
    cdef Position* p = <Position*> state
    cdef int j, back
    cdef int they_always_check = 1, we_always_check = 1
    cdef Undo* u
    for j in range(p.ply - 1, -1, -1):
        u = &p.history[j]
        if u.move == 0 or u.captured:
            return 0
        back = p.ply - j            # moves since (and including) move j
        if back & 1:
            they_always_check &= u.gives_check
        else:
            we_always_check &= u.gives_check
            if u.key == p.key:
                if they_always_check and not we_always_check:
                    score[0] = MATE - ply
                elif we_always_check and not they_always_check:
                    score[0] = -(MATE - ply)
                else:
                    score[0] = 0
                return 1
    return 0


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
    return HORSE_REACH[to - king + 128] | KING_DIAGONAL[frm - king + 128]


cdef int xq_capture_value(void* state, uint16_t move) noexcept nogil:
    cdef Position* p = <Position*> state
    cdef int victim = p.board[move_to(move)]
    if victim == EMPTY:
        return 0
    return ORDER_VALUE[KIND_OF[victim] % 7] * 16 - ORDER_VALUE[KIND_OF[p.board[move_from(move)]] % 7] + 8


cdef int xq_see_ge(void* state, uint16_t move, int threshold) noexcept nogil:
    return see_ge(<Position*> state, move, threshold)


XIANGQI_OPS.generate = xq_generate
XIANGQI_OPS.make = xq_make
XIANGQI_OPS.unmake = xq_unmake
XIANGQI_OPS.make_null = xq_make_null
XIANGQI_OPS.unmake_null = xq_unmake_null
XIANGQI_OPS.null_move_ok = xq_null_move_ok
XIANGQI_OPS.key = xq_key
XIANGQI_OPS.evaluate = xq_evaluate
XIANGQI_OPS.quick_evaluate = xq_quick_evaluate
XIANGQI_OPS.in_check = xq_in_check
XIANGQI_OPS.rule_result = xq_rule_result
XIANGQI_OPS.no_move_score = xq_no_move_score
XIANGQI_OPS.may_give_check = xq_may_give_check
XIANGQI_OPS.capture_value = xq_capture_value
XIANGQI_OPS.see_ge = xq_see_ge
