# Dodgem behind GameOps, 3x3 as the lecture gives it: Black cars start on a2
# and a3, White cars on b1 and c1, Black moves first. A Black car moves one
# square right, up or down onto an empty square and leaves the board from
# the right-hand file; a White car moves left, right or up and leaves from
# the top rank. The first side to take both its cars off wins; a side with
# no legal move loses; a repeated position is a draw.
#
# The board is a 5x5 mailbox: the 3x3 inside a ring of OFF cells, so a step
# off the board lands on OFF and is rejected without a bounds test -- except
# the one exit each colour has, which is a move to the OFF cell just past
# its edge ("c2d2" for Black, "b3b4" for White). A move is from | to << 8.

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy
from tuong.engine.game cimport GameOps, GameBoard, Move, MATE, bounded_eval
from tuong.engine.grid cimport splitmix64, write_square, read_square
from tuong.engine.rows import format_rows, parse_rows, split_fen

cdef enum:
    EMPTY = 0
    BLACK_CAR = 1
    WHITE_CAR = 2
    OFF = 3
    WIDTH = 5                    # mailbox row length
    BLACK = 0                    # sides: Black moves first
    WHITE = 1
    MAX_HISTORY = 1024

cdef struct Undo:
    uint64_t key                 # the key before the move
    Move move

cdef struct Dodgem:
    uint8_t cell[WIDTH * WIDTH]
    int side
    int cars[2]                  # cars still on the board, by side
    uint64_t key
    int ply
    Undo history[MAX_HISTORY]

# Steps of each side's cars: Black right, up, down; White left, right, up.
cdef int STEPS[2][3]
STEPS[:] = [[1, WIDTH, -WIDTH], [-1, 1, WIDTH]]
# The step that leaves the board, and the mailbox row/column it leaves from.
cdef int EXIT_STEP[2]
EXIT_STEP[:] = [1, WIDTH]
cdef uint64_t ZOBRIST[WIDTH * WIDTH][2]
cdef uint64_t ZOBRIST_SIDE


cdef void init_keys():
    cdef uint64_t seed = 7
    cdef int c
    global ZOBRIST_SIDE
    for c in range(WIDTH * WIDTH):
        ZOBRIST[c][0] = splitmix64(&seed)
        ZOBRIST[c][1] = splitmix64(&seed)
    ZOBRIST_SIDE = splitmix64(&seed)


init_keys()


cdef inline int cell_of(int file, int rank) noexcept nogil:
    return (rank + 1) * WIDTH + file + 1


cdef inline int is_exit(int side, int frm, int to) noexcept nogil:
    """Whether from -> to is side's way off the board: Black from the c-file
    to the right, White from the third rank upwards."""
    if side == BLACK:
        return to == frm + 1 and frm % WIDTH == 3
    return to == frm + WIDTH and frm // WIDTH == 3


cdef void dg_copy(void* dst, const void* src) noexcept nogil:
    cdef const Dodgem* d = <const Dodgem*> src
    memcpy(dst, src, sizeof(Dodgem) - sizeof(d.history) + d.ply * sizeof(Undo))


cdef int dg_generate(void* state, Move* out, int capacity, int tactical, int in_check) noexcept nogil:
    cdef Dodgem* d = <Dodgem*> state
    cdef int c, i, to, n = 0, car = BLACK_CAR + d.side
    if tactical or d.cars[d.side ^ 1] == 0:
        return 0                 # the opponent took both cars off: the game is over
    for c in range(WIDTH, WIDTH * (WIDTH - 1)):
        if d.cell[c] != car:
            continue
        for i in range(3):
            to = c + STEPS[d.side][i]
            if (d.cell[to] == EMPTY or is_exit(d.side, c, to)) and n < capacity:
                out[n] = c | (to << 8)
                n += 1
    return n


cdef int dg_make(void* state, Move move, int may_check) noexcept nogil:
    cdef Dodgem* d = <Dodgem*> state
    cdef int frm = move & 255, to = move >> 8, car = BLACK_CAR + d.side
    d.history[d.ply].key = d.key
    d.history[d.ply].move = move
    d.ply += 1
    d.cell[frm] = EMPTY
    d.key ^= ZOBRIST[frm][d.side] ^ ZOBRIST_SIDE
    if d.cell[to] == OFF:
        d.cars[d.side] -= 1          # it left the board
    else:
        d.cell[to] = car
        d.key ^= ZOBRIST[to][d.side]
    d.side ^= 1
    return 0


cdef void dg_unmake(void* state) noexcept nogil:
    cdef Dodgem* d = <Dodgem*> state
    d.ply -= 1
    d.side ^= 1
    cdef Move move = d.history[d.ply].move
    cdef int frm = move & 255, to = move >> 8
    if d.cell[to] == OFF:
        d.cars[d.side] += 1
    else:
        d.cell[to] = EMPTY
    d.cell[frm] = BLACK_CAR + d.side
    d.key = d.history[d.ply].key


cdef uint64_t dg_key(void* state) noexcept nogil:
    return (<Dodgem*> state).key


cdef int dg_evaluate(void* state) noexcept nogil:
    """Progress: each car scores by how far it has come toward its exit (a
    car off the board most), less a little for each enemy car standing
    straight in its way."""
    cdef Dodgem* d = <Dodgem*> state
    cdef int c, f, r, score = 0
    score += 40 * ((2 - d.cars[BLACK]) - (2 - d.cars[WHITE]))
    for c in range(WIDTH, WIDTH * (WIDTH - 1)):
        f = c % WIDTH - 1
        r = c // WIDTH - 1
        if d.cell[c] == BLACK_CAR:
            score += 10 * (f + 1) - 5 * (d.cell[c + 1] == WHITE_CAR)
        elif d.cell[c] == WHITE_CAR:
            score -= 10 * (r + 1) - 5 * (d.cell[c + WIDTH] == BLACK_CAR)
    return bounded_eval(score if d.side == BLACK else -score)


cdef inline int leaves_board(Move move) noexcept nogil:
    # Exits go to the OFF ring: Black's to its right column, White's to its top row.
    return (move >> 8) % WIDTH == WIDTH - 1 or (move >> 8) // WIDTH == WIDTH - 1


cdef int dg_rule_result(void* state, int ply, int* score, int* back) noexcept nogil:
    """The opponent has finished (a loss), or this position occurred before
    with the same side to move (a draw). The walk back stops at a car
    leaving: nothing before it can recur."""
    cdef Dodgem* d = <Dodgem*> state
    cdef int j
    back[0] = 0
    if d.cars[d.side ^ 1] == 0:
        score[0] = -(MATE - ply)
        return 1
    for j in range(d.ply - 1, -1, -1):
        if leaves_board(d.history[j].move):
            return 0
        if (d.ply - j) % 2 == 0 and d.history[j].key == d.key:
            score[0] = 0
            back[0] = d.ply - j
            return 1
    return 0


cdef int dg_no_move_score(void* state, int ply) noexcept nogil:
    return -(MATE - ply)         # blocked, or the opponent has finished: lost


cdef int dg_move_text(const void* state, Move move, char* out) noexcept nogil:
    cdef int frm = move & 255, to = move >> 8
    cdef int n = write_square(frm % WIDTH - 1, frm // WIDTH - 1, out)
    n += write_square(to % WIDTH - 1, to // WIDTH - 1, out + n)
    out[n] = 0
    return n


cdef int dg_parse_move(void* state, const char* text, Move* move) noexcept nogil:
    cdef Move moves[8]
    cdef int f1, r1, f2, r2, i, n1, n2, n
    n1 = read_square(text, &f1, &r1)
    if n1 == 0:
        return 0
    n2 = read_square(text + n1, &f2, &r2)
    if n2 == 0 or text[n1 + n2] != 0 or f1 > 2 or r1 > 2 or f2 > 3 or r2 > 3:
        return 0
    n = dg_generate(state, moves, 8, 0, 0)
    for i in range(n):
        if moves[i] == (cell_of(f1, r1) | (cell_of(f2, r2) << 8)):
            move[0] = moves[i]
            return 2
    return 1


cdef GameOps DODGEM_OPS
DODGEM_OPS.name = b"dodgem"
DODGEM_OPS.state_size = sizeof(Dodgem)
DODGEM_OPS.max_moves = 6                 # two cars, three ways each
DODGEM_OPS.pruning = 0                   # searched exactly
DODGEM_OPS.copy_state = dg_copy
DODGEM_OPS.generate = dg_generate
DODGEM_OPS.make = dg_make
DODGEM_OPS.unmake = dg_unmake
DODGEM_OPS.make_null = NULL
DODGEM_OPS.unmake_null = NULL
DODGEM_OPS.null_move_ok = NULL
DODGEM_OPS.key = dg_key
DODGEM_OPS.evaluate = dg_evaluate
DODGEM_OPS.quick_evaluate = NULL
DODGEM_OPS.in_check = NULL
DODGEM_OPS.may_give_check = NULL
DODGEM_OPS.rule_result = dg_rule_result
DODGEM_OPS.no_move_score = dg_no_move_score
DODGEM_OPS.capture_value = NULL
DODGEM_OPS.see_ge = NULL
DODGEM_OPS.move_kinds = 0
DODGEM_OPS.move_kind = NULL
DODGEM_OPS.order_hint = NULL
DODGEM_OPS.move_text = dg_move_text
DODGEM_OPS.parse_move = dg_parse_move

START_FEN = "B2/B2/1WW b"
_CAR = {None: EMPTY, "B": BLACK_CAR, "W": WHITE_CAR}


cdef class DodgemBoard(GameBoard):
    """Dodgem: DodgemBoard(fen=None), FEN like 'B2/B2/1WW b' (rows from the
    top, B and W cars, digits for empty runs; the side letter is the colour
    of the cars to move)."""
    example_move = "a2b2"
    start_fen = START_FEN

    def __cinit__(self):
        self.attach(&DODGEM_OPS)

    def __init__(self, fen=None):
        self.set_fen(START_FEN if fen is None else fen)

    cdef Dodgem* d(self):
        return <Dodgem*> self.state

    def set_fen(self, str fen):
        placement, side = split_fen(fen, "Dodgem", sides=("b", "w"))
        rows = parse_rows(placement, ("B", "W"), "Dodgem")
        if len(rows) != 3 or any(len(row) != 3 for row in rows):
            raise ValueError(f"Dodgem FEN needs 3 rows of 3 cells: {placement!r}")
        cars = [cell for row in rows for cell in row]
        counts = {BLACK: cars.count("B"), WHITE: cars.count("W")}
        if counts[BLACK] > 2 or counts[WHITE] > 2:
            raise ValueError("Dodgem FEN: each side has two cars at most")
        mover = BLACK if side == "b" else WHITE
        if counts[mover] == 0:
            raise ValueError("Dodgem FEN: the side to move has no car left "
                             "(it finished before its turn)")
        cdef Dodgem* d = self.d()
        cdef int c
        for c in range(WIDTH * WIDTH):
            d.cell[c] = OFF
        d.side = mover
        d.key = ZOBRIST_SIDE if mover == WHITE else 0
        d.cars[BLACK], d.cars[WHITE] = counts[BLACK], counts[WHITE]
        d.ply = 0
        for r in range(3):
            for f in range(3):
                c = cell_of(f, r)
                d.cell[c] = _CAR[rows[2 - r][f]]
                if d.cell[c] != EMPTY:
                    d.key ^= ZOBRIST[c][d.cell[c] - 1]
        self.moves = []

    def fen(self):
        cdef Dodgem* d = self.d()
        rows = [[(None, "B", "W")[d.cell[cell_of(f, r)]] for f in range(3)] for r in (2, 1, 0)]
        return f"{format_rows(rows)} {'b' if d.side == BLACK else 'w'}"

    def _check_room(self):
        if self.d().ply >= MAX_HISTORY - 256:
            raise ValueError("game too long: the history is full")

    @property
    def turn(self):
        return "b" if self.d().side == BLACK else "w"

    @property
    def side_name(self):
        return "Black" if self.d().side == BLACK else "White"

    def __str__(self):
        cdef Dodgem* d = self.d()
        lines = [f"{r + 1} " + " ".join(".BW"[d.cell[cell_of(f, r)]] for f in range(3))
                 for r in (2, 1, 0)]
        return "\n".join(lines + ["  a b c"])
