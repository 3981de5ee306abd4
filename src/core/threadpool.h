/* threadpool.h - one small pthread pool and parallel_for over ranges. The
 * pool is what a session hands every kernel to compute with, so it also
 * carries the CPU the kernels are chosen for and the precision they compute
 * in (core/cpu.h). */
#ifndef TFPI_THREADPOOL_H
#define TFPI_THREADPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "core/thread_work.h"

typedef struct tp_threadpool tp_threadpool;

/* fn processes items [begin, end) of the work; it may run on any thread. */
typedef void (*tp_range_fn)(void *arg, int64_t begin, int64_t end);

/* num_threads <= 0 means one per core; 1 creates no threads (returns a pool
 * that runs everything on the caller). NULL on failure. */
tp_threadpool *tp_threadpool_new(int num_threads);
void tp_threadpool_free(tp_threadpool *pool);
int tp_threadpool_size(const tp_threadpool *pool);
int tp_num_cores(void);

/* The CPU kernels run as: what tp_threadpool_set_cpu gave, else (and for a
 * NULL pool) tp_cpu_default(). */
tp_cpu tp_threadpool_cpu(const tp_threadpool *pool);
void tp_threadpool_set_cpu(tp_threadpool *pool, tp_cpu cpu);

/* The precision convolutions and matrix products compute in: what
 * tp_threadpool_set_precision gave (a session sets one its CPU can run),
 * else (and for a NULL pool) fp32. */
tp_precision tp_threadpool_precision(const tp_threadpool *pool);
void tp_threadpool_set_precision(tp_threadpool *pool, tp_precision precision);

/* A buffer of at least `bytes` (64-byte aligned) that the pool keeps and
 * grows for whoever calls next: a session runs one kernel at a time, so its
 * kernels' scratch comes from one allocation made once instead of one per
 * call (whose frees left the heap fragmented: 3 MB more resident on
 * MobileNet v1 under qemu-aarch64). Valid until the next call or
 * tp_threadpool_free; NULL if pool is NULL or out of memory. */
void *tp_threadpool_scratch(tp_threadpool *pool, size_t bytes);

/* What each thread did (core/thread_work.h: tp_work_done) since the pool
 * was first asked or last reset: tp_threadpool_size entries each, out[0]
 * the caller; either may be NULL. The first call starts the tally (all
 * zeros); false if out of memory. Called by the thread that runs its jobs. */
bool tp_threadpool_work(tp_threadpool *pool, tp_thread_work *as_run, tp_thread_work *equal_cores, int reset);

/* Splits [0, n) into chunks of at least `grain` items across the pool and
 * waits for all of them. A NULL pool runs fn(arg, 0, n) directly. */
void tp_parallel_for(tp_threadpool *pool, int64_t n, int64_t grain, tp_range_fn fn, void *arg);

#endif
