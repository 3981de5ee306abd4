/* test_reduce_softmax.c - the reductions (Sum, Mean, Max, Min, Prod, All,
 * Any, ArgMax, ArgMin in kernels/reduction.c) and Softmax / LogSoftmax
 * (kernels/softmax.c), run through small graphs. Expected values come from
 * a naive formula in this file (every input element visited once per output
 * element, double sums) on pseudo-random inputs, over many axis sets, with
 * keep_dims and negative axes in any order, 1 and 4 threads; or are worked out
 * by hand (integer cases; numpy 1.24 agrees, expression given). Errors must
 * name the node. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"

/* op(input, axes) with input fed as "a" (or constant if data_is_const). */
static tfpi_tensor *run_reduction(const char *op, tfpi_dtype dtype, const int64_t *dims, int ndims,
                                  const void *data, const int32_t *axes, int num_axes, bool keep_dims,
                                  int threads, tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", dtype, dims, ndims);
    const int64_t axes_dims[1] = {num_axes};
    gb_const(g, "axes", TFPI_INT32, axes_dims, 1, axes);
    Tfpi__NodeDef *n = gb_node(g, op, "out", "a", "axes", NULL);
    gd_attr_set_bool(n, "keep_dims", keep_dims);
    tfpi_tensor *in = op_tensor(dtype, dims, ndims, data);
    tfpi_tensor *out = op_run(g, 1, &in, threads, status);
    tfpi_tensor_free(in);
    return out;
}

/* ---- float reductions against a naive formula ------------------------------ */

typedef struct reduce_case {
    int ndims;
    int64_t dims[4];
    int num_axes;
    int32_t axes[4];
} reduce_case;

static const reduce_case reduce_cases[] = {
    {3, {2, 3, 4}, 1, {1}},
    {3, {2, 3, 4}, 2, {0, 2}},       /* two passes */
    {3, {2, 3, 4}, 1, {-1}},
    {3, {2, 3, 4}, 0, {0}},          /* no axes: a copy */
    {3, {2, 3, 4}, 3, {0, 1, 2}},
    {3, {2, 3, 4}, 3, {2, 0, -2}},   /* any order, negative */
    {3, {1, 1, 5}, 1, {0}},          /* only a size-1 dim */
    {4, {2, 7, 7, 64}, 2, {1, 2}},   /* global pooling, NHWC */
    {4, {3, 1, 5, 2}, 2, {0, 3}},
    {4, {2, 3, 4, 5}, 2, {1, 3}},
    {2, {0, 3}, 1, {0}},             /* empty reduction */
    {2, {3, 101}, 1, {1}},           /* contiguous rows longer than Max/Min's lanes, with a tail */
    {1, {1000}, 1, {0}},             /* a whole tensor, as quantize_nodes' Min and Max */
};

static double naive_identity(const char *op)
{
    if (strcmp(op, "Prod") == 0) return 1;
    if (strcmp(op, "Max") == 0) return -INFINITY;
    if (strcmp(op, "Min") == 0) return INFINITY;
    return 0;
}

static double naive_combine(const char *op, double acc, double x)
{
    if (strcmp(op, "Prod") == 0) return acc * x;
    if (strcmp(op, "Max") == 0) return x > acc ? x : acc;
    if (strcmp(op, "Min") == 0) return x < acc ? x : acc;
    return acc + x;
}

static void check_reduce_case(const char *op, const reduce_case *c, bool keep_dims, int threads)
{
    int64_t count = 1;
    bool reduced[4] = {false, false, false, false};
    for (int d = 0; d < c->ndims; d++)
        count *= c->dims[d];
    for (int i = 0; i < c->num_axes; i++)
        reduced[c->axes[i] < 0 ? c->axes[i] + c->ndims : c->axes[i]] = true;
    float *x = malloc(sizeof(float) * (size_t)(count + 1));
    for (int64_t i = 0; i < count; i++)
        x[i] = op_random(0.5f, 1.5f) * (op_random(0, 1) < 0.3f ? -1.0f : 1.0f);
    tfpi_status status;
    tfpi_tensor *out = run_reduction(op, TFPI_FLOAT, c->dims, c->ndims, x, c->axes, c->num_axes, keep_dims,
                                     threads, &status);
    CHECK_MSG(out != NULL, "%s: %s", op, status.message);
    if (!out) {
        free(x);
        return;
    }
    /* expected shape, and the output index of every input element */
    int out_ndims = 0;
    int64_t out_dims[4], out_count = 1, reduced_count = 1;
    for (int d = 0; d < c->ndims; d++) {
        if (reduced[d])
            reduced_count *= c->dims[d];
        else
            out_count *= c->dims[d];
        if (!reduced[d] || keep_dims)
            out_dims[out_ndims++] = reduced[d] ? 1 : c->dims[d];
    }
    CHECK_EQ_INT(tfpi_tensor_ndims(out), out_ndims);
    for (int d = 0; d < out_ndims; d++)
        CHECK_EQ_INT(tfpi_tensor_dim(out, d), out_dims[d]);
    double *want = malloc(sizeof(double) * (size_t)(out_count + 1));
    for (int64_t o = 0; o < out_count; o++)
        want[o] = naive_identity(op);
    for (int64_t i = 0; i < count; i++) {
        int64_t rest = i, o = 0, stride = 1;
        for (int d = c->ndims - 1; d >= 0; d--) {
            int64_t coord = rest % c->dims[d];
            rest /= c->dims[d];
            if (!reduced[d]) {
                o += coord * stride;
                stride *= c->dims[d];
            }
        }
        want[o] = naive_combine(op, want[o], x[i]);
    }
    const float *y = tfpi_tensor_data(out);
    for (int64_t o = 0; o < out_count; o++) {
        double w = strcmp(op, "Mean") == 0 ? want[o] / (double)reduced_count : want[o];
        CHECK_MSG(op_near(y[o], w, 1e-5),
                  "%s %dD axes[0]=%d keep_dims=%d: [%lld] %.9g, want %.9g", op, c->ndims, c->axes[0], keep_dims,
                  (long long)o, y[o], w);
    }
    free(want);
    tfpi_tensor_free(out);
    free(x);
}

static void test_float_reductions(void)
{
    static const char *const ops[] = {"Sum", "Mean", "Max", "Min", "Prod"};
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t c = 0; c < sizeof reduce_cases / sizeof *reduce_cases; c++)
            for (int keep = 0; keep <= 1; keep++)
                for (int threads = 1; threads <= 4; threads += 3)
                    check_reduce_case(ops[o], &reduce_cases[c], keep, threads);
}

/* ---- integer and bool reductions: worked-out numbers --------------------- */

static void test_int_reductions(void)
{
    /* x = [[1, -2, -6], [4, 5, -7]] int32 */
    const int32_t x[6] = {1, -2, -6, 4, 5, -7};
    const int64_t dims[2] = {2, 3};
    static const struct {
        const char *op;
        int32_t axis;
        int n;
        int32_t want[3];
    } cases[] = {
        {"Sum", 1, 2, {-7, 2}},       /* x.sum(1) */
        {"Mean", 1, 2, {-2, 0}},      /* np.trunc(x.sum(1) / 3): integer Mean truncates */
        {"Prod", 0, 3, {4, -10, 42}}, /* x.prod(0) */
        {"Max", -1, 2, {1, 5}},       /* x.max(-1) */
        {"Min", 0, 3, {1, -2, -7}},   /* x.min(0) */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tfpi_status status;
        tfpi_tensor *out = run_reduction(cases[c].op, TFPI_INT32, dims, 2, x, &cases[c].axis, 1, false, 1,
                                         &status);
        CHECK_MSG(out != NULL, "%s: %s", cases[c].op, status.message);
        if (!out)
            continue;
        CHECK_EQ_INT(tfpi_tensor_num_elements(out), cases[c].n);
        for (int i = 0; i < cases[c].n; i++)
            CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[i], cases[c].want[i]);
        tfpi_tensor_free(out);
    }
    /* int32 Sum wraps: 2**31-1 + 1; int64 Sum of the same is 2**31 */
    const int32_t big32[2] = {INT32_MAX, 1};
    const int64_t big64[2] = {INT32_MAX, 1}, two[1] = {2};
    const int32_t axis0 = 0;
    tfpi_status status;
    tfpi_tensor *out = run_reduction("Sum", TFPI_INT32, two, 1, big32, &axis0, 1, false, 1, &status);
    CHECK(out && *(int32_t *)tfpi_tensor_data(out) == INT32_MIN);
    tfpi_tensor_free(out);
    out = run_reduction("Sum", TFPI_INT64, two, 1, big64, &axis0, 1, false, 1, &status);
    CHECK(out && *(int64_t *)tfpi_tensor_data(out) == (int64_t)INT32_MAX + 1);
    tfpi_tensor_free(out);

    /* b = [[T, F, T], [T, T, T]]: b.all(1) = [F, T], b.all(0) = [T, F, T], b.any(0) = [T, T, T] */
    const uint8_t b[6] = {1, 0, 1, 1, 1, 1}, want_all[2] = {0, 1}, want_all0[3] = {1, 0, 1}, want_any[3] = {1, 1, 1};
    const int32_t axis1 = 1;
    out = run_reduction("All", TFPI_BOOL, dims, 2, b, &axis1, 1, false, 1, &status);
    CHECK_MSG(out && memcmp(tfpi_tensor_data(out), want_all, 2) == 0, "All: %s", out ? "" : status.message);
    tfpi_tensor_free(out);
    out = run_reduction("All", TFPI_BOOL, dims, 2, b, &axis0, 1, false, 1, &status);
    CHECK_MSG(out && memcmp(tfpi_tensor_data(out), want_all0, 3) == 0, "All over axis 0: %s",
              out ? "" : status.message);
    tfpi_tensor_free(out);
    out = run_reduction("Any", TFPI_BOOL, dims, 2, b, &axis0, 1, false, 1, &status);
    CHECK_MSG(out && memcmp(tfpi_tensor_data(out), want_any, 3) == 0, "Any: %s", out ? "" : status.message);
    tfpi_tensor_free(out);
}

static void test_reduction_errors(void)
{
    const float x[6] = {0};
    const int64_t dims[2] = {2, 3};
    const int32_t axis = 2;
    tfpi_status status;
    tfpi_tensor *out = run_reduction("Sum", TFPI_FLOAT, dims, 2, x, &axis, 1, false, 1, &status);
    op_expect_error(out, &status, (const char *[]){"axis 2", "[2,3]"}, 2);

    /* axes that are only known at run time */
    gb_graph *g = gb_new();
    const int64_t one[1] = {1};
    gb_const(g, "x", TFPI_FLOAT, dims, 2, x);
    gb_placeholder(g, "a", TFPI_INT32, one, 1);
    gb_node(g, "Mean", "out", "x", "a", NULL);
    tfpi_tensor *axes = op_tensor(TFPI_INT32, one, 1, NULL);
    out = op_run(g, 1, &axes, 1, &status);
    op_expect_error(out, &status, (const char *[]){"input 1"}, 1);
    tfpi_tensor_free(axes);
}

/* ---- ArgMax / ArgMin --------------------------------------------------------- */

static tfpi_tensor *run_arg(const char *op, const float *x, const int64_t *dims, int ndims, int64_t axis,
                            tfpi_dtype output_type, tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, dims, ndims, x);
    gb_const(g, "dim", TFPI_INT64, NULL, 0, &axis);
    Tfpi__NodeDef *n = gb_node(g, op, "out", "x", "dim", NULL);
    if (output_type)
        gd_attr_set_type(n, "output_type", output_type);
    return op_run(g, 0, NULL, 1, status);
}

static void test_arg_max_min(void)
{
    /* x = [[1, 5, 5, 2], [7, 0, 7, -1]]: ties give the first index, as np.argmax */
    const float x[8] = {1, 5, 5, 2, 7, 0, 7, -1};
    const int64_t dims[2] = {2, 4};
    tfpi_status status;
    tfpi_tensor *out = run_arg("ArgMax", x, dims, 2, 1, 0, &status); /* x.argmax(1) = [1, 0] */
    CHECK_MSG(out != NULL, "%s", status.message);
    if (out) {
        CHECK_EQ_INT(tfpi_tensor_dtype(out), TFPI_INT64);
        CHECK_EQ_INT(((int64_t *)tfpi_tensor_data(out))[0], 1);
        CHECK_EQ_INT(((int64_t *)tfpi_tensor_data(out))[1], 0);
    }
    tfpi_tensor_free(out);
    out = run_arg("ArgMin", x, dims, 2, -1, TFPI_INT32, &status); /* x.argmin(-1) = [0, 3] */
    CHECK_MSG(out != NULL, "%s", status.message);
    if (out) {
        CHECK_EQ_INT(tfpi_tensor_dtype(out), TFPI_INT32);
        CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[0], 0);
        CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[1], 3);
    }
    tfpi_tensor_free(out);
    out = run_arg("ArgMax", x, dims, 2, 0, 0, &status); /* x.argmax(0) = [1, 0, 1, 0] */
    const int64_t want[4] = {1, 0, 1, 0};
    CHECK(out && tfpi_tensor_num_elements(out) == 4 && memcmp(tfpi_tensor_data(out), want, sizeof want) == 0);
    tfpi_tensor_free(out);

    out = run_arg("ArgMax", x, dims, 2, 2, 0, &status);
    op_expect_error(out, &status, (const char *[]){"dimension 2", "[2,4]"}, 2);
    const int64_t empty[2] = {2, 0};
    out = run_arg("ArgMax", x, empty, 2, 1, 0, &status);
    op_expect_error(out, &status, (const char *[]){"empty"}, 1);
}

/* ---- Softmax / LogSoftmax ------------------------------------------------------ */

static tfpi_tensor *run_softmax(const char *op, const float *x, const int64_t *dims, int ndims, int threads,
                                tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_FLOAT, dims, ndims);
    gb_node(g, op, "out", "a", NULL);
    tfpi_tensor *in = op_tensor(TFPI_FLOAT, dims, ndims, x);
    tfpi_tensor *out = op_run(g, 1, &in, threads, status);
    tfpi_tensor_free(in);
    return out;
}

static void check_softmax_shape(const int64_t *dims, int ndims, int threads)
{
    int64_t count = 1, n = dims[ndims - 1];
    for (int d = 0; d < ndims; d++)
        count *= dims[d];
    float *x = malloc(sizeof(float) * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        x[i] = op_random(-20, 20);
    tfpi_status status;
    tfpi_tensor *soft = run_softmax("Softmax", x, dims, ndims, threads, &status);
    tfpi_tensor *log_soft = run_softmax("LogSoftmax", x, dims, ndims, threads, &status);
    CHECK_MSG(soft && log_soft, "%s", status.message);
    for (int64_t row = 0; soft && log_soft && row < count / n; row++) {
        const float *xr = x + row * n;
        double sum = 0;
        for (int64_t i = 0; i < n; i++)
            sum += exp((double)xr[i]);
        for (int64_t i = 0; i < n; i++) {
            double p = exp((double)xr[i]) / sum;
            CHECK(op_near(((float *)tfpi_tensor_data(soft))[row * n + i], p, 1e-5));
            CHECK(op_near(((float *)tfpi_tensor_data(log_soft))[row * n + i], xr[i] - log(sum), 1e-5));
        }
    }
    tfpi_tensor_free(soft);
    tfpi_tensor_free(log_soft);
    free(x);
}

static void test_softmax(void)
{
    const int64_t vector[1] = {10}, matrix[2] = {3, 7}, cube[3] = {2, 2, 5}, wide[2] = {300, 1001};
    check_softmax_shape(vector, 1, 1);
    check_softmax_shape(matrix, 2, 1);
    check_softmax_shape(cube, 3, 4);
    check_softmax_shape(wide, 2, 4);

    /* large logits stay finite: softmax([1000, 1001, 1002]) = softmax([0, 1, 2])
     * = [0.0900305732, 0.244728471, 0.665240956]; log of it = [-2.40760596, -1.40760596, -0.40760596] */
    const float big[3] = {1000, 1001, 1002};
    const double want_p[3] = {0.0900305732, 0.244728471, 0.665240956};
    const double want_log[3] = {-2.40760596, -1.40760596, -0.40760596};
    const int64_t three[1] = {3};
    tfpi_status status;
    tfpi_tensor *soft = run_softmax("Softmax", big, three, 1, 1, &status);
    tfpi_tensor *log_soft = run_softmax("LogSoftmax", big, three, 1, 1, &status);
    CHECK(soft && log_soft);
    for (int i = 0; soft && log_soft && i < 3; i++) {
        CHECK_NEAR(((float *)tfpi_tensor_data(soft))[i], want_p[i], 1e-6);
        CHECK_NEAR(((float *)tfpi_tensor_data(log_soft))[i], want_log[i], 1e-5);
    }
    tfpi_tensor_free(soft);
    tfpi_tensor_free(log_soft);

    const float scalar = 1;
    tfpi_tensor *out = run_softmax("Softmax", &scalar, NULL, 0, 1, &status);
    op_expect_error(out, &status, (const char *[]){"rank"}, 1);
}

int main(void)
{
    RUN(test_float_reductions);
    RUN(test_int_reductions);
    RUN(test_reduction_errors);
    RUN(test_arg_max_min);
    RUN(test_softmax);
    return check_summary();
}
