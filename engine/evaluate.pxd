from engine.position cimport Position

cdef int evaluate(const Position* p) noexcept nogil
