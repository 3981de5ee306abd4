/* node_stats.h - per-node statistics over many profiled runs and the
 * tables benchmark_model prints (Run Order, Top by Computation Time, Top by
 * Memory Use, Summary by node type), tab-separated as TensorFlow's tool. */
#ifndef TFPI_NODE_STATS_H
#define TFPI_NODE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "tfpi.h"

typedef struct node_stat {
    char *name, *op;
    double first_us, total_us, start_us;
    size_t output_bytes;
    int64_t flops;
    bool integer; /* flops counts 8-bit multiply-adds (tfpi_node_profile.integer) */
    int times_called;
    int order; /* position in the first run */
} node_stat;

typedef struct node_stats {
    int count, capacity;
    node_stat *nodes;
    int runs;
} node_stats;

/* Adds one run's profile (from tfpi_session_profile). 0 on success. */
int node_stats_add_run(node_stats *stats, const tfpi_node_profile *profile, int n);
void node_stats_free(node_stats *stats);
/* The estimated operations of one run: float FLOPs, or (integer) the
 * integer multiply-adds x 2 of the 8-bit ops. */
int64_t node_stats_flops(const node_stats *stats, bool integer);

/* The nodes grouped by op type, slowest first (the Summary by node type). */
typedef struct node_type_total {
    const char *op;
    int count, times_called;
    double ms; /* per run */
    size_t bytes;
} node_type_total;
node_type_total *node_stats_by_type(const node_stats *stats, int *count); /* malloc'd; NULL if out of memory */

typedef struct table_options {
    int run_order, time, memory, type, summary; /* which tables */
    int run_order_limit, time_limit, memory_limit; /* rows of each; 0 or less = all */
} table_options;

void node_stats_print(const node_stats *stats, const table_options *options);

#endif
