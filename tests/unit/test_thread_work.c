/* test_thread_work.c - the per-thread work tally of a pool
 * (src/core/thread_work.c through tp_threadpool_work): it starts only when
 * first asked, counts every task of a job once, charges each thread the
 * busiest thread's excess as idle, splits tasks evenly on equal cores,
 * counts the caller's work outside jobs as idle for the workers, and
 * clears on reset. */
#include <stdint.h>

#include "check.h"
#include "core/threadpool.h"

enum { THREADS = 3, ITEMS = 12, ITEM_WORK = 10 };

/* Each item is a task of ITEM_WORK multiply-adds. */
static void equal_items(void *arg, int64_t begin, int64_t end)
{
    (void)arg;
    for (int64_t i = begin; i < end; i++)
        tp_work_done(ITEM_WORK);
}

/* Item i is a task of i + 1 multiply-adds. */
static void growing_items(void *arg, int64_t begin, int64_t end)
{
    (void)arg;
    for (int64_t i = begin; i < end; i++)
        tp_work_done(i + 1);
}

static void read_work(tp_threadpool *pool, tp_thread_work *as_run, tp_thread_work *equal, int reset)
{
    CHECK(tp_threadpool_work(pool, as_run, equal, reset));
}

static void check_all_zero(const tp_thread_work *work)
{
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ_INT(work[t].tasks, 0);
        CHECK_EQ_INT(work[t].multiply_adds, 0);
        CHECK_EQ_INT(work[t].idle, 0);
    }
}

/* Every thread's work plus idle is the same (the busiest thread's, summed
 * over jobs), and the tasks and multiply-adds add up to the job's. */
static void check_job_totals(const tp_thread_work *work, int64_t tasks, int64_t multiply_adds)
{
    int64_t sum_tasks = 0, sum_work = 0;
    for (int t = 0; t < THREADS; t++) {
        sum_tasks += work[t].tasks;
        sum_work += work[t].multiply_adds;
        CHECK_EQ_INT(work[t].multiply_adds + work[t].idle, work[0].multiply_adds + work[0].idle);
        CHECK(work[t].idle >= 0);
    }
    CHECK_EQ_INT(sum_tasks, tasks);
    CHECK_EQ_INT(sum_work, multiply_adds);
}

/* A pool whose tally has started (a first ask with reset); NULL if none. */
static tp_threadpool *counting_pool(void)
{
    tp_threadpool *pool = tp_threadpool_new(THREADS);
    CHECK(pool != NULL);
    if (pool)
        read_work(pool, NULL, NULL, 1);
    return pool;
}

static void test_tally_starts_when_asked(void)
{
    tp_threadpool *pool = tp_threadpool_new(THREADS);
    CHECK(pool != NULL);
    if (!pool)
        return;
    tp_parallel_for(pool, ITEMS, 1, equal_items, NULL);
    tp_work_done(ITEM_WORK); /* on the caller, outside a job */
    tp_thread_work as_run[THREADS], equal[THREADS];
    read_work(pool, as_run, equal, 0); /* the first ask: nothing counted before it */
    check_all_zero(as_run);
    check_all_zero(equal);
    tp_threadpool_free(pool);
}

static void test_job_split(void)
{
    tp_threadpool *pool = counting_pool();
    if (!pool)
        return;
    tp_thread_work as_run[THREADS], equal[THREADS];
    tp_parallel_for(pool, ITEMS, 1, equal_items, NULL);
    read_work(pool, as_run, equal, 0);
    check_job_totals(as_run, ITEMS, ITEMS * ITEM_WORK);
    check_job_totals(equal, ITEMS, ITEMS * ITEM_WORK);
    for (int t = 0; t < THREADS; t++) { /* equal tasks deal evenly onto equal cores */
        CHECK_EQ_INT(equal[t].tasks, ITEMS / THREADS);
        CHECK_EQ_INT(equal[t].idle, 0);
    }
    /* A second job adds to the first; uneven tasks still add up. */
    tp_parallel_for(pool, ITEMS, 1, growing_items, NULL);
    read_work(pool, as_run, equal, 1);
    check_job_totals(as_run, 2 * ITEMS, ITEMS * ITEM_WORK + ITEMS * (ITEMS + 1) / 2);
    check_job_totals(equal, 2 * ITEMS, ITEMS * ITEM_WORK + ITEMS * (ITEMS + 1) / 2);
    read_work(pool, as_run, equal, 0); /* the reset cleared both */
    check_all_zero(as_run);
    check_all_zero(equal);
    tp_threadpool_free(pool);
}

static void test_caller_alone(void)
{
    tp_threadpool *pool = counting_pool();
    if (!pool)
        return;
    tp_thread_work as_run[THREADS], equal[THREADS];
    tp_work_done(50);
    tp_work_done(25);
    read_work(pool, as_run, equal, 0);
    for (const tp_thread_work *work = as_run; work; work = work == as_run ? equal : NULL) {
        CHECK_EQ_INT(work[0].tasks, 2);
        CHECK_EQ_INT(work[0].multiply_adds, 75);
        CHECK_EQ_INT(work[0].idle, 0);
        for (int t = 1; t < THREADS; t++) {
            CHECK_EQ_INT(work[t].multiply_adds, 0);
            CHECK_EQ_INT(work[t].idle, 75);
        }
    }
    tp_threadpool_free(pool);
}

int main(void)
{
    RUN(test_tally_starts_when_asked);
    RUN(test_job_split);
    RUN(test_caller_alone);
    return check_summary();
}
