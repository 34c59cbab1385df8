# The tree search (engine/tree.pyx) as other modules see it: the only calls
# into it, each made once per search or per iteration. The workers' state
# it searches with is engine/worker.pxd.

from tuong.engine.worker cimport SearchState

# Per search or per iteration: the only calls into the tree search from
# other modules.
cdef void first_window(int previous, int use_window, int* alpha, int* beta) noexcept nogil
cdef int search_root(SearchState* s, int alpha, int beta, int depth, int in_check) noexcept nogil
cdef int aspiration(SearchState* s, int depth, int previous, int use_window,
                    int in_check) noexcept nogil
