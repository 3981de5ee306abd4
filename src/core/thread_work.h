/* thread_work.h - what each thread of a pool did (benchmark_model's
 * per-thread report, tfpi_session_thread_work).
 *
 * A kernel calls tp_work_done once per task it finishes (a GEMM task, a
 * chunk of depthwise rows), with the task's multiply-adds as the layer
 * defines them. The pool (threadpool.c) tallies them per thread and per job
 * (one tp_parallel_for): a thread's idle work is, summed over the jobs, what
 * the job's busiest thread did beyond it, i.e. how long it waited, counted in
 * the busiest thread's work. Work done outside jobs (on the caller alone)
 * is the caller's, and idle work for every other thread.
 *
 * Two tallies: as run (which thread really took which task: on a machine
 * with fewer free cores than threads, mostly the scheduler's doing), and
 * on equal cores: the same tasks handed out in the order they were taken,
 * each to the core that is free first, every multiply-add taking the same
 * time. The second is what the task split itself gives a board whose cores
 * are all free.
 *
 * A pool tallies only once asked (threadpool.h: tp_threadpool_work); the
 * tally functions take a NULL tally and then do nothing, so that a pool
 * nobody reads keeps no task lists, sorts nothing and simulates nothing. */
#ifndef TFPI_THREAD_WORK_H
#define TFPI_THREAD_WORK_H

#include <stdint.h>

typedef struct tp_thread_work {
    int64_t tasks, multiply_adds, idle;
} tp_thread_work;

/* Adds a finished task to the calling thread's work. */
void tp_work_done(int64_t multiply_adds);

typedef struct tp_work_tally tp_work_tally;

/* For a pool of `threads` (the caller included); NULL if out of memory. */
tp_work_tally *tp_work_tally_new(int threads);
void tp_work_tally_free(tp_work_tally *tally);

/* Around each chunk of a job that thread `thread` (0: the caller) runs:
 * begin before it, end after it; end is called under the pool's lock. */
void tp_work_tally_chunk_begin(tp_work_tally *tally, int thread);
void tp_work_tally_chunk_end(tp_work_tally *tally, int thread);
/* Before a job starts: what the caller did alone since it was last
 * tallied. After all of a job's chunks ended: the job. */
void tp_work_tally_caller_alone(tp_work_tally *tally);
void tp_work_tally_job(tp_work_tally *tally);

/* Copies the tallies (one entry per thread) as run and on equal cores
 * (either may be NULL), then clears them if reset. Called by the thread
 * that runs the pool's jobs. */
void tp_work_tally_read(tp_work_tally *tally, tp_thread_work *as_run, tp_thread_work *equal_cores, int reset);

#endif
