/* load_stats.c - measures what loading a model costs, for
 * tests/bench_tools.sh: the best wall time of several tfpi_graph_load_file
 * calls, and the process's resident memory (VmRSS) right after one load.
 *   load_stats MODEL [RUNS]   prints: load_ms=... rss_after_load=... file_bytes=...
 * Built by the bench script against libtfpi_tools.a and libtfpi.a. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "proc_memory.h"
#include "tfpi.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL [RUNS]\n", argv[0]);
        return 1;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    struct stat st;
    if (stat(argv[1], &st) != 0) {
        fprintf(stderr, "error: %s: cannot stat\n", argv[1]);
        return 1;
    }
    long long before = proc_status_bytes("VmRSS"), after = 0;
    double best = 1e30;
    for (int i = 0; i < (runs > 0 ? runs : 1); i++) {
        tfpi_status status = {0};
        double t0 = now_ms();
        tfpi_graph *g = tfpi_graph_load_file(argv[1], &status);
        double ms = now_ms() - t0;
        if (!g) {
            fprintf(stderr, "error: %s\n", status.message);
            return 1;
        }
        if (i == 0)
            after = proc_status_bytes("VmRSS");
        tfpi_graph_free(g);
        best = ms < best ? ms : best;
    }
    printf("load_ms=%.3f rss_after_load=%lld rss_before_load=%lld file_bytes=%lld\n", best, after, before,
           (long long)st.st_size);
    return 0;
}
