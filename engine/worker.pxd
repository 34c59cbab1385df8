# The state of a search's workers: what all of them share (Control, the
# table, the thread pool) and what each owns (SearchState: its game copy,
# node count, heuristics and lines). Declarations only, so that the tree
# search (engine/tree.pyx), its history tables (engine/ordering.pxd), its
# move picker (engine/movepick.pxd) and the Searcher (engine/search.pyx) all
# build on it without a circle.

from libc.stdint cimport int16_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from tuong.engine.game cimport GameOps, Move, MAX_MOVES, MAX_PLY, MATE_BOUND, INFINITE
from tuong.engine.threads cimport Pool
from tuong.engine.tt cimport TTable

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

# The search parameters that the Searcher and the state's layout need; the
# rest are in engine/tree.pyx.
cdef enum:
    ASPIRATION_DEPTH = 4         # aspiration windows from this depth on
    ASPIRATION_DELTA = 20
    MAX_SEARCH_DEPTH = MAX_PLY - 8   # deepest iteration (extensions need room below it)
    CAPTURE_CLASSES = 256        # capture values (the game's MVV-LVA keys) kept apart
    HISTORY_SIZE = 1 << 16       # history tables are indexed by the 16-bit move


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


cdef inline long long now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <long long> ts.tv_sec * 1000000000 + ts.tv_nsec


cdef inline uint64_t total_nodes(Control* c) noexcept nogil:
    cdef uint64_t total = 0
    cdef int i
    for i in range(c.n_workers):
        total += atomic_load_u64(c.node_counts[i])
    return total


cdef inline void first_window(int previous, int use_window, int* alpha, int* beta) noexcept nogil:
    """An iteration's first window (the main worker's aspiration loop,
    engine/search.pyx, and the helpers', engine/helper.pyx): around the
    previous score when use_window; with a mate in hand, only as short a
    mate or a shorter one (mate distance pruning then cuts every longer
    line, so the deeper iterations stay cheap and reach the reduced moves);
    else all."""
    alpha[0], beta[0] = -INFINITE, INFINITE
    if use_window:
        alpha[0] = previous - ASPIRATION_DELTA if previous - ASPIRATION_DELTA > -INFINITE else -INFINITE
        beta[0] = previous + ASPIRATION_DELTA if previous + ASPIRATION_DELTA < INFINITE else INFINITE
    elif previous >= MATE_BOUND:
        alpha[0] = previous - 1
