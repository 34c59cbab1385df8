# The Python face of the position: FEN in and out, move strings, push/pop,
# queries. Checks happen here with the GIL; the C core assumes valid input.

from libc.stdint cimport uint16_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from tuong.engine.position cimport (
    Position, Move, KIND_OF, EMPTY, OFF, RED, BLACK, RED_TAG,
    MAX_HISTORY, side_tag, move_from, move_to, square_at, file_of,
    rank_of, clear_position, put_piece, compute_key, compute_score, header_size, stale_accumulators,
    KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN, ZOBRIST_SIDE, PIECE_VALUE,
)
from tuong.engine.movegen cimport is_attacked, perft
from tuong.engine.position cimport IN_PALACE, IN_HALF
from tuong.engine.game cimport GameBoard, generate_moves, MAX_MOVES
from tuong.engine.xiangqi cimport XIANGQI_OPS
from tuong.engine.nnue cimport nn_evaluate, nn_accumulator_matches
from tuong.engine.repetition cimport (
    Verdict as CycleVerdict, find_cycle, judge, chase_pairs, RULES_ASIAN, RULES_CHECK_ONLY,
    VERDICT_DRAW, VERDICT_PERPETUAL_CHECK, VERDICT_PERPETUAL_CHASE,
)
from tuong.engine.evaluate cimport (
    evaluate as evaluate_position, trace_into, ensure_loaded, MAX_TRACE_FEATURES,
)
from tuong.engine.see cimport see_ge
from tuong.engine.outcome import NO_CAPTURE_PLIES, Outcome, Verdict

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

# FEN letter -> (type, first slot, slots available); H and E are common aliases.
_PIECES = {"K": (KING, 0, 1), "A": (ADVISOR, 1, 2), "B": (ELEPHANT, 3, 2),
           "E": (ELEPHANT, 3, 2), "N": (HORSE, 5, 2), "H": (HORSE, 5, 2),
           "R": (ROOK, 7, 2), "C": (CANNON, 9, 2), "P": (PAWN, 11, 5)}
_LETTER = "KABNRCP"
MAX_FULLMOVE = 1_000_000       # the largest FEN move number (or halfmove clock) taken as given
_NAMES = {KING: "king", ADVISOR: "advisor", ELEPHANT: "elephant", HORSE: "horse",
          ROOK: "rook", CANNON: "cannon", PAWN: "pawn"}
_ELEPHANT_POINTS = {(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)}
# The nominal piece values (engine/position.pxd) by letter: what SEE and
# capture ordering count; the king's is SEE's.
PIECE_VALUES = {_LETTER[kind]: PIECE_VALUE[kind] for kind in range(7)}


def square_name(int sq):
    return "abcdefghi"[file_of(sq)] + str(rank_of(sq))


def _fen_count(fields, int index, int missing, int smallest):
    """The FEN's count in field `index` (4: the halfmove clock, 5: the move
    number); `missing` where there is none, or where it is not a plain
    number from `smallest` to MAX_FULLMOVE (beyond any game, and too big
    for the C int that keeps it)."""
    number = fields[index] if len(fields) > index else ""
    if number.isascii() and number.isdigit() and len(number) <= 7 \
            and smallest <= int(number) <= MAX_FULLMOVE:
        return int(number)
    return missing


def parse_square(str text):
    """'e0' -> mailbox square; ValueError if it is not a board square."""
    if len(text) != 2 or text[0] not in "abcdefghi" or text[1] not in "0123456789":
        raise ValueError(f"not a square: {text!r}")
    return square_at(ord(text[0]) - 97, ord(text[1]) - 48)


def move_name(int m):
    return square_name(move_from(m)) + square_name(move_to(m))


def _placement_problem(int kind_type, int red, int f, int r):
    """Why a piece cannot stand on (f, r), or None. Red's view: r as is."""
    own_r = r if red else 9 - r
    name = ("Red " if red else "Black ") + _NAMES[kind_type]
    where = "abcdefghi"[f] + str(r)
    if kind_type in (KING, ADVISOR) and not (IN_PALACE[square_at(f, r)]
                                             and IN_HALF[RED if red else BLACK][square_at(f, r)]):
        return f"{name} outside its palace at {where}"
    if kind_type == ADVISOR and (f + own_r) % 2 == 0:
        return f"{name} off its palace diagonals at {where}"
    if kind_type == ELEPHANT and (f, own_r) not in _ELEPHANT_POINTS:
        return f"{name} off its seven points at {where}"
    if kind_type == PAWN and own_r < 3:
        return f"{name} behind its starting rank at {where}"
    return None


cdef class Board(GameBoard):
    """A Xiangqi position with its move history.

    Board(fen=None) starts from the initial position or parses a FEN as
    Pikafish writes it; a bad FEN raises ValueError naming the problem.
    Moves, perft and game over come from GameBoard (engine/game.pyx).
    """
    example_move = "h2e2"
    start_fen = START_FEN

    def __cinit__(self):
        self.attach(&XIANGQI_OPS)
        self.pos = <Position*> self.state
        clear_position(self.pos)

    def __init__(self, fen=None):
        self.set_fen(START_FEN if fen is None else fen)

    cdef Position* position(self):
        return self.pos

    # -- FEN ---------------------------------------------------------------
    def set_fen(self, str fen):
        """Replace the position (and clear the history) from a FEN."""
        cdef Position* p = <Position*> malloc(sizeof(Position))
        if p is NULL:
            raise MemoryError()
        try:
            _parse_fen(p, fen)
            p.rules = self.pos.rules
            memcpy(self.pos, p, header_size(p))
            stale_accumulators(self.pos)
            self.pos.ply = 0
            self.moves = []
            fields = fen.split()
            # A count that is not a plain number (or beyond any game) counts
            # as a missing one: clock 0, move 1.
            self.first_halfmove = _fen_count(fields, 4, 0, 0)
            self.first_fullmove = _fen_count(fields, 5, 1, 1)
            self.started_black = self.pos.side == BLACK
        finally:
            free(p)

    def fen(self):
        """The position as a FEN, as Pikafish writes it: placement, side,
        `- -`, the halfmove clock and the move number."""
        cdef Position* p = self.pos
        rows = []
        for r in range(9, -1, -1):
            row, gap = "", 0
            for f in range(9):
                cell = p.board[square_at(f, r)]
                if cell == EMPTY:
                    gap += 1
                    continue
                if gap:
                    row += str(gap)
                    gap = 0
                letter = _LETTER[KIND_OF[cell] % 7]
                row += letter if cell & RED_TAG else letter.lower()
            rows.append(row + (str(gap) if gap else ""))
        return "/".join(rows) + (" w" if p.side == RED else " b") + \
            f" - - {self.halfmove_clock} {self.fullmove_number}"

    @property
    def halfmove_clock(self):
        """Plies since the last capture (Pikafish's meaning of the FEN's
        fifth field): the FEN's clock plus the moves pushed while no move
        of this board has captured; what the no-capture draw counts. The
        search and the position's key do not depend on it."""
        cdef int j
        for j in range(self.pos.ply - 1, -1, -1):
            if self.pos.history[j].captured:
                return self.pos.ply - 1 - j
        return self.first_halfmove + self.pos.ply

    @property
    def fullmove_number(self):
        """The FEN's move number now: the start's, plus one after each Black move."""
        return self.first_fullmove + (self.pos.ply + self.started_black) // 2

    def _rescore(self):
        """Recompute the incremental material + piece-square score from the
        tables in force: after engine.evaluate.load_weights() for a board that
        existed before it."""
        self.pos.score = compute_score(self.pos)

    def _check_room(self):
        if self.pos.ply >= MAX_HISTORY - 256:
            raise ValueError("game too long: the history is full")

    # -- queries -----------------------------------------------------------
    @property
    def rules(self):
        """The repetition rules: 'asian' (perpetual check, then perpetual
        chase, loses) or 'check-only' (perpetual check loses, any other
        repetition draws)."""
        return RULE_NAMES[self.pos.rules]

    @rules.setter
    def rules(self, name):
        if name not in RULE_NAMES:
            raise ValueError(f"repetition rules must be one of {', '.join(RULE_NAMES)}, "
                             f"not {name!r}")
        self.pos.rules = RULE_NAMES.index(name)

    def repetition(self):
        """The verdict the search gives this position if it has occurred
        before (since the last capture) with the same side to move: None if
        it has not; 0 a draw; 1 the side to move wins (the other side
        checked or chased perpetually); -1 it loses."""
        cdef CycleVerdict verdict
        cdef int cycle = find_cycle(self.pos, self.pos.ply + 1)
        if cycle == 0:
            return None
        judge(self.pos, cycle, &verdict)
        return 0 if verdict.loser < 0 else (-1 if verdict.loser == self.pos.side else 1)

    def chases(self, side=None):
        """The pieces `side` ('w' or 'b', default the side to move) chases
        here, as the repetition rules define it (whether the attack is new
        aside): sorted (attacker square, victim square) pairs."""
        cdef uint16_t pairs[16]
        cdef int who = self.pos.side if side is None else (RED if side in ("w", "r") else BLACK)
        chase_pairs(self.pos, who, pairs)
        out = []
        for a in range(16):
            for v in range(16):
                if (pairs[a] >> v) & 1:
                    out.append((square_name(self.pos.square[(RED_TAG << who) + a]),
                                square_name(self.pos.square[(RED_TAG << (who ^ 1)) + v])))
        return sorted(out)

    def repetition_verdict(self):
        """How the game ends if this position is the third occurrence of a
        position (since the last capture, same side to move), judged on the
        moves since its first: None if it is not; else a Verdict
        (engine/outcome.py) with its result ('1-0', '0-1', '1/2-1/2'), rule
        ('repetition', 'perpetual check', 'perpetual chase') and a sentence
        saying why."""
        cdef CycleVerdict verdict
        cdef int cycle = find_cycle(self.pos, 0)
        if cycle == 0:
            return None
        judge(self.pos, cycle, &verdict)
        if verdict.loser < 0:
            return Verdict.draw()
        loser = "w" if verdict.loser == RED else "b"
        if verdict.rule == VERDICT_PERPETUAL_CHECK:
            return Verdict.loss(loser, "perpetual check")
        return Verdict.loss(loser, "perpetual chase",
                            (_piece_name(self.pos, verdict.attacker),
                             _piece_name(self.pos, verdict.victim)))

    def outcome(self, no_capture_plies=NO_CAPTURE_PLIES, max_plies=None):
        """How the game has ended here, or None while it goes on: an
        Outcome (engine/outcome.py) with the result ('1-0', '0-1',
        '1/2-1/2'), the termination and a sentence saying why. The rules,
        in the match referee's order (tools/match/referee.py judges every
        position with this method):

        1. the side to move has no legal move: it loses ('checkmate' when
           in check, else 'stalemate', a loss too in Xiangqi);
        2. the third occurrence of a position: repetition_verdict()
           ('perpetual check', 'perpetual chase' or 'repetition', under
           the board's `rules`);
        3. 'move limit': a draw once `max_plies` moves have been played on
           this board (None: no cap; a match's cap, not a rule of Xiangqi),
           or after `no_capture_plies` plies without a capture (the
           halfmove_clock; None: no such draw).

        Xiangqi has no draw by insufficient material: a side that cannot
        mate plays on to the move limit or a repetition."""
        if self.is_game_over():
            return Outcome.no_move(self.turn, self.in_check())
        verdict = self.repetition_verdict()
        if verdict is not None:
            return Outcome.of_verdict(verdict)
        if max_plies is not None and self.ply >= max_plies:
            return Outcome.ply_limit(max_plies)
        if no_capture_plies is not None and self.halfmove_clock >= no_capture_plies:
            return Outcome.no_capture(no_capture_plies)
        return None

    def is_capture(self, move):
        """Whether the legal move `move` (text: 'h2e2') takes a piece;
        ValueError if it is malformed or illegal here."""
        return self.pos.board[move_to(self.code_of(move))] != EMPTY

    def gives_check(self, int index=-1):
        """Whether the move at move_stack[index] gave check."""
        return bool(self.pos.history[range(self.pos.ply)[index]].gives_check)

    @property
    def turn(self):
        return "w" if self.pos.side == RED else "b"

    @property
    def side_name(self):
        return "Red" if self.pos.side == RED else "Black"

    def key_history(self):
        """Keys of the positions before each move, oldest first."""
        return [self.pos.history[i].key for i in range(self.pos.ply)]

    def _computed_hash(self):
        """The key computed from scratch (tests compare it to .hash)."""
        return compute_key(self.pos)

    def perft(self, int depth):
        """Xiangqi's own perft: legality by the danger map, bulk counting."""
        cdef uint64_t n
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        with nogil:
            n = perft(self.pos, depth)
        return n

    def copy(self):
        cdef Board other = GameBoard.copy(self)
        other.first_fullmove = self.first_fullmove
        other.first_halfmove = self.first_halfmove
        other.started_black = self.started_black
        return other

    def __str__(self):
        lines = []
        for r in range(9, -1, -1):
            row = []
            for f in range(9):
                cell = self.pos.board[square_at(f, r)]
                if cell == EMPTY:
                    row.append(".")
                else:
                    letter = _LETTER[KIND_OF[cell] % 7]
                    row.append(letter if cell & RED_TAG else letter.lower())
            lines.append(f"{r} " + " ".join(row))
        lines.append("  a b c d e f g h i")
        return "\n".join(lines)


RULE_NAMES = ("asian", "check-only")     # by Position.rules: RULES_ASIAN, RULES_CHECK_ONLY


cdef str _piece_name(Position* p, int piece):
    """'horse on c6' for a piece id."""
    return f"{_NAMES[KIND_OF[piece] % 7]} on {square_name(p.square[piece])}"


def evaluate(Board board):
    """The static evaluation in centipawns, from the side to move: the
    network's if one is in force (engine.nnue), else the hand-crafted one."""
    return XIANGQI_OPS.evaluate(board.pos)


def evaluate_hand_crafted(Board board):
    """The hand-crafted evaluation, whatever is in force."""
    return evaluate_position(board.pos)


def _network_check(Board board):
    """(accumulators equal, incremental score, refreshed score): whether the
    network's accumulators that make/unmake kept equal ones computed afresh,
    and the scores from each (tests: they must agree after any moves)."""
    cdef Position* p = <Position*> malloc(sizeof(Position))
    if p is NULL:
        raise MemoryError()
    try:
        XIANGQI_OPS.copy_state(p, board.pos)      # leaves the copy's ring stale
        return bool(nn_accumulator_matches(board.pos)), nn_evaluate(board.pos), nn_evaluate(p)
    finally:
        free(p)


def winning_capture(Board board, int threshold=1):
    """A legal capture whose exchange gains at least `threshold` (SEE, as
    the search counts it), or None: a position with one is not quiet."""
    cdef uint16_t moves[MAX_MOVES]
    cdef int i, n = generate_moves(board.ops, board.state, moves, 1)
    for i in range(n):
        if see_ge(board.pos, moves[i], threshold):
            return board.text_of(moves[i])
    return None


def eval_features(Board board):
    """The evaluation as a linear function of the tunable weights
    (engine.weights.FEATURES): (features, residual) where features is
    [(index, coefficient)] and, from Red's side,
    evaluate == sum(weight[index] * coefficient) + residual exactly."""
    cdef int indices[MAX_TRACE_FEATURES]
    cdef double values[MAX_TRACE_FEATURES]
    cdef double residual
    cdef int n = trace_into(board.pos, indices, values, &residual)
    return [(indices[i], values[i]) for i in range(n)], residual


MAX_FEATURES_PER_POSITION = MAX_TRACE_FEATURES


def _trace_fens(fens, int[::1] indices, double[::1] values, long long[::1] row_start,
                double[::1] residuals):
    """eval_features() of many positions at once, as a CSR sparse matrix in
    caller-owned buffers (any writable buffer: array.array, numpy): row i's
    features are indices/values[row_start[i]:row_start[i + 1]]. Needs
    len(fens) + 1 row starts, len(fens) residuals, and room for
    MAX_FEATURES_PER_POSITION entries a position. A bad FEN raises
    ValueError naming its line (0-based)."""
    cdef Position* p = <Position*> malloc(sizeof(Position))
    cdef long long used = 0
    cdef Py_ssize_t i, n = len(fens)
    if p is NULL:
        raise MemoryError()
    if row_start.shape[0] < n + 1 or residuals.shape[0] < n:
        free(p)
        raise ValueError("_trace_fens: row_start needs len(fens) + 1 entries, residuals len(fens)")
    try:
        row_start[0] = 0
        for i in range(n):
            if indices.shape[0] - used < MAX_TRACE_FEATURES or \
                    values.shape[0] - used < MAX_TRACE_FEATURES:
                raise ValueError(f"_trace_fens: no room for position {i}")
            try:
                _parse_fen(p, fens[i])
            except ValueError as err:
                raise ValueError(f"position {i}: {err}") from None
            used += trace_into(p, &indices[used], &values[used], &residuals[i])
            row_start[i + 1] = used
    finally:
        free(p)
    return used


def static_exchange_at_least(Board board, str move, int threshold=0):
    """Whether the exchange `move` starts on its target square gains at
    least `threshold` centipawns (SEE, as the search uses it; like the
    search's, it ignores pins, so the move need only be well formed)."""
    if len(move) != 4:
        raise ValueError(f"malformed move {move!r}: expected e.g. 'h2e2'")
    return bool(see_ge(board.pos, parse_square(move[:2]) | parse_square(move[2:]) << 8, threshold))


cdef void _parse_fen(Position* p, str fen) except *:
    # Every Xiangqi position made from Python starts here, and its
    # incremental score comes from the evaluation's tables: the default
    # weights are loaded first unless someone installed weights already.
    ensure_loaded()
    if not isinstance(fen, str) or not fen.strip():
        raise ValueError("empty FEN")
    fields = fen.split()
    ranks = fields[0].split("/")
    if len(ranks) != 10:
        raise ValueError(f"FEN has {len(ranks)} ranks, expected 10: {fields[0]!r}")
    clear_position(p)
    used = {}
    for i, text in enumerate(ranks):
        r = 9 - i
        f = 0
        for ch in text:
            if ch.isdigit():
                f += int(ch)
                continue
            upper = ch.upper()
            if upper not in _PIECES:
                raise ValueError(f"unknown piece letter {ch!r} in FEN rank {r}")
            if f > 8:
                raise ValueError(f"FEN rank {r} has more than 9 files: {text!r}")
            kind_type, first, count = _PIECES[upper]
            red = ch.isupper()
            problem = _placement_problem(kind_type, red, f, r)
            if problem:
                raise ValueError(problem)
            taken = used.get((red, kind_type), 0)
            if taken >= count:
                raise ValueError(f"too many {'Red' if red else 'Black'} "
                                 f"{_NAMES[kind_type]}s: a set has {count}")
            used[(red, kind_type)] = taken + 1
            put_piece(p, (RED_TAG if red else RED_TAG * 2) + first + taken,
                      square_at(f, r))
            f += 1
        if f != 9:
            raise ValueError(f"FEN rank {r} has {f} files, expected 9: {text!r}")
    for red in (True, False):
        if not used.get((red, KING)):
            raise ValueError(f"{'Red' if red else 'Black'} king missing")
    side = fields[1].lower() if len(fields) > 1 else "w"
    if side not in ("w", "r", "b"):
        raise ValueError(f"side to move must be w, r or b, not {fields[1]!r}")
    p.side = BLACK if side == "b" else RED
    if p.side == BLACK:
        p.key ^= ZOBRIST_SIDE
    if is_attacked(p, p.square[side_tag(p.side ^ 1)], p.side):
        raise ValueError("the side not to move is in check")
