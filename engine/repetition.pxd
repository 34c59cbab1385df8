from tuong.engine.position cimport Position

# Rule sets (Position.rules).
cdef enum:
    RULES_ASIAN = 0           # perpetual check, then perpetual chase, loses
    RULES_CHECK_ONLY = 1      # perpetual check loses, every other repetition draws

# How a repetition ends (Verdict.rule).
cdef enum:
    VERDICT_DRAW = 0
    VERDICT_PERPETUAL_CHECK = 1
    VERDICT_PERPETUAL_CHASE = 2

cdef struct Verdict:
    int rule
    int loser                 # RED or BLACK, -1 for a draw
    int victim                # perpetual chase: piece id of the piece chased throughout
    int attacker              # perpetual chase: piece id of the last move's chaser

from libc.stdint cimport uint16_t

cdef void chase_pairs(Position* p, int side, uint16_t* pairs) noexcept nogil
cdef int find_cycle(const Position* p, int after_root) noexcept nogil
cdef void judge(Position* p, int cycle, Verdict* out) noexcept nogil
