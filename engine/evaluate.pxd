from engine.position cimport Position

cdef int evaluate(const Position* p) noexcept nogil
cdef int quick_evaluate(const Position* p) noexcept nogil
