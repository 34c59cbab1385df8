from tuong.engine.worker cimport SearchState

cdef void helper_search(SearchState* s) noexcept nogil
cdef void* helper_main(void* arg) noexcept nogil
