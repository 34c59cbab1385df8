# The interface between the search and a game. The search knows nothing of
# Xiangqi: it sees an opaque state and these functions, so other games (the
# small games of the founding texts) plug into the same search. Each call is
# one indirect call, the same cost as any cross-module cdef call.
#
# Moves are 16-bit: from | to << 8, with squares in 0..255.
# Scores are from the side to move; a loss in `ply` plies is -(MATE - ply).

from libc.stdint cimport uint16_t, uint64_t

cdef enum:
    MATE = 30000
    MAX_PLY = 128
    MATE_BOUND = MATE - MAX_PLY     # |score| above this is a forced result
    INFINITE = 32000

cdef struct GameOps:
    # Legal moves (all, or only captures when `tactical`); returns the count.
    # `in_check` is whether the side to move is in check, already known.
    int (*generate)(void* state, uint16_t* out, int tactical, int in_check) noexcept nogil
    void (*make)(void* state, uint16_t move) noexcept nogil
    void (*unmake)(void* state) noexcept nogil
    # A pass for null-move pruning; make_null is NULL where passing is unsound.
    void (*make_null)(void* state) noexcept nogil
    void (*unmake_null)(void* state) noexcept nogil
    # Whether passing is a fair test here (zugzwang-prone positions say no).
    int (*null_move_ok)(void* state) noexcept nogil
    uint64_t (*key)(void* state) noexcept nogil
    int (*evaluate)(void* state) noexcept nogil
    # A cheap estimate of evaluate (Xiangqi: material and piece-square
    # values only), trusted where it clears beta by a wide margin.
    int (*quick_evaluate)(void* state) noexcept nogil
    # Whether the side to move is in check; called once right after each
    # move, so a game may record it (Xiangqi does, for perpetual check).
    int (*in_check)(void* state) noexcept nogil
    # An outcome fixed by the rules rather than by moves (repetition, a
    # completed line...): returns 1 and sets *score, or returns 0.
    int (*rule_result)(void* state, int ply, int* score) noexcept nogil
    # The score of the side to move when it has no legal move.
    int (*no_move_score)(void* state, int ply) noexcept nogil
    # 0 if the move certainly does not give check (a cheap filter that lets
    # pruning skip a move without making it), 1 if it might.
    int (*may_give_check)(void* state, uint16_t move) noexcept nogil
    # Ordering key of a capture (MVV-LVA style), 0 for a quiet move.
    int (*capture_value)(void* state, uint16_t move) noexcept nogil
    # Whether the exchange the move starts on its target square gains at
    # least `threshold` (static exchange evaluation).
    int (*see_ge)(void* state, uint16_t move, int threshold) noexcept nogil
