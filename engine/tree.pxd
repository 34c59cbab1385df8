# The tree search (engine/tree.pyx) as other modules see it: the only call
# into it, made once per window of an iteration. The workers' state
# it searches with is engine/worker.pxd.

from tuong.engine.worker cimport SearchState

# Per window of an iteration: the only call into the tree search from
# other modules (the aspiration loops around it: engine/search.pyx's for
# the main worker, engine/helper.pyx's for the helpers).
cdef int search_root(SearchState* s, int alpha, int beta, int depth, int in_check) noexcept nogil
