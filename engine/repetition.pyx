# Xiangqi's repetition rules: when a position repeats, the moves of the
# cycle (from its earlier occurrence to now) decide, for each side apart:
#  1. Perpetual check. A side that gave check with every one of its moves,
#     while the other did not, loses; both: draw.
#  2. Perpetual chase (Asian rules only). Otherwise a side that chased the
#     same enemy piece with every one of its moves, while the other did not
#     chase throughout, loses; both: draw; neither: draw. A checking move
#     counts as chasing only if it also chases that piece.
#  3. A move chases a piece when, after it, one of the mover's pieces
#     attacks that enemy piece where it did not attack it before the move
#     (the moved piece, or one it uncovered), and:
#     - the attacker is no king or pawn, and could capture legally (not
#       pinned, no flying general or other check left behind);
#     - the victim is no king, and no pawn still on its own side;
#     - the victim is worth more (a rook attacked by a horse or cannon; a
#       rook, horse or cannon attacked by an advisor or elephant), or it is
#       unprotected: after the capture its side has no legal recapture;
#     - two pieces of the same kind that can take each other only offer an
#       exchange (a horse whose own leg is blocked, or a piece that could
#       not legally capture back, is still chased).
# The chase test replays the cycle backwards on the position itself (and
# forwards again): it runs only when a repetition is found.

from libc.stdint cimport uint8_t, uint16_t
from tuong.engine.game cimport NO_MOVE
from tuong.engine.position cimport (
    Position, Move, KIND_OF, EMPTY, OFF, RED, BLACK, KING, ADVISOR, ELEPHANT, HORSE, ROOK,
    CANNON, PAWN, side_tag, move_to, move_from, make_move, rank_of, make, unmake,
    XQ_MAX_MOVES, IN_HALF,
)
cdef enum:
    MAX_CYCLE = 256             # longer cycles are judged on checks alone

from tuong.engine.movegen cimport Legality, GEN_CAPTURES, generate, prepare_legality, is_legal
from tuong.engine.attack cimport (
    advisor_reaches, elephant_reaches, horse_reaches, line_blockers,
)


cdef int piece_attacks(const uint8_t* b, int frm, int to) noexcept nogil:
    """Whether the piece on frm could move to `to` by its own moves (the
    king's safety aside): advisors, elephants, horses, rooks and cannons."""
    cdef int kind = KIND_OF[b[frm]] % 7, side = KIND_OF[b[frm]] // 7
    if kind == ROOK:
        return line_blockers(b, frm, to) == 0
    if kind == CANNON:
        return line_blockers(b, frm, to) == 1
    if kind == HORSE:
        return horse_reaches(b, frm, to)
    if kind == ADVISOR:
        return advisor_reaches(frm, to)
    if kind == ELEPHANT:
        return elephant_reaches(b, frm, to, side)
    return 0


cdef int legal_for(Position* p, int side, int frm, int to) noexcept nogil:
    """Whether `side` could play frm-to here if it were its turn."""
    cdef Legality lg
    cdef int saved = p.side, ok
    p.side = side
    prepare_legality(p, &lg, -1)
    ok = is_legal(p, &lg, make_move(frm, to))
    p.side = saved
    return ok


cdef int can_recapture(Position* p, int sq) noexcept nogil:
    """Whether the side to move has a legal capture on sq."""
    cdef Move moves[XQ_MAX_MOVES]
    cdef Legality lg
    cdef int n = generate(p, moves, GEN_CAPTURES), i
    prepare_legality(p, &lg, -1)
    for i in range(n):
        if move_to(moves[i]) == sq and is_legal(p, &lg, moves[i]):
            return 1
    return 0


cdef int chases(Position* p, int side, int attacker, int victim) noexcept nogil:
    """Whether the piece `attacker` of `side` chases the enemy `victim` here
    (rule 3 but for the "not before" part): it attacks it, the capture is
    legal, and the victim is worth more, or unprotected and no exchange."""
    cdef uint8_t* b = p.board
    cdef int frm = p.square[attacker], to = p.square[victim]
    cdef int a_kind = KIND_OF[attacker] % 7, v_kind = KIND_OF[victim] % 7
    cdef int unprotected, saved
    if v_kind == PAWN and IN_HALF[side ^ 1][to]:
        return 0                                # a pawn that has not crossed
    if not piece_attacks(b, frm, to) or not legal_for(p, side, frm, to):
        return 0
    if v_kind == ROOK and (a_kind == HORSE or a_kind == CANNON):
        return 1
    if (a_kind == ADVISOR or a_kind == ELEPHANT) and (v_kind == ROOK or v_kind == HORSE
                                                       or v_kind == CANNON):
        return 1
    # Unprotected: play the capture and look for a legal recapture.
    saved = p.side
    p.side = side
    make(p, make_move(frm, to))
    unprotected = not can_recapture(p, to)
    unmake(p)
    p.side = saved
    if not unprotected:
        return 0
    if a_kind == v_kind:
        # Same kind: an offer to exchange if the victim can take back.
        return not (piece_attacks(b, to, frm) and legal_for(p, side ^ 1, to, frm))
    return 1


cdef void chase_pairs(Position* p, int side, uint16_t* pairs) noexcept nogil:
    """pairs[a] = the enemy pieces (bit: id & 15) that side's piece id a
    (slot 1..10: advisors to cannons) chases; kings and pawns never chase."""
    cdef int tag = side_tag(side), enemy = side_tag(side ^ 1), a, v
    for a in range(16):
        pairs[a] = 0
    for a in range(tag + 1, tag + 11):
        if p.square[a] == 0:
            continue
        for v in range(enemy + 1, enemy + 16):
            if p.square[v] and chases(p, side, a, v):
                pairs[a & 15] |= 1 << (v & 15)


cdef int find_cycle(const Position* p, int after_root) noexcept nogil:
    """The cycle to judge, in plies, or 0. Walking back over reversible
    moves (a capture or a pass ends the walk) to the positions with the same
    side to move: an earlier occurrence within the last `after_root` plies
    (strictly after the root of a search) is enough; otherwise it takes two
    earlier ones, and the cycle runs from the older."""
    cdef int j, seen = 0
    for j in range(p.ply - 1, -1, -1):
        if p.history[j].move == NO_MOVE or p.history[j].captured:
            return 0
        if (p.ply - j) % 2 == 0 and p.history[j].key == p.key:
            if p.ply - j < after_root:
                return p.ply - j
            seen += 1
            if seen == 2:
                return p.ply - j
    return 0


cdef void judge(Position* p, int cycle, Verdict* out) noexcept nogil:
    """The verdict on the last `cycle` plies (an even number, all reversible,
    ending where they began)."""
    cdef int j, mover, i, a, undone = 0
    cdef int checks[2]
    cdef int seen[2]                    # moves of each side replayed so far
    cdef uint16_t chased[2]             # enemy pieces chased by every move so far
    cdef int chaser[2][16]              # in each side's last move: who chased each piece
    cdef uint16_t after[16]
    cdef uint16_t victims
    cdef Move moves[MAX_CYCLE]
    cdef uint8_t gave_check[MAX_CYCLE]
    out.rule = VERDICT_DRAW
    out.loser = -1
    out.victim = out.attacker = 0
    # 1. Perpetual check: from the flags recorded as the moves were made.
    checks[0] = checks[1] = 1
    for j in range(p.ply - cycle, p.ply):
        mover = p.side ^ ((p.ply - j) & 1)      # the last move was the other side's
        checks[mover] &= p.history[j].gives_check
    if checks[RED] != checks[BLACK]:
        out.rule = VERDICT_PERPETUAL_CHECK
        out.loser = RED if checks[RED] else BLACK
        return
    if checks[RED] or p.rules == RULES_CHECK_ONLY or cycle > MAX_CYCLE:
        return
    # 2. Perpetual chase: replay the cycle backwards. Before each move is
    # taken back, the pairs its mover chases; after, which of those pieces
    # the same attacker already attacked: the rest are this move's chases.
    chased[0] = chased[1] = 0xFFFF
    seen[0] = seen[1] = 0
    while undone < cycle and (chased[0] or chased[1]):
        mover = p.side ^ 1
        chase_pairs(p, mover, after)
        moves[undone] = p.history[p.ply - 1].move
        gave_check[undone] = p.history[p.ply - 1].gives_check
        unmake(p)
        undone += 1
        victims = 0
        for a in range(1, 11):
            for i in range(16):
                if (after[a] >> i) & 1 and not piece_attacks(
                        p.board, p.square[side_tag(mover) + a], p.square[side_tag(mover ^ 1) + i]):
                    victims |= 1 << i
                    if seen[mover] == 0:
                        chaser[mover][i] = side_tag(mover) + a
        chased[mover] &= victims
        seen[mover] += 1
    # Play the cycle forwards again, with its check flags.
    while undone > 0:
        undone -= 1
        make(p, moves[undone])
        p.history[p.ply - 1].gives_check = gave_check[undone]
    if (chased[RED] != 0) != (chased[BLACK] != 0):
        mover = RED if chased[RED] else BLACK
        out.rule = VERDICT_PERPETUAL_CHASE
        out.loser = mover
        for i in range(16):
            if (chased[mover] >> i) & 1:
                out.victim = side_tag(mover ^ 1) + i
                out.attacker = chaser[mover][i]
                break
