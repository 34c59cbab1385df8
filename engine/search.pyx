# The Searcher: the Python face of the search. It owns the transposition
# table, the workers' states (engine/tree.pxd) and the helper threads
# (engine/threads.pyx); it prepares a search, runs the main worker's
# iterations (the tree search is engine/tree.pyx) and reports them.
#
# Threading contract. Searcher.prepare() runs on the caller's thread and
# resets everything a stop() or set_limits() may touch, so that neither is
# lost however early it comes; Searcher.run() then searches, each iteration's
# tree search in C without the GIL, taking the GIL back only between
# iterations to report. stop() and set_limits() are safe from any thread at
# any time; the workers poll them. Helper threads are C threads created when
# the thread count is set and parked between searches; they never touch
# Python.
#
# The search never prints: it hands each report, a typed record
# (engine/report.py's SearchInfo), to the caller's on_info.

from libc.stdint cimport int16_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset

from tuong.engine.game cimport (
    GameOps, GameBoard, Move, NO_MOVE, MAX_MOVES, MOVE_TEXT_SIZE, MATE, MAX_PLY, MATE_BOUND,
    INFINITE, PRUNE_FORWARD, PRUNE_REDUCTIONS, PRUNE_NULL_MOVE, generate_moves, game_perft,
)
from tuong.engine.threads cimport (
    Pool, pthread_t, pthread_mutex_lock, pthread_mutex_unlock, pool_init, pool_destroy,
    spawn_helpers, close_helpers, start_helpers, wait_helpers,
)
from tuong.engine.report import SearchInfo
from tuong.engine import egtbprobe
from tuong.engine.timeman import IterationClock
from tuong.engine.helper cimport helper_main
from tuong.engine.tree cimport search_root
from tuong.engine.ordering cimport clear_heuristics
from tuong.engine.worker cimport (
    Control, SearchState, ASPIRATION_DEPTH, ASPIRATION_DELTA, MAX_SEARCH_DEPTH, CAPTURE_CLASSES,
    atomic_load_int, atomic_store_int, atomic_store_i64, now_ns, total_nodes, first_window,
)
from tuong.engine.tt cimport (
    TTable, TTEntry, tt_resize, tt_free, tt_clear, tt_new_search, tt_probe, tt_hashfull,
    score_from_tt, BOUND_UPPER, BOUND_LOWER,
)

cdef enum:
    MAX_THREADS = 256
    PREPARED_SEARCH = 1
    PREPARED_PERFT = 2


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
        pool_init(&self.pool)
        self.resize(hash_mb)
        self.set_threads(threads)

    def __dealloc__(self):
        self._free_workers()
        tt_free(&self.tt)
        pool_destroy(&self.pool)

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
        cdef int i, started
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
        started = spawn_helpers(&self.pool, <void**> workers, n, helper_main)
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
        with nogil:
            close_helpers(&self.pool)

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
        hard_ms: the search is cut off. With no limit it deepens to
        MAX_SEARCH_DEPTH or until stop(). banned: moves (text) left out at the root."""
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
        egtbprobe.reset_hits()
        self.set_limits(soft_ms, hard_ms)
        self.prepared = PREPARED_SEARCH

    def run(self, on_info=None):
        """Search what prepare() set up and return a SearchResult. on_info
        (a SearchInfo) is called after every iteration (and for every MultiPV line,
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
            if taken:
                s.abortable = 1       # a move exists: stop, time and jumps apply again
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
        """The main worker's aspiration loop: as helper.pyx's aspiration(), but it reports
        fails once the search has run for a second."""
        cdef SearchState* s = self.workers[0]
        cdef int alpha, beta, delta = ASPIRATION_DELTA, score
        first_window(prev, use_window, &alpha, &beta)
        while True:
            with nogil:
                score = search_root(s, alpha, beta, depth, in_check)
            if s.aborted:
                return score
            if score <= alpha and alpha > -INFINITE:
                bound = "upper"
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INFINITE)
            elif score >= beta and beta < INFINITE:
                bound = "lower"
                beta = min(score + delta, INFINITE)
            else:
                return score    # inside the window, or against a bound that cannot widen
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
        return SearchInfo(depth=depth, seldepth=max(self.workers[0].seldepth, depth),
                          multipv=line + 1, score=cp, mate=mate, bound=bound, nodes=nodes,
                          nps=nodes * 1000 // max(elapsed_ms, 1), hashfull=self.hashfull(),
                          time_ms=elapsed_ms, pv=self._texts(pv), tbhits=egtbprobe.hits())

    def _ponder_from_tt(self, root_moves, best):
        """The reply the table holds for the position after `best`, if legal."""
        cdef Move moves[MAX_MOVES]
        cdef TTEntry entry
        cdef Move code
        cdef int n, i
        # Each root move named in the root position (not as a line: making
        # them one after another would play moves that are not legal there).
        texts = [self._texts([m])[0] for m in root_moves]
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

    def probe(self, GameBoard board):
        """What the table holds for `board` (UCCI's `probe`): None, or
        (move text or None, lower bound or None, upper bound or None, depth),
        the bounds as (cp, mate) pairs from the side to move. Not during a
        search (the states it names moves in are the search's)."""
        cdef TTEntry entry
        cdef Move moves[MAX_MOVES]
        cdef char buf[MOVE_TEXT_SIZE]
        cdef int n, i, score, bound
        if self.running or self.prepared:
            raise RuntimeError("cannot probe the table during a search")
        self._use_game(board.ops)
        self.ops.copy_state(self.scratch, board.state)
        if not tt_probe(&self.tt, self.ops.key(self.scratch), &entry):
            return None
        move = None
        n = generate_moves(self.ops, self.scratch, moves, 0)
        for i in range(n):
            if moves[i] == entry.move:
                n = self.ops.move_text(self.scratch, entry.move, buf)
                move = buf[:n].decode("ascii")
                break
        bound = entry.age_bound & 3
        score = score_from_tt(entry.score, 0)
        lower = _score_fields(score) if bound & BOUND_LOWER else None
        upper = _score_fields(score) if bound & BOUND_UPPER else None
        return move, lower, upper, entry.depth

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
