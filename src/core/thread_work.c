/* thread_work.c - what each thread of a pool did: tallies as run and on
 * equal cores (thread_work.h). */
#include "core/thread_work.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A task of the current job: when it was handed in, and its work. */
typedef struct task_cost {
    int64_t ticket, multiply_adds;
} task_cost;

typedef struct task_list {
    task_cost *items;
    size_t n, cap;
} task_list;

struct tp_work_tally {
    int threads;
    tp_thread_work *job; /* per thread: the current job's work */
    task_list *tasks;    /* per thread: the current job's tasks */
    atomic_llong next_ticket;
    atomic_bool lost; /* a task list could not grow: the job counts as run on equal cores too */
    tp_thread_work *as_run, *equal;
    tp_thread_work *split; /* per core: one job's split on equal cores */
    task_list merged; /* the job's tasks in ticket order */
    tp_thread_work caller_seen; /* the caller's counters when last tallied */
    pthread_t caller;           /* the thread that last started a job or read the tallies */
    bool caller_known;
};

/* What this thread has done, the chunk it runs (its tally and its index in
 * the pool) and its counters when the chunk began. */
static _Thread_local tp_thread_work thread_done, chunk_start;
static _Thread_local tp_work_tally *thread_tally;
static _Thread_local int thread_index;

static bool list_push(task_list *l, task_cost task)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 64;
        task_cost *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = task;
    return true;
}

void tp_work_done(int64_t multiply_adds)
{
    thread_done.tasks++;
    thread_done.multiply_adds += multiply_adds;
    tp_work_tally *t = thread_tally;
    if (t && !list_push(&t->tasks[thread_index], (task_cost){atomic_fetch_add(&t->next_ticket, 1), multiply_adds}))
        atomic_store(&t->lost, true);
}

tp_work_tally *tp_work_tally_new(int threads)
{
    tp_work_tally *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    const size_t n = (size_t)threads;
    t->threads = threads;
    t->job = calloc(n, sizeof *t->job);
    t->tasks = calloc(n, sizeof *t->tasks);
    t->as_run = calloc(n, sizeof *t->as_run);
    t->equal = calloc(n, sizeof *t->equal);
    t->split = calloc(n, sizeof *t->split);
    atomic_init(&t->next_ticket, 0);
    atomic_init(&t->lost, false);
    if (!t->job || !t->tasks || !t->as_run || !t->equal || !t->split) {
        tp_work_tally_free(t);
        return NULL;
    }
    return t;
}

void tp_work_tally_free(tp_work_tally *t)
{
    if (!t)
        return;
    for (int i = 0; t->tasks && i < t->threads; i++)
        free(t->tasks[i].items);
    free(t->job), free(t->tasks), free(t->as_run), free(t->equal), free(t->split);
    free(t->merged.items);
    free(t);
}

void tp_work_tally_chunk_begin(tp_work_tally *t, int thread)
{
    thread_tally = t; /* NULL: tp_work_done keeps no task list */
    thread_index = thread;
    chunk_start = thread_done;
}

void tp_work_tally_chunk_end(tp_work_tally *t, int thread)
{
    thread_tally = NULL;
    if (!t)
        return;
    t->job[thread].tasks += thread_done.tasks - chunk_start.tasks;
    t->job[thread].multiply_adds += thread_done.multiply_adds - chunk_start.multiply_adds;
}

/* Adds one job's work per thread (or core) to `tally`. */
static void add_job(tp_thread_work *tally, const tp_thread_work *job, int threads)
{
    int64_t busiest = 0;
    for (int i = 0; i < threads; i++)
        busiest = job[i].multiply_adds > busiest ? job[i].multiply_adds : busiest;
    for (int i = 0; i < threads; i++) {
        tally[i].tasks += job[i].tasks;
        tally[i].multiply_adds += job[i].multiply_adds;
        tally[i].idle += busiest - job[i].multiply_adds;
    }
}

void tp_work_tally_caller_alone(tp_work_tally *t)
{
    if (!t)
        return;
    if (t->caller_known && pthread_equal(t->caller, pthread_self())) {
        const int64_t done = thread_done.multiply_adds - t->caller_seen.multiply_adds;
        for (tp_thread_work *tally = t->as_run; tally; tally = tally == t->as_run ? t->equal : NULL) {
            tally[0].tasks += thread_done.tasks - t->caller_seen.tasks;
            tally[0].multiply_adds += done;
            for (int i = 1; i < t->threads; i++)
                tally[i].idle += done;
        }
    }
    t->caller = pthread_self();
    t->caller_known = true;
    t->caller_seen = thread_done;
}

static int by_ticket(const void *a, const void *b)
{
    const int64_t x = ((const task_cost *)a)->ticket, y = ((const task_cost *)b)->ticket;
    return (x > y) - (x < y);
}

/* The job's tasks in ticket order, each to the core with the least work so
 * far (the one free first); false if out of memory. */
static bool split_on_equal_cores(tp_work_tally *t)
{
    t->merged.n = 0;
    for (int i = 0; i < t->threads; i++)
        for (size_t k = 0; k < t->tasks[i].n; k++)
            if (!list_push(&t->merged, t->tasks[i].items[k]))
                return false;
    if (t->merged.n > 0) /* no tasks: no array to sort */
        qsort(t->merged.items, t->merged.n, sizeof *t->merged.items, by_ticket);
    memset(t->split, 0, (size_t)t->threads * sizeof *t->split);
    for (size_t k = 0; k < t->merged.n; k++) {
        int core = 0;
        for (int i = 1; i < t->threads; i++)
            core = t->split[i].multiply_adds < t->split[core].multiply_adds ? i : core;
        t->split[core].multiply_adds += t->merged.items[k].multiply_adds;
        t->split[core].tasks++;
    }
    return true;
}

void tp_work_tally_job(tp_work_tally *t)
{
    if (!t)
        return;
    add_job(t->as_run, t->job, t->threads);
    add_job(t->equal, !atomic_load(&t->lost) && split_on_equal_cores(t) ? t->split : t->job, t->threads);
    for (int i = 0; i < t->threads; i++) {
        t->job[i] = (tp_thread_work){0};
        t->tasks[i].n = 0;
    }
    atomic_store(&t->next_ticket, 0);
    atomic_store(&t->lost, false);
    t->caller_seen = thread_done; /* the caller's part of the job is counted */
}

void tp_work_tally_read(tp_work_tally *t, tp_thread_work *as_run, tp_thread_work *equal_cores, int reset)
{
    tp_work_tally_caller_alone(t);
    const size_t bytes = (size_t)t->threads * sizeof *t->as_run;
    if (as_run)
        memcpy(as_run, t->as_run, bytes);
    if (equal_cores)
        memcpy(equal_cores, t->equal, bytes);
    if (reset) {
        memset(t->as_run, 0, bytes);
        memset(t->equal, 0, bytes);
    }
}
