# The position: a sentinel mailbox, piece lists, Zobrist key, incremental
# material+piece-square score and an undo stack. Everything here is C-level
# and usable without the GIL; Python-facing code lives in board.pyx.
#
# Geometry. The 9x10 board sits inside a 16x16 array (the book uses 13x14;
# 16 columns make file = sq & 15 and rank = sq >> 4 single instructions).
# Files a-i are columns 3..11, ranks 0-9 are rows 3..12, so Red moves "up"
# (+16). Every cell outside the board holds OFF: a slider stops there and a
# horse or elephant landing there finds no legal target, with no bounds test.
# The border is at least two cells wide because horses and elephants jump two.

from libc.stdint cimport uint8_t, uint16_t, int16_t, int32_t, uint64_t
from tuong.engine.game cimport NO_MOVE
from tuong.engine.accumulator cimport AccumulatorRing

cdef enum:
    RED = 0
    BLACK = 1
    EMPTY = 0
    RED_TAG = 16            # piece ids 16..31 are Red's, 32..47 Black's
    BLACK_TAG = 32
    OFF = 64                # sentinel: matches neither colour tag
    FILE_LEFT = 3
    RANK_BOTTOM = 3
    XQ_MAX_MOVES = 160         # more than any Xiangqi position can have (~120)
    MAX_HISTORY = 4096      # plies of game + search a position can hold

# Piece types, and slots within a side's 16 ids (XQWLight's layout): slot 0
# king, 1-2 advisors, 3-4 elephants, 5-6 horses, 7-8 rooks, 9-10 cannons,
# 11-15 pawns. A piece's "kind" is type + 7 * colour (0..13), used to index
# the Zobrist and piece-square tables so that identical pieces hash alike.
cdef enum:
    KING = 0
    ADVISOR = 1
    ELEPHANT = 2
    HORSE = 3
    ROOK = 4
    CANNON = 5
    PAWN = 6
    NO_KIND = 14

# Steps on the 16-wide board, shared by move generation, SEE and evaluation.
# Plain C constants in every module that cimports them, so the hot loops
# read them directly rather than through another module's pointer.
cdef extern from *:
    """
    static const int ORTH[4] = {16, -16, 1, -1};
    /* Diagonal steps split into their vertical and horizontal parts. */
    static const int DIAG_V[4] = {16, 16, -16, -16};
    static const int DIAG_H[4] = {1, -1, 1, -1};
    /* The eight horse jumps and, for each, the leg that must be empty. */
    static const int HORSE_LEG[8] = {16, 16, -16, -16, 1, 1, -1, -1};
    static const int HORSE_JUMP[8] = {33, 31, -31, -33, 18, -14, 14, -18};
    """
    const int ORTH[4]
    const int DIAG_V[4]
    const int DIAG_H[4]
    const int HORSE_LEG[8]
    const int HORSE_JUMP[8]

# Nominal piece values by type (K A B N R C P), in centipawns: the book's
# values (pawn 10, advisor 20, elephant 20, horse 40, cannon 45, rook 90)
# scaled by ten, defined here once. Static exchange evaluation and capture
# ordering use them as they are; the evaluation's material starts from them
# (engine/weights.json) and may be tuned away. The king's is what SEE
# charges for losing him: more than anything else on the board.
cdef extern from *:
    """
    static const int PIECE_VALUE[7] = {10000, 200, 200, 400, 900, 450, 100};
    """
    const int PIECE_VALUE[7]

# from | to << 8. Square 0 and square 255 are off the board, so neither 0
# nor 0xFFFF is a real move; the Xiangqi code marks a pass (make_null) in
# the undo stack with the search's NO_MOVE (engine/game.pxd, 0xFFFF), the
# one "no move" value of every game, which the search also writes for a pass.
ctypedef uint16_t Move

cdef struct Undo:
    uint64_t key              # key before the move
    Move move
    uint8_t captured          # piece id captured (0 if none)
    uint8_t gives_check       # set by whoever knows: used for perpetual check

cdef struct Position:
    uint8_t board[256]        # piece id, EMPTY or OFF
    uint8_t square[48]        # piece id -> square, 0 when captured
    int side                  # RED or BLACK to move
    uint64_t key
    int32_t score             # material + piece-square, from Red's view
    int rules                 # repetition rules (engine/repetition.pxd): RULES_ASIAN...
    int ply                   # entries used in history
    Undo history[MAX_HISTORY]
    # The network's accumulators (engine/accumulator.pxd), after the history:
    # a copy of a position takes the header and the history in use and
    # leaves the ring stale (depth 0), to be refreshed when needed.
    AccumulatorRing nn

cdef inline void stale_accumulators(Position* p) noexcept nogil:
    """Mark the ring stale (after a copy or a new position)."""
    p.nn.generation = 0
    p.nn.top = 0
    p.nn.depth = 0

cdef inline size_t header_size(const Position* p) noexcept nogil:
    """Bytes of a Position before its history."""
    return <size_t>(<const char*> &p.history[0] - <const char*> p)

# Tables, filled once at import of position.pyx.
cdef uint8_t KIND_OF[256]     # cell value -> kind (NO_KIND for EMPTY/OFF)
cdef uint8_t IN_PALACE[256]   # the nine palace points of either side
cdef uint8_t IN_HALF[2][256]  # IN_HALF[side][sq]: on that side's bank of the river
cdef uint64_t ZOBRIST[14][256]
cdef uint64_t ZOBRIST_SIDE
# Material + piece-square value of each kind on each square, from Red's side
# (Black's entries are negated); zero until engine/evaluate.pyx installs
# weights (load_weights(): at the session's start, or before the first
# board made from a FEN; importing a module loads nothing).
cdef int32_t PIECE_SQUARE[14][256]

cdef inline int side_tag(int side) noexcept nogil:
    return RED_TAG << side

cdef inline int move_from(Move m) noexcept nogil:
    return m & 255

cdef inline int move_to(Move m) noexcept nogil:
    return m >> 8

cdef inline Move make_move(int frm, int to) noexcept nogil:
    return <Move>(frm | (to << 8))

cdef inline int square_at(int file, int rank) noexcept nogil:
    return (rank + RANK_BOTTOM) * 16 + file + FILE_LEFT

cdef inline int file_of(int sq) noexcept nogil:
    return (sq & 15) - FILE_LEFT

cdef inline int rank_of(int sq) noexcept nogil:
    return (sq >> 4) - RANK_BOTTOM

cdef inline uint64_t key_after(const Position* p, Move m) noexcept nogil:
    """The Zobrist key after move m (make's, computed without playing it:
    the search fetches the move's table entry while it decides about it)."""
    cdef int frm = move_from(m), to = move_to(m)
    cdef int kind = KIND_OF[p.board[frm]], captured = p.board[to]
    cdef uint64_t key = p.key ^ ZOBRIST[kind][frm] ^ ZOBRIST[kind][to] ^ ZOBRIST_SIDE
    if captured:
        key ^= ZOBRIST[KIND_OF[captured]][to]
    return key

cdef inline int king_square(const Position* p, int side) noexcept nogil:
    return p.square[side_tag(side)]

cdef void clear_position(Position* p) noexcept nogil
cdef void put_piece(Position* p, int piece, int sq) noexcept nogil
cdef uint64_t compute_key(const Position* p) noexcept nogil
cdef int32_t compute_score(const Position* p) noexcept nogil
cdef void make(Position* p, Move m) noexcept nogil
cdef void unmake(Position* p) noexcept nogil
cdef void make_null(Position* p) noexcept nogil
cdef void unmake_null(Position* p) noexcept nogil
