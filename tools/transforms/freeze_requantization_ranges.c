/* freeze_requantization_ranges.c - freeze_requantization_ranges(
 * min_max_log_file, min_percentile=5, max_percentile=5): replaces each
 * RequantizationRange X by the Consts X/frozen_min and X/frozen_max, taken
 * from the ranges a logged run printed (../shared/docs/quantized.md 4.5):
 * lines like ";X__print__;__requant_min_max:[-20.887871][22.274715]",
 * as insert_logging(op=RequantizationRange, show_name=true,
 * message="__requant_min_max:") makes label_image or run_graph write to
 * stderr (glog prefixes allowed). Per node the mins and maxes are sorted
 * separately and the given percentiles taken, which drops outliers.
 * Frozen ranges make Requantize a fixed scale and skip a pass over every
 * qint32 result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "graphdef_edit.h"
#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

#define RANGE_TAG "__requant_min_max:"

typedef struct logged_node {
    char *name;
    float *mins, *maxes;
    size_t count, capacity;
} logged_node;

typedef struct range_log {
    logged_node *nodes;
    size_t count;
} range_log;

static logged_node *node_named(range_log *log, const char *name, size_t len)
{
    for (size_t i = 0; i < log->count; i++)
        if (strlen(log->nodes[i].name) == len && memcmp(log->nodes[i].name, name, len) == 0)
            return &log->nodes[i];
    log->nodes = xrealloc(log->nodes, (log->count + 1) * sizeof *log->nodes);
    logged_node *n = &log->nodes[log->count++];
    *n = (logged_node){.name = xmalloc(len + 1)};
    memcpy(n->name, name, len);
    n->name[len] = '\0';
    return n;
}

/* "[value]" at *p: the float, with *p moved past the ']'; false if not. */
static bool bracketed_float(const char **p, float *value)
{
    if (**p != '[')
        return false;
    char *end;
    *value = strtof(*p + 1, &end);
    if (end == *p + 1 || *end != ']' || !isfinite(*value))
        return false;
    *p = end + 1;
    return true;
}

/* One log line; false if it holds no usable record. */
static bool parse_line(range_log *log, const char *line, size_t len)
{
    char *text = xmalloc(len + 1);
    memcpy(text, line, len);
    text[len] = '\0';
    bool ok = false;
    /* the last ";...__print__;__requant_min_max:[min][max]" on the line */
    char *tag = NULL;
    for (char *p = strstr(text, ";" RANGE_TAG); p; p = strstr(p + 1, ";" RANGE_TAG))
        tag = p;
    if (tag) {
        *tag = '\0';
        const char *name_end = tag, *values = tag + 1 + strlen(RANGE_TAG);
        const char *name_start = strrchr(text, ';');
        name_start = name_start ? name_start + 1 : text;
        size_t name_len = (size_t)(name_end - name_start);
        float min, max;
        if (name_len > strlen("__print__") && strncmp(name_end - 9, "__print__", 9) == 0 &&
            bracketed_float(&values, &min) && bracketed_float(&values, &max) &&
            (*values == '\0' || *values == '\r' || *values == ' ')) {
            logged_node *n = node_named(log, name_start, name_len - 9);
            if (n->count == n->capacity) {
                n->capacity = n->capacity ? 2 * n->capacity : 16;
                n->mins = xrealloc(n->mins, n->capacity * sizeof *n->mins);
                n->maxes = xrealloc(n->maxes, n->capacity * sizeof *n->maxes);
            }
            n->mins[n->count] = min;
            n->maxes[n->count++] = max;
            ok = true;
        }
    }
    free(text);
    return ok;
}

static void free_log(range_log *log)
{
    for (size_t i = 0; i < log->count; i++) {
        free(log->nodes[i].name);
        free(log->nodes[i].mins);
        free(log->nodes[i].maxes);
    }
    free(log->nodes);
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The value at `fraction` of the sorted values, as TF picks it. */
static float percentile(float *values, size_t count, double fraction)
{
    qsort(values, count, sizeof *values, compare_floats);
    double at = round((double)count * fraction);
    size_t i = at < 0 ? 0 : at > (double)(count - 1) ? count - 1 : (size_t)at;
    return values[i];
}

static void freeze_node(rw_graph *g, Tfpi__NodeDef *node, float min, float max)
{
    size_t size = strlen(node->name) + 16;
    char *names[2] = {xmalloc(size), xmalloc(size)};
    snprintf(names[0], size, "%s/frozen_min", node->name);
    snprintf(names[1], size, "%s/frozen_max", node->name);
    const float values[2] = {min, max};
    for (int k = 1; k >= 0; k--) {
        char port[600];
        snprintf(port, sizeof port, "%s:%d", node->name, k);
        rw_replace_input(g->def, port, names[k]);
        Tfpi__NodeDef *c = gd_node_new(names[k], "Const");
        rw_make_const(c, TFPI_FLOAT, NULL, 0, &values[k]);
        gd_set_string(&c->device, node->device);
        gd_append_node(g->def, c);
        free(names[k]);
    }
}

static tfpi_code read_log(const transform_ctx *ctx, const char *path, range_log *log)
{
    size_t size;
    tfpi_status status;
    char *text = (char *)read_file(path, &size, &status);
    if (!text)
        return transform_fail(ctx, status.code, "min_max_log_file: %s", status.message);
    size_t records = 0;
    for (size_t start = 0; start < size;) {
        const char *nl = memchr(text + start, '\n', size - start);
        size_t end = nl ? (size_t)(nl - text) : size;
        if (memmem(text + start, end - start, "__print__;" RANGE_TAG, strlen("__print__;" RANGE_TAG)))
            records += parse_line(log, text + start, end - start);
        start = end + 1;
    }
    free(text);
    if (records == 0)
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT,
                              "min_max_log_file '%s' has no ';NAME__print__;" RANGE_TAG "[min][max]' lines "
                              "(log a run of insert_logging(op=RequantizationRange, show_name=true, "
                              "message=\"" RANGE_TAG "\"))",
                              path);
    return TFPI_OK;
}

tfpi_code transform_freeze_requantization_ranges(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    const char *path;
    int64_t min_percentile, max_percentile;
    tfpi_code code;
    if ((code = transform_param_required(ctx, "min_max_log_file", &path)) != TFPI_OK ||
        (code = transform_param_int(ctx, "min_percentile", 5, 0, &min_percentile)) != TFPI_OK ||
        (code = transform_param_int(ctx, "max_percentile", 5, 0, &max_percentile)) != TFPI_OK)
        return code;
    if (min_percentile > 100 || max_percentile > 100)
        return transform_fail(ctx, TFPI_INVALID_ARGUMENT, "percentiles must be within 0..100");
    range_log log = {0};
    if ((code = read_log(ctx, path, &log)) != TFPI_OK) {
        free_log(&log);
        return code;
    }
    rw_graph g;
    rw_open(&g, graph);
    int *frozen = xcalloc(log.count + 1, sizeof *frozen);
    for (size_t i = 0; i < log.count && code == TFPI_OK; i++) {
        logged_node *n = &log.nodes[i];
        int index = rw_node_index(&g, n->name);
        if (index < 0)
            code = transform_fail(ctx, TFPI_NOT_FOUND, "min_max_log_file '%s' names node '%s', which is not in the graph",
                                  path, n->name);
        else if (strcmp(graph->node[index]->op, "RequantizationRange") != 0)
            code = transform_fail(ctx, TFPI_INVALID_ARGUMENT,
                                  "min_max_log_file '%s' names node '%s', a %s, not a RequantizationRange", path,
                                  n->name, graph->node[index]->op);
        else {
            float min = percentile(n->mins, n->count, (double)min_percentile / 100.0);
            float max = percentile(n->maxes, n->count, 1.0 - (double)max_percentile / 100.0);
            freeze_node(&g, graph->node[index], min, max);
            frozen[i] = index;
        }
    }
    if (code == TFPI_OK) { /* the frozen nodes go; the Consts were appended after them */
        bool *doomed = xcalloc(graph->n_node + 1, sizeof *doomed);
        for (size_t i = 0; i < log.count; i++)
            doomed[frozen[i]] = true;
        rw_refresh(&g);
        rw_delete_nodes(&g, doomed);
        free(doomed);
    }
    rw_close(&g);
    free(frozen);
    free_log(&log);
    return code;
}
