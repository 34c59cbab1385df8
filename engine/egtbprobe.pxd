# What the search needs of the tablebases (engine/egtbprobe.pyx): a probe of
# a position, answered from the tables installed (none: always 0).
from tuong.engine.position cimport Position

cdef int probe_position(const Position* p, int* value) noexcept nogil
