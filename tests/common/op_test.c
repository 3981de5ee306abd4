/* op_test.c - graph runs and result checks for the kernel tests that run
 * small graphs (see op_test.h). */
#include "op_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

tfpi_tensor *op_tensor(tfpi_dtype dtype, const int64_t *dims, int ndims, const void *data)
{
    tfpi_status status;
    tfpi_tensor *t = tfpi_tensor_new(dtype, dims, ndims, &status);
    CHECK_MSG(t != NULL, "tensor: %s", status.message);
    if (t && data)
        memcpy(tfpi_tensor_data(t), data, tfpi_tensor_byte_size(t));
    return t;
}

tfpi_tensor *op_string_tensor(const void *bytes, size_t size)
{
    tfpi_status status;
    tfpi_tensor *t = tfpi_tensor_new(TFPI_STRING, NULL, 0, &status);
    if (t && tfpi_tensor_set_string(t, 0, bytes, size, &status) != TFPI_OK) {
        tfpi_tensor_free(t);
        t = NULL;
    }
    CHECK_MSG(t != NULL, "string tensor: %s", status.message);
    return t;
}

tfpi_code op_run_graph(const gb_graph *g, int num_feeds, const char *const *feed_names,
                       tfpi_tensor *const *feeds, int num_fetches, const char *const *fetch_names,
                       tfpi_tensor **outputs, int threads, tfpi_status *status)
{
    tfpi_graph *graph = gb_load(g, status);
    if (!graph)
        return status->code;
    tfpi_session_options options = {.num_threads = threads};
    tfpi_session *session = tfpi_session_new(graph, &options, status);
    tfpi_code code = session ? tfpi_session_run(session, feed_names, feeds, num_feeds, fetch_names,
                                                outputs, num_fetches, status)
                             : status->code;
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    return code;
}

tfpi_tensor *op_run(gb_graph *g, int num_feeds, tfpi_tensor *const *feeds, int threads, tfpi_status *status)
{
    static const char *const names[] = {"a", "b", "c"};
    const char *fetch = "out";
    tfpi_tensor *out = NULL;
    if (op_run_graph(g, num_feeds, names, feeds, 1, &fetch, &out, threads, status) != TFPI_OK)
        out = NULL;
    gb_free(g);
    return out;
}

tfpi_tensor *op_eval(const gb_graph *g, tfpi_tensor *x, const char *fetch)
{
    const char *feed = "x";
    tfpi_tensor *out = NULL;
    tfpi_status status;
    if (op_run_graph(g, x ? 1 : 0, &feed, &x, 1, &fetch, &out, 1, &status) != TFPI_OK)
        CHECK_MSG(0, "run %s: %s", fetch, status.message);
    return out;
}

/* Checks dtype and shape; false (after reporting) if they differ. */
static bool same_layout(const char *file, int line, const tfpi_tensor *t, tfpi_dtype dtype, int ndims,
                        const int64_t *dims)
{
    if (!t) {
        check_fail(file, line, "no tensor");
        return false;
    }
    bool same = tfpi_tensor_dtype(t) == dtype && tfpi_tensor_ndims(t) == ndims;
    for (int i = 0; same && i < ndims; i++)
        same = tfpi_tensor_dim(t, i) == dims[i];
    if (!same) {
        char got[128] = "", want[128] = "";
        for (int i = 0; i < tfpi_tensor_ndims(t); i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), " %lld", (long long)tfpi_tensor_dim(t, i));
        for (int i = 0; i < ndims; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), " %lld", (long long)dims[i]);
        check_fail(file, line, "got %s [%s ], want %s [%s ]", tfpi_dtype_name(tfpi_tensor_dtype(t)), got,
                   tfpi_dtype_name(dtype), want);
    }
    return same;
}

static bool same_element(tfpi_dtype dtype, const void *got, const void *want)
{
    if (dtype != TFPI_STRING)
        return memcmp(got, want, tfpi_dtype_size(dtype)) == 0;
    const tfpi_bytes *a = got, *b = want;
    return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

void op_check_tensor(const char *file, int line, tfpi_tensor *t, tfpi_dtype dtype, int ndims,
                     const int64_t *dims, const void *values)
{
    if (same_layout(file, line, t, dtype, ndims, dims)) {
        size_t size = tfpi_dtype_size(dtype);
        const char *got = tfpi_tensor_const_data(t), *want = values;
        for (int64_t i = 0; i < tfpi_tensor_num_elements(t); i++) {
            if (!same_element(dtype, got + (size_t)i * size, want + (size_t)i * size)) {
                check_fail(file, line, "element %lld differs", (long long)i);
                break;
            }
        }
    }
    tfpi_tensor_free(t);
}

void op_check_near(const char *file, int line, tfpi_tensor *t, int ndims, const int64_t *dims,
                   const float *values, double tol)
{
    if (same_layout(file, line, t, TFPI_FLOAT, ndims, dims)) {
        const float *got = tfpi_tensor_const_data(t);
        for (int64_t i = 0; i < tfpi_tensor_num_elements(t); i++) {
            if (!(fabs((double)got[i] - (double)values[i]) <= tol)) {
                check_fail(file, line, "element %lld: got %.9g, want %.9g (tol %g)", (long long)i,
                           (double)got[i], (double)values[i], tol);
                break;
            }
        }
    }
    tfpi_tensor_free(t);
}

void op_check_fails(const char *file, int line, const gb_graph *g, tfpi_tensor *x, const char *fetch,
                    const char *node, const char *fragment)
{
    const char *feed = "x";
    char node_part[200];
    tfpi_tensor *out = NULL;
    tfpi_status status;
    snprintf(node_part, sizeof node_part, "node '%s'", node);
    if (op_run_graph(g, x ? 1 : 0, &feed, &x, 1, &fetch, &out, 1, &status) == TFPI_OK) {
        check_fail(file, line, "running %s succeeded; expected an error about '%s'", fetch, fragment);
        tfpi_tensor_free(out);
    } else if (!strstr(status.message, node_part) || !strstr(status.message, fragment)) {
        check_fail(file, line, "error \"%s\" should name %s and contain \"%s\"", status.message, node_part,
                   fragment);
    }
}

float op_random(float lo, float hi)
{
    static uint32_t state = 12345;
    state = state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(state >> 8) / 16777216.0f;
}

bool op_near(double got, double want, double rel)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    return fabs(got - want) <= rel * fmax(1.0, fabs(want));
}

void op_expect_error(tfpi_tensor *out, const tfpi_status *status, const char *const *needles, int n)
{
    CHECK_MSG(out == NULL, "the run should have failed");
    tfpi_tensor_free(out);
    CHECK_MSG(strstr(status->message, "node 'out'") != NULL, "message '%s' does not name node 'out'",
              status->message);
    for (int i = 0; i < n; i++)
        CHECK_MSG(strstr(status->message, needles[i]) != NULL, "message '%s' lacks '%s'", status->message,
                  needles[i]);
}
