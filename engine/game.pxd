# The interface between the search and a game. The search knows nothing of
# any game: it sees an opaque state and the table of C functions below, so
# Xiangqi and the small games of the founding texts (tic-tac-toe, Dodgem,
# the queens game) go through the same search. Each call is one indirect
# call, the same cost as any cross-module cdef call.
#
# Moves are opaque 16-bit codes: each game picks its own encoding (Xiangqi
# from | to << 8, a placement game the cell), and the search only compares
# them, stores them and indexes its history tables with them. NO_MOVE is
# reserved: no game may use it for a real move. It is the one "no move"
# value: no best, killer or table move, and a pass (the search's played[]
# and Xiangqi's undo stack, engine/position.pxd, both mark a pass with it).
#
# Scores are from the side to move; a loss in `ply` plies is -(MATE - ply).

from libc.stdint cimport uint16_t, uint64_t

ctypedef uint16_t Move

cdef enum:
    NO_MOVE = 0xFFFF
    MAX_MOVES = 256             # every move buffer holds this many; a game's max_moves must fit
    MOVE_TEXT_SIZE = 16         # bytes for a move's text, NUL included
    MATE = 30000
    MAX_PLY = 128
    # |score| above this is a forced result: mate, or a win or loss by a
    # rule at a repetition (perpetual check or chase), which scores MATE -
    # ply like a mate at that ply, as Pikafish scores it. (A band of its own
    # below the mates made the losing side prefer breaking the rule to being
    # mated a move later, and so hid mates the rule cannot escape.)
    # The band is wider than the search's plies: an endgame table's mate
    # (up to 253 plies, a value byte's range) is scored at its true distance
    # from a node as deep as MAX_PLY, and keeps it through the hash table.
    MATE_BOUND = MATE - 512
    INFINITE = 32000
    # The largest |score| an evaluation may give: strictly below the mates,
    # so that no evaluation, however odd its weights, reads as a forced
    # result or reaches the search's window bounds.
    EVAL_LIMIT = MATE_BOUND - 1
    # What a quick_evaluate returns when the full evaluation is no dearer
    # (a network): outside every evaluation's range.
    NO_QUICK_ESTIMATE = INFINITE + 1


cdef inline int bounded_eval(long long score) noexcept nogil:
    """score clamped to [-EVAL_LIMIT, EVAL_LIMIT]: every evaluator returns
    through this."""
    if score > EVAL_LIMIT:
        return EVAL_LIMIT
    if score < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return <int> score

# What the search may do in a game's tree (GameOps.pruning). Each is sound
# only for some games, so a game switches on what fits it; a game that
# switches none is searched exactly (alpha-beta with its windows, the table
# and move ordering change no value).
cdef enum:
    # Reverse futility, futility, late-move and SEE pruning. They skip
    # moves that a centipawn-scale static score says cannot matter: unsound
    # where one quiet move decides the game (completing a line).
    PRUNE_FORWARD = 1
    # Late-move reductions and internal iterative reductions.
    PRUNE_REDUCTIONS = 2
    # Null-move pruning (make_null must be set too).
    PRUNE_NULL_MOVE = 4

cdef struct GameOps:
    const char* name
    size_t state_size           # bytes of the state (copy_state fills that many)
    int max_moves               # most legal moves any position can have (<= MAX_MOVES)
    int pruning                 # PRUNE_* flags
    # A copy that searches independently of its source (the root of a search,
    # one per search thread).
    void (*copy_state)(void* dst, const void* src) noexcept nogil
    # Legal moves (all, or only the tactical ones -- captures -- when
    # `tactical`) into out[0..capacity); returns the count. `in_check` is
    # whether the side to move is in check, already known. A finished game
    # has no moves.
    int (*generate)(void* state, Move* out, int capacity, int tactical, int in_check) noexcept nogil
    # Plays a legal move; returns whether it gives check. `may_check` 0 is
    # the caller's promise that it does not (from may_give_check), so the
    # game need not test it. Games without check always return 0.
    int (*make)(void* state, Move move, int may_check) noexcept nogil
    void (*unmake)(void* state) noexcept nogil
    # A pass for null-move pruning (with PRUNE_NULL_MOVE), and whether a pass
    # is a fair test here (zugzwang-prone positions say no).
    void (*make_null)(void* state) noexcept nogil
    void (*unmake_null)(void* state) noexcept nogil
    int (*null_move_ok)(void* state) noexcept nogil
    uint64_t (*key)(void* state) noexcept nogil
    # Optional (NULL: none). The key after a legal move, without playing it:
    # the search starts fetching that move's table entry from memory while
    # it still decides about the move (a table probe is a cache miss).
    uint64_t (*key_after)(void* state, Move move) noexcept nogil
    int (*evaluate)(void* state) noexcept nogil
    # Optional (NULL: none). A cheap lower-quality evaluate (Xiangqi:
    # material and piece-square values), trusted where it clears beta by a
    # wide margin in quiescence; NO_QUICK_ESTIMATE when there is none
    # cheaper than evaluate (Xiangqi with a network).
    int (*quick_evaluate)(void* state) noexcept nogil
    # Optional (NULL: the game has no check). Whether the side to move is in
    # check; and 0 if a move certainly does not give check, 1 if it might.
    int (*in_check)(void* state) noexcept nogil
    int (*may_give_check)(void* state, Move move) noexcept nogil
    # An outcome fixed by the rules at this node (a repetition, a completed
    # line, the end of the game...): returns 1 and sets *score, or returns 0.
    # `ply` is the distance from the root of the search. *back is how many
    # plies back the result looked (a repetition: to the earlier occurrence;
    # 0 for a result of this position alone): the search does not store in
    # its table what depends on the path above a node.
    int (*rule_result)(void* state, int ply, int* score, int* back) noexcept nogil
    # The score of the side to move when it has no legal move.
    int (*no_move_score)(void* state, int ply) noexcept nogil
    # Optional (NULL: no captures). Ordering key of a capture (MVV-LVA
    # style, > 0), 0 for a quiet move; and whether the exchange a capture
    # starts gains at least `threshold` (NULL: every capture is good).
    int (*capture_value)(void* state, Move move) noexcept nogil
    int (*see_ge)(void* state, Move move, int threshold) noexcept nogil
    # Optional (NULL: none). A static ordering key for quiet moves, added to
    # the history score: it orders moves before the history knows them.
    int (*order_hint)(void* state, Move move) noexcept nogil
    # Optional (NULL: none). A move as "what goes where" (Xiangqi: the kind
    # of piece and its destination), a number below move_kinds, for a move
    # legal in `state`: it keys the continuation histories, which learn
    # which moves do well after which.
    int move_kinds
    int (*move_kind)(void* state, Move move) noexcept nogil
    # Move text both ways. move_text writes the NUL-terminated text of a
    # move (legal in `state`) into out[0..MOVE_TEXT_SIZE) and returns its
    # length. parse_move returns 0 if `text` is not a move at all, 1 if it
    # is one but not legal here, 2 if it is legal (and sets *move).
    int (*move_text)(const void* state, Move move, char* out) noexcept nogil
    int (*parse_move)(void* state, const char* text, Move* move) noexcept nogil


# The Python face shared by every game: a state, its GameOps and the moves
# played on it. Each game subclasses it with its FEN, display and start.
cdef class GameBoard:
    cdef void* state
    cdef const GameOps* ops
    cdef list moves             # codes of the moves pushed, oldest first
    cdef void attach(self, const GameOps* ops) except *
    cdef Move code_of(self, object text) except? NO_MOVE
    cdef str text_of(self, Move move)


cdef int generate_moves(const GameOps* ops, void* state, Move* out, int tactical) noexcept nogil
cdef uint64_t game_perft(const GameOps* ops, void* state, int depth, const int* stop) noexcept nogil
