# Static evaluation: material and piece-square values, kept up to date by
# make/unmake in position.pyx, seen from the side to move.

from engine.position cimport Position, RED

# The side to move is typically a little better off than a static count says.
cdef int TEMPO = 10


cdef int evaluate(const Position* p) noexcept nogil:
    if p.side == RED:
        return p.score + TEMPO
    return -p.score + TEMPO
