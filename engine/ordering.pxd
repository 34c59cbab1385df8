# The history heuristics of the tree search (engine/tree.pyx): the tables
# that a node's moves are ranked by (engine/movepick.pxd picks them), and
# what a cutoff teaches them. Called per node and per move: inline here.

from libc.stdint cimport int16_t
from libc.string cimport memset

from tuong.engine.game cimport Move, NO_MOVE, MAX_MOVES
from tuong.engine.worker cimport SearchState, CAPTURE_CLASSES

cdef enum:
    HISTORY_MAX = 1 << 14        # history scores stay within +-HISTORY_MAX


cdef inline int gravity(int value, int bonus) noexcept nogil:
    # "Gravity": each update moves a score toward +-HISTORY_MAX by a share of
    # the remaining distance, so it stays bounded and old news fades.
    if bonus > HISTORY_MAX:
        bonus = HISTORY_MAX
    elif bonus < -HISTORY_MAX:
        bonus = -HISTORY_MAX
    return value + bonus - value * (bonus if bonus > 0 else -bonus) // HISTORY_MAX


cdef inline int16_t* capture_entry(SearchState* s, Move move, int value) noexcept nogil:
    """Where the capture history of `move` (of capture value `value`) lives,
    or NULL without move kinds."""
    if s.capture_history is NULL:
        return NULL
    if value >= CAPTURE_CLASSES:
        value = CAPTURE_CLASSES - 1
    return s.capture_history + s.ops.move_kind(s.game, move) * CAPTURE_CLASSES + value


cdef inline void update_capture(SearchState* s, Move move, int value, int bonus) noexcept nogil:
    cdef int16_t* h = capture_entry(s, move, value)
    if h is not NULL:
        h[0] = <int16_t> gravity(h[0], bonus)


cdef inline int16_t* continuation_row(SearchState* s, int ply, int back) noexcept nogil:
    """The continuation history after the move `back` plies before this
    node, or NULL (no kinds, a pass, or before the root)."""
    cdef int kind
    if s.continuation is NULL or ply < back:
        return NULL
    kind = s.played_kind[ply - back]
    if kind < 0:
        return NULL
    return s.continuation + ((back - 1) * s.move_kinds + kind) * s.move_kinds


cdef inline int quiet_stat(SearchState* s, Move move, int kind, int16_t* c1, int16_t* c2) noexcept nogil:
    """What the histories say of a quiet move (kind: its move kind, or -1)."""
    cdef int score = s.history[move]
    if kind >= 0:
        if c1 is not NULL:
            score += c1[kind]
        if c2 is not NULL:
            score += c2[kind]
    return score


cdef inline void update_quiet(SearchState* s, Move move, int bonus, int16_t* c1,
                              int16_t* c2) noexcept nogil:
    """A quiet move cut (bonus > 0) or failed to (bonus < 0) here: its
    history and its continuation histories learn it."""
    cdef int kind
    s.history[move] = gravity(s.history[move], bonus)
    if c1 is not NULL or c2 is not NULL:
        kind = s.ops.move_kind(s.game, move)
        if c1 is not NULL:
            c1[kind] = <int16_t> gravity(c1[kind], bonus)
        if c2 is not NULL:
            c2[kind] = <int16_t> gravity(c2[kind], bonus)


# The game's switches are read once per node into locals (`has_captures`,
# `has_checks` in engine/tree.pyx): a field of *s would be reloaded after
# every call through a function pointer.
cdef inline int capture_value(SearchState* s, int has_captures, Move move) noexcept nogil:
    return s.ops.capture_value(s.game, move) if has_captures else 0


cdef inline int see_ge(SearchState* s, Move move, int threshold) noexcept nogil:
    # Without an exchange evaluator every capture counts as a good one.
    return s.ops.see_ge is NULL or s.ops.see_ge(s.game, move, threshold)


# The moves a node has searched, for the histories to learn from at a cutoff.
cdef struct Tried:
    int n_quiets
    int n_captures
    Move quiets[MAX_MOVES]
    Move captures[MAX_MOVES]
    int capture_values[MAX_MOVES]


cdef inline void note_tried(SearchState* s, Tried* tried, Move move, int quiet) noexcept nogil:
    if quiet and tried.n_quiets < MAX_MOVES:
        tried.quiets[tried.n_quiets] = move
        tried.n_quiets += 1
    elif not quiet:
        tried.captures[tried.n_captures] = move
        tried.capture_values[tried.n_captures] = capture_value(s, s.captures, move)
        tried.n_captures += 1


cdef inline void update_stats(SearchState* s, Tried* tried, Move move, int quiet, int ply,
                              int depth, Move previous, int16_t* c1, int16_t* c2) noexcept nogil:
    """`move`, the last one tried, cut: the histories reward it (a quiet
    one becomes a killer and the countermove to `previous` too); the moves
    of its kind tried before it failed to cut, so they lose as much, and so
    do the captures tried before it."""
    cdef int j, bonus = depth * depth, n_captures = tried.n_captures
    if quiet:
        if s.killers[ply][0] != move:
            s.killers[ply][1] = s.killers[ply][0]
            s.killers[ply][0] = move
        if previous != NO_MOVE:
            s.countermove[previous] = move
        update_quiet(s, move, bonus, c1, c2)
        for j in range(tried.n_quiets - 1):
            update_quiet(s, tried.quiets[j], -bonus, c1, c2)
    else:
        update_capture(s, move, tried.capture_values[n_captures - 1], bonus)
        n_captures -= 1
    for j in range(n_captures):
        update_capture(s, tried.captures[j], tried.capture_values[j], -bonus)


cdef inline void clear_heuristics(SearchState* s) noexcept nogil:
    """Forget what the tables learned (a new game)."""
    memset(s.history, 0, sizeof(s.history))
    if s.continuation is not NULL:
        memset(s.continuation, 0, 2 * s.move_kinds * s.move_kinds * sizeof(int16_t))
        memset(s.capture_history, 0, s.move_kinds * CAPTURE_CLASSES * sizeof(int16_t))
    memset(s.killers, 0xFF, sizeof(s.killers))          # NO_MOVE everywhere
    memset(s.countermove, 0xFF, sizeof(s.countermove))
