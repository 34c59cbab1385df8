from tuong.engine.game cimport GameOps

# The Xiangqi implementation of the search interface; state is a Position*.
cdef GameOps XIANGQI_OPS

cdef int xq_rule_result(void* state, int ply, int* score, int* back) noexcept nogil
