from tuong.engine.position cimport Position, Move

cdef int see_ge(Position* p, Move m, int threshold) noexcept nogil
