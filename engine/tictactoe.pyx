# Tic-tac-toe behind GameOps: 3x3, X (side w) moves first, three in a row
# wins, a full board draws. A move is the square it fills ("b2"), coded as
# the cell 0..8 (file + 3 * rank). The search plays it exactly: no pruning
# that could skip the move completing a line, and wins and losses are mate
# scores, so the quickest win and the slowest loss are preferred.

from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy
from tuong.engine.game cimport GameOps, GameBoard, Move, MATE, bounded_eval
from tuong.engine.grid cimport splitmix64, write_square, read_square
from tuong.engine.rows import format_rows, parse_rows, split_fen, square_name

cdef enum:
    EMPTY = 0
    X = 1
    O = 2
    CELLS = 9

cdef struct TicTacToe:
    uint8_t cell[CELLS]          # EMPTY, X or O
    int side                     # 0: X to move, 1: O
    int filled
    int won                      # the last move completed a line
    uint64_t key
    int ply                      # moves made since the FEN
    uint8_t played[CELLS]

cdef int LINES[8][3]
LINES[:] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
# What a line is worth to the side that alone has 1 or 2 marks in it.
cdef int LINE_VALUE[3]
LINE_VALUE[:] = [0, 10, 30]
cdef uint64_t ZOBRIST[CELLS][2]
cdef uint64_t ZOBRIST_SIDE


cdef void init_keys():
    cdef uint64_t seed = 3
    cdef int c
    global ZOBRIST_SIDE
    for c in range(CELLS):
        ZOBRIST[c][0] = splitmix64(&seed)
        ZOBRIST[c][1] = splitmix64(&seed)
    ZOBRIST_SIDE = splitmix64(&seed)


init_keys()


cdef int completes_line(const TicTacToe* t, int cell) noexcept nogil:
    cdef int i, mark = t.cell[cell]
    for i in range(8):
        if (LINES[i][0] == cell or LINES[i][1] == cell or LINES[i][2] == cell) and \
                t.cell[LINES[i][0]] == mark and t.cell[LINES[i][1]] == mark \
                and t.cell[LINES[i][2]] == mark:
            return 1
    return 0


cdef void ttt_copy(void* dst, const void* src) noexcept nogil:
    memcpy(dst, src, sizeof(TicTacToe))


cdef int ttt_generate(void* state, Move* out, int capacity, int tactical, int in_check) noexcept nogil:
    cdef TicTacToe* t = <TicTacToe*> state
    cdef int c, n = 0
    if t.won or tactical:
        return 0
    for c in range(CELLS):
        if t.cell[c] == EMPTY and n < capacity:
            out[n] = c
            n += 1
    return n


cdef int ttt_make(void* state, Move move, int may_check) noexcept nogil:
    cdef TicTacToe* t = <TicTacToe*> state
    t.cell[move] = X + t.side
    t.key ^= ZOBRIST[move][t.side] ^ ZOBRIST_SIDE
    t.played[t.ply] = move
    t.ply += 1
    t.filled += 1
    t.won = completes_line(t, move)
    t.side ^= 1
    return 0


cdef void ttt_unmake(void* state) noexcept nogil:
    cdef TicTacToe* t = <TicTacToe*> state
    t.ply -= 1
    t.side ^= 1
    cdef int c = t.played[t.ply]
    t.cell[c] = EMPTY
    t.key ^= ZOBRIST[c][t.side] ^ ZOBRIST_SIDE
    t.filled -= 1
    t.won = 0                    # a move was legal, so nobody had won before it


cdef uint64_t ttt_key(void* state) noexcept nogil:
    return (<TicTacToe*> state).key


cdef int ttt_evaluate(void* state) noexcept nogil:
    """Open lines: each line held by one side alone counts for it, more with
    two marks than with one."""
    cdef TicTacToe* t = <TicTacToe*> state
    cdef int i, j, marks[3], score = 0
    for i in range(8):
        marks[0] = marks[1] = marks[2] = 0
        for j in range(3):
            marks[t.cell[LINES[i][j]]] += 1
        if marks[O] == 0:
            score += LINE_VALUE[marks[X]]
        elif marks[X] == 0:
            score -= LINE_VALUE[marks[O]]
    return bounded_eval(score if t.side == 0 else -score)


cdef int ttt_result(const TicTacToe* t, int ply, int* score) noexcept nogil:
    if t.won:
        score[0] = -(MATE - ply)         # the opponent completed a line
        return 1
    if t.filled == CELLS:
        score[0] = 0
        return 1
    return 0


cdef int ttt_rule_result(void* state, int ply, int* score, int* back) noexcept nogil:
    back[0] = 0
    return ttt_result(<TicTacToe*> state, ply, score)


cdef int ttt_no_move_score(void* state, int ply) noexcept nogil:
    cdef int score = 0
    ttt_result(<TicTacToe*> state, ply, &score)
    return score


cdef int ttt_move_text(const void* state, Move move, char* out) noexcept nogil:
    cdef int n = write_square(move % 3, move // 3, out)
    out[n] = 0
    return n


cdef int ttt_parse_move(void* state, const char* text, Move* move) noexcept nogil:
    cdef TicTacToe* t = <TicTacToe*> state
    cdef int file, rank, n = read_square(text, &file, &rank)
    if n == 0 or text[n] != 0 or file > 2 or rank > 2:
        return 0
    if t.won or t.cell[file + 3 * rank] != EMPTY:
        return 1
    move[0] = file + 3 * rank
    return 2


cdef GameOps TICTACTOE_OPS
TICTACTOE_OPS.name = b"tictactoe"
TICTACTOE_OPS.state_size = sizeof(TicTacToe)
TICTACTOE_OPS.max_moves = CELLS
TICTACTOE_OPS.pruning = 0                # searched exactly
TICTACTOE_OPS.copy_state = ttt_copy
TICTACTOE_OPS.generate = ttt_generate
TICTACTOE_OPS.make = ttt_make
TICTACTOE_OPS.unmake = ttt_unmake
TICTACTOE_OPS.make_null = NULL
TICTACTOE_OPS.unmake_null = NULL
TICTACTOE_OPS.null_move_ok = NULL
TICTACTOE_OPS.key = ttt_key
TICTACTOE_OPS.evaluate = ttt_evaluate
TICTACTOE_OPS.quick_evaluate = NULL
TICTACTOE_OPS.in_check = NULL
TICTACTOE_OPS.may_give_check = NULL
TICTACTOE_OPS.rule_result = ttt_rule_result
TICTACTOE_OPS.no_move_score = ttt_no_move_score
TICTACTOE_OPS.capture_value = NULL
TICTACTOE_OPS.see_ge = NULL
TICTACTOE_OPS.move_kinds = 0
TICTACTOE_OPS.move_kind = NULL
TICTACTOE_OPS.order_hint = NULL
TICTACTOE_OPS.move_text = ttt_move_text
TICTACTOE_OPS.parse_move = ttt_parse_move

START_FEN = "3/3/3 w"
_MARK = {None: EMPTY, "X": X, "O": O}


cdef class TicTacToeBoard(GameBoard):
    """Tic-tac-toe: TicTacToeBoard(fen=None), FEN like '3/1X1/3 b' (rows
    from the top, X and O, digits for empty runs; w: X to move)."""
    example_move = "b2"
    start_fen = START_FEN

    def __cinit__(self):
        self.attach(&TICTACTOE_OPS)

    def __init__(self, fen=None):
        self.set_fen(START_FEN if fen is None else fen)

    cdef TicTacToe* t(self):
        return <TicTacToe*> self.state

    def set_fen(self, str fen):
        placement, side = split_fen(fen, "tic-tac-toe")
        rows = parse_rows(placement, ("X", "O"), "tic-tac-toe")
        if len(rows) != 3 or any(len(row) != 3 for row in rows):
            raise ValueError(f"tic-tac-toe FEN needs 3 rows of 3 cells: {placement!r}")
        cells = [_MARK[rows[2 - c // 3][c % 3]] for c in range(CELLS)]
        xs, os = cells.count(X), cells.count(O)
        if xs - os not in (0, 1):
            raise ValueError(f"tic-tac-toe FEN: {xs} X and {os} O cannot happen (X moves first)")
        if side != ("w" if xs == os else "b"):
            raise ValueError(f"tic-tac-toe FEN: with {xs} X and {os} O it is "
                             f"{'X' if xs == os else 'O'}'s turn")
        lines = {mark: any(all(cells[c] == mark for c in line) for line in LINES)
                 for mark in (X, O)}
        mover = X if side == "w" else O
        if lines[mover]:
            raise ValueError("tic-tac-toe FEN: the side to move has three in a row already")
        cdef TicTacToe* t = self.t()
        t.side = 0 if side == "w" else 1
        t.key = ZOBRIST_SIDE if t.side else 0
        t.filled = 0
        t.ply = 0
        for c in range(CELLS):
            t.cell[c] = cells[c]
            if cells[c] != EMPTY:
                t.key ^= ZOBRIST[c][cells[c] - 1]
                t.filled += 1
        t.won = lines[X + O - mover]
        self.moves = []

    def fen(self):
        cdef TicTacToe* t = self.t()
        rows = [[(None, "X", "O")[t.cell[3 * r + f]] for f in range(3)] for r in (2, 1, 0)]
        return f"{format_rows(rows)} {'w' if t.side == 0 else 'b'}"

    @property
    def turn(self):
        return "w" if self.t().side == 0 else "b"

    @property
    def side_name(self):
        return "X" if self.t().side == 0 else "O"

    def __str__(self):
        cdef TicTacToe* t = self.t()
        lines = [f"{r + 1} " + " ".join(".XO"[t.cell[3 * r + f]] for f in range(3))
                 for r in (2, 1, 0)]
        return "\n".join(lines + ["  a b c"])
