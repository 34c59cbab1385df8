# A Lazy SMP helper: a C thread that searches the same root as the main
# worker, on its own SearchState, to fill the shared transposition table
# (and its own histories); the main worker decides and reports, and may take
# a depth a helper completed first. Its thread comes from engine/threads.pyx,
# each window of its iterations from engine/tree.pyx (search_root).

from libc.string cimport memcpy

from tuong.engine.game cimport Move, MATE_BOUND, INFINITE
from tuong.engine.threads cimport pthread_mutex_lock, pthread_mutex_unlock, helper_wait, helper_finished
from tuong.engine.tree cimport search_root
from tuong.engine.worker cimport (
    SearchState, ASPIRATION_DEPTH, ASPIRATION_DELTA, atomic_store_int, first_window,
)

# Lazy SMP: helper i skips the depths where ((depth + SKIP_PHASE) // SKIP_SIZE)
# is odd, so the helpers spread over the next few depths rather than all
# repeat the main thread's (Stockfish 10's tables).
cdef int SKIP_SIZE[20]
cdef int SKIP_PHASE[20]
SKIP_SIZE[:] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
SKIP_PHASE[:] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]


cdef int aspiration(SearchState* s, int depth, int previous, int use_window, int in_check) noexcept nogil:
    """One iteration at `depth`, around the previous score when use_window
    (widening by half on each fail): the helper's aspiration loop (the main
    worker's reports between windows, engine/search.pyx)."""
    cdef int alpha, beta, delta = ASPIRATION_DELTA, score
    first_window(previous, use_window, &alpha, &beta)
    while True:
        score = search_root(s, alpha, beta, depth, in_check)
        if s.aborted:
            return score
        # A fail against a bound already at INFINITE cannot be widened: the
        # score is what it is (a window that never changed would loop).
        if score <= alpha and alpha > -INFINITE:
            beta = (alpha + beta) // 2
            alpha = score - delta if score - delta > -INFINITE else -INFINITE
        elif score >= beta and beta < INFINITE:
            beta = score + delta if score + delta < INFINITE else INFINITE
        else:
            return score
        delta += delta // 2


cdef void helper_search(SearchState* s) noexcept nogil:
    """A helper's iterative deepening: it only fills the shared table (and
    its own history); the main worker decides and reports."""
    cdef int d, score = 0, skip = (s.id - 1) % 20
    cdef int in_check = s.checks and s.ops.in_check(s.game)
    cdef int max_depth = s.control.max_depth
    for d in range(1, max_depth + 1):
        # (The last depth asked for is never skipped: whoever completes it
        # first ends the search.)
        if ((d + SKIP_PHASE[skip]) // SKIP_SIZE[skip]) % 2 and d < max_depth:
            continue
        s.seldepth = 0
        score = aspiration(s, d, score, d >= ASPIRATION_DEPTH and -MATE_BOUND < score < MATE_BOUND,
                           in_check)
        if s.aborted:
            return
        if s.control.jumps and s.pv_len[0] > 0:
            pthread_mutex_lock(&s.pool.lock)
            s.done_score[d], s.done_pv_len[d] = score, s.pv_len[0]
            memcpy(s.done_pv[d], s.pv[0], s.pv_len[0] * sizeof(Move))
            pthread_mutex_unlock(&s.pool.lock)
            atomic_store_int(&s.control.helper_done[d], 1)


cdef void* helper_main(void* arg) noexcept nogil:
    """A helper thread's life (its start routine, engine/threads.pyx): park
    until a search begins, search until stopped, report idle, park again;
    leave when the pool is closing."""
    cdef SearchState* s = <SearchState*> arg
    cdef int seen = s.generation        # the searches before this thread began
    while helper_wait(s.pool, &seen):
        helper_search(s)
        helper_finished(s.pool)
    return NULL

