# The tree search: iterative deepening with aspiration windows, NegaScout/PVS
# over the transposition table, quiescence on captures (all evasions in
# check). Every worker runs it on its own SearchState (engine/worker.pxd):
# the main worker one iteration at a time for the Searcher
# (engine/search.pyx), each helper its own deepening loop (engine/helper.pyx)
# over the shared table (Lazy SMP). Workers poll stop(), the clock and the
# node budget through Control (engine/node.pxd: what every node does
# besides searching).
#
# The search sees the game only through GameOps (engine/game.pxd).

from libc.math cimport log
from libc.stdint cimport int16_t, uint64_t

from tuong.engine.game cimport (Move, NO_MOVE, MAX_MOVES, MAX_PLY, MATE_BOUND, INFINITE,
                                 NO_QUICK_ESTIMATE)
from tuong.engine.worker cimport SearchState
from tuong.engine.node cimport (
    should_stop, update_pv, is_excluded, may_give_check, prefetch_child, generated,
    note_rule_result, enter_node, settled, node_eval, new_best,
)
from tuong.engine.ordering cimport (
    HISTORY_MAX, Tried, continuation_row, quiet_stat, see_ge, note_tried, update_stats,
)
from tuong.engine.movepick cimport (
    MovePicker, STAGE_QUIET, STAGE_BAD_CAPTURE, picker_init, picker_init_qsearch, picker_next,
    picker_quiet,
)
from tuong.engine.tt cimport (
    TTEntry, tt_probe, tt_store, tt_cutoff, score_to_tt, score_from_tt, BOUND_NONE,
    BOUND_UPPER, BOUND_LOWER, BOUND_EXACT,
)

# ---- search parameters (the shared ones are in engine/worker.pxd) -----------
cdef enum:
    NULL_MIN_DEPTH = 3
    NULL_MIN_MOVES = 5           # no pass for a side with this many legal moves or fewer
    LMR_MIN_DEPTH = 3
    LMR_MIN_MOVES = 3            # first moves searched at full depth
    RFP_MAX_DEPTH = 3            # reverse futility pruning depth limit
    FUTILITY_MAX_DEPTH = 3       # quiet moves pruned when eval + margin <= alpha, if they
                                 # would be searched (reduced) this deep or less
    LMP_MAX_DEPTH = 4            # quiet moves pruned past a count at low depth
    SEE_MAX_DEPTH = 6            # captures losing more than SEE_MARGIN per ply
    IIR_MIN_DEPTH = 6            # nodes without a hash move are searched a ply shallower
    LMR_HISTORY_DIVISOR = HISTORY_MAX    # a quiet move's history stat / this: plies less reduced
    CUT_NODE_REDUCTION = 2       # late moves at an expected cut node: plies more reduced
    QS_FUTILITY_MARGIN = 150     # quiescence: what a capture may bring beyond its exchange
    PROBCUT_MIN_DEPTH = 5        # ProbCut: from this depth on, a capture searched
    PROBCUT_REDUCTION = 4        # this many plies shallower that holds beta +
    PROBCUT_MARGIN = 150         # this margin (less PROBCUT_IMPROVING where the
    PROBCUT_IMPROVING = 50       # position is improving) fails the node high

# ---- the tunable parameters (tuong-spsa) -------------------------------------
# Variables rather than constants so that a tuning run can set them (through
# set_parameter, which the engine offers as options only under TUONG_TUNE);
# set only between searches. TUNABLE below holds each one's range.
cdef int NULL_REDUCTION = 3          # a pass is searched this many plies shallower, ...
cdef int NULL_REDUCTION_DIVISOR = 6  # ... and one more per this many plies of depth
cdef int LMP_BASE = 3                # late-move pruning starts after (LMP_BASE + 2 d^2)
                                     # quiet moves, times (2 + improving) / 3
cdef int RFP_MARGIN = 110            # reverse futility margin per ply
cdef int FUTILITY_BASE = 90
cdef int FUTILITY_PER_PLY = 110
cdef int SEE_MARGIN = 150            # captures losing more than this per ply of depth are
                                     # pruned at low depth
cdef int LAZY_MARGIN = 300           # quiescence trusts a quick evaluation this far above beta

cdef int LMR[64][64]             # reduction by depth and move number
# Late-move reductions: LMR_BASE + ln(depth) ln(moves) / LMR_DIVISOR plies.
cdef double LMR_BASE = 0.7
cdef double LMR_DIVISOR = 1.9

# name: (default, lowest, highest); the LMR pair in hundredths.
TUNABLE = {
    "NullReduction": (3, 1, 5), "NullReductionDivisor": (6, 2, 12), "LmpBase": (3, 0, 10),
    "RfpMargin": (110, 40, 250), "FutilityBase": (90, 0, 250), "FutilityPerPly": (110, 40, 250),
    "SeeMargin": (150, 50, 300), "LazyMargin": (300, 100, 800),
    "LmrBase": (70, 0, 200), "LmrDivisor": (190, 100, 400),
}


# The integer ones by name: their variables' addresses (the LMR pair, in
# hundredths, is set through init_reductions below).
INT_NAMES = ("NullReduction", "NullReductionDivisor", "LmpBase", "RfpMargin", "FutilityBase",
             "FutilityPerPly", "SeeMargin", "LazyMargin")
cdef int* INT_PARAMETERS[8]
INT_PARAMETERS[:] = [&NULL_REDUCTION, &NULL_REDUCTION_DIVISOR, &LMP_BASE, &RFP_MARGIN,
                     &FUTILITY_BASE, &FUTILITY_PER_PLY, &SEE_MARGIN, &LAZY_MARGIN]


def parameters():
    """{name: (value now, lowest, highest)} of the tunable search parameters."""
    now = {name: INT_PARAMETERS[i][0] for i, name in enumerate(INT_NAMES)}
    now.update(LmrBase=int(round(LMR_BASE * 100)), LmrDivisor=int(round(LMR_DIVISOR * 100)))
    return {name: (now[name], low, high) for name, (_, low, high) in TUNABLE.items()}


def set_parameter(name, int value):
    """Set a tunable parameter (between searches); ValueError off its range."""
    global LMR_BASE, LMR_DIVISOR
    if name not in TUNABLE:
        raise ValueError(f"no tunable parameter {name!r}")
    _, low, high = TUNABLE[name]
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}")
    if name in INT_NAMES:
        INT_PARAMETERS[INT_NAMES.index(name)][0] = value
        return
    if name == "LmrBase":
        LMR_BASE = value / 100.0
    else:
        LMR_DIVISOR = value / 100.0
    init_reductions()

cdef void init_reductions():
    cdef int d, m
    for d in range(64):
        for m in range(64):
            LMR[d][m] = 0 if d == 0 or m == 0 else <int> (LMR_BASE + log(d) * log(m) / LMR_DIVISOR)


init_reductions()


cdef inline int lmr_reduction(int depth, int searched) noexcept nogil:
    """The late-move reduction's table entry (before its adjustments)."""
    return LMR[depth if depth < 64 else 63][searched if searched < 64 else 63]


cdef inline int qsearch(SearchState* s, int alpha, int beta, int ply, int in_check) noexcept nogil:
    # Path dependence is gathered per subtree (see SearchState.path_dep).
    cdef int saved = s.path_dep, score
    s.path_dep = MAX_PLY
    score = qsearch_node(s, alpha, beta, ply, in_check)
    if saved < s.path_dep:
        s.path_dep = saved
    return score


cdef inline int pvs(SearchState* s, int alpha, int beta, int depth, int ply,
                    int in_check, int after_null, int cut_node) noexcept nogil:
    cdef int saved = s.path_dep, score
    s.path_dep = MAX_PLY
    score = pvs_node(s, alpha, beta, depth, ply, in_check, after_null, cut_node)
    if saved < s.path_dep:
        s.path_dep = saved
    return score


cdef int qsearch_node(SearchState* s, int alpha, int beta, int ply, int in_check) noexcept nogil:
    cdef MovePicker mp
    cdef int n, stage, score, best, rule_score, back = 0, gives, tt_score, bound
    cdef int static_eval = -INFINITE, futility_base, threshold
    cdef int pv_node = beta - alpha > 1, old_alpha = alpha, found
    cdef Move tt_move = NO_MOVE, best_move = NO_MOVE, move
    cdef uint64_t key
    cdef TTEntry entry
    cdef void* g = s.game
    cdef int has_captures = s.captures, has_checks = s.checks
    if enter_node(s, ply):
        return 0
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
        if not pv_node and tt_cutoff(&entry, ply, alpha, beta, &tt_score):
            return tt_score
    if in_check:
        # Every evasion is tried: standing pat is no option in check.
        best = -INFINITE
        n = s.ops.generate(g, mp.moves, MAX_MOVES, 0, 1)
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
                if static_eval != NO_QUICK_ESTIMATE and static_eval - LAZY_MARGIN >= beta:
                    return static_eval
            static_eval = s.ops.evaluate(g)
        best = static_eval
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        if not has_captures:
            return best                 # nothing tactical to resolve
        n = s.ops.generate(g, mp.moves, MAX_MOVES, 1, 0)
    picker_init_qsearch(&mp, s, n, tt_move)
    # Futility: a capture that wins less than what the standing pat lacks
    # of alpha, less a margin for what the evaluation sees beyond material,
    # cannot raise the score to alpha (unless it checks).
    futility_base = static_eval + QS_FUTILITY_MARGIN
    while picker_next(&mp, &move, &stage):
        prefetch_child(s, move)
        # A capture that loses material cannot raise a standing pat.
        if not in_check:
            threshold = 0
            if futility_base <= alpha and not may_give_check(s, has_checks, move):
                threshold = alpha - futility_base + 1
            if not see_ge(s, move, threshold):
                continue
        gives = s.ops.make(g, move, may_give_check(s, has_checks, move))
        score = -qsearch(s, -beta, -alpha, ply + 1, gives)
        s.ops.unmake(g)
        if s.aborted:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = move
                update_pv(s, ply, move)
                if score >= beta:
                    break
    if s.path_dep < ply:
        bound = BOUND_NONE              # a score that rests on the path: keep the move only
    else:
        bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha and pv_node
                                                   else BOUND_UPPER)
    tt_store(s.tt, key, best_move, score_to_tt(best, ply), static_eval, 0, bound)
    return best


cdef inline int null_move_score(SearchState* s, int beta, int depth, int ply,
                                int cut_node) noexcept nogil:
    """The score of passing here, searched shallower with a null window at
    beta. (Reducing more when the pass clears beta by far hid mates in 3
    that a quiet move sets up: tests/test_protocol_uci.py.)"""
    cdef int score, reduction = NULL_REDUCTION + depth // NULL_REDUCTION_DIVISOR
    s.played[ply] = NO_MOVE
    s.played_kind[ply] = -1
    s.ops.make_null(s.game)
    score = -pvs(s, -beta, -beta + 1, depth - 1 - reduction, ply + 1, 0, 1, not cut_node)
    s.ops.unmake_null(s.game)
    return score


cdef inline int cut_early(SearchState* s, Move* moves, int* n, int beta, int depth, int ply,
                          int after_null, int static_eval, int improving, int cut_node,
                          int* score) noexcept nogil:
    """Steps 3 and 4 of pvs_node (off PV lines, not in check, below the
    root): whether the node fails high before any move, its score in
    `score` (0 if the search stopped).
    Step 3. Reverse futility: far above beta at low depth, assume a cut.
    Step 4. Null move: if passing still holds beta, a real move will. Not
    where the side may be in zugzwang, its moves all worse than a pass
    (often the last step of a mate, where no legal move means defeat):
    where beta is a mate against it, and where it has few legal moves (the
    list is kept for Step 6)."""
    if s.forward_pruning and depth <= RFP_MAX_DEPTH \
            and static_eval - RFP_MARGIN * (depth - improving) >= beta \
            and beta > -MATE_BOUND and static_eval < MATE_BOUND:
        score[0] = static_eval
        return 1
    if s.null_move and depth >= NULL_MIN_DEPTH and not after_null and static_eval >= beta \
            and beta > -MATE_BOUND and s.ops.null_move_ok(s.game) \
            and generated(s, moves, n, 0) > NULL_MIN_MOVES:
        score[0] = null_move_score(s, beta, depth, ply, cut_node)
        if s.aborted:
            score[0] = 0
            return 1
        if score[0] >= beta:
            if score[0] >= MATE_BOUND:
                score[0] = beta         # no unproven wins
            return 1
    return 0


cdef inline int probcut(SearchState* s, Move* moves, int* n, int beta, int depth, int ply,
                        int static_eval, int improving, int cut_node, int found,
                        const TTEntry* entry, int* score) noexcept nogil:
    """Step 4b of pvs_node (off PV lines, not in check, below the root),
    ProbCut: a capture that still holds a raised beta (`probcut_beta`) in a
    search PROBCUT_REDUCTION plies shallower would almost surely hold beta
    at full depth, so the node fails high on it. Only captures whose
    exchange alone covers the raise are tried, each first by quiescence; the
    table says when a search nearly as deep already failed under it."""
    cdef int i, gives, count, probcut_beta = beta + PROBCUT_MARGIN - PROBCUT_IMPROVING * improving
    cdef Move move
    if not s.forward_pruning or not s.captures or depth < PROBCUT_MIN_DEPTH \
            or beta <= -MATE_BOUND or probcut_beta >= MATE_BOUND:
        return 0
    if found and entry.depth >= depth - PROBCUT_REDUCTION + 1 \
            and ((entry.age_bound & 3) == BOUND_UPPER or (entry.age_bound & 3) == BOUND_EXACT) \
            and score_from_tt(entry.score, ply) < probcut_beta:
        return 0
    count = generated(s, moves, n, 0)
    for i in range(count):
        move = moves[i]
        if not s.ops.capture_value(s.game, move) \
                or not see_ge(s, move, probcut_beta - static_eval):
            continue
        s.played[ply] = move
        s.played_kind[ply] = s.ops.move_kind(s.game, move) if s.continuation is not NULL else -1
        gives = s.ops.make(s.game, move, may_give_check(s, s.checks, move))
        score[0] = -qsearch(s, -probcut_beta, -probcut_beta + 1, ply + 1, gives)
        if score[0] >= probcut_beta:
            score[0] = -pvs(s, -probcut_beta, -probcut_beta + 1, depth - PROBCUT_REDUCTION,
                            ply + 1, gives, 0, not cut_node)
        s.ops.unmake(s.game)
        if s.aborted:
            score[0] = 0
            return 1
        if score[0] >= probcut_beta:
            if s.path_dep >= ply:
                tt_store(s.tt, s.ops.key(s.game), move, score_to_tt(score[0], ply), static_eval,
                         depth - PROBCUT_REDUCTION + 1, BOUND_LOWER)
            if score[0] < MATE_BOUND:
                score[0] -= probcut_beta - beta
            return 1
    return 0


cdef inline int futile(int depth, int searched, int static_eval, int alpha,
                       int improving) noexcept nogil:
    """Whether a plain quiet move is pruned: futility judges it at the depth
    it would be searched to after its reduction (Stockfish's lmrDepth), with
    that depth's margin, so a move reduced a lot is pruned further from the
    leaves; late-move pruning past a count of moves at low depth."""
    cdef int lmr_depth = depth - 1 - lmr_reduction(depth, searched)
    # The defaults reach -1 at the least (a margin of FUTILITY_BASE); tuned
    # reductions (tuong-spsa) could go below it and make the margin negative.
    if lmr_depth < -1:
        lmr_depth = -1
    return (lmr_depth <= FUTILITY_MAX_DEPTH and static_eval + FUTILITY_BASE
            + FUTILITY_PER_PLY * (lmr_depth + 1) <= alpha) \
        or (depth <= LMP_MAX_DEPTH
            and searched >= (LMP_BASE + 2 * depth * depth) * (2 + improving) // 3)


cdef inline int pruned(SearchState* s, Move move, int stage, int prune, int pv_node, int depth,
                       int searched, int best, int alpha, int static_eval,
                       int improving) noexcept nogil:
    """Whether Step 7 of pvs_node skips this move unless it gives check
    (prune: forward pruning, not in check, not at the root), once a move
    was searched and found more than a mate against the side. Near the
    leaves: plain quiet moves (off PV lines) that cannot lift a hopeless
    static score to alpha or come late (futile()), and captures already
    found to lose material that lose more than SEE_MARGIN per ply of depth.
    This holds in a window that asks for a forced win too (a shorter mate
    than one already found): searching every quiet move there made proving
    a mate cost several times more. But in Xiangqi a quiet move that gives
    no check can win outright, by leaving the other side without a legal
    move, so a fail-low in such a window after a move was skipped is not
    stored as a bound: it could say "no mate here" of a node that has one."""
    if not prune or searched == 0 or best <= -MATE_BOUND:
        return 0
    if stage == STAGE_QUIET:
        return not pv_node and futile(depth, searched, static_eval, alpha, improving)
    return stage == STAGE_BAD_CAPTURE and depth <= SEE_MAX_DEPTH \
        and not see_ge(s, move, -SEE_MARGIN * depth)


cdef inline int late_reduction(SearchState* s, int depth, int searched, int new_depth,
                               int improving, int pv_node, int cut_node, int tactical, int stage,
                               Move move, int kind, int16_t* c1, int16_t* c2) noexcept nogil:
    """How many plies shallower a move is searched first (LMR): late plain
    quiet moves (not `tactical`: in check or giving it) only; less at PV
    nodes and for moves with a good history, more where the position is not
    getting better, and more at a node expected to fail high (`cut_node`):
    there the first moves should cut, and a late one rarely matters."""
    cdef int reduction
    if not s.reductions or depth < LMR_MIN_DEPTH or searched < LMR_MIN_MOVES \
            or stage != STAGE_QUIET or tactical:
        return 0
    reduction = lmr_reduction(depth, searched)
    reduction += (not improving) - pv_node + CUT_NODE_REDUCTION * cut_node \
        - quiet_stat(s, move, kind, c1, c2) // LMR_HISTORY_DIVISOR
    if reduction < 0:
        reduction = 0
    if reduction > new_depth - 1:
        reduction = new_depth - 1
    return reduction


cdef inline int search_move(SearchState* s, int alpha, int beta, int new_depth, int reduction,
                            int ply, int gives, int searched, int pv_node,
                            int cut_node) noexcept nogil:
    """The first move in the full window; a later one with a null window
    (and `reduction` plies shallower) first, as most are refuted cheaply,
    and again in full if it is not.
    Node types alternate as in a minimal tree: below a PV node's first move
    lies a PV node, below an expected cut node's first move an all node and
    the reverse; a later move's cheap first try expects its reply to cut."""
    cdef int score
    if searched == 0:
        return -pvs(s, -beta, -alpha, new_depth, ply + 1, gives, 0, not pv_node and not cut_node)
    score = -pvs(s, -alpha - 1, -alpha, new_depth - reduction, ply + 1, gives, 0, 1)
    if score > alpha and reduction > 0:
        score = -pvs(s, -alpha - 1, -alpha, new_depth, ply + 1, gives, 0, not cut_node)
    if score > alpha and score < beta:
        score = -pvs(s, -beta, -alpha, new_depth, ply + 1, gives, 0, 0)
    return score


cdef inline void store_node(SearchState* s, uint64_t key, int ply, int depth, int best,
                            int beta, Move best_move, Move tt_move, int static_eval,
                            int unproven) noexcept nogil:
    """Step 8 of pvs_node: remember its result. A score that rests on a
    repetition reaching above this node depends on the path here, and an
    `unproven` one may be too low: only the move is kept."""
    cdef int bound
    if s.path_dep < ply or unproven:
        bound = BOUND_NONE
    else:
        bound = BOUND_LOWER if best >= beta else (
            BOUND_EXACT if best_move != NO_MOVE else BOUND_UPPER)
    tt_store(s.tt, key, best_move if best_move != NO_MOVE else tt_move,
             score_to_tt(best, ply), static_eval, depth if bound else 0, bound)


cdef int pvs_node(SearchState* s, int alpha, int beta, int depth, int ply,
                  int in_check, int after_null, int cut_node) noexcept nogil:
    """NegaScout, fail-soft: returns a score that is exact inside (alpha,
    beta), an upper bound at or below alpha, a lower bound at or above beta."""
    cdef MovePicker mp
    cdef Tried tried
    cdef void* g = s.game
    cdef int n = -1, score, best = -INFINITE, searched = 0
    cdef int gives, new_depth, reduction, static_eval, tt_score
    cdef int prune, prunable, improving, extend, stage, found, kind
    cdef int skipped = 0, mate_window
    cdef int16_t* c1
    cdef int16_t* c2
    cdef int pv_node = beta - alpha > 1
    cdef Move tt_move = NO_MOVE, best_move = NO_MOVE, move, counter, previous
    cdef uint64_t key
    cdef TTEntry entry
    cdef int has_checks = s.checks

    if depth <= 0:
        return qsearch(s, alpha, beta, ply, in_check)
    if enter_node(s, ply):
        return 0

    # Step 1. Rules, the ply limit and mate distance (not at the root).
    if ply > 0 and settled(s, ply, &alpha, &beta, &score):
        return score

    # Step 2. Transposition table.
    key = s.ops.key(g)
    found = tt_probe(s.tt, key, &entry)
    if found:
        tt_move = entry.move
        if ply > 0 and not pv_node and entry.depth >= depth \
                and tt_cutoff(&entry, ply, alpha, beta, &tt_score):
            return tt_score

    static_eval = node_eval(s, ply, in_check, found, &entry)
    # Better than two plies ago: pruning can afford to be less eager.
    improving = ply < 2 or static_eval > s.static_evals[ply - 2]

    # Steps 3, 4 and 4b. Reverse futility, the null move and ProbCut.
    if ply > 0 and not pv_node and not in_check:
        if cut_early(s, mp.moves, &n, beta, depth, ply, after_null, static_eval, improving,
                     cut_node, &score):
            return score
        if probcut(s, mp.moves, &n, beta, depth, ply, static_eval, improving, cut_node, found,
                   &entry, &score):
            return score

    # Step 5. Without a hash move to try first this node is likely to cost
    # more than it is worth at full depth (internal iterative reduction;
    # from depth 4 on it hid a short mate, from 6 on it does not).
    if s.reductions and ply > 0 and depth >= IIR_MIN_DEPTH and tt_move == NO_MOVE:
        depth -= 1

    # Step 6. Generate and order: hash move, good captures (MVV-LVA), killers,
    # the countermove, quiet moves by history, then losing captures.
    generated(s, mp.moves, &n, in_check)
    if n == 0:
        return s.ops.no_move_score(g, ply)
    previous = s.played[ply - 1] if ply > 0 else NO_MOVE
    counter = s.countermove[previous] if previous != NO_MOVE else NO_MOVE
    c1 = continuation_row(s, ply, 1)
    c2 = continuation_row(s, ply, 2)
    picker_init(&mp, s, n, ply, tt_move, counter, c1, c2)

    # Step 7. The move loop, with forward pruning (pruned()).
    prune = s.forward_pruning and not in_check and ply > 0
    mate_window = alpha >= MATE_BOUND
    tried.n_quiets = tried.n_captures = 0
    while picker_next(&mp, &move, &stage):
        if ply == 0 and s.n_excluded and is_excluded(s, move):
            continue
        gives = may_give_check(s, has_checks, move)
        prunable = pruned(s, move, stage, prune, pv_node, depth, searched, best, alpha,
                          static_eval, improving)
        if prunable and not gives:      # (else kept only if it really checks)
            skipped = 1
            continue
        prefetch_child(s, move)
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
        reduction = late_reduction(s, depth, searched, new_depth, improving, pv_node, cut_node,
                                   in_check or gives, stage, move, kind, c1, c2)
        score = search_move(s, alpha, beta, new_depth, reduction, ply, gives, searched, pv_node,
                            cut_node)
        s.ops.unmake(g)
        if s.aborted:
            return 0
        searched += 1
        note_tried(s, &tried, move, picker_quiet(&mp, stage))
        if score > best:
            best = score
            if score > alpha:
                best_move = move
                new_best(s, ply, move, score)
                if score >= beta:
                    update_stats(s, &tried, move, picker_quiet(&mp, stage), ply, depth, previous,
                                 c1, c2)
                    break
                alpha = score
    if searched == 0:
        return -INFINITE                        # every root move excluded

    # Step 8. Remember the result (not for a root with moves left out): a
    # score below beta in a window asking for a mate after a move was
    # skipped may be too low (Step 7).
    if not (ply == 0 and s.n_excluded):
        store_node(s, key, ply, depth, best, beta, best_move, tt_move, static_eval,
                   skipped and mate_window and best < beta)
    return best


cdef int search_root(SearchState* s, int alpha, int beta, int depth, int in_check) noexcept nogil:
    """A search of the root in one window (the aspiration loops around it:
    engine/search.pyx's for the main worker, engine/helper.pyx's)."""
    return pvs(s, alpha, beta, depth, 0, in_check, 0, 0)
