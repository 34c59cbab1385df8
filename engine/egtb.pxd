# The generator's Table (engine/egtb.pyx), for the search's probe
# (egtbprobe.pyx), which reads a table's layout and values.
from libc.stdint cimport uint8_t, int64_t
from tuong.engine.egtblayout cimport Spec, Pos, MAXP

cdef struct SubMap:
    # Where a capture of one piece leads: the smaller table (its Spec and
    # values), whether it is stored with the colours flipped, and for each
    # of its pieces the piece number here.
    Spec* spec
    const uint8_t* values
    int flip
    int draws                    # draws_proven: else a draw is no answer
    int source[MAXP]


cdef class Table:
    cdef Spec spec
    cdef uint8_t* values
    cdef uint8_t* counts
    cdef uint8_t* floors         # while generating: the longest loss a capture leads to
    cdef SubMap subs[MAXP]       # by captured piece number
    cdef int nsubs
    cdef readonly str name
    cdef readonly int max_dtm
    cdef object sub_tables       # keeps the smaller tables alive
    cdef int overflow

    cdef int outcomes(self, Pos* p, bint quiet_values, int* best_win, int* worst_loss,
                      int* open_moves) noexcept nogil
    cdef void init_range(self, int64_t start, int64_t end) noexcept nogil
    cdef int level_range(self, int d, int64_t start, int64_t end) noexcept nogil
    cdef int64_t verify_range(self, int64_t start, int64_t end) noexcept nogil
