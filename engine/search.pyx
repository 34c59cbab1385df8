# The search: iterative deepening with aspiration windows, NegaScout/PVS over
# the transposition table, quiescence on captures (all evasions in check),
# and Lazy SMP: helper threads search the same root over the shared table.
#
# Threading contract. Searcher.prepare() runs on the caller's thread and
# resets everything a stop() or set_limits() may touch, so that neither is
# lost however early it comes; Searcher.run() then searches, each iteration's
# tree search in C without the GIL, taking the GIL back only between
# iterations to report. stop() and set_limits() are safe from any thread at
# any time; the workers poll them (every POLL_NODES nodes for the clock).
# Helper threads are C threads created when the thread count is set and
# parked on a condition variable between searches; they never touch Python.
#
# The search sees the game only through GameOps (engine/game.pxd). It never
# prints: it fills plain dicts and hands them to the caller's on_info.

from libc.math cimport log
from libc.stdint cimport int16_t, uint16_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine.game cimport (
    GameOps, GameBoard, Move, NO_MOVE, MAX_MOVES, MOVE_TEXT_SIZE, MATE, MAX_PLY, MATE_BOUND,
    INFINITE, PRUNE_FORWARD, PRUNE_REDUCTIONS, PRUNE_NULL_MOVE, generate_moves, game_perft,
)
from engine.timeman import IterationClock
from engine.tt cimport (
    TTable, TTEntry, tt_resize, tt_free, tt_clear, tt_new_search, tt_probe,
    tt_store, tt_prefetch, tt_hashfull, score_to_tt, score_from_tt, BOUND_NONE, BOUND_UPPER,
    BOUND_LOWER, BOUND_EXACT,
)

cdef extern from *:
    """
    /* Fields shared between threads (the stop flag, the deadline, node
       counts) use relaxed atomics: each value only has to be seen whole and
       eventually. A relaxed store of a load plus one is a plain increment
       on x86-64, with no locked instruction. */
    static inline int atomic_load_int(int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void atomic_store_int(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline long long atomic_load_i64(long long *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void atomic_store_i64(long long *p, long long v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline uint64_t atomic_load_u64(uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void count_node(uint64_t *p) {
        __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    }
    """
    int atomic_load_int(int* p) nogil
    void atomic_store_int(int* p, int v) nogil
    long long atomic_load_i64(long long* p) nogil
    void atomic_store_i64(long long* p, long long v) nogil
    uint64_t atomic_load_u64(uint64_t* p) nogil
    void count_node(uint64_t* p) nogil

cdef extern from "<pthread.h>" nogil:
    ctypedef struct pthread_t:
        pass
    ctypedef struct pthread_attr_t:
        pass
    ctypedef struct pthread_mutex_t:
        pass
    ctypedef struct pthread_cond_t:
        pass
    int pthread_attr_init(pthread_attr_t* attr)
    int pthread_attr_setstacksize(pthread_attr_t* attr, size_t size)
    int pthread_attr_destroy(pthread_attr_t* attr)
    int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                       void* (*start)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t thread, void** result)
    int pthread_mutex_init(pthread_mutex_t* mutex, const void* attr)
    int pthread_mutex_destroy(pthread_mutex_t* mutex)
    int pthread_mutex_lock(pthread_mutex_t* mutex)
    int pthread_mutex_unlock(pthread_mutex_t* mutex)
    int pthread_cond_init(pthread_cond_t* cond, const void* attr)
    int pthread_cond_destroy(pthread_cond_t* cond)
    int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex)
    int pthread_cond_broadcast(pthread_cond_t* cond)

# ---- search parameters, in one place ---------------------------------------
cdef enum:
    POLL_NODES = 1023            # clock read every 1024 nodes
    ASPIRATION_DEPTH = 4         # aspiration windows from this depth on
    ASPIRATION_DELTA = 20
    NULL_MIN_DEPTH = 3
    NULL_REDUCTION = 3           # a pass is searched this many plies shallower, ...
    NULL_REDUCTION_DIVISOR = 6   # ... and one more per this many plies of depth
    NULL_MIN_MOVES = 5           # no pass for a side with this many legal moves or fewer
    LMP_BASE = 3                 # late-move pruning starts after (LMP_BASE + 2 d^2) quiet
                                 # moves, times (2 + improving) / 3
    LMR_MIN_DEPTH = 3
    LMR_MIN_MOVES = 3            # first moves searched at full depth
    MAX_SEARCH_DEPTH = MAX_PLY - 8   # deepest iteration (extensions need room below it)
    RFP_MAX_DEPTH = 3            # reverse futility pruning depth limit
    RFP_MARGIN = 110             # per ply
    FUTILITY_MAX_DEPTH = 3       # quiet moves pruned when eval + margin <= alpha, if they
                                 # would be searched (reduced) this deep or less
    FUTILITY_BASE = 90
    FUTILITY_PER_PLY = 110
    LMP_MAX_DEPTH = 4            # quiet moves pruned past a count at low depth
    SEE_MAX_DEPTH = 6            # captures losing more than SEE_MARGIN per ply
    SEE_MARGIN = 150             # of depth are pruned at low depth
    IIR_MIN_DEPTH = 6            # nodes without a hash move are searched a ply shallower
    HISTORY_MAX = 1 << 14        # history scores stay within +-HISTORY_MAX
    LMR_HISTORY_DIVISOR = HISTORY_MAX    # a quiet move's history stat / this: plies less reduced
    CAPTURE_CLASSES = 256        # capture values (the game's MVV-LVA keys) kept apart
    CAPTURE_VALUE_SCALE = 4096   # a capture's value outweighs its history within a victim
    HISTORY_SIZE = 1 << 16       # history tables are indexed by the 16-bit move
    LAZY_MARGIN = 300            # quiescence trusts a quick evaluation this far above beta
    SORT_AFTER = 4               # moves picked one by one before the rest is sorted
    MAX_THREADS = 256
    PREPARED_SEARCH = 1
    PREPARED_PERFT = 2
    THREAD_STACK = 16 << 20      # bytes: the recursion holds move lists per ply

cdef int SCORE_HASH_MOVE = 1 << 30
cdef int SCORE_CAPTURE = 1 << 29
cdef int SCORE_KILLER = 1 << 28
cdef int SCORE_COUNTER = (1 << 28) - 1    # the reply that refuted this move before
cdef int SCORE_BAD_CAPTURE = -(1 << 29)   # after every quiet move
# Quiet moves other than the hash move score between these two (history
# stays within +-HISTORY_MAX, order hints well inside the band), so a
# move's band tells what it is.
cdef int SCORE_QUIET_FLOOR = -(1 << 28)

cdef int LMR[64][64]             # reduction by depth and move number
# Late-move reductions: LMR_BASE + ln(depth) ln(moves) / LMR_DIVISOR plies.
cdef double LMR_BASE = 0.7
cdef double LMR_DIVISOR = 1.9

# Lazy SMP: helper i skips the depths where ((depth + SKIP_PHASE) // SKIP_SIZE)
# is odd, so the helpers spread over the next few depths rather than all
# repeat the main thread's (Stockfish 10's tables).
cdef int SKIP_SIZE[20]
cdef int SKIP_PHASE[20]
SKIP_SIZE[:] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
SKIP_PHASE[:] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]


cdef void init_reductions():
    cdef int d, m
    for d in range(64):
        for m in range(64):
            LMR[d][m] = 0 if d == 0 or m == 0 else <int> (LMR_BASE + log(d) * log(m) / LMR_DIVISOR)


init_reductions()


# What all the workers of one search share, besides the table.
cdef struct Control:
    int stop                     # set by stop() or by the main worker when done (atomic)
    long long hard_ns            # absolute deadline, 0: none (atomic)
    uint64_t node_limit          # 0: none; counts the nodes of every worker
    int n_workers
    uint64_t** node_counts       # each worker's node counter
    int max_depth                # the deepest iteration any worker starts
    int jumps                    # the main worker may take a helper's iteration
    int helper_done[MAX_SEARCH_DEPTH + 1]   # a helper completed this depth (atomic)


# The helper threads: parked on `wake` between searches, counted down on
# `idle` when they stop. `generation` tells a parked helper a search began.
cdef struct Pool:
    pthread_mutex_t lock
    pthread_cond_t wake
    pthread_cond_t idle
    int generation
    int running
    int exiting
    int n_helpers
    pthread_t* threads


cdef struct SearchState:
    GameOps ops                  # a copy: one indirection less per call
    void* game
    TTable* tt
    Control* control
    Pool* pool
    int id                       # 0: the main worker
    int generation               # a helper's first: Pool.generation when it was created
    # The game's switches, read once (engine/game.pxd).
    int forward_pruning
    int reductions
    int null_move
    int checks
    int captures
    uint64_t nodes               # written by this worker only, read by any (atomic)
    # The lowest ply of a position that a result in the subtree being
    # searched depended on (a repetition reaching back to it), MAX_PLY for
    # none: a node below that ply cannot store its score in the table.
    int path_dep
    int aborted                  # this worker has stopped for good
    int abortable                # the main worker completes depth 1: a move exists
    int seldepth
    int iteration                # the depth being searched
    int jumped                   # the main worker stopped: a helper completed its iteration
    # A helper's complete iterations by depth, for the main worker to take
    # instead of searching that depth itself (written and read under Pool.lock).
    int done_score[MAX_SEARCH_DEPTH + 1]
    int done_pv_len[MAX_SEARCH_DEPTH + 1]    # 0: that depth not done
    Move done_pv[MAX_SEARCH_DEPTH + 1][MAX_PLY + 1]
    int n_excluded
    Move excluded[MAX_MOVES]     # root moves not to search (banned, other PV lines)
    Move root_best
    int root_score
    Move killers[MAX_PLY][2]
    int history[HISTORY_SIZE]    # by move
    Move countermove[HISTORY_SIZE]   # by the previous move
    # Continuation histories (when the game names move kinds): how a move
    # kind did after the move kind played 1 and 2 plies before,
    # [back - 1][earlier kind][kind]; NULL for games without kinds.
    int move_kinds
    int16_t* continuation
    # Capture history (with move kinds): how a capture did, by its move kind
    # and its ordering value (which names victim and attacker), [kind][value].
    int16_t* capture_history
    int played_kind[MAX_PLY + 1] # move kind made at each ply (-1: a pass, or none)
    Move played[MAX_PLY + 1]     # the move made at each ply (NO_MOVE: a pass)
    int static_evals[MAX_PLY + 1]
    Move pv[MAX_PLY + 1][MAX_PLY + 1]
    int pv_len[MAX_PLY + 1]


cdef long long now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <long long> ts.tv_sec * 1000000000 + ts.tv_nsec


cdef uint64_t total_nodes(Control* c) noexcept nogil:
    cdef uint64_t total = 0
    cdef int i
    for i in range(c.n_workers):
        total += atomic_load_u64(c.node_counts[i])
    return total


cdef inline int should_stop(SearchState* s) noexcept nogil:
    cdef Control* c = s.control
    cdef long long deadline
    if s.aborted:
        return 1
    if not s.abortable:
        return 0
    if c.node_limit and s.nodes >= c.node_limit:
        s.aborted = 1
    elif (s.nodes & POLL_NODES) == 0:
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


cdef inline void pick_next(Move* moves, int* scores, int i, int n) noexcept nogil:
    # Selection sort one step at a time: a cutoff usually comes early, so
    # sorting the whole list would be wasted work.
    cdef int j, best = i, t
    cdef Move m
    for j in range(i + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        t = scores[i]; scores[i] = scores[best]; scores[best] = t
        m = moves[i]; moves[i] = moves[best]; moves[best] = m


cdef void sort_moves(Move* moves, int* scores, int i, int n) noexcept nogil:
    # Insertion sort of moves[i:n], best first: once a node has searched a
    # few moves without a cutoff it will likely search them all, and picking
    # each by a full scan would cost a quadratic number of comparisons.
    cdef int j, k, t
    cdef Move m
    for j in range(i + 1, n):
        t = scores[j]
        m = moves[j]
        k = j - 1
        while k >= i and scores[k] < t:
            scores[k + 1] = scores[k]
            moves[k + 1] = moves[k]
            k -= 1
        scores[k + 1] = t
        moves[k + 1] = m


cdef int is_excluded(SearchState* s, Move move) noexcept nogil:
    cdef int i
    for i in range(s.n_excluded):
        if s.excluded[i] == move:
            return 1
    return 0


# The game's switches are read once per node into locals (`captures`,
# `checks` below): a field of *s would be reloaded after every call through
# a function pointer.
cdef inline int capture_value(SearchState* s, int captures, Move move) noexcept nogil:
    return s.ops.capture_value(s.game, move) if captures else 0


cdef inline int see_ge(SearchState* s, Move move, int threshold) noexcept nogil:
    # Without an exchange evaluator every capture counts as a good one.
    return s.ops.see_ge is NULL or s.ops.see_ge(s.game, move, threshold)


cdef inline int may_give_check(SearchState* s, int checks, Move move) noexcept nogil:
    return checks and s.ops.may_give_check(s.game, move)


cdef inline void prefetch_child(SearchState* s, Move move) noexcept nogil:
    # The child's probe of the table is a miss to memory: start that load
    # now, while the move is still being judged (exchange, pruning, make).
    if s.ops.key_after is not NULL:
        tt_prefetch(s.tt, s.ops.key_after(s.game, move))


cdef inline int lmr_reduction(int depth, int searched) noexcept nogil:
    """The late-move reduction's table entry (before its adjustments)."""
    return LMR[depth if depth < 64 else 63][searched if searched < 64 else 63]


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


cdef inline int capture_order(SearchState* s, Move move, int value) noexcept nogil:
    cdef int16_t* h = capture_entry(s, move, value)
    return SCORE_CAPTURE + value * CAPTURE_VALUE_SCALE + (h[0] if h is not NULL else 0)


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


cdef inline int quiet_order(SearchState* s, Move move, int16_t* c1, int16_t* c2) noexcept nogil:
    cdef int kind = s.ops.move_kind(s.game, move) if (c1 is not NULL or c2 is not NULL) else -1
    cdef int score = quiet_stat(s, move, kind, c1, c2)
    if s.ops.order_hint is not NULL:
        score += s.ops.order_hint(s.game, move)
    return score


cdef inline int generated(SearchState* s, Move* moves, int* n, int in_check) noexcept nogil:
    # The node's legal moves, generated once (n < 0: not yet).
    if n[0] < 0:
        n[0] = s.ops.generate(s.game, moves, MAX_MOVES, 0, in_check)
    return n[0]


cdef inline void note_rule_result(SearchState* s, int ply, int back) noexcept nogil:
    if back and ply - back < s.path_dep:
        s.path_dep = ply - back


cdef inline int qsearch(SearchState* s, int alpha, int beta, int ply, int in_check) noexcept nogil:
    # Path dependence is gathered per subtree (see SearchState.path_dep).
    cdef int saved = s.path_dep, score
    s.path_dep = MAX_PLY
    score = qsearch_node(s, alpha, beta, ply, in_check)
    if saved < s.path_dep:
        s.path_dep = saved
    return score


cdef inline int pvs(SearchState* s, int alpha, int beta, int depth, int ply,
                    int in_check, int after_null) noexcept nogil:
    cdef int saved = s.path_dep, score
    s.path_dep = MAX_PLY
    score = pvs_node(s, alpha, beta, depth, ply, in_check, after_null)
    if saved < s.path_dep:
        s.path_dep = saved
    return score


cdef int qsearch_node(SearchState* s, int alpha, int beta, int ply, int in_check) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, score, best, rule_score, back = 0, gives, tt_score, bound
    cdef int static_eval = -INFINITE
    cdef int pv_node = beta - alpha > 1, old_alpha = alpha, found
    cdef Move tt_move = NO_MOVE, best_move = NO_MOVE
    cdef uint64_t key
    cdef TTEntry entry
    cdef void* g = s.game
    cdef int has_captures = s.captures, has_checks = s.checks
    s.pv_len[ply] = ply
    count_node(&s.nodes)
    if should_stop(s):
        return 0
    if ply > s.seldepth:
        s.seldepth = ply
    if s.ops.rule_result(g, ply, &rule_score, &back):
        note_rule_result(s, ply, back)
        return rule_score
    if ply >= MAX_PLY - 1:
        return s.ops.evaluate(g)
    # Any stored result is at least as deep as a quiescence search.
    key = s.ops.key(g)
    found = tt_probe(s.tt, key, &entry)
    if found:
        tt_move = entry.move
        if not pv_node:
            tt_score = score_from_tt(entry.score, ply)
            bound = entry.age_bound & 3
            if bound == BOUND_EXACT or (bound == BOUND_LOWER and tt_score >= beta) \
                    or (bound == BOUND_UPPER and tt_score <= alpha):
                return tt_score
    if in_check:
        # Every evasion is tried: standing pat is no option in check.
        best = -INFINITE
        n = s.ops.generate(g, moves, MAX_MOVES, 0, 1)
        if n == 0:
            return s.ops.no_move_score(g, ply)
    else:
        # The table keeps static evaluations too: cheaper than recomputing.
        if found and entry.eval != -INFINITE:
            static_eval = entry.eval
        else:
            # Far above beta on a quick estimate, the rest of the evaluation
            # would not bring the score back under it (lazy evaluation).
            if s.ops.quick_evaluate is not NULL:
                static_eval = s.ops.quick_evaluate(g)
                if static_eval - LAZY_MARGIN >= beta:
                    return static_eval
            static_eval = s.ops.evaluate(g)
        best = static_eval
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        if not has_captures:
            return best                 # nothing tactical to resolve
        n = s.ops.generate(g, moves, MAX_MOVES, 1, 0)
    for i in range(n):
        scores[i] = SCORE_HASH_MOVE if moves[i] == tt_move else capture_value(s, has_captures, moves[i])
    for i in range(n):
        pick_next(moves, scores, i, n)
        prefetch_child(s, moves[i])
        # A capture that loses material cannot raise a standing pat.
        if not in_check and not see_ge(s, moves[i], 0):
            continue
        gives = s.ops.make(g, moves[i], may_give_check(s, has_checks, moves[i]))
        score = -qsearch(s, -beta, -alpha, ply + 1, gives)
        s.ops.unmake(g)
        if s.aborted:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = moves[i]
                update_pv(s, ply, moves[i])
                if score >= beta:
                    break
    if s.path_dep < ply:
        bound = BOUND_NONE              # a score that rests on the path: keep the move only
    else:
        bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha and pv_node
                                                   else BOUND_UPPER)
    tt_store(s.tt, key, best_move, score_to_tt(best, ply), static_eval, 0, bound)
    return best


cdef int pvs_node(SearchState* s, int alpha, int beta, int depth, int ply,
                  int in_check, int after_null) noexcept nogil:
    """NegaScout, fail-soft: returns a score that is exact inside (alpha,
    beta), an upper bound at or below alpha, a lower bound at or above beta."""
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef void* g = s.game
    cdef int n = -1, i, score, best, rule_score, back = 0, searched = 0, gives, new_depth
    cdef int reduction, bound, static_eval, tt_score, quiet, late_quiet, captures
    cdef int n_quiets = 0, j, prune_quiets, lmr_depth, prunable, improving, extend, order
    cdef int sorted_from, found, kind, skipped = 0, mate_window
    cdef int16_t* c1
    cdef int16_t* c2
    cdef Move quiets_tried[MAX_MOVES]
    cdef Move captures_tried[MAX_MOVES]
    cdef int capture_values[MAX_MOVES]
    cdef int n_captures = 0, value
    cdef int pv_node = beta - alpha > 1
    cdef Move tt_move = NO_MOVE, best_move = NO_MOVE, move, counter = NO_MOVE, previous
    cdef uint64_t key
    cdef TTEntry entry
    cdef int has_captures = s.captures, has_checks = s.checks

    if depth <= 0:
        return qsearch(s, alpha, beta, ply, in_check)
    s.pv_len[ply] = ply
    count_node(&s.nodes)
    if should_stop(s):
        return 0
    if ply > s.seldepth:
        s.seldepth = ply

    # Step 1. Rules, the ply limit and mate distance (not at the root).
    if ply > 0:
        if s.ops.rule_result(g, ply, &rule_score, &back):
            note_rule_result(s, ply, back)
            return rule_score
        if ply >= MAX_PLY - 1:
            return s.ops.evaluate(g)
        # No mate found from here can beat one already found nearer the root.
        if alpha < -(MATE - ply):
            alpha = -(MATE - ply)
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha

    # Step 2. Transposition table.
    key = s.ops.key(g)
    found = tt_probe(s.tt, key, &entry)
    if found:
        tt_move = entry.move
        if ply > 0 and not pv_node and entry.depth >= depth:
            tt_score = score_from_tt(entry.score, ply)
            bound = entry.age_bound & 3
            if bound == BOUND_EXACT or (bound == BOUND_LOWER and tt_score >= beta) \
                    or (bound == BOUND_UPPER and tt_score <= alpha):
                return tt_score

    if in_check:
        static_eval = -INFINITE
    elif found and entry.eval != -INFINITE:
        static_eval = entry.eval
    else:
        static_eval = s.ops.evaluate(g)
    s.static_evals[ply] = static_eval
    # Better than two plies ago: pruning can afford to be less eager.
    improving = ply < 2 or static_eval > s.static_evals[ply - 2]

    if ply > 0 and not pv_node and not in_check:
        # Step 3. Reverse futility: far above beta at low depth, assume a cut.
        if s.forward_pruning and depth <= RFP_MAX_DEPTH \
                and static_eval - RFP_MARGIN * (depth - improving) >= beta \
                and beta > -MATE_BOUND and static_eval < MATE_BOUND:
            return static_eval
        # Step 4. Null move: if passing still holds beta, a real move will.
        # Not where the side may be in zugzwang, its moves all worse than a
        # pass (often the last step of a mate, where no legal move means
        # defeat): where beta is a mate against it, and where it has few
        # legal moves (the list is kept for Step 6).
        if s.null_move and depth >= NULL_MIN_DEPTH and not after_null and static_eval >= beta \
                and beta > -MATE_BOUND and s.ops.null_move_ok(g) \
                and generated(s, moves, &n, in_check) > NULL_MIN_MOVES:
            # (Reducing more when the pass clears beta by far hid mates in
            # 3 that a quiet move sets up: tests/test_protocol_uci.py.)
            reduction = NULL_REDUCTION + depth // NULL_REDUCTION_DIVISOR
            s.played[ply] = NO_MOVE
            s.played_kind[ply] = -1
            s.ops.make_null(g)
            score = -pvs(s, -beta, -beta + 1, depth - 1 - reduction, ply + 1, 0, 1)
            s.ops.unmake_null(g)
            if s.aborted:
                return 0
            if score >= beta:
                return beta if score >= MATE_BOUND else score     # no unproven wins

    # Step 5. Without a hash move to try first this node is likely to cost
    # more than it is worth at full depth (internal iterative reduction;
    # from depth 4 on it hid a short mate, from 6 on it does not).
    if s.reductions and ply > 0 and depth >= IIR_MIN_DEPTH and tt_move == NO_MOVE:
        depth -= 1

    # Step 6. Generate and order: hash move, good captures (MVV-LVA), killers,
    # the countermove, quiet moves by history, then losing captures.
    generated(s, moves, &n, in_check)
    if n == 0:
        return s.ops.no_move_score(g, ply)
    previous = s.played[ply - 1] if ply > 0 else NO_MOVE
    if previous != NO_MOVE:
        counter = s.countermove[previous]
    c1 = continuation_row(s, ply, 1)
    c2 = continuation_row(s, ply, 2)
    for i in range(n):
        move = moves[i]
        captures = capture_value(s, has_captures, move)
        if move == tt_move:
            scores[i] = SCORE_HASH_MOVE
        elif captures:
            scores[i] = capture_order(s, move, captures)   # its SEE is checked when it comes up
        elif move == s.killers[ply][0]:
            scores[i] = SCORE_KILLER + 1
        elif move == s.killers[ply][1]:
            scores[i] = SCORE_KILLER
        elif move == counter:
            scores[i] = SCORE_COUNTER
        else:
            scores[i] = quiet_order(s, move, c1, c2)

    # Step 7. The move loop. Near the leaves, quiet moves that cannot lift a
    # hopeless static score to alpha (futility), or that come late in the
    # ordering (late-move pruning), are skipped unless they give check; so
    # are captures that lose material. This holds in a window that asks for
    # a forced win too (it asks for a shorter mate than one already found):
    # searching every quiet move there made proving a mate cost several
    # times more. But in Xiangqi a quiet move that gives no check can win
    # outright, by leaving the other side without a legal move, so a fail-low
    # in such a window after a move was skipped is not stored as a bound: it
    # could say "no mate here" of a node that has one.
    prune_quiets = s.forward_pruning and not pv_node and not in_check and ply > 0
    mate_window = alpha >= MATE_BOUND
    best = -INFINITE
    i = 0
    sorted_from = n
    while i < n:
        if i < SORT_AFTER:
            pick_next(moves, scores, i, n)
        elif i < sorted_from:
            sort_moves(moves, scores, i, n)
            sorted_from = i
        move = moves[i]
        if SCORE_CAPTURE <= scores[i] < SCORE_HASH_MOVE and not see_ge(s, move, 0):
            # A capture that loses material waits until after the quiet
            # moves. (Testing only those that come up saves the exchange
            # evaluation of every capture at nodes that cut early.)
            scores[i] += SCORE_BAD_CAPTURE - SCORE_CAPTURE
            sorted_from = n             # its place is further down now
            continue
        order = scores[i]
        i += 1
        if ply == 0 and s.n_excluded and is_excluded(s, move):
            continue
        if order == SCORE_HASH_MOVE:
            quiet = capture_value(s, has_captures, move) == 0
        else:
            quiet = SCORE_QUIET_FLOOR < order < SCORE_CAPTURE
        late_quiet = quiet and order < SCORE_COUNTER
        prunable = 0
        if late_quiet and prune_quiets and searched > 0 and best > -MATE_BOUND:
            # Futility judges the move at the depth it would be searched to
            # after its reduction (Stockfish's lmrDepth), with that depth's
            # margin: a move reduced a lot is pruned further from the leaves.
            lmr_depth = depth - 1 - lmr_reduction(depth, searched)
            prunable = (lmr_depth <= FUTILITY_MAX_DEPTH and static_eval + FUTILITY_BASE
                        + FUTILITY_PER_PLY * (lmr_depth + 1) <= alpha) \
                or (depth <= LMP_MAX_DEPTH
                    and searched >= (LMP_BASE + 2 * depth * depth) * (2 + improving) // 3)
        gives = may_give_check(s, has_checks, move)
        if prunable and not gives:
            skipped = 1
            continue
        prefetch_child(s, move)
        # Captures that lose material in the exchange they start, near the
        # leaves (only those already found to lose: the others gain).
        if s.forward_pruning and ply > 0 and not in_check and searched > 0 \
                and best > -MATE_BOUND and depth <= SEE_MAX_DEPTH and order < SCORE_QUIET_FLOOR \
                and not see_ge(s, move, -SEE_MARGIN * depth):
            if not gives:
                skipped = 1
                continue
            prunable = 1            # kept only if it really checks
        # Only checks that do not give material away are extended: a
        # sacrificial check is searched like any other move.
        extend = gives and see_ge(s, move, 0)
        s.played[ply] = move
        kind = s.ops.move_kind(g, move) if s.continuation is not NULL else -1
        s.played_kind[ply] = kind
        gives = s.ops.make(g, move, gives)
        if prunable and not gives:
            s.ops.unmake(g)
            skipped = 1
            continue
        new_depth = depth - 1 + (gives and extend)     # check extension
        if searched == 0:
            score = -pvs(s, -beta, -alpha, new_depth, ply + 1, gives, 0)
        else:
            # Late quiet moves are searched shallower first (LMR) ...
            reduction = 0
            if s.reductions and depth >= LMR_MIN_DEPTH and searched >= LMR_MIN_MOVES \
                    and late_quiet and not in_check and not gives:
                reduction = lmr_reduction(depth, searched)
                # Less at PV nodes and for moves with a good history, more
                # where the position is not getting better.
                reduction += (not improving) - pv_node \
                    - quiet_stat(s, move, kind, c1, c2) // LMR_HISTORY_DIVISOR
                if reduction < 0:
                    reduction = 0
                if reduction > new_depth - 1:
                    reduction = new_depth - 1
            # ... and every later move with a null window: most are refuted
            # cheaply; one that is not is searched again in full.
            score = -pvs(s, -alpha - 1, -alpha, new_depth - reduction, ply + 1, gives, 0)
            if score > alpha and reduction > 0:
                score = -pvs(s, -alpha - 1, -alpha, new_depth, ply + 1, gives, 0)
            if score > alpha and score < beta:
                score = -pvs(s, -beta, -alpha, new_depth, ply + 1, gives, 0)
        s.ops.unmake(g)
        if s.aborted:
            return 0
        searched += 1
        if quiet and n_quiets < MAX_MOVES:
            quiets_tried[n_quiets] = move
            n_quiets += 1
        elif not quiet:
            captures_tried[n_captures] = move
            capture_values[n_captures] = capture_value(s, has_captures, move)
            n_captures += 1
        if score > best:
            best = score
            if score > alpha:
                best_move = move
                update_pv(s, ply, move)
                if ply == 0:
                    s.root_best = move
                    s.root_score = score
                if score >= beta:
                    if quiet:
                        if s.killers[ply][0] != move:
                            s.killers[ply][1] = s.killers[ply][0]
                            s.killers[ply][0] = move
                        if previous != NO_MOVE:
                            s.countermove[previous] = move
                        # Reward the cutting move; the quiet moves tried
                        # before it failed, so they lose as much.
                        update_quiet(s, move, depth * depth, c1, c2)
                        for j in range(n_quiets - 1):
                            update_quiet(s, quiets_tried[j], -depth * depth, c1, c2)
                    else:
                        update_capture(s, move, capture_values[n_captures - 1], depth * depth)
                        n_captures -= 1
                    # The captures tried before the cutting move failed to cut.
                    for j in range(n_captures):
                        update_capture(s, captures_tried[j], capture_values[j], -depth * depth)
                    break
                alpha = score
    if searched == 0:
        return -INFINITE                        # every root move excluded

    # Step 8. Remember the result (not for a root with moves left out). A
    # score that rests on a repetition reaching above this node depends on
    # the path here, and a score below beta in a window asking for a mate
    # after a move was skipped may be too low (Step 7): only the move is kept.
    if not (ply == 0 and s.n_excluded):
        if s.path_dep < ply or (skipped and mate_window and best < beta):
            bound = BOUND_NONE
        else:
            bound = BOUND_LOWER if best >= beta else (
                BOUND_EXACT if best_move != NO_MOVE else BOUND_UPPER)
        tt_store(s.tt, key, best_move if best_move != NO_MOVE else tt_move,
                 score_to_tt(best, ply), static_eval, depth if bound else 0, bound)
    return best


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


cdef inline void first_window(int previous, int use_window, int* alpha, int* beta) noexcept nogil:
    """An iteration's first window: around the previous score when
    use_window; with a mate in hand, only as short a mate or a shorter one
    (mate distance pruning then cuts every longer line, so the deeper
    iterations stay cheap and reach the reduced moves); else all."""
    alpha[0], beta[0] = -INFINITE, INFINITE
    if use_window:
        alpha[0] = previous - ASPIRATION_DELTA if previous - ASPIRATION_DELTA > -INFINITE else -INFINITE
        beta[0] = previous + ASPIRATION_DELTA if previous + ASPIRATION_DELTA < INFINITE else INFINITE
    elif previous >= MATE_BOUND:
        alpha[0] = previous - 1


cdef int aspiration(SearchState* s, int depth, int previous, int use_window, int in_check) noexcept nogil:
    """One iteration at `depth`, around the previous score when use_window
    (widening by half on each fail); helpers use it whole."""
    cdef int alpha, beta, delta = ASPIRATION_DELTA, score
    first_window(previous, use_window, &alpha, &beta)
    while True:
        score = pvs(s, alpha, beta, depth, 0, in_check, 0)
        if s.aborted:
            return score
        if score <= alpha:
            beta = (alpha + beta) // 2
            alpha = score - delta if score - delta > -INFINITE else -INFINITE
        elif score >= beta:
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
    """A helper thread's life: park until a search begins, search until
    stopped, report idle, park again; leave when the pool is closing."""
    cdef SearchState* s = <SearchState*> arg
    cdef Pool* pool = s.pool
    cdef int seen = s.generation        # the searches before this thread began
    pthread_mutex_lock(&pool.lock)
    while True:
        while pool.generation == seen and not pool.exiting:
            pthread_cond_wait(&pool.wake, &pool.lock)
        if pool.exiting:
            break
        seen = pool.generation
        pthread_mutex_unlock(&pool.lock)
        helper_search(s)
        pthread_mutex_lock(&pool.lock)
        pool.running -= 1
        if pool.running == 0:
            pthread_cond_broadcast(&pool.idle)
    pthread_mutex_unlock(&pool.lock)
    return NULL


cdef void start_helpers(Pool* pool) noexcept nogil:
    pthread_mutex_lock(&pool.lock)
    pool.running = pool.n_helpers
    pool.generation += 1
    pthread_cond_broadcast(&pool.wake)
    pthread_mutex_unlock(&pool.lock)


cdef void wait_helpers(Pool* pool) noexcept nogil:
    pthread_mutex_lock(&pool.lock)
    while pool.running > 0:
        pthread_cond_wait(&pool.idle, &pool.lock)
    pthread_mutex_unlock(&pool.lock)


cdef void clear_heuristics(SearchState* s) noexcept nogil:
    memset(s.history, 0, sizeof(s.history))
    if s.continuation is not NULL:
        memset(s.continuation, 0, 2 * s.move_kinds * s.move_kinds * sizeof(int16_t))
        memset(s.capture_history, 0, s.move_kinds * CAPTURE_CLASSES * sizeof(int16_t))
    memset(s.killers, 0xFF, sizeof(s.killers))          # NO_MOVE everywhere
    memset(s.countermove, 0xFF, sizeof(s.countermove))


def _score_fields(int score):
    """(cp, mate): mate in moves (negative when being mated), else cp."""
    if score >= MATE_BOUND:
        return None, (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return None, -((MATE + score) // 2)
    return score, None


class SearchResult:
    """What a finished search found. best is None when there is no legal move."""

    def __init__(self, best=None, ponder=None, score=0, mate=None, depth=0, nodes=0, pv=()):
        self.best, self.ponder, self.score, self.mate = best, ponder, score, mate
        self.depth, self.nodes, self.pv = depth, nodes, list(pv)

    def __repr__(self):
        return (f"SearchResult(best={self.best!r}, ponder={self.ponder!r}, score={self.score}, "
                f"mate={self.mate}, depth={self.depth}, nodes={self.nodes})")


cdef class Searcher:
    """Owns a transposition table and the search threads, and searches any
    game's board (a GameBoard). One search at a time; stop() and
    set_limits() are safe from any thread."""
    cdef TTable tt
    cdef Control control
    cdef Pool pool
    cdef SearchState** workers     # [0] runs on the caller's thread, the rest are helpers
    cdef int n_threads
    cdef const GameOps* ops        # the game the states are sized for (NULL: none yet)
    cdef void* root                # the root of the prepared search
    cdef void* scratch             # a copy for naming lines
    cdef bint running
    cdef int prepared              # PREPARED_SEARCH or PREPARED_PERFT, or 0
    cdef long long start_ns        # when the search was prepared
    cdef long long clock_ns        # when its clock started (prepare, or ponderhit)
    cdef object soft_ms            # the move's target time (engine/timeman.py), None: none
    cdef bint as_asked             # a depth, node budget or cut-off (go movetime) and no
                                   # clock: searched to that limit, no early stop
    cdef object root_moves, banned_codes, max_depth, multipv

    def __cinit__(self, hash_mb=16, threads=1):
        pthread_mutex_init(&self.pool.lock, NULL)
        pthread_cond_init(&self.pool.wake, NULL)
        pthread_cond_init(&self.pool.idle, NULL)
        self.resize(hash_mb)
        self.set_threads(threads)

    def __dealloc__(self):
        self._free_workers()
        tt_free(&self.tt)
        pthread_cond_destroy(&self.pool.wake)
        pthread_cond_destroy(&self.pool.idle)
        pthread_mutex_destroy(&self.pool.lock)

    # -- threads -------------------------------------------------------------
    @property
    def threads(self):
        return self.n_threads

    def set_threads(self, int n):
        """Use n search threads (the caller's and n - 1 helpers, created now
        and parked between searches)."""
        if self.running or self.prepared:
            raise RuntimeError("cannot change the thread count during a search")
        if not 1 <= n <= MAX_THREADS:
            raise ValueError(f"threads must be in 1..{MAX_THREADS}")
        cdef SearchState** workers = <SearchState**> calloc(n, sizeof(SearchState*))
        cdef uint64_t** counts = <uint64_t**> calloc(n, sizeof(uint64_t*))
        cdef pthread_t* threads = <pthread_t*> calloc(n, sizeof(pthread_t))
        cdef pthread_attr_t attr
        cdef int i, started = 0
        if workers is NULL or counts is NULL or threads is NULL:
            free(workers); free(counts); free(threads)
            raise MemoryError()
        for i in range(n):
            workers[i] = <SearchState*> calloc(1, sizeof(SearchState))
            if workers[i] is NULL:
                for i in range(n):
                    free(workers[i])
                free(workers); free(counts); free(threads)
                raise MemoryError()
        self._free_workers()
        self.workers, self.n_threads, self.pool.threads = workers, n, threads
        self.control.node_counts, self.control.n_workers = counts, n
        self.ops = NULL
        for i in range(n):
            workers[i].id = i
            workers[i].tt = &self.tt
            workers[i].control = &self.control
            workers[i].pool = &self.pool
            workers[i].generation = self.pool.generation
            counts[i] = &workers[i].nodes
            clear_heuristics(workers[i])
        self.pool.exiting = 0
        self.pool.running = 0
        pthread_attr_init(&attr)
        pthread_attr_setstacksize(&attr, THREAD_STACK)
        for i in range(1, n):
            if pthread_create(&threads[i], &attr, helper_main, workers[i]) != 0:
                break
            started += 1
        pthread_attr_destroy(&attr)
        self.pool.n_helpers = started
        if started < n - 1:
            self._close_helpers()
            raise RuntimeError(f"could only start {started + 1} of {n} threads")

    # The three below free memory that a running search reads: cdef, so no
    # Python code can call them; only set_threads (refused during a search)
    # and __dealloc__ do.
    cdef void _free_workers(self) noexcept:
        """Join the helpers and free every worker's memory."""
        cdef int i
        self._close_helpers()
        self._free_states()
        for i in range(self.n_threads):
            free(self.workers[i])
        free(self.workers)
        free(self.control.node_counts)
        free(self.pool.threads)
        self.workers, self.n_threads, self.pool.threads = NULL, 0, NULL
        self.control.node_counts = NULL

    cdef void _close_helpers(self) noexcept:
        """Stop and join the helper threads (they are parked)."""
        cdef int i, n = self.pool.n_helpers
        if n == 0:
            return
        with nogil:
            pthread_mutex_lock(&self.pool.lock)
            self.pool.exiting = 1
            pthread_cond_broadcast(&self.pool.wake)
            pthread_mutex_unlock(&self.pool.lock)
            for i in range(1, n + 1):
                pthread_join(self.pool.threads[i], NULL)
        self.pool.n_helpers = 0

    cdef void _free_states(self) noexcept:
        cdef int i
        for i in range(self.n_threads):
            free(self.workers[i].game)
            free(self.workers[i].continuation)
            free(self.workers[i].capture_history)
            self.workers[i].game = NULL
            self.workers[i].continuation = NULL
            self.workers[i].capture_history = NULL
            self.workers[i].move_kinds = 0
        free(self.root)
        free(self.scratch)
        self.root = self.scratch = NULL
        self.ops = NULL

    cdef int _use_game(self, const GameOps* ops) except -1:
        """Size the states for `ops`; a new game starts with an empty
        table and fresh move-ordering memory."""
        cdef int i
        cdef SearchState* s
        if ops == self.ops:
            return 0
        self._free_states()
        self.root = malloc(ops.state_size)
        self.scratch = malloc(ops.state_size)
        if self.root is NULL or self.scratch is NULL:
            raise MemoryError()
        for i in range(self.n_threads):
            s = self.workers[i]
            s.game = malloc(ops.state_size)
            if s.game is NULL:
                raise MemoryError()
            if ops.move_kind is not NULL and ops.move_kinds > 0:
                s.continuation = <int16_t*> calloc(2 * ops.move_kinds * ops.move_kinds,
                                                   sizeof(int16_t))
                s.capture_history = <int16_t*> calloc(ops.move_kinds * CAPTURE_CLASSES,
                                                      sizeof(int16_t))
                if s.continuation is NULL or s.capture_history is NULL:
                    raise MemoryError()
                s.move_kinds = ops.move_kinds
            s.ops = ops[0]
            s.forward_pruning = (ops.pruning & PRUNE_FORWARD) != 0
            s.reductions = (ops.pruning & PRUNE_REDUCTIONS) != 0
            s.null_move = (ops.pruning & PRUNE_NULL_MOVE) != 0 and ops.make_null is not NULL
            s.checks = ops.in_check is not NULL and ops.may_give_check is not NULL
            s.captures = ops.capture_value is not NULL
        self.ops = ops
        self.clear()
        return 0

    # -- the table -----------------------------------------------------------
    def resize(self, int megabytes):
        """Set the transposition table size in MB (this empties it)."""
        if self.running:
            raise RuntimeError("cannot resize the hash table during a search")
        if megabytes < 1:
            raise ValueError("hash size must be at least 1 MB")
        if not tt_resize(&self.tt, megabytes):
            raise MemoryError(f"cannot allocate {megabytes} MB for the hash table")

    def clear(self):
        """Empty the transposition table and the move-ordering memory."""
        if self.running:
            raise RuntimeError("cannot clear the hash table during a search")
        tt_clear(&self.tt)
        for i in range(self.n_threads):
            clear_heuristics(self.workers[i])

    def hashfull(self):
        return tt_hashfull(&self.tt)

    # -- control from any thread ---------------------------------------------
    def stop(self):
        atomic_store_int(&self.control.stop, 1)

    def set_limits(self, soft_ms=None, hard_ms=None):
        """Time limits counted from now (the start of the search, or a
        ponderhit): the clock for "can the next iteration finish" starts
        now too, so time spent pondering does not count against it."""
        self.clock_ns = now_ns()
        self.soft_ms = soft_ms or None
        atomic_store_i64(&self.control.hard_ns,
                         (self.clock_ns + int(hard_ms * 1e6)) if hard_ms else 0)

    # -- searching -----------------------------------------------------------
    def search(self, GameBoard board, *, on_info=None, **limits):
        """prepare() then run(): search board (which is not changed) and
        return a SearchResult."""
        self.prepare(board, **limits)
        return self.run(on_info)

    def prepare(self, GameBoard board, *, depth=None, nodes=None, soft_ms=None, hard_ms=None,
                multipv=1, banned=()):
        """Set up a search of `board` on the caller's thread: from here on a
        stop() or set_limits() belongs to this search.

        depth / nodes: limits; soft_ms: no iteration starts after it;
        hard_ms: the search is cut off. With no limit it runs to MAX_PLY or
        until stop(). banned: moves (text) left out at the root."""
        cdef Move moves[MAX_MOVES]
        cdef int n, i
        if self.running:
            raise RuntimeError("a search is already running")
        if board.ops.max_moves > MAX_MOVES:
            raise ValueError(f"{board.game}: up to {board.ops.max_moves} moves, "
                             f"more than the search's {MAX_MOVES}")
        self._use_game(board.ops)
        self.ops.copy_state(self.root, board.state)
        banned_codes = {board.code_of(m) for m in banned}
        n = generate_moves(self.ops, self.root, moves, 0)
        legal = [moves[i] for i in range(n)]
        self.root_moves = [m for m in legal if m not in banned_codes]
        self.banned_codes = [m for m in legal if m in banned_codes]
        self.max_depth = min(depth or MAX_SEARCH_DEPTH, MAX_SEARCH_DEPTH)
        # With a limit and no clock (`go depth`, `go nodes`, `go movetime`)
        # the search runs to that limit, as Stockfish's does.
        self.as_asked = not soft_ms and bool(depth or nodes or hard_ms)
        if len(self.root_moves) == 1 and soft_ms:
            self.max_depth = 1           # a forced move under a clock: spend none of it
        self.multipv = max(1, min(int(multipv), len(self.root_moves) or 1))
        self.control.max_depth = self.max_depth
        # Helpers search one line: with MultiPV the main worker's lines stand.
        self.control.jumps = self.multipv == 1 and self.n_threads > 1
        memset(self.control.helper_done, 0, sizeof(self.control.helper_done))
        self.control.node_limit = nodes or 0
        atomic_store_int(&self.control.stop, 0)
        self.start_ns = now_ns()
        self.set_limits(soft_ms, hard_ms)
        self.prepared = PREPARED_SEARCH

    def run(self, on_info=None):
        """Search what prepare() set up and return a SearchResult. on_info
        (dict) is called after every iteration (and for every MultiPV line,
        and for aspiration fails after a second)."""
        if self.prepared != PREPARED_SEARCH:
            raise RuntimeError("run() needs prepare() first")
        self.prepared = 0
        self.running = True
        try:
            return self._run(on_info)
        finally:
            atomic_store_int(&self.control.stop, 1)
            with nogil:
                wait_helpers(&self.pool)
            self.running = False

    cdef void _start_worker(self, SearchState* s):
        self.ops.copy_state(s.game, self.root)
        s.nodes = 0
        s.aborted = 0
        s.abortable = s.id > 0          # the main worker always finishes depth 1
        s.iteration = 0
        s.jumped = 0
        memset(s.done_pv_len, 0, sizeof(s.done_pv_len))
        s.path_dep = MAX_PLY
        memset(s.killers, 0xFF, sizeof(s.killers))

    def _run(self, on_info):
        cdef SearchState* s = self.workers[0]
        cdef int d, score = 0, line, in_check, i, use_window
        if not self.root_moves:
            if self.banned_codes:
                return SearchResult(score=0)        # every move banned: nothing to say
            cp, mate = _score_fields(self.ops.no_move_score(self.root, 0))
            return SearchResult(score=cp, mate=mate)
        tt_new_search(&self.tt)
        for i in range(self.n_threads):
            self._start_worker(self.workers[i])
        for i in range(1, self.n_threads):
            self._exclude(self.workers[i], self.banned_codes)
        if self.n_threads > 1:
            with nogil:
                start_helpers(&self.pool)
        in_check = s.checks and self.ops.in_check(s.game)
        lines = []                 # (score, [codes]) of the last complete iteration
        result = SearchResult(best=self._texts(self.root_moves[:1])[0])
        clock = IterationClock(self.soft_ms)
        for d in range(1, self.max_depth + 1):
            s.seldepth = 0
            # A helper that completed this depth first gives its line for it;
            # otherwise the main worker searches it, and stops short (jumped)
            # if a helper completes it meanwhile.
            taken = self._helper_line(d) if self.control.jumps else None
            new_lines = [taken] if taken else []
            s.iteration = d
            for line in range(self.multipv if not taken else 0):
                self._exclude(s, self.banned_codes + [l[1][0] for l in new_lines])
                s.root_best = NO_MOVE
                prev = lines[line][0] if line < len(lines) else 0
                use_window = d >= ASPIRATION_DEPTH and line < len(lines) and abs(prev) < MATE_BOUND
                score = self._iterate(d, line, prev, use_window, in_check, on_info)
                if s.jumped:
                    s.aborted = s.jumped = 0
                    new_lines = [self._helper_line(d)]
                    break
                if s.aborted:
                    # Keep a root move that this iteration already proved
                    # better than the previous best.
                    if line == 0 and s.root_best != NO_MOVE and s.root_score > -INFINITE:
                        if not lines or s.root_score > lines[0][0] or s.root_best == lines[0][1][0]:
                            pv = self._pv() if s.pv_len[0] and s.pv[0][0] == s.root_best \
                                else [s.root_best]
                            new_lines.append((s.root_score, pv))
                    break
                s.abortable = 1
                new_lines.append((score, self._pv()))
            if new_lines:
                # Lines this iteration did not reach keep the last ones.
                lines = new_lines + lines[len(new_lines):]
                if not s.aborted:
                    # A later line can outscore an earlier one (each is
                    # searched with the better ones excluded, against a TT
                    # that keeps learning), so rank them before reporting.
                    lines.sort(key=lambda l: -l[0])
                    if on_info:
                        for line, (score, pv) in enumerate(lines):
                            on_info(self._info(d, line, score, None, pv))
                best_score, best_pv = lines[0]
                cp, mate = _score_fields(best_score)
                texts = self._texts(best_pv)
                result = SearchResult(best=texts[0], ponder=texts[1] if len(texts) > 1 else None,
                                      score=cp, mate=mate, depth=d if not s.aborted else d - 1,
                                      pv=texts)
            if s.aborted:
                break
            # Stop deepening when the time the search looks worth is spent
            # (timeman.IterationClock; measured on this move's clock).
            clock.soft_ms = self.soft_ms
            if not clock.go_on(d, lines[0][1][0], lines[0][0],
                               (now_ns() - self.clock_ns) / 1e6) and self.soft_ms:
                break
            if atomic_load_int(&self.control.stop):
                break
            # A mate found and confirmed well past its distance will not
            # change: under a clock (or with no limit at all) searching on
            # only burns time. (A clock given at ponderhit counts.)
            if abs(lines[0][0]) >= MATE_BOUND and d >= MATE - abs(lines[0][0]) + 8 \
                    and (self.soft_ms or not self.as_asked):
                break
        atomic_store_int(&self.control.stop, 1)
        result.nodes = total_nodes(&self.control)
        if result.ponder is None and result.best:
            result.ponder = self._ponder_from_tt(self.root_moves, result.best)
        return result

    cdef int _iterate(self, int depth, int line, int prev, int use_window, int in_check,
                      on_info) except? -32767:
        """The main worker's aspiration loop: as aspiration(), but it reports
        fails once the search has run for a second."""
        cdef SearchState* s = self.workers[0]
        cdef int alpha, beta, delta = ASPIRATION_DELTA, score
        first_window(prev, use_window, &alpha, &beta)
        while True:
            with nogil:
                score = pvs(s, alpha, beta, depth, 0, in_check, 0)
            if s.aborted:
                return score
            if score <= alpha:
                bound = "upper"
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INFINITE)
            elif score >= beta:
                bound = "lower"
                beta = min(score + delta, INFINITE)
            else:
                return score
            delta += delta // 2
            if on_info and (now_ns() - self.start_ns) > 1_000_000_000 and s.pv_len[0]:
                on_info(self._info(depth, line, score, bound, self._pv()))

    def _helper_line(self, int depth):
        """(score, pv) of a helper's complete iteration at `depth`, or None."""
        cdef SearchState* h
        cdef int i, j
        found = None
        pthread_mutex_lock(&self.pool.lock)
        for i in range(1, self.n_threads):
            h = self.workers[i]
            if h.done_pv_len[depth] > 0:
                found = (h.done_score[depth],
                         [h.done_pv[depth][j] for j in range(h.done_pv_len[depth])])
                break
        pthread_mutex_unlock(&self.pool.lock)
        return found

    cdef void _exclude(self, SearchState* s, codes):
        s.n_excluded = len(codes)
        for i, code in enumerate(codes):
            s.excluded[i] = code

    def _pv(self):
        cdef SearchState* s = self.workers[0]
        return [s.pv[0][i] for i in range(s.pv_len[0])]

    def _texts(self, codes):
        """Texts of a line of moves from the root (each named in the
        position it is played in)."""
        cdef char buf[MOVE_TEXT_SIZE]
        cdef int n
        self.ops.copy_state(self.scratch, self.root)
        out = []
        for code in codes:
            n = self.ops.move_text(self.scratch, code, buf)
            out.append(buf[:n].decode("ascii"))
            self.ops.make(self.scratch, code, 1)
        return out

    def _info(self, int depth, int line, int score, bound, pv):
        cp, mate = _score_fields(score)
        nodes = total_nodes(&self.control)
        elapsed_ms = max((now_ns() - self.start_ns) // 1_000_000, 0)
        return {"depth": depth, "seldepth": max(self.workers[0].seldepth, depth),
                "multipv": line + 1, "score": cp, "mate": mate, "bound": bound, "nodes": nodes,
                "nps": nodes * 1000 // max(elapsed_ms, 1), "hashfull": self.hashfull(),
                "time_ms": elapsed_ms, "pv": self._texts(pv)}

    def _ponder_from_tt(self, root_moves, best):
        """The reply the table holds for the position after `best`, if legal."""
        cdef Move moves[MAX_MOVES]
        cdef TTEntry entry
        cdef Move code
        cdef int n, i
        texts = self._texts(root_moves)
        code = root_moves[texts.index(best)]
        self.ops.copy_state(self.scratch, self.root)
        self.ops.make(self.scratch, code, 1)
        if not tt_probe(&self.tt, self.ops.key(self.scratch), &entry):
            return None
        n = generate_moves(self.ops, self.scratch, moves, 0)
        for i in range(n):
            if moves[i] == entry.move:
                return self._texts([code, entry.move])[1]
        return None

    # -- perft as a search -----------------------------------------------------
    def prepare_perft(self, GameBoard board, int depth):
        """As prepare(), for a perft divide at `depth` that run_perft() does
        and stop() interrupts."""
        if self.running:
            raise RuntimeError("a search is already running")
        if depth < 1:
            raise ValueError("perft depth must be >= 1")
        self._use_game(board.ops)
        self.ops.copy_state(self.root, board.state)
        self.max_depth = depth
        atomic_store_int(&self.control.stop, 0)
        self.prepared = PREPARED_PERFT

    def run_perft(self, on_move=None):
        """on_move(move, count) for each root move as it is counted; returns
        ([(move, count)], finished): a stop() leaves the list partial."""
        cdef Move moves[MAX_MOVES]
        cdef uint64_t count
        cdef int n, i, depth = self.max_depth
        if self.prepared != PREPARED_PERFT:
            raise RuntimeError("run_perft() needs prepare_perft() first")
        self.prepared = 0
        self.running = True
        out = []
        try:
            n = generate_moves(self.ops, self.root, moves, 0)
            for i in range(n):
                text = self._texts([moves[i]])[0]
                self.ops.make(self.root, moves[i], 1)
                with nogil:
                    count = game_perft(self.ops, self.root, depth - 1, &self.control.stop)
                self.ops.unmake(self.root)
                if atomic_load_int(&self.control.stop):
                    return out, False
                out.append((text, count))
                if on_move:
                    on_move(text, count)
            return out, True
        finally:
            self.running = False

    def perft(self, GameBoard board, int depth, on_move=None):
        self.prepare_perft(board, depth)
        return self.run_perft(on_move)
