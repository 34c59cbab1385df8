# The queens game of the founding thesis, behind GameOps. An NxN board
# (3 <= N <= 15) with stones on some cells; the players take turns to place
# a queen on an empty, unclaimed cell. A queen claims its own cell and every
# empty, unclaimed cell along its eight lines up to the edge or a stone; the
# lines pass over claimed cells and queens (those keep their owner) and stop
# only at stones. When no empty unclaimed cell is left the game ends and the
# side with more claimed cells (queens included) wins; equal counts draw.
#
# As in the thesis, the board is ringed by stones, so the lines stop without
# bounds tests: it sits in a 17-wide mailbox, and every cell of it outside
# the NxN board holds a stone. A move is the cell of the new queen.
#
# Scores: 10 per claimed cell of margin. A finished game scores DECIDED plus
# its margin for the winner (minus for the loser, 0 for a draw): above any
# evaluation of an unfinished game, and ordered by the margin, so the search
# maximises the final count, not just the result.

from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.stdlib cimport abs
from libc.string cimport memcpy
from tuong.engine.game cimport GameOps, GameBoard, Move, bounded_eval
from tuong.engine.grid cimport splitmix64, write_square, read_square
from tuong.engine.rows import format_rows, parse_rows, split_fen

cdef enum:
    EMPTY = 0
    STONE = 1
    QUEEN = 2                    # + side
    CLAIM = 4                    # + side
    WIDTH = 17                   # mailbox row: 15 cells and the ring
    CELLS = WIDTH * WIDTH
    MIN_SIZE = 3
    MAX_SIZE = 15
    MAX_PLACED = MAX_SIZE * MAX_SIZE
    CELL_VALUE = 10
    DECIDED = 10000

cdef struct Queens:
    int n
    uint8_t cell[CELLS]
    int side                     # 0: the first player (w) to move
    int claimed[2]               # cells owned, queens included
    int free                     # empty unclaimed cells: the moves left
    uint64_t key
    int ply
    int claims_top
    uint16_t claims[MAX_PLACED]  # cells claimed by the moves made, in order
    int claim_start[MAX_PLACED + 1]
    uint16_t played[MAX_PLACED + 1]

cdef int DIRECTIONS[8]
DIRECTIONS[:] = [1, -1, WIDTH, -WIDTH, WIDTH + 1, WIDTH - 1, -WIDTH + 1, -WIDTH - 1]
cdef uint64_t ZOBRIST[CELLS][4]  # by cell and content - QUEEN
cdef uint64_t ZOBRIST_SIDE
# Stones, the ring outside the board included: positions of different
# layouts or sizes must not share keys (the table outlives a position).
cdef uint64_t ZOBRIST_STONE[CELLS]


cdef void init_keys():
    cdef uint64_t seed = 11
    cdef int c, k
    global ZOBRIST_SIDE
    for c in range(CELLS):
        for k in range(4):
            ZOBRIST[c][k] = splitmix64(&seed)
    ZOBRIST_SIDE = splitmix64(&seed)
    for c in range(CELLS):
        ZOBRIST_STONE[c] = splitmix64(&seed)


init_keys()


cdef inline int cell_of(int file, int rank) noexcept nogil:
    return (rank + 1) * WIDTH + file + 1


cdef inline void claim(Queens* q, int c, int content) noexcept nogil:
    q.cell[c] = content
    q.key ^= ZOBRIST[c][content - QUEEN]
    q.claimed[content & 1] += 1
    q.free -= 1


cdef inline void unclaim(Queens* q, int c) noexcept nogil:
    q.key ^= ZOBRIST[c][q.cell[c] - QUEEN]
    q.claimed[q.cell[c] & 1] -= 1
    q.cell[c] = EMPTY
    q.free += 1


cdef void qn_copy(void* dst, const void* src) noexcept nogil:
    memcpy(dst, src, sizeof(Queens))


cdef int qn_generate(void* state, Move* out, int capacity, int tactical, int in_check) noexcept nogil:
    cdef Queens* q = <Queens*> state
    cdef int c, n = 0
    if tactical:
        return 0
    for c in range(WIDTH, CELLS - WIDTH):
        if q.cell[c] == EMPTY and n < capacity:
            out[n] = c
            n += 1
    return n


cdef int qn_make(void* state, Move move, int may_check) noexcept nogil:
    cdef Queens* q = <Queens*> state
    cdef int i, d, t
    q.claim_start[q.ply] = q.claims_top
    q.played[q.ply] = move
    q.ply += 1
    claim(q, move, QUEEN + q.side)
    for i in range(8):
        d = DIRECTIONS[i]
        t = move + d
        while q.cell[t] != STONE:
            if q.cell[t] == EMPTY:
                claim(q, t, CLAIM + q.side)
                q.claims[q.claims_top] = t
                q.claims_top += 1
            t += d
    q.side ^= 1
    q.key ^= ZOBRIST_SIDE
    return 0


cdef void qn_unmake(void* state) noexcept nogil:
    cdef Queens* q = <Queens*> state
    q.ply -= 1
    q.side ^= 1
    q.key ^= ZOBRIST_SIDE
    while q.claims_top > q.claim_start[q.ply]:
        q.claims_top -= 1
        unclaim(q, q.claims[q.claims_top])
    unclaim(q, q.played[q.ply])


cdef uint64_t qn_key(void* state) noexcept nogil:
    return (<Queens*> state).key


cdef int qn_evaluate(void* state) noexcept nogil:
    cdef Queens* q = <Queens*> state
    return bounded_eval(CELL_VALUE * (q.claimed[q.side] - q.claimed[q.side ^ 1]))


cdef int final_score(const Queens* q) noexcept nogil:
    cdef int margin = q.claimed[q.side] - q.claimed[q.side ^ 1]
    if margin > 0:
        return DECIDED + CELL_VALUE * margin
    if margin < 0:
        return -DECIDED + CELL_VALUE * margin
    return 0


cdef int qn_rule_result(void* state, int ply, int* score, int* back) noexcept nogil:
    cdef Queens* q = <Queens*> state
    back[0] = 0
    if q.free:
        return 0
    score[0] = final_score(q)
    return 1


cdef int qn_no_move_score(void* state, int ply) noexcept nogil:
    return final_score(<Queens*> state)


cdef int qn_order_hint(void* state, Move move) noexcept nogil:
    """The thesis's ordering: more empty neighbours first, then nearer the
    centre (a doubled Manhattan distance, so that even sizes are exact)."""
    cdef Queens* q = <Queens*> state
    cdef int i, empty = 0, f = move % WIDTH - 1, r = move // WIDTH - 1
    for i in range(8):
        empty += q.cell[move + DIRECTIONS[i]] == EMPTY
    return 64 * empty - 2 * (abs(2 * f - q.n + 1) + abs(2 * r - q.n + 1))


cdef int qn_move_text(const void* state, Move move, char* out) noexcept nogil:
    cdef int n = write_square(move % WIDTH - 1, move // WIDTH - 1, out)
    out[n] = 0
    return n


cdef int qn_parse_move(void* state, const char* text, Move* move) noexcept nogil:
    cdef Queens* q = <Queens*> state
    cdef int file, rank, n = read_square(text, &file, &rank)
    if n == 0 or text[n] != 0 or file >= q.n or rank >= q.n:
        return 0
    if q.cell[cell_of(file, rank)] != EMPTY:
        return 1
    move[0] = cell_of(file, rank)
    return 2


cdef GameOps QUEENS_OPS
QUEENS_OPS.name = b"queens"
QUEENS_OPS.state_size = sizeof(Queens)
QUEENS_OPS.max_moves = MAX_PLACED
QUEENS_OPS.pruning = 0                   # searched exactly
QUEENS_OPS.copy_state = qn_copy
QUEENS_OPS.generate = qn_generate
QUEENS_OPS.make = qn_make
QUEENS_OPS.unmake = qn_unmake
QUEENS_OPS.make_null = NULL
QUEENS_OPS.unmake_null = NULL
QUEENS_OPS.null_move_ok = NULL
QUEENS_OPS.key = qn_key
QUEENS_OPS.evaluate = qn_evaluate
QUEENS_OPS.quick_evaluate = NULL
QUEENS_OPS.in_check = NULL
QUEENS_OPS.may_give_check = NULL
QUEENS_OPS.rule_result = qn_rule_result
QUEENS_OPS.no_move_score = qn_no_move_score
QUEENS_OPS.capture_value = NULL
QUEENS_OPS.see_ge = NULL
QUEENS_OPS.move_kinds = 0
QUEENS_OPS.move_kind = NULL
QUEENS_OPS.order_hint = qn_order_hint
QUEENS_OPS.move_text = qn_move_text
QUEENS_OPS.parse_move = qn_parse_move

START_FEN = "8/8/8/8/8/8/8/8 w"
_CONTENT = {None: EMPTY, "*": STONE, "Q": QUEEN, "q": QUEEN + 1, "X": CLAIM, "x": CLAIM + 1}
_LETTER = {EMPTY: None, STONE: "*", QUEEN: "Q", QUEEN + 1: "q", CLAIM: "X", CLAIM + 1: "x"}


def _check_claims(cells, n):
    """ValueError unless the claims could come from the queens: no empty
    cell on a queen's open line, no queen on another's (the first placed
    would have claimed the other's cell), and every claimed cell on an open
    line of one of its owner's queens."""
    owners = {}
    for (f, r), content in cells.items():
        if content in (QUEEN, QUEEN + 1):
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
                g, s = f + df, r + dr
                while 0 <= g < n and 0 <= s < n and cells[g, s] != STONE:
                    owners.setdefault((g, s), set()).add(content & 1)
                    g, s = g + df, s + dr
    for (f, r), content in cells.items():
        where = "abcdefghijklmno"[f] + str(r + 1)
        if content == EMPTY and (f, r) in owners:
            raise ValueError(f"queens FEN: {where} is empty on a queen's line (it would be claimed)")
        if content in (QUEEN, QUEEN + 1) and (f, r) in owners:
            raise ValueError(f"queens FEN: the queen on {where} stands on another queen's line "
                             "(the first placed would have claimed the other's cell)")
        if content in (CLAIM, CLAIM + 1) and (content & 1) not in owners.get((f, r), ()):
            raise ValueError(f"queens FEN: {where} is claimed by a player none of whose "
                             "queens reaches it")


cdef class QueensBoard(GameBoard):
    """The queens game: QueensBoard(fen=None), FEN like '3/1Q1/*2 b' (rows
    from the top: * stone, Q/q queens, X/x claimed cells of the first/second
    player, digits for empty runs; w: the first player to move). The start
    position is an empty 8x8 board."""
    example_move = "d4"
    start_fen = START_FEN

    def __cinit__(self):
        self.attach(&QUEENS_OPS)

    def __init__(self, fen=None):
        self.set_fen(START_FEN if fen is None else fen)

    cdef Queens* q(self):
        return <Queens*> self.state

    def set_fen(self, str fen):
        placement, side = split_fen(fen, "queens")
        rows = parse_rows(placement, tuple(k for k in _CONTENT if k), "queens")
        n = len(rows)
        if not MIN_SIZE <= n <= MAX_SIZE or any(len(row) != n for row in rows):
            raise ValueError(f"queens FEN needs N rows of N cells, 3 <= N <= 15: {placement!r}")
        cells = {(f, r): _CONTENT[rows[n - 1 - r][f]] for f in range(n) for r in range(n)}
        queens = [sum(1 for c in cells.values() if c == QUEEN + s) for s in (0, 1)]
        if queens[0] - queens[1] not in (0, 1):
            raise ValueError(f"queens FEN: {queens[0]} and {queens[1]} queens cannot happen "
                             "(the first player moves first)")
        if side != ("w" if queens[0] == queens[1] else "b"):
            raise ValueError(f"queens FEN: with {queens[0]} and {queens[1]} queens it is the "
                             f"{'first' if queens[0] == queens[1] else 'second'} player's turn")
        _check_claims(cells, n)
        cdef Queens* q = self.q()
        cdef int c
        q.n = n
        for c in range(CELLS):
            q.cell[c] = STONE
        q.side = 0 if side == "w" else 1
        q.key = ZOBRIST_SIDE if q.side else 0
        q.claimed[0] = q.claimed[1] = 0
        q.free = 0
        q.ply = q.claims_top = 0
        for (f, r), content in cells.items():
            c = cell_of(f, r)
            q.cell[c] = content
            if content >= QUEEN:
                q.key ^= ZOBRIST[c][content - QUEEN]
                q.claimed[content & 1] += 1
            elif content == EMPTY:
                q.free += 1
        for c in range(CELLS):
            if q.cell[c] == STONE:
                q.key ^= ZOBRIST_STONE[c]
        self.moves = []

    def fen(self):
        cdef Queens* q = self.q()
        rows = [[_LETTER[q.cell[cell_of(f, r)]] for f in range(q.n)] for r in range(q.n - 1, -1, -1)]
        return f"{format_rows(rows)} {'w' if q.side == 0 else 'b'}"

    @property
    def size(self):
        return self.q().n

    @property
    def claimed(self):
        """Cells owned by (the first player, the second), queens included."""
        return self.q().claimed[0], self.q().claimed[1]

    @property
    def turn(self):
        return "w" if self.q().side == 0 else "b"

    @property
    def side_name(self):
        return "first player" if self.q().side == 0 else "second player"

    def __str__(self):
        cdef Queens* q = self.q()
        files = "abcdefghijklmno"[:q.n]
        lines = [f"{r + 1:>2} " + " ".join(_LETTER[q.cell[cell_of(f, r)]] or "."
                                           for f in range(q.n))
                 for r in range(q.n - 1, -1, -1)]
        return "\n".join(lines + ["   " + " ".join(files)])
