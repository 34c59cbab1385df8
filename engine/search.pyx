# The search: iterative deepening with aspiration windows, NegaScout/PVS over
# the transposition table, quiescence on captures (all evasions in check).
#
# Threading contract: Searcher.search() runs each iteration's tree search in
# C without the GIL, and takes the GIL back only between iterations to report.
# stop() and set_limits() may be called from any thread at any time; the
# search polls them (every POLL_NODES nodes for the clock).
#
# The search sees the game only through GameOps (engine/game.pxd). It never
# prints: it fills plain dicts and hands them to the caller's on_info.

from libc.math cimport log
from libc.stdint cimport uint16_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine.game cimport GameOps, MATE, MAX_PLY, MATE_BOUND, INFINITE
from engine.position cimport Position, MAX_MOVES, move_from, move_to
from engine.tt cimport (
    TTable, TTEntry, tt_resize, tt_free, tt_clear, tt_new_search, tt_probe,
    tt_store, tt_hashfull, BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT,
)
from engine.xiangqi cimport XIANGQI_OPS
from engine.evaluate cimport evaluate as evaluate_position
from engine.see cimport see_ge
from engine.board cimport Board
from engine.board import move_name, parse_square

cdef extern from *:
    """
    /* The stop flag is shared with other threads: relaxed atomics suffice,
       the flag only has to be seen eventually. */
    static inline int atomic_load_int(int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void atomic_store_int(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline long long atomic_load_i64(long long *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void atomic_store_i64(long long *p, long long v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    """
    int atomic_load_int(int* p) nogil
    void atomic_store_int(int* p, int v) nogil
    long long atomic_load_i64(long long* p) nogil
    void atomic_store_i64(long long* p, long long v) nogil

# ---- search parameters, in one place ---------------------------------------
cdef enum:
    POLL_NODES = 1023            # clock read every 1024 nodes
    ASPIRATION_DEPTH = 4         # aspiration windows from this depth on
    ASPIRATION_DELTA = 20
    NULL_MIN_DEPTH = 3
    LMR_MIN_DEPTH = 3
    LMR_MIN_MOVES = 3            # first moves searched at full depth
    RFP_MAX_DEPTH = 3            # reverse futility pruning depth limit
    RFP_MARGIN = 110             # per ply
    FUTILITY_MAX_DEPTH = 3       # quiet moves pruned when eval + margin <= alpha
    FUTILITY_BASE = 90
    FUTILITY_PER_PLY = 110
    LMP_MAX_DEPTH = 4            # quiet moves pruned past a count at low depth
    SEE_MAX_DEPTH = 6            # captures losing more than SEE_MARGIN per ply
    SEE_MARGIN = 150             # of depth are pruned at low depth
    HISTORY_MAX = 1 << 14        # history scores stay within +-HISTORY_MAX
    LAZY_MARGIN = 300            # quiescence trusts material this far above beta
    SORT_AFTER = 4               # moves picked one by one before the rest is sorted

cdef int SCORE_HASH_MOVE = 1 << 30
cdef int SCORE_CAPTURE = 1 << 29
cdef int SCORE_KILLER = 1 << 28
cdef int SCORE_COUNTER = (1 << 28) - 1    # the reply that refuted this move before
cdef int SCORE_BAD_CAPTURE = -(1 << 29)   # after every quiet move
# Quiet moves other than the hash move score between these two (history
# stays within +-HISTORY_MAX), so a move's band tells what it is.
cdef int SCORE_QUIET_FLOOR = -(1 << 28)

cdef int LMR[64][64]             # reduction by depth and move number


cdef void init_reductions():
    cdef int d, m
    for d in range(64):
        for m in range(64):
            LMR[d][m] = 0 if d == 0 or m == 0 else <int> (0.7 + log(d) * log(m) / 1.9)


init_reductions()


cdef struct SearchState:
    GameOps ops
    void* game
    TTable tt
    uint64_t nodes
    uint64_t node_limit          # 0: none
    long long start_ns
    long long hard_ns            # absolute deadline, 0: none (atomic)
    int stop                     # set by stop() from any thread (atomic)
    int aborted                  # this search has stopped for good
    int abortable                # depth 1 always completes: a move exists
    int seldepth
    int n_excluded
    uint16_t excluded[MAX_MOVES] # root moves not to search (banned, other PV lines)
    uint16_t root_best
    int root_score
    uint16_t killers[MAX_PLY][2]
    int history[256][256]        # by from and to square
    uint16_t countermove[256][256]   # by the previous move's from and to square
    uint16_t played[MAX_PLY + 1] # the move made at each ply (0: a pass)
    int static_evals[MAX_PLY + 1]
    uint16_t pv[MAX_PLY + 1][MAX_PLY + 1]
    int pv_len[MAX_PLY + 1]


cdef long long now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <long long> ts.tv_sec * 1000000000 + ts.tv_nsec


cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    # Mate scores are stored as distance from this node, not from the root.
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


cdef inline int should_stop(SearchState* s) noexcept nogil:
    cdef long long deadline
    if s.aborted:
        return 1
    if not s.abortable:
        return 0
    if s.node_limit and s.nodes >= s.node_limit:
        s.aborted = 1
    elif (s.nodes & POLL_NODES) == 0:
        if atomic_load_int(&s.stop):
            s.aborted = 1
        else:
            deadline = atomic_load_i64(&s.hard_ns)
            if deadline and now_ns() >= deadline:
                s.aborted = 1
    return s.aborted


cdef inline void update_pv(SearchState* s, int ply, uint16_t move) noexcept nogil:
    cdef int i
    s.pv[ply][ply] = move
    for i in range(ply + 1, s.pv_len[ply + 1]):
        s.pv[ply][i] = s.pv[ply + 1][i]
    s.pv_len[ply] = s.pv_len[ply + 1] if s.pv_len[ply + 1] > ply + 1 else ply + 1


cdef inline void pick_next(uint16_t* moves, int* scores, int i, int n) noexcept nogil:
    # Selection sort one step at a time: a cutoff usually comes early, so
    # sorting the whole list would be wasted work.
    cdef int j, best = i, t
    cdef uint16_t m
    for j in range(i + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        t = scores[i]; scores[i] = scores[best]; scores[best] = t
        m = moves[i]; moves[i] = moves[best]; moves[best] = m


cdef void sort_moves(uint16_t* moves, int* scores, int i, int n) noexcept nogil:
    # Insertion sort of moves[i:n], best first: once a node has searched a
    # few moves without a cutoff it will likely search them all, and picking
    # each by a full scan would cost a quadratic number of comparisons.
    cdef int j, k, t
    cdef uint16_t m
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


cdef int is_excluded(SearchState* s, uint16_t move) noexcept nogil:
    cdef int i
    for i in range(s.n_excluded):
        if s.excluded[i] == move:
            return 1
    return 0


cdef int qsearch(SearchState* s, int alpha, int beta, int ply, int in_check) noexcept nogil:
    cdef uint16_t moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, score, best, rule_score, gives, tt_score, bound, static_eval = -INFINITE
    cdef int pv_node = beta - alpha > 1, old_alpha = alpha
    cdef uint16_t tt_move = 0, best_move = 0
    cdef uint64_t key
    cdef TTEntry* entry
    cdef void* g = s.game
    s.pv_len[ply] = ply
    s.nodes += 1
    if should_stop(s):
        return 0
    if ply > s.seldepth:
        s.seldepth = ply
    if s.ops.rule_result(g, ply, &rule_score):
        return rule_score
    if ply >= MAX_PLY - 1:
        return s.ops.evaluate(g)
    # Any stored result is at least as deep as a quiescence search.
    key = s.ops.key(g)
    entry = tt_probe(&s.tt, key)
    if entry is not NULL:
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
        n = s.ops.generate(g, moves, 0, 1)
        if n == 0:
            return s.ops.no_move_score(g, ply)
    else:
        # The table keeps static evaluations too: cheaper than recomputing.
        if entry is not NULL and entry.eval != -INFINITE:
            static_eval = entry.eval
        else:
            # Far above beta on material alone, the rest of the evaluation
            # would not bring the score back under it (lazy evaluation).
            static_eval = s.ops.quick_evaluate(g)
            if static_eval - LAZY_MARGIN >= beta:
                return static_eval
            static_eval = s.ops.evaluate(g)
        best = static_eval
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        n = s.ops.generate(g, moves, 1, 0)
    for i in range(n):
        scores[i] = SCORE_HASH_MOVE if moves[i] == tt_move else s.ops.capture_value(g, moves[i])
    for i in range(n):
        pick_next(moves, scores, i, n)
        # A capture that loses material cannot raise a standing pat.
        if not in_check and not s.ops.see_ge(g, moves[i], 0):
            continue
        gives = s.ops.may_give_check(g, moves[i])
        s.ops.make(g, moves[i])
        if gives:
            gives = s.ops.in_check(g)
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
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha and pv_node
                                               else BOUND_UPPER)
    tt_store(&s.tt, key, best_move, score_to_tt(best, ply), static_eval, 0, bound)
    return best


cdef int pvs(SearchState* s, int alpha, int beta, int depth, int ply,
             int in_check, int after_null) noexcept nogil:
    """NegaScout, fail-soft: returns a score that is exact inside (alpha,
    beta), an upper bound at or below alpha, a lower bound at or above beta."""
    cdef uint16_t moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef void* g = s.game
    cdef int n, i, score, best, rule_score, searched = 0, gives, new_depth
    cdef int reduction, bound, static_eval, tt_score, quiet, late_quiet, captures
    cdef int n_quiets = 0, j, prune_quiets, futile, prunable, improving, extend, order
    cdef int sorted_from
    cdef uint16_t quiets_tried[MAX_MOVES]
    cdef int pv_node = beta - alpha > 1
    cdef uint16_t tt_move = 0, best_move = 0, move, counter = 0, previous
    cdef uint64_t key
    cdef TTEntry* entry

    if depth <= 0:
        return qsearch(s, alpha, beta, ply, in_check)
    s.pv_len[ply] = ply
    s.nodes += 1
    if should_stop(s):
        return 0
    if ply > s.seldepth:
        s.seldepth = ply

    # Step 1. Rules, the ply limit and mate distance (not at the root).
    if ply > 0:
        if s.ops.rule_result(g, ply, &rule_score):
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
    entry = tt_probe(&s.tt, key)
    if entry is not NULL:
        tt_move = entry.move
        if ply > 0 and not pv_node and entry.depth >= depth:
            tt_score = score_from_tt(entry.score, ply)
            bound = entry.age_bound & 3
            if bound == BOUND_EXACT or (bound == BOUND_LOWER and tt_score >= beta) \
                    or (bound == BOUND_UPPER and tt_score <= alpha):
                return tt_score

    if in_check:
        static_eval = -INFINITE
    elif entry is not NULL and entry.eval != -INFINITE:
        static_eval = entry.eval
    else:
        static_eval = s.ops.evaluate(g)
    s.static_evals[ply] = static_eval
    # Better than two plies ago: pruning can afford to be less eager.
    improving = ply < 2 or static_eval > s.static_evals[ply - 2]

    if ply > 0 and not pv_node and not in_check:
        # Step 3. Reverse futility: far above beta at low depth, assume a cut.
        if depth <= RFP_MAX_DEPTH and static_eval - RFP_MARGIN * (depth - improving) >= beta \
                and beta > -MATE_BOUND and static_eval < MATE_BOUND:
            return static_eval
        # Step 4. Null move: if passing still holds beta, a real move will.
        if depth >= NULL_MIN_DEPTH and not after_null and static_eval >= beta \
                and s.ops.make_null is not NULL and s.ops.null_move_ok(g):
            # (Reducing more when the pass clears beta by far hid mates in
            # 3 that a quiet move sets up: tests/test_protocol_uci.py.)
            reduction = 3 + depth // 6
            s.played[ply] = 0
            s.ops.make_null(g)
            score = -pvs(s, -beta, -beta + 1, depth - 1 - reduction, ply + 1, 0, 1)
            s.ops.unmake_null(g)
            if s.aborted:
                return 0
            if score >= beta:
                return beta if score >= MATE_BOUND else score

    # Step 5. Without a hash move to try first this node is likely to cost
    # more than it is worth at full depth (internal iterative reduction;
    # from depth 4 on it hid a short mate, from 6 on it does not).
    if ply > 0 and depth >= 6 and tt_move == 0:
        depth -= 1

    # Step 6. Generate and order: hash move, good captures (MVV-LVA), killers,
    # the countermove, quiet moves by history, then losing captures.
    n = s.ops.generate(g, moves, 0, in_check)
    if n == 0:
        return s.ops.no_move_score(g, ply)
    previous = s.played[ply - 1] if ply > 0 else 0
    if previous:
        counter = s.countermove[move_from(previous)][move_to(previous)]
    for i in range(n):
        move = moves[i]
        captures = s.ops.capture_value(g, move)
        if move == tt_move:
            scores[i] = SCORE_HASH_MOVE
        elif captures:
            scores[i] = SCORE_CAPTURE + captures    # its SEE is checked when it comes up
        elif move == s.killers[ply][0]:
            scores[i] = SCORE_KILLER + 1
        elif move == s.killers[ply][1]:
            scores[i] = SCORE_KILLER
        elif move == counter:
            scores[i] = SCORE_COUNTER
        else:
            scores[i] = s.history[move_from(move)][move_to(move)]

    # Step 7. The move loop. Near the leaves, quiet moves that cannot lift a
    # hopeless static score to alpha (futility), or that come late in the
    # ordering (late-move pruning), are skipped unless they give check.
    prune_quiets = not pv_node and not in_check and ply > 0
    futile = prune_quiets and depth <= FUTILITY_MAX_DEPTH and \
        static_eval + FUTILITY_BASE + FUTILITY_PER_PLY * depth <= alpha
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
        if SCORE_CAPTURE <= scores[i] < SCORE_HASH_MOVE and not s.ops.see_ge(g, move, 0):
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
            quiet = s.ops.capture_value(g, move) == 0
        else:
            quiet = SCORE_QUIET_FLOOR < order < SCORE_CAPTURE
        late_quiet = quiet and order < SCORE_COUNTER
        prunable = late_quiet and searched > 0 and best > -MATE_BOUND and (
            futile or (prune_quiets and depth <= LMP_MAX_DEPTH
                       and searched >= (3 + 2 * depth * depth) * (2 + improving) // 3))
        gives = s.ops.may_give_check(g, move)
        if prunable and not gives:
            continue
        # Captures that lose material in the exchange they start, near the
        # leaves (only those already found to lose: the others gain).
        if ply > 0 and not in_check and searched > 0 and best > -MATE_BOUND \
                and depth <= SEE_MAX_DEPTH and order < SCORE_QUIET_FLOOR \
                and not s.ops.see_ge(g, move, -SEE_MARGIN * depth):
            if not gives:
                continue
            prunable = 1            # kept only if it really checks
        # Only checks that do not give material away are extended: a
        # sacrificial check is searched like any other move.
        extend = gives and s.ops.see_ge(g, move, 0)
        s.played[ply] = move
        s.ops.make(g, move)
        if gives:
            gives = s.ops.in_check(g)
        if prunable and not gives:
            s.ops.unmake(g)
            continue
        new_depth = depth - 1 + (gives and extend)     # check extension
        if searched == 0:
            score = -pvs(s, -beta, -alpha, new_depth, ply + 1, gives, 0)
        else:
            # Late quiet moves are searched shallower first (LMR) ...
            reduction = 0
            if depth >= LMR_MIN_DEPTH and searched >= LMR_MIN_MOVES and late_quiet \
                    and not in_check and not gives:
                reduction = LMR[depth if depth < 64 else 63][searched if searched < 64 else 63]
                # Less at PV nodes and for moves with a good history, more
                # where the position is not getting better.
                reduction += (not improving) - pv_node \
                    - s.history[move_from(move)][move_to(move)] // (HISTORY_MAX // 3)
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
                        if previous:
                            s.countermove[move_from(previous)][move_to(previous)] = move
                        # Reward the cutting move; the quiet moves tried
                        # before it failed, so they lose as much.
                        update_history(s, move, depth * depth)
                        for j in range(n_quiets - 1):
                            update_history(s, quiets_tried[j], -depth * depth)
                    break
                alpha = score
    if searched == 0:
        return -INFINITE                        # every root move excluded

    # Step 8. Remember the result (not for a root with moves left out).
    if not (ply == 0 and s.n_excluded):
        bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best_move else BOUND_UPPER)
        tt_store(&s.tt, key, best_move if best_move else tt_move, score_to_tt(best, ply),
                 static_eval, depth, bound)
    return best


cdef inline void update_history(SearchState* s, uint16_t move, int bonus) noexcept nogil:
    # "Gravity": each update moves the score toward +-HISTORY_MAX by a share
    # of the remaining distance, so it stays bounded and old news fades.
    cdef int* h = &s.history[move_from(move)][move_to(move)]
    if bonus > HISTORY_MAX:
        bonus = HISTORY_MAX
    elif bonus < -HISTORY_MAX:
        bonus = -HISTORY_MAX
    h[0] += bonus - h[0] * (bonus if bonus > 0 else -bonus) // HISTORY_MAX


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
    """Owns a transposition table and searches Boards. One search at a time;
    stop() and set_limits() are safe from any thread."""
    cdef SearchState* s
    cdef Position* pos
    cdef bint running
    cdef long long soft_deadline   # no iteration starts after it; 0: none

    def __cinit__(self, hash_mb=16):
        self.s = <SearchState*> malloc(sizeof(SearchState))
        self.pos = <Position*> malloc(sizeof(Position))
        if self.s is NULL or self.pos is NULL:
            raise MemoryError()
        memset(self.s, 0, sizeof(SearchState))
        self.s.ops = XIANGQI_OPS
        self.s.game = self.pos
        self.resize(hash_mb)

    def __dealloc__(self):
        if self.s is not NULL:
            tt_free(&self.s.tt)
            free(self.s)
        free(self.pos)

    def resize(self, int megabytes):
        """Set the transposition table size in MB (this empties it)."""
        if self.running:
            raise RuntimeError("cannot resize the hash table during a search")
        if megabytes < 1:
            raise ValueError("hash size must be at least 1 MB")
        if not tt_resize(&self.s.tt, megabytes):
            raise MemoryError(f"cannot allocate {megabytes} MB for the hash table")

    def clear(self):
        """Empty the transposition table and the move-ordering memory."""
        if self.running:
            raise RuntimeError("cannot clear the hash table during a search")
        tt_clear(&self.s.tt)
        memset(self.s.history, 0, sizeof(self.s.history))
        memset(self.s.killers, 0, sizeof(self.s.killers))
        memset(self.s.countermove, 0, sizeof(self.s.countermove))

    def hashfull(self):
        return tt_hashfull(&self.s.tt)

    def stop(self):
        atomic_store_int(&self.s.stop, 1)

    def set_limits(self, soft_ms=None, hard_ms=None):
        """New time limits counted from now (for ponderhit)."""
        self.soft_deadline = (now_ns() + int(soft_ms * 1e6)) if soft_ms else 0
        atomic_store_i64(&self.s.hard_ns, (now_ns() + int(hard_ms * 1e6)) if hard_ms else 0)

    def search(self, Board board, *, depth=None, nodes=None, soft_ms=None, hard_ms=None,
               multipv=1, banned=(), on_info=None):
        """Search board (which is not changed) and return a SearchResult.

        depth / nodes: limits; soft_ms: no iteration starts after it;
        hard_ms: the search is cut off. With no limit it runs to MAX_PLY or
        until stop(). on_info(dict) is called after every iteration (and
        for every MultiPV line, and for aspiration fails after a second)."""
        if self.running:
            raise RuntimeError("a search is already running")
        self.running = True
        try:
            return self._search(board, depth, nodes, soft_ms, hard_ms, multipv, banned, on_info)
        finally:
            self.running = False

    def _search(self, Board board, depth, nodes, soft_ms, hard_ms, multipv, banned, on_info):
        cdef SearchState* s = self.s
        cdef int d, score = 0, alpha, beta, delta, line, in_check, i
        memcpy(self.pos, board.position(), sizeof(Position))
        s.nodes = 0
        s.node_limit = nodes or 0
        s.start_ns = now_ns()
        self.set_limits(soft_ms, hard_ms)
        s.aborted = 0
        s.abortable = 0
        tt_new_search(&s.tt)
        memset(s.killers, 0, sizeof(s.killers))
        atomic_store_int(&s.stop, 0)

        legal = board.legal_moves()
        root_moves = [m for m in legal if m not in set(banned)]
        if not root_moves:
            return SearchResult(score=-MATE if not legal else 0)
        max_depth = min(depth or MAX_PLY - 8, MAX_PLY - 8)
        if len(root_moves) == 1 and (soft_ms or hard_ms):
            max_depth = 1           # a forced move: spend no clock on it
        multipv = max(1, min(int(multipv), len(root_moves)))
        banned_codes = [_encode(m) for m in legal if m not in root_moves]
        in_check = s.ops.in_check(s.game)
        lines = []                 # best lines of the last complete iteration
        result = SearchResult(best=root_moves[0])
        for d in range(1, max_depth + 1):
            s.seldepth = 0
            new_lines = []
            for line in range(multipv):
                self._exclude(banned_codes + [_encode(l[1][0]) for l in new_lines])
                s.root_best = 0
                prev = lines[line][0] if line < len(lines) else 0
                if d >= ASPIRATION_DEPTH and line < len(lines) and abs(prev) < MATE_BOUND:
                    delta = ASPIRATION_DELTA
                    alpha, beta = max(prev - delta, -INFINITE), min(prev + delta, INFINITE)
                else:
                    delta, alpha, beta = INFINITE, -INFINITE, INFINITE
                while True:
                    with nogil:
                        score = pvs(s, alpha, beta, d, 0, in_check, 0)
                    if s.aborted:
                        break
                    if score <= alpha:
                        bound = "upper"
                        beta = (alpha + beta) // 2
                        alpha = max(score - delta, -INFINITE)
                    elif score >= beta:
                        bound = "lower"
                        beta = min(score + delta, INFINITE)
                    else:
                        break
                    delta += delta // 2
                    if on_info and (now_ns() - s.start_ns) > 1_000_000_000 and s.pv_len[0]:
                        on_info(self._info(d, line, score, bound, self._pv()))
                if s.aborted:
                    # Keep a root move that this iteration already proved
                    # better than the previous best.
                    if line == 0 and s.root_best and s.root_score > -INFINITE:
                        if not lines or s.root_score > lines[0][0] or \
                                move_name(s.root_best) == lines[0][1][0]:
                            pv = self._pv() if s.pv_len[0] and s.pv[0][0] == s.root_best \
                                else [move_name(s.root_best)]
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
                result = SearchResult(best=best_pv[0], ponder=best_pv[1] if len(best_pv) > 1 else None,
                                      score=cp, mate=mate, depth=d if not s.aborted else d - 1,
                                      nodes=s.nodes, pv=best_pv)
            if s.aborted:
                break
            elapsed = now_ns() - s.start_ns
            # Do not start an iteration that cannot finish: the next one
            # typically costs more than everything so far.
            if self.soft_deadline and now_ns() + (elapsed * 3) // 2 > self.soft_deadline:
                break
            if atomic_load_int(&s.stop):
                break
            # A mate found and confirmed well past its distance will not
            # change: searching on only burns time.
            if abs(lines[0][0]) >= MATE_BOUND and d >= MATE - abs(lines[0][0]) + 8:
                break
        result.nodes = s.nodes
        if result.ponder is None and result.best:
            result.ponder = self._ponder_from_tt(board, result.best)
        return result

    cdef void _exclude(self, codes):
        self.s.n_excluded = len(codes)
        for i, code in enumerate(codes):
            self.s.excluded[i] = code

    def _pv(self):
        return [move_name(self.s.pv[0][i]) for i in range(self.s.pv_len[0])]

    def _info(self, int depth, int line, int score, bound, pv):
        cp, mate = _score_fields(score)
        elapsed_ms = max((now_ns() - self.s.start_ns) // 1_000_000, 0)
        return {"depth": depth, "seldepth": max(self.s.seldepth, depth), "multipv": line + 1,
                "score": cp, "mate": mate, "bound": bound, "nodes": self.s.nodes,
                "nps": self.s.nodes * 1000 // max(elapsed_ms, 1), "hashfull": self.hashfull(),
                "time_ms": elapsed_ms, "pv": pv}

    def _ponder_from_tt(self, Board board, best):
        cdef TTEntry* entry
        copy = board.copy()
        copy.push(best)
        entry = tt_probe(&self.s.tt, copy.hash)
        if entry is not NULL and entry.move:
            reply = move_name(entry.move)
            if copy.is_legal(reply):
                return reply
        return None


def _encode(str move):
    return parse_square(move[:2]) | (parse_square(move[2:]) << 8)


def evaluate(Board board):
    """The static evaluation in centipawns, from the side to move."""
    return evaluate_position(board.position())


def static_exchange_at_least(Board board, str move, int threshold=0):
    """Whether the exchange `move` starts on its target square gains at
    least `threshold` centipawns (SEE, as the search uses it)."""
    return bool(see_ge(board.position(), _encode(move), threshold))
