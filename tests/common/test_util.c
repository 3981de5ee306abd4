/* test_util.c - model-test helpers (see test_util.h). */
#include "test_util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

float *read_f32_file(const char *path, size_t count, size_t *actual)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        CHECK_MSG(0, "cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t n = bytes > 0 ? (size_t)bytes / sizeof(float) : 0;
    float *data = malloc(n ? n * sizeof(float) : 1);
    bool ok = data && fread(data, sizeof(float), n, f) == n && (count == 0 || n == count);
    fclose(f);
    if (!ok) {
        CHECK_MSG(0, "%s: expected %zu floats, found %zu", path, count, n);
        free(data);
        return NULL;
    }
    if (actual)
        *actual = n;
    return data;
}

tfpi_graph *load_graph_or_fail(const char *path)
{
    tfpi_status status;
    tfpi_graph *g = tfpi_graph_load_file(path, &status);
    CHECK_MSG(g != NULL, "load %s: %s", path, status.message);
    return g;
}

tfpi_tensor *run_float(tfpi_session *session, const char *feed, const float *data, const int64_t *dims,
                       int ndims, const char *fetch)
{
    tfpi_status status;
    tfpi_tensor *in = tfpi_tensor_new(TFPI_FLOAT, dims, ndims, &status), *out = NULL;
    if (!in) {
        CHECK_MSG(0, "tensor: %s", status.message);
        return NULL;
    }
    memcpy(tfpi_tensor_data(in), data, tfpi_tensor_byte_size(in));
    if (tfpi_session_run(session, &feed, &in, 1, &fetch, &out, 1, &status) != TFPI_OK)
        CHECK_MSG(0, "run %s -> %s: %s", feed, fetch, status.message);
    tfpi_tensor_free(in);
    return out;
}

tfpi_tensor *run_float_graph(gb_graph *g, const char *feed, const float *data, const int64_t *dims,
                             int ndims, const char *fetch, int num_threads, int *steps)
{
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    gb_free(g);
    CHECK_MSG(graph, "load: %s", status.message);
    if (!graph)
        return NULL;
    tfpi_session_options options = {.num_threads = num_threads};
    tfpi_session *session = tfpi_session_new(graph, &options, &status);
    CHECK_MSG(session, "session: %s", status.message);
    if (session && steps)
        tfpi_session_set_profiling(session, 1);
    tfpi_tensor *out = session ? run_float(session, feed, data, dims, ndims, fetch) : NULL;
    if (session && steps) {
        const tfpi_node_profile *nodes;
        *steps = tfpi_session_profile(session, &nodes);
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    return out;
}

int64_t dims_product(const int64_t *dims, int n)
{
    int64_t count = 1;
    for (int i = 0; i < n; i++)
        count *= dims[i];
    return count;
}

diff_stats compare_floats(const float *a, const float *b, size_t n)
{
    diff_stats s = {0, 0};
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= s.max_abs)) /* NaN counts as the worst */
            s.max_abs = isnan(d) ? INFINITY : d;
        s.mean_abs += d;
    }
    s.mean_abs = n ? s.mean_abs / (double)n : 0;
    return s;
}

int argmax_f32(const float *x, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[best])
            best = i;
    return (int)best;
}
