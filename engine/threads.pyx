# The helper threads' life cycle (see engine/threads.pxd): created and
# joined by the Searcher when the thread count changes, woken at the start
# of every search, waited for at its end. What a helper does in between is
# the start routine it is given (engine/helper.pyx's helper_main): this module
# knows nothing of the search.


cdef void pool_init(Pool* pool) noexcept nogil:
    pthread_mutex_init(&pool.lock, NULL)
    pthread_cond_init(&pool.wake, NULL)
    pthread_cond_init(&pool.idle, NULL)


cdef void pool_destroy(Pool* pool) noexcept nogil:
    pthread_cond_destroy(&pool.wake)
    pthread_cond_destroy(&pool.idle)
    pthread_mutex_destroy(&pool.lock)


cdef int helper_wait(Pool* pool, int* seen) noexcept nogil:
    """A helper thread parks here between searches: 1 when a search newer
    than *seen begins (which it then records), 0 when the pool is closing."""
    cdef int go
    pthread_mutex_lock(&pool.lock)
    while pool.generation == seen[0] and not pool.exiting:
        pthread_cond_wait(&pool.wake, &pool.lock)
    go = not pool.exiting
    seen[0] = pool.generation
    pthread_mutex_unlock(&pool.lock)
    return go


cdef void helper_finished(Pool* pool) noexcept nogil:
    """A helper's search is over: the last one wakes wait_helpers."""
    pthread_mutex_lock(&pool.lock)
    pool.running -= 1
    if pool.running == 0:
        pthread_cond_broadcast(&pool.idle)
    pthread_mutex_unlock(&pool.lock)


cdef int spawn_helpers(Pool* pool, void** states, int n,
                       void* (*start)(void*) noexcept nogil) noexcept nogil:
    """Start a helper thread running start(states[i]) for each of
    states[1:n] (pool.threads has room for n); returns how many started."""
    cdef pthread_attr_t attr
    cdef int i, started = 0
    pool.exiting = 0
    pool.running = 0
    pthread_attr_init(&attr)
    pthread_attr_setstacksize(&attr, THREAD_STACK)
    for i in range(1, n):
        if pthread_create(&pool.threads[i], &attr, start, states[i]) != 0:
            break
        started += 1
    pthread_attr_destroy(&attr)
    pool.n_helpers = started
    return started


cdef void close_helpers(Pool* pool) noexcept nogil:
    """Stop and join the helper threads (they are parked)."""
    cdef int i, n = pool.n_helpers
    if n == 0:
        return
    pthread_mutex_lock(&pool.lock)
    pool.exiting = 1
    pthread_cond_broadcast(&pool.wake)
    pthread_mutex_unlock(&pool.lock)
    for i in range(1, n + 1):
        pthread_join(pool.threads[i], NULL)
    pool.n_helpers = 0


cdef void start_helpers(Pool* pool) noexcept nogil:
    pthread_mutex_lock(&pool.lock)
    pool.running = pool.n_helpers
    pool.generation += 1
    pthread_cond_broadcast(&pool.wake)
    pthread_mutex_unlock(&pool.lock)


cdef void wait_helpers(Pool* pool) noexcept nogil:
    pthread_mutex_lock(&pool.lock)
    while pool.running > 0:
        pthread_cond_wait(&pool.idle, &pool.lock)
    pthread_mutex_unlock(&pool.lock)
