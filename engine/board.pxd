from engine.position cimport Position, Move

cdef class Board:
    cdef Position* pos
    cdef int first_fullmove      # the FEN's move number, kept for fen()
    cdef int started_black
    cdef Position* position(self)
    cdef Move _parse_legal(self, move) except? 0
