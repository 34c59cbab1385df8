# The move picker of the tree search (engine/tree.pyx): a node's moves one
# at a time, best first, each with its stage, what kind of move it is: the
# hash move, captures that do not lose material, the killers, the
# countermove, the other quiet moves by their histories, and last the
# captures that lose material. The stages come in that order, but the
# moves are one list ranked by scores in bands (a stage's band above the
# next one's), picked lazily: a cutoff usually comes early. Called per
# node and per move: inline here. (The histories that rank the moves, and
# what a cutoff teaches them, are engine/ordering.pxd's.)

from libc.stdint cimport int16_t

from tuong.engine.game cimport Move, MAX_MOVES
from tuong.engine.worker cimport SearchState
from tuong.engine.ordering cimport capture_entry, quiet_stat, capture_value, see_ge

cdef enum:
    # What a move is, as the picker hands it out (in this order).
    STAGE_TABLE_MOVE             # the hash move (MovePicker.tt_capture: whether it captures)
    STAGE_GOOD_CAPTURE           # a capture that does not lose material
    STAGE_KILLER                 # a killer of this ply (the first before the second)
    STAGE_COUNTER                # the reply that refuted the previous move before
    STAGE_QUIET                  # any other quiet move, by its histories
    STAGE_BAD_CAPTURE            # a capture that loses material, after every quiet move
    STAGE_CAPTURE                # a capture not tested for losing material (quiescence)

cdef enum:
    CAPTURE_VALUE_SCALE = 4096   # a capture's value outweighs its history within a victim
    SCORE_HASH_MOVE = 1 << 30
    SCORE_CAPTURE = 1 << 29
    SCORE_KILLER = 1 << 28
    SCORE_COUNTER = (1 << 28) - 1     # the reply that refuted this move before
    SCORE_BAD_CAPTURE = -(1 << 29)    # after every quiet move
    # (Quiet moves other than these score by their histories, which stay
    # within +-HISTORY_MAX each, order hints well inside the band.)
    SORT_AFTER = 4               # moves picked one by one before the rest is sorted


cdef struct MovePicker:
    SearchState* s
    int n                        # moves in the list
    int cur                      # the next one to hand out
    int sorted_from              # moves[sorted_from:n] are sorted (n: none known to be)
    int sort_after               # moves picked one by one before the rest is sorted
    int test_see                 # captures are tested for losing material (else STAGE_CAPTURE)
    int tt_capture               # the hash move is a capture
    Move moves[MAX_MOVES]
    int scores[MAX_MOVES]
    unsigned char stages[MAX_MOVES]


cdef inline void pick_next(MovePicker* p, int i) noexcept nogil:
    # Selection sort one step at a time: a cutoff usually comes early, so
    # sorting the whole list would be wasted work.
    cdef int j, best = i, t, n = p.n
    cdef Move m
    cdef unsigned char st
    for j in range(i + 1, n):
        if p.scores[j] > p.scores[best]:
            best = j
    if best != i:
        t = p.scores[i]; p.scores[i] = p.scores[best]; p.scores[best] = t
        m = p.moves[i]; p.moves[i] = p.moves[best]; p.moves[best] = m
        st = p.stages[i]; p.stages[i] = p.stages[best]; p.stages[best] = st


cdef inline void sort_moves(MovePicker* p, int i) noexcept nogil:
    # Insertion sort of moves[i:n], best first: once a node has searched a
    # few moves without a cutoff it will likely search them all, and picking
    # each by a full scan would cost a quadratic number of comparisons.
    cdef int j, k, t, n = p.n
    cdef Move m
    cdef unsigned char st
    for j in range(i + 1, n):
        t = p.scores[j]
        m = p.moves[j]
        st = p.stages[j]
        k = j - 1
        while k >= i and p.scores[k] < t:
            p.scores[k + 1] = p.scores[k]
            p.moves[k + 1] = p.moves[k]
            p.stages[k + 1] = p.stages[k]
            k -= 1
        p.scores[k + 1] = t
        p.moves[k + 1] = m
        p.stages[k + 1] = st


cdef inline int capture_order(SearchState* s, Move move, int value) noexcept nogil:
    cdef int16_t* h = capture_entry(s, move, value)
    return SCORE_CAPTURE + value * CAPTURE_VALUE_SCALE + (h[0] if h is not NULL else 0)


cdef inline int quiet_order(SearchState* s, Move move, int16_t* c1, int16_t* c2) noexcept nogil:
    cdef int kind = s.ops.move_kind(s.game, move) if (c1 is not NULL or c2 is not NULL) else -1
    cdef int score = quiet_stat(s, move, kind, c1, c2)
    if s.ops.order_hint is not NULL:
        score += s.ops.order_hint(s.game, move)
    return score


cdef inline void picker_start(MovePicker* p, SearchState* s, int n, int sort_after,
                              int test_see) noexcept nogil:
    p.s, p.n, p.cur, p.sorted_from = s, n, 0, n
    p.sort_after, p.test_see, p.tt_capture = sort_after, test_see, 0


cdef inline int picker_table_move(MovePicker* p, int i, Move move, Move tt_move,
                                  int value) noexcept nogil:
    """Rank move i first if it is the hash move (noting whether it captures)."""
    if move != tt_move:
        return 0
    p.scores[i], p.stages[i] = SCORE_HASH_MOVE, STAGE_TABLE_MOVE
    p.tt_capture = value != 0
    return 1


cdef inline void picker_init(MovePicker* p, SearchState* s, int n, int ply, Move tt_move,
                             Move counter, int16_t* c1, int16_t* c2) noexcept nogil:
    """Rank the n moves in p.moves for a node of the tree: the hash move,
    captures by value and capture history (each tested for losing material
    when it comes up), killers, the countermove, quiet moves by history."""
    cdef int i, value
    cdef Move move
    picker_start(p, s, n, SORT_AFTER, 1)
    for i in range(n):
        move = p.moves[i]
        value = capture_value(s, s.captures, move)
        if picker_table_move(p, i, move, tt_move, value):
            continue
        if value:
            p.scores[i], p.stages[i] = capture_order(s, move, value), STAGE_CAPTURE
        elif move == s.killers[ply][0]:
            p.scores[i], p.stages[i] = SCORE_KILLER + 1, STAGE_KILLER
        elif move == s.killers[ply][1]:
            p.scores[i], p.stages[i] = SCORE_KILLER, STAGE_KILLER
        elif move == counter:
            p.scores[i], p.stages[i] = SCORE_COUNTER, STAGE_COUNTER
        else:
            p.scores[i], p.stages[i] = quiet_order(s, move, c1, c2), STAGE_QUIET


cdef inline void picker_init_qsearch(MovePicker* p, SearchState* s, int n,
                                     Move tt_move) noexcept nogil:
    """Rank the n moves in p.moves for quiescence (captures, or every
    evasion in check): the hash move, then by capture value (MVV-LVA, quiet
    evasions last), each picked by a scan. Captures are not tested here:
    the search drops those that lose material (STAGE_CAPTURE)."""
    cdef int i, value
    cdef Move move
    picker_start(p, s, n, MAX_MOVES, 0)
    for i in range(n):
        move = p.moves[i]
        value = capture_value(s, s.captures, move)
        if not picker_table_move(p, i, move, tt_move, value):
            p.scores[i], p.stages[i] = value, (STAGE_CAPTURE if value else STAGE_QUIET)


cdef inline int picker_next(MovePicker* p, Move* move, int* stage) noexcept nogil:
    """The best move left and its stage: 1, or 0 when none is left. A
    capture that loses material waits until after the quiet moves.
    (Testing only those that come up saves the exchange evaluation of every
    capture at nodes that cut early.)"""
    cdef int i
    while p.cur < p.n:
        i = p.cur
        if i < p.sort_after:
            pick_next(p, i)
        elif i < p.sorted_from:
            sort_moves(p, i)
            p.sorted_from = i
        if p.test_see and p.stages[i] == STAGE_CAPTURE:
            if not see_ge(p.s, p.moves[i], 0):
                p.scores[i] += SCORE_BAD_CAPTURE - SCORE_CAPTURE
                p.stages[i] = STAGE_BAD_CAPTURE
                p.sorted_from = p.n         # its place is further down now
                continue
            p.stages[i] = STAGE_GOOD_CAPTURE
        move[0] = p.moves[i]
        stage[0] = p.stages[i]
        p.cur = i + 1
        return 1
    return 0


cdef inline int picker_quiet(MovePicker* p, int stage) noexcept nogil:
    """Whether a move of this stage (handed out by p) captures nothing."""
    if stage == STAGE_TABLE_MOVE:
        return not p.tt_capture
    return stage == STAGE_KILLER or stage == STAGE_COUNTER or stage == STAGE_QUIET
