# The founding texts' algorithms as they print them, for tuong-compare:
# minimax (negamax without pruning), alpha-beta and NegaScout (a null window
# for every move after the first, searched again when it fails high), each
# with or without the transposition table and move ordering, to a fixed
# depth, through the same GameOps as the engine's search.
#
# They are kept plain on purpose -- no pruning, reductions, extensions or
# quiescence -- so that all of them compute the same depth-limited minimax
# value and differ only in the nodes they visit. Two things keep the table
# from changing that value: it answers only for the same remaining depth
# (a deeper stored result would be a different, better value), and a score
# that rests on a repetition reaching above a node is not stored (it
# depends on the path, not the position).

from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from tuong.engine.game cimport (
    GameOps, GameBoard, Move, NO_MOVE, MAX_MOVES, MAX_PLY, INFINITE, MOVE_TEXT_SIZE,
)
from tuong.engine.tt cimport (
    TTable, TTEntry, tt_resize, tt_free, tt_clear, tt_probe, tt_store, score_to_tt,
    score_from_tt, BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT,
)

cdef enum:
    MINIMAX = 0
    ALPHABETA = 1
    NEGASCOUT = 2
    HISTORY_SIZE = 1 << 16
    TT_MB = 64
    POLL = 4095

ALGORITHMS = {"minimax": MINIMAX, "alphabeta": ALPHABETA, "negascout": NEGASCOUT}


cdef struct Run:
    const GameOps* ops
    void* state
    TTable* tt                   # NULL: no table
    int ordering
    uint64_t nodes
    uint64_t leaves              # static evaluations and ends of the game
    int path_dep                 # as in the search: the lowest ply a result depended on
    long long deadline_ns
    int aborted
    Move best
    Move killers[MAX_PLY][2]
    int history[HISTORY_SIZE]


cdef long long now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <long long> ts.tv_sec * 1000000000 + ts.tv_nsec


cdef inline int leaf(Run* r, int depth, int ply, int* score) noexcept nogil:
    """A rule result or the horizon: sets *score and returns 1."""
    cdef int back = 0
    if ply > 0 and r.ops.rule_result(r.state, ply, score, &back):
        if back and ply - back < r.path_dep:
            r.path_dep = ply - back
        r.leaves += 1
        return 1
    if depth == 0 or ply >= MAX_PLY - 1:
        score[0] = r.ops.evaluate(r.state)
        r.leaves += 1
        return 1
    return 0


cdef int order(Run* r, Move* moves, int n, Move hash_move, int ply) noexcept nogil:
    """Sort moves best first: the hash move, captures by their value, the
    killers, then quiet moves by history (and the game's hint)."""
    cdef int scores[MAX_MOVES]
    cdef int i, j, t, v
    cdef Move m
    for i in range(n):
        m = moves[i]
        v = r.ops.capture_value(r.state, m) if r.ops.capture_value is not NULL else 0
        if m == hash_move:
            scores[i] = 1 << 30
        elif v:
            scores[i] = (1 << 29) + v
        elif m == r.killers[ply][0]:
            scores[i] = (1 << 28) + 1
        elif m == r.killers[ply][1]:
            scores[i] = 1 << 28
        else:
            scores[i] = r.history[m] + (r.ops.order_hint(r.state, m)
                                        if r.ops.order_hint is not NULL else 0)
    for i in range(1, n):
        t = scores[i]
        m = moves[i]
        j = i - 1
        while j >= 0 and scores[j] < t:
            scores[j + 1] = scores[j]
            moves[j + 1] = moves[j]
            j -= 1
        scores[j + 1] = t
        moves[j + 1] = m
    return n


cdef void reward(Run* r, Move m, int depth, int ply) noexcept nogil:
    if r.ops.capture_value is not NULL and r.ops.capture_value(r.state, m):
        return
    if r.killers[ply][0] != m:
        r.killers[ply][1] = r.killers[ply][0]
        r.killers[ply][0] = m
    if r.history[m] < (1 << 20):
        r.history[m] += depth * depth


cdef int search(Run* r, int algorithm, int alpha, int beta, int depth, int ply) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef Move best_move = NO_MOVE, hash_move = NO_MOVE
    cdef int n, i, score, best = -INFINITE, old_alpha = alpha, bound, saved, checked
    cdef uint64_t key = 0
    cdef TTEntry entry
    r.nodes += 1
    if (r.nodes & POLL) == 0 and r.deadline_ns and now_ns() > r.deadline_ns:
        r.aborted = 1
    if r.aborted:
        return 0
    if leaf(r, depth, ply, &score):
        return score
    if r.tt is not NULL:
        key = r.ops.key(r.state)
        if tt_probe(r.tt, key, &entry):
            hash_move = entry.move
            bound = entry.age_bound & 3
            score = score_from_tt(entry.score, ply)
            if ply > 0 and entry.depth == depth and (
                    bound == BOUND_EXACT or (bound == BOUND_LOWER and score >= beta)
                    or (bound == BOUND_UPPER and score <= alpha)):
                return score
    checked = r.ops.in_check(r.state) if r.ops.in_check is not NULL else 0
    n = r.ops.generate(r.state, moves, MAX_MOVES, 0, checked)
    if n == 0:
        r.leaves += 1
        return r.ops.no_move_score(r.state, ply)
    if r.ordering:
        order(r, moves, n, hash_move, ply)
    saved = r.path_dep
    r.path_dep = MAX_PLY
    for i in range(n):
        r.ops.make(r.state, moves[i], 1)
        if algorithm == MINIMAX:
            score = -search(r, algorithm, -INFINITE, INFINITE, depth - 1, ply + 1)
        elif algorithm == ALPHABETA or i == 0:
            score = -search(r, algorithm, -beta, -alpha, depth - 1, ply + 1)
        else:
            score = -search(r, algorithm, -alpha - 1, -alpha, depth - 1, ply + 1)
            if alpha < score < beta:
                score = -search(r, algorithm, -beta, -score, depth - 1, ply + 1)
        r.ops.unmake(r.state)
        if r.aborted:
            break
        if score > best:
            best = score
            best_move = moves[i]
            if ply == 0:
                r.best = moves[i]
            if algorithm != MINIMAX:
                if score > alpha:
                    alpha = score
                if alpha >= beta:
                    if r.ordering:
                        reward(r, moves[i], depth, ply)
                    break
    if r.tt is not NULL and not r.aborted and r.path_dep >= ply:
        if algorithm == MINIMAX:
            bound = BOUND_EXACT
        else:
            bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha
                                                       else BOUND_UPPER)
        tt_store(r.tt, key, best_move, score_to_tt(best, ply), -INFINITE, depth, bound)
    if saved < r.path_dep:
        r.path_dep = saved
    return best


cdef class Comparison:
    """Runs the plain algorithms on copies of a board; one table, cleared
    before every run so that runs do not help each other."""
    cdef TTable tt
    cdef Run* run_state

    def __cinit__(self):
        self.run_state = <Run*> calloc(1, sizeof(Run))
        if self.run_state is NULL or not tt_resize(&self.tt, TT_MB):
            raise MemoryError()

    def __dealloc__(self):
        tt_free(&self.tt)
        free(self.run_state)

    def run(self, GameBoard board, str algorithm, int depth, bint table=False,
            bint ordering=False, double budget=0):
        """Search board to `depth`; a dict of nodes, leaves, seconds, value
        (the root score), best (move text) and finished (False when the
        budget, in seconds, ran out first)."""
        cdef Run* r = self.run_state
        cdef int kind = ALGORITHMS[algorithm], value
        cdef long long start
        cdef char buf[MOVE_TEXT_SIZE]
        cdef void* state = malloc(board.ops.state_size)
        if state is NULL:
            raise MemoryError()
        try:
            board.ops.copy_state(state, board.state)
            memset(r, 0, sizeof(Run))
            memset(r.killers, 0xFF, sizeof(r.killers))
            r.ops, r.state, r.ordering = board.ops, state, ordering
            r.tt = &self.tt if table else NULL
            r.path_dep = MAX_PLY
            r.best = NO_MOVE
            tt_clear(&self.tt)
            start = now_ns()
            r.deadline_ns = start + <long long> (budget * 1e9) if budget > 0 else 0
            with nogil:
                value = search(r, kind, -INFINITE, INFINITE, depth, 0)
            seconds = (now_ns() - start) / 1e9
            best = None
            if r.best != NO_MOVE:
                best = buf[:board.ops.move_text(state, r.best, buf)].decode("ascii")
            return {"nodes": r.nodes, "leaves": r.leaves, "seconds": seconds,
                    "value": value, "best": best, "finished": not r.aborted}
        finally:
            free(state)
