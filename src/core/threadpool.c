/* threadpool.c - a fixed pool of pthreads that run parallel_for ranges.
 * The caller thread takes part in every job; a pool of 1 creates no thread. */
#include "core/threadpool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct tp_threadpool {
    int size; /* threads including the caller */
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t work_ready, work_done;
    /* the current job */
    tp_range_fn fn;
    void *arg;
    int64_t n, chunks, next; /* items, chunks, the next chunk */
    int pending;      /* chunks not finished yet */
    unsigned generation;
    int stopping;
    bool cpu_set;
    tp_cpu cpu;
    tp_precision precision;
    void *scratch; /* tp_threadpool_scratch's buffer */
    size_t scratch_bytes;
    tp_work_tally *work; /* NULL until tp_threadpool_work first asks */
    int started; /* workers that took their index (the caller is 0) */
};

int tp_num_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Takes chunks of the current job until none are left, as thread `index`
 * of the pool. Called with lock held. */
static void drain_job(tp_threadpool *pool, int index)
{
    while (pool->next < pool->chunks) {
        const int64_t chunk = pool->next++;
        const int64_t begin = chunk * pool->n / pool->chunks, end = (chunk + 1) * pool->n / pool->chunks;
        tp_work_tally *work = pool->work;
        pthread_mutex_unlock(&pool->lock);
        tp_work_tally_chunk_begin(work, index);
        pool->fn(pool->arg, begin, end);
        pthread_mutex_lock(&pool->lock);
        tp_work_tally_chunk_end(pool->work, index);
        if (--pool->pending == 0)
            pthread_cond_broadcast(&pool->work_done);
    }
}

static void *worker_main(void *p)
{
    tp_threadpool *pool = p;
    unsigned seen = 0;
    pthread_mutex_lock(&pool->lock);
    const int index = ++pool->started;
    for (;;) {
        while (!pool->stopping && pool->generation == seen)
            pthread_cond_wait(&pool->work_ready, &pool->lock);
        if (pool->stopping)
            break;
        seen = pool->generation;
        drain_job(pool, index);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

tp_threadpool *tp_threadpool_new(int num_threads)
{
    tp_threadpool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return NULL;
    pool->size = num_threads > 0 ? num_threads : tp_num_cores();
    if (pool->size == 1)
        return pool;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work_ready, NULL);
    pthread_cond_init(&pool->work_done, NULL);
    pool->threads = calloc((size_t)pool->size - 1, sizeof *pool->threads);
    if (!pool->threads) {
        pool->size = 1;
        tp_threadpool_free(pool);
        return NULL;
    }
    for (int i = 0; i < pool->size - 1; i++) {
        if (pthread_create(&pool->threads[i], NULL, worker_main, pool) != 0) {
            pool->size = i + 1;
            tp_threadpool_free(pool);
            return NULL;
        }
    }
    return pool;
}

void tp_threadpool_free(tp_threadpool *pool)
{
    if (!pool)
        return;
    if (pool->threads) {
        pthread_mutex_lock(&pool->lock);
        pool->stopping = 1;
        pthread_cond_broadcast(&pool->work_ready);
        pthread_mutex_unlock(&pool->lock);
        for (int i = 0; i < pool->size - 1; i++)
            pthread_join(pool->threads[i], NULL);
        free(pool->threads);
        pthread_mutex_destroy(&pool->lock);
        pthread_cond_destroy(&pool->work_ready);
        pthread_cond_destroy(&pool->work_done);
    }
    free(pool->scratch);
    tp_work_tally_free(pool->work);
    free(pool);
}

tp_cpu tp_threadpool_cpu(const tp_threadpool *pool)
{
    return pool && pool->cpu_set ? pool->cpu : tp_cpu_default();
}

void tp_threadpool_set_cpu(tp_threadpool *pool, tp_cpu cpu)
{
    pool->cpu = cpu;
    pool->cpu_set = true;
}

tp_precision tp_threadpool_precision(const tp_threadpool *pool)
{
    return pool ? pool->precision : TP_PRECISION_FP32;
}

void tp_threadpool_set_precision(tp_threadpool *pool, tp_precision precision) { pool->precision = precision; }

void *tp_threadpool_scratch(tp_threadpool *pool, size_t bytes)
{
    if (!pool)
        return NULL;
    if (bytes > pool->scratch_bytes) {
        const size_t rounded = (bytes + 63) & ~(size_t)63;
        if (rounded < bytes)
            return NULL;
        free(pool->scratch);
        pool->scratch = aligned_alloc(64, rounded);
        pool->scratch_bytes = pool->scratch ? rounded : 0;
    }
    return pool->scratch;
}

bool tp_threadpool_work(tp_threadpool *pool, tp_thread_work *as_run, tp_thread_work *equal_cores, int reset)
{
    /* No job runs now; workers see the tally from the next one on, which
     * they take under the lock. */
    if (!pool->work && !(pool->work = tp_work_tally_new(pool->size)))
        return false;
    tp_work_tally_read(pool->work, as_run, equal_cores, reset);
    return true;
}

int tp_threadpool_size(const tp_threadpool *pool)
{
    return pool ? pool->size : 1;
}

void tp_parallel_for(tp_threadpool *pool, int64_t n, int64_t grain, tp_range_fn fn, void *arg)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    if (!pool || pool->size == 1 || n <= grain) {
        fn(arg, 0, n);
        return;
    }
    /* A few chunks per thread balance uneven work without much locking; as
     * many for every thread, their items dealt as evenly as they go, so
     * that equal cores finish together (14 chunks of a MobileNet v2 layer's
     * rows left two of four cores idle a quarter of its time). */
    int64_t chunks = (int64_t)pool->size * 4 < n / grain ? (int64_t)pool->size * 4 : n / grain;
    if (chunks > pool->size)
        chunks -= chunks % pool->size;
    chunks = chunks > 1 ? chunks : 1;
    tp_work_tally_caller_alone(pool->work);
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->n = n;
    pool->chunks = chunks;
    pool->next = 0;
    pool->pending = (int)chunks;
    pool->generation++;
    pthread_cond_broadcast(&pool->work_ready);
    drain_job(pool, 0);
    while (pool->pending > 0)
        pthread_cond_wait(&pool->work_done, &pool->lock);
    tp_work_tally_job(pool->work);
    pthread_mutex_unlock(&pool->lock);
}
