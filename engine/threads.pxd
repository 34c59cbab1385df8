# The helper threads of a search (Lazy SMP): C threads created when the
# thread count is set, parked on a condition variable between searches and
# woken for each one; they never touch Python. Each runs the start routine
# it was spawned with (engine/helper.pyx's helper_main, on its own state).

cdef extern from "<pthread.h>" nogil:
    ctypedef struct pthread_t:
        pass
    ctypedef struct pthread_attr_t:
        pass
    ctypedef struct pthread_mutex_t:
        pass
    ctypedef struct pthread_cond_t:
        pass
    int pthread_attr_init(pthread_attr_t* attr)
    int pthread_attr_setstacksize(pthread_attr_t* attr, size_t size)
    int pthread_attr_destroy(pthread_attr_t* attr)
    int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                       void* (*start)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t thread, void** result)
    int pthread_mutex_init(pthread_mutex_t* mutex, const void* attr)
    int pthread_mutex_destroy(pthread_mutex_t* mutex)
    int pthread_mutex_lock(pthread_mutex_t* mutex)
    int pthread_mutex_unlock(pthread_mutex_t* mutex)
    int pthread_cond_init(pthread_cond_t* cond, const void* attr)
    int pthread_cond_destroy(pthread_cond_t* cond)
    int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex)
    int pthread_cond_broadcast(pthread_cond_t* cond)

cdef enum:
    THREAD_STACK = 16 << 20      # bytes: the recursion holds move lists per ply


# The helper threads: parked on `wake` between searches, counted down on
# `idle` when they stop. `generation` tells a parked helper a search began.
# `lock` also guards the lines helpers publish (SearchState.done_pv).
cdef struct Pool:
    pthread_mutex_t lock
    pthread_cond_t wake
    pthread_cond_t idle
    int generation
    int running
    int exiting
    int n_helpers
    pthread_t* threads


cdef void pool_init(Pool* pool) noexcept nogil
cdef void pool_destroy(Pool* pool) noexcept nogil
cdef int spawn_helpers(Pool* pool, void** states, int n,
                       void* (*start)(void*) noexcept nogil) noexcept nogil
cdef int helper_wait(Pool* pool, int* seen) noexcept nogil
cdef void helper_finished(Pool* pool) noexcept nogil
cdef void close_helpers(Pool* pool) noexcept nogil
cdef void start_helpers(Pool* pool) noexcept nogil
cdef void wait_helpers(Pool* pool) noexcept nogil
