# Helpers shared by the small games (engine/tictactoe.pyx, dodgem.pyx,
# queens.pyx): square names, a fixed random sequence for Zobrist keys.
# Squares are a file letter and a rank number: files from `a` on the left,
# rank 1 at the bottom (files and ranks are 0-based here).

from libc.stdint cimport uint64_t


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    # A fixed, well-mixed sequence: keys are the same in every run.
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int write_square(int file, int rank, char* out) noexcept nogil:
    """'a1'-style text of (file, rank); returns its length (2 or 3)."""
    out[0] = 97 + file
    if rank + 1 >= 10:
        out[1] = 48 + (rank + 1) // 10
        out[2] = 48 + (rank + 1) % 10
        return 3
    out[1] = 48 + rank + 1
    return 2


cdef inline int read_square(const char* text, int* file, int* rank) noexcept nogil:
    """Parse 'a1'..'z99' at text: sets file and rank (0-based) and returns
    the characters read, or 0 if there is no square there. Bounds are the
    caller's to check."""
    cdef int i = 1, number = 0
    if text[0] < 97 or text[0] > 122:
        return 0
    while 48 <= text[i] <= 57 and i < 3:
        number = number * 10 + text[i] - 48
        i += 1
    if i == 1 or number == 0 or (i == 3 and text[1] == 48):
        return 0
    file[0] = text[0] - 97
    rank[0] = number - 1
    return i
