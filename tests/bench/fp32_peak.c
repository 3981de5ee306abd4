/* fp32_peak - measures this CPU's float32 peak: every thread runs
 * independent chains of fused multiply-adds on the widest vectors the
 * build's SIMD layer has (src/compute/simd.h), enough chains to hide the FMA latency
 * on every core we target. make bench divides the kernels' GFLOP/s by it.
 *   fp32_peak [--num_threads=N] [--millis=M]
 * prints, for 1 thread and (if N > 1) for N threads:
 *   fp32_peak simd=avx512 lanes=16 threads=1 gflops=123.45 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "flags.h"
#include "compute/simd.h"

#define CHAINS 10
#define ROUNDS_PER_CHECK 100000

typedef struct worker {
    pthread_t thread;
    double seconds;          /* CPU time to run for */
    double flops_per_second; /* measured */
    float sink;              /* keeps the result alive */
} worker;

/* CPU time of the calling thread: on a busy machine the time a thread waits
 * for a core is not counted against its FMA rate. */
static double thread_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run_chains(void *arg)
{
    worker *w = arg;
    volatile float seed = 1.0f, factor = 0.999999f, step = 1e-7f;
    const tp_vec x = tp_vec_set1(factor), y = tp_vec_set1(step);
    tp_vec acc[CHAINS];
    for (int c = 0; c < CHAINS; c++)
        acc[c] = tp_vec_set1(seed + (float)c);
    double rounds = 0, start = thread_seconds(), end = start + w->seconds, elapsed;
    do {
        for (int r = 0; r < ROUNDS_PER_CHECK; r++)
#pragma GCC unroll 16
            for (int c = 0; c < CHAINS; c++)
                acc[c] = tp_vec_fma(y, acc[c], x);
        rounds += ROUNDS_PER_CHECK;
    } while ((elapsed = thread_seconds()) < end);
    float lanes[TP_VEC_WIDTH];
    for (int c = 1; c < CHAINS; c++)
        acc[0] = tp_vec_add(acc[0], acc[c]);
    tp_vec_store(lanes, acc[0]);
    w->sink = lanes[0];
    w->flops_per_second = rounds * CHAINS * TP_VEC_WIDTH * 2 / (elapsed - start);
    return NULL;
}

/* GFLOP/s of `threads` threads running chains together (the sum of their
 * rates); < 0 on failure. */
static double measure(int threads, double seconds)
{
    worker *workers = calloc((size_t)threads, sizeof *workers);
    if (!workers)
        return -1;
    int started = 0;
    for (; started < threads; started++) {
        workers[started].seconds = seconds;
        if (pthread_create(&workers[started].thread, NULL, run_chains, &workers[started]) != 0)
            break;
    }
    double rate = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(workers[i].thread, NULL);
        rate += workers[i].flops_per_second;
    }
    free(workers);
    return started == threads ? rate / 1e9 : -1;
}

/* Prints one measurement line; 1 on failure. */
static int report(int threads, int millis)
{
    double gflops = measure(threads, millis / 1000.0);
    if (gflops < 0) {
        fprintf(stderr, "error: cannot start %d threads\n", threads);
        return 1;
    }
    printf("fp32_peak simd=%s lanes=%d threads=%d gflops=%.2f\n", TP_SIMD_NAME, TP_VEC_WIDTH, threads, gflops);
    return 0;
}

int main(int argc, char **argv)
{
    int num_threads = 1, millis = 500;
    const tool_flag flags[] = {
        {"num_threads", FLAG_INT, &num_threads, "also measure this many threads together"},
        {"millis", FLAG_INT, &millis, "milliseconds of CPU time per measurement"},
    };
    int rc = flags_parse(argc, argv, flags, 2, "[--num_threads=N] [--millis=M]");
    if (rc == 0 && (num_threads < 1 || millis < 1)) {
        fprintf(stderr, "error: --num_threads and --millis must be positive\n");
        rc = 1;
    }
    if (rc == 0)
        rc = report(1, millis);
    if (rc == 0 && num_threads > 1)
        rc = report(num_threads, millis);
    flags_free(flags, 2);
    return rc == 2 ? 0 : rc;
}
