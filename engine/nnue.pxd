# The network evaluation (engine/nnue.pyx): what the Xiangqi glue calls.

from tuong.engine.position cimport Position, Move

# Whether a network is in force (the evaluation uses it, make/unmake keep
# the accumulators); set by install_network() and disable().
cdef int nn_active

cdef void nn_push(Position* p, Move m) noexcept nogil
cdef void nn_pop(Position* p) noexcept nogil
cdef int nn_evaluate(Position* p) noexcept nogil
cdef int nn_accumulator_matches(Position* p) noexcept nogil
