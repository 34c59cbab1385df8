from tuong.engine.game cimport GameBoard
from tuong.engine.position cimport Position

cdef class Board(GameBoard):
    cdef Position* pos           # the state, typed
    cdef int first_fullmove      # the FEN's move number, kept for fen()
    cdef int first_halfmove      # the FEN's halfmove clock: plies without a capture before it
    cdef int started_black
    cdef Position* position(self)
