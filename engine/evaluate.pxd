from tuong.engine.position cimport Position

# Most features one position can have nonzero (32 pieces, 6 materials and
# at most 16 for the rest): callers of trace_into size their buffers by it.
cdef enum:
    MAX_TRACE_FEATURES = 64

# Loads the default weights file unless weights are installed: every way
# of making a position from Python calls it first (engine/board.pyx).
cdef int ensure_loaded() except -1

cdef int evaluate(const Position* p) noexcept nogil
cdef int quick_evaluate(const Position* p) noexcept nogil
cdef double trace(const Position* p, double* features) noexcept nogil
cdef int trace_into(const Position* p, int* indices, double* values, double* residual) noexcept nogil
