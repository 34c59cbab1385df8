from engine.game cimport GameOps

# The Xiangqi implementation of the search interface; state is a Position*.
cdef GameOps XIANGQI_OPS
