/* node_stats.c - accumulating per-node timings and printing them in the
 * column layout of TensorFlow's benchmark_model. */
#include "node_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static node_stat *find_or_add(node_stats *stats, const tfpi_node_profile *p)
{
    for (int i = 0; i < stats->count; i++)
        if (!strcmp(stats->nodes[i].name, p->name))
            return &stats->nodes[i];
    if (stats->count == stats->capacity) {
        int cap = stats->capacity ? 2 * stats->capacity : 256;
        node_stat *grown = realloc(stats->nodes, sizeof *grown * (size_t)cap);
        if (!grown)
            return NULL;
        stats->nodes = grown;
        stats->capacity = cap;
    }
    node_stat *s = &stats->nodes[stats->count];
    memset(s, 0, sizeof *s);
    s->name = strdup(p->name);
    s->op = strdup(p->op);
    if (!s->name || !s->op) {
        free(s->name);
        free(s->op);
        return NULL;
    }
    s->order = stats->count++;
    s->first_us = p->duration_us;
    s->start_us = p->start_us;
    s->output_bytes = p->output_bytes;
    s->flops = p->flops;
    s->integer = p->integer != 0;
    return s;
}

int node_stats_add_run(node_stats *stats, const tfpi_node_profile *profile, int n)
{
    for (int i = 0; i < n; i++) {
        node_stat *s = find_or_add(stats, &profile[i]);
        if (!s)
            return -1;
        s->total_us += profile[i].duration_us;
        s->times_called++;
    }
    stats->runs++;
    return 0;
}

void node_stats_free(node_stats *stats)
{
    for (int i = 0; i < stats->count; i++) {
        free(stats->nodes[i].name);
        free(stats->nodes[i].op);
    }
    free(stats->nodes);
    memset(stats, 0, sizeof *stats);
}

int64_t node_stats_flops(const node_stats *stats, bool integer)
{
    int64_t total = 0;
    for (int i = 0; i < stats->count; i++)
        if (stats->nodes[i].integer == integer)
            total += stats->nodes[i].flops;
    return total;
}

static double avg_ms(const node_stat *s) { return s->times_called ? s->total_us / s->times_called / 1000.0 : 0; }

static double run_total_ms(const node_stats *stats)
{
    double total = 0;
    for (int i = 0; i < stats->count; i++)
        total += avg_ms(&stats->nodes[i]);
    return total;
}

static int by_order(const void *a, const void *b)
{
    return (*(node_stat *const *)a)->order - (*(node_stat *const *)b)->order;
}

static int by_time(const void *a, const void *b)
{
    double x = avg_ms(*(node_stat *const *)a), y = avg_ms(*(node_stat *const *)b);
    return x < y ? 1 : x > y ? -1 : by_order(a, b);
}

static int by_memory(const void *a, const void *b)
{
    size_t x = (*(node_stat *const *)a)->output_bytes, y = (*(node_stat *const *)b)->output_bytes;
    return x < y ? 1 : x > y ? -1 : by_order(a, b);
}

static void print_heading(const char *title)
{
    printf("============================== %s ==============================\n", title);
}

static void print_node_table(const node_stats *stats, const char *title, int (*order)(const void *, const void *),
                             int limit)
{
    node_stat **rows = malloc(sizeof *rows * (size_t)(stats->count + 1));
    if (!rows)
        return;
    for (int i = 0; i < stats->count; i++)
        rows[i] = &stats->nodes[i];
    qsort(rows, (size_t)stats->count, sizeof *rows, order);
    double total = run_total_ms(stats), cdf = 0;
    print_heading(title);
    printf("\t%24s\t%9s\t%9s\t%9s\t%9s\t%9s\t%10s\t%14s\t%s\n", "[node type]", "[start]", "[first]", "[avg ms]",
           "[%]", "[cdf%]", "[mem KB]", "[times called]", "[Name]");
    for (int i = 0; i < stats->count && (limit <= 0 || i < limit); i++) {
        const node_stat *s = rows[i];
        double pct = total > 0 ? 100.0 * avg_ms(s) / total : 0;
        cdf += pct;
        printf("\t%24s\t%9.3f\t%9.3f\t%9.3f\t%8.3f%%\t%8.3f%%\t%10.3f\t%14d\t%s\n", s->op, s->start_us / 1000.0,
               s->first_us / 1000.0, avg_ms(s), pct, cdf, (double)s->output_bytes / 1024.0,
               s->times_called / (stats->runs ? stats->runs : 1), s->name);
    }
    printf("\n");
    free(rows);
}

static int type_by_time(const void *a, const void *b)
{
    double x = ((const node_type_total *)a)->ms, y = ((const node_type_total *)b)->ms;
    return x < y ? 1 : x > y ? -1 : 0;
}

node_type_total *node_stats_by_type(const node_stats *stats, int *count)
{
    node_type_total *rows = calloc((size_t)stats->count + 1, sizeof *rows);
    int n = 0;
    *count = 0;
    if (!rows)
        return NULL;
    for (int i = 0; i < stats->count; i++) {
        const node_stat *s = &stats->nodes[i];
        int r = 0;
        while (r < n && strcmp(rows[r].op, s->op))
            r++;
        if (r == n)
            rows[n++].op = s->op;
        rows[r].count++;
        rows[r].ms += avg_ms(s);
        rows[r].bytes += s->output_bytes;
        rows[r].times_called += s->times_called / (stats->runs ? stats->runs : 1);
    }
    qsort(rows, (size_t)n, sizeof *rows, type_by_time);
    *count = n;
    return rows;
}

static void print_type_summary(const node_stats *stats)
{
    int n;
    node_type_total *rows = node_stats_by_type(stats, &n);
    if (!rows)
        return;
    double total = run_total_ms(stats), cdf = 0;
    print_heading("Summary by node type");
    printf("\t%24s\t%9s\t%9s\t%11s\t%10s\t%10s\t%14s\n", "[Node type]", "[count]", "[avg ms]", "[avg %]",
           "[cdf %]", "[mem KB]", "[times called]");
    for (int r = 0; r < n; r++) {
        double pct = total > 0 ? 100.0 * rows[r].ms / total : 0;
        cdf += pct;
        printf("\t%24s\t%9d\t%9.3f\t%10.3f%%\t%9.3f%%\t%10.3f\t%14d\n", rows[r].op, rows[r].count, rows[r].ms, pct,
               cdf, (double)rows[r].bytes / 1024.0, rows[r].times_called);
    }
    printf("\n");
    free(rows);
}

void node_stats_print(const node_stats *stats, const table_options *options)
{
    if (options->run_order)
        print_node_table(stats, "Run Order", by_order, options->run_order_limit);
    if (options->time)
        print_node_table(stats, "Top by Computation Time", by_time, options->time_limit);
    if (options->memory)
        print_node_table(stats, "Top by Memory Use", by_memory, options->memory_limit);
    if (options->type || options->summary)
        print_type_summary(stats);
}
