# What every node of the tree search (engine/tree.pyx) does besides
# searching: count itself and poll for a stop (the clock once every
# POLL_MASK + 1 nodes), settle what the rules or mate distance settle, take
# its static evaluation, generate its moves once, note its line. Called per
# node and per move: inline here. None of it reads a tunable parameter.

from tuong.engine.game cimport Move, MAX_MOVES, MATE, MAX_PLY, INFINITE
from tuong.engine.worker cimport (
    Control, SearchState, atomic_load_int, atomic_load_i64, count_node, now_ns, total_nodes,
)
from tuong.engine.tt cimport TTEntry, tt_prefetch

cdef enum:
    POLL_MASK = 1023             # the clock is read when nodes & POLL_MASK == 0


cdef inline int should_stop(SearchState* s) noexcept nogil:
    cdef Control* c = s.control
    cdef long long deadline
    if s.aborted:
        return 1
    if not s.abortable:
        return 0
    if c.node_limit and s.nodes >= c.node_limit:
        s.aborted = 1
    elif (s.nodes & POLL_MASK) == 0:
        if atomic_load_int(&c.stop):
            s.aborted = 1
        elif s.id == 0 and atomic_load_int(&c.helper_done[s.iteration]):
            s.aborted = s.jumped = 1    # its line stands for this iteration
        else:
            deadline = atomic_load_i64(&c.hard_ns)
            if deadline and now_ns() >= deadline:
                s.aborted = 1
            elif c.node_limit and c.n_workers > 1 and total_nodes(c) >= c.node_limit:
                s.aborted = 1
    return s.aborted


cdef inline void update_pv(SearchState* s, int ply, Move move) noexcept nogil:
    cdef int i
    s.pv[ply][ply] = move
    for i in range(ply + 1, s.pv_len[ply + 1]):
        s.pv[ply][i] = s.pv[ply + 1][i]
    s.pv_len[ply] = s.pv_len[ply + 1] if s.pv_len[ply + 1] > ply + 1 else ply + 1


cdef inline int is_excluded(SearchState* s, Move move) noexcept nogil:
    cdef int i
    for i in range(s.n_excluded):
        if s.excluded[i] == move:
            return 1
    return 0


cdef inline int may_give_check(SearchState* s, int has_checks, Move move) noexcept nogil:
    return has_checks and s.ops.may_give_check(s.game, move)


cdef inline void prefetch_child(SearchState* s, Move move) noexcept nogil:
    # The child's probe of the table is a miss to memory: start that load
    # now, while the move is still being judged (exchange, pruning, make).
    if s.ops.key_after is not NULL:
        tt_prefetch(s.tt, s.ops.key_after(s.game, move))


cdef inline int generated(SearchState* s, Move* moves, int* n, int in_check) noexcept nogil:
    # The node's legal moves, generated once (n < 0: not yet).
    if n[0] < 0:
        n[0] = s.ops.generate(s.game, moves, MAX_MOVES, 0, in_check)
    return n[0]


cdef inline void note_rule_result(SearchState* s, int ply, int back) noexcept nogil:
    if back and ply - back < s.path_dep:
        s.path_dep = ply - back


cdef inline int enter_node(SearchState* s, int ply) noexcept nogil:
    """Count the node; 1: the search has stopped."""
    s.pv_len[ply] = ply
    count_node(&s.nodes)
    if should_stop(s):
        return 1
    if ply > s.seldepth:
        s.seldepth = ply
    return 0


cdef inline int settled(SearchState* s, int ply, int* alpha, int* beta, int* score) noexcept nogil:
    """Step 1 of pvs_node (below the root): whether a rule's result, the
    ply limit or mate distance settles the node, its score in `score`. No
    mate found from here can beat one already found nearer the root: the
    window shrinks to the mates still possible."""
    cdef int back = 0
    if s.ops.rule_result(s.game, ply, score, &back):
        note_rule_result(s, ply, back)
        return 1
    if ply >= MAX_PLY - 1:
        score[0] = s.ops.evaluate(s.game)
        return 1
    if alpha[0] < -(MATE - ply):
        alpha[0] = -(MATE - ply)
    if beta[0] > MATE - ply - 1:
        beta[0] = MATE - ply - 1
    score[0] = alpha[0]
    return alpha[0] >= beta[0]


cdef inline int node_eval(SearchState* s, int ply, int in_check, int found,
                          const TTEntry* entry) noexcept nogil:
    """The node's static evaluation, noted at its ply: none in check, the
    table's when it has one."""
    cdef int static_eval
    if in_check:
        static_eval = -INFINITE
    elif found and entry.eval != -INFINITE:
        static_eval = entry.eval
    else:
        static_eval = s.ops.evaluate(s.game)
    s.static_evals[ply] = static_eval
    return static_eval


cdef inline void new_best(SearchState* s, int ply, Move move, int score) noexcept nogil:
    update_pv(s, ply, move)
    if ply == 0:
        s.root_best = move
        s.root_score = score
