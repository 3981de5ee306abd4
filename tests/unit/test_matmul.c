/* test_matmul.c - MatMul, BatchMatMul and BatchMatMulV2 run through small
 * graphs (a fed, b constant), checked against
 *  (a) numpy results hard-coded below (a @ b, np.matmul with its batch
 *      broadcasting, .T / np.swapaxes for the transposes), and
 *  (b) a naive triple loop in this file (double sums, broadcasting worked
 *      out per output matrix) on random inputs, with 1 and 3 threads, and
 *      with a bias and Relu that the plan fuses into the product;
 * and the errors for bad ranks, inner and batch dimension mismatches, which
 * must name the node. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "test_util.h"

typedef struct matmul_case {
    const char *op; /* MatMul, BatchMatMul, BatchMatMulV2 */
    int a_rank, b_rank;
    int64_t a[5], b[5];
    bool transpose_a, transpose_b; /* transpose_a/_b for MatMul, adj_x/_y otherwise */
} matmul_case;

static gb_graph *build_case(const matmul_case *c, const float *b_values, const char *name)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_FLOAT, c->a, c->a_rank);
    gb_const(g, "b", TFPI_FLOAT, c->b, c->b_rank, b_values);
    Tfpi__NodeDef *n = gb_node(g, c->op, name, "a", "b", NULL);
    gd_attr_set_type(n, "T", TFPI_FLOAT);
    const bool matmul = strcmp(c->op, "MatMul") == 0;
    gd_attr_set_bool(n, matmul ? "transpose_a" : "adj_x", c->transpose_a);
    gd_attr_set_bool(n, matmul ? "transpose_b" : "adj_y", c->transpose_b);
    return g;
}

static tfpi_tensor *run_case(const matmul_case *c, const float *a, const float *b, int num_threads)
{
    return run_float_graph(build_case(c, b, "product"), "a", a, c->a, c->a_rank, "product", num_threads,
                           NULL);
}

static void check_output(const matmul_case *c, const tfpi_tensor *out, const int64_t *dims, int ndims,
                         const float *want, double tol)
{
    CHECK_EQ_INT(tfpi_tensor_ndims(out), ndims);
    for (int i = 0; i < ndims && tfpi_tensor_ndims(out) == ndims; i++)
        CHECK_MSG(tfpi_tensor_dim(out, i) == dims[i], "%s: dim %d is %lld, want %lld", c->op, i,
                  (long long)tfpi_tensor_dim(out, i), (long long)dims[i]);
    if (tfpi_tensor_num_elements(out) != dims_product(dims, ndims))
        return;
    diff_stats d = compare_floats(tfpi_tensor_const_data(out), want, (size_t)dims_product(dims, ndims));
    CHECK_MSG(d.max_abs <= tol, "%s: max |diff| %g > %g", c->op, d.max_abs, tol);
}

/* ---- hard-coded numpy results ------------------------------------------- */

/* In numpy: a = (np.arange(n) % 5 - 2), b = (np.arange(n) % 7 - 3) * 0.5,
 * reshaped to the case's shapes. */
static void check_fixed(const matmul_case *c, const int64_t *dims, int ndims, const float *want)
{
    float a[64], b[64];
    for (int i = 0; i < 64; i++) {
        a[i] = (float)(i % 5 - 2);
        b[i] = (float)(i % 7 - 3) * 0.5f;
    }
    tfpi_tensor *out = run_case(c, a, b, 1);
    if (out)
        check_output(c, out, dims, ndims, want, 1e-6);
    tfpi_tensor_free(out);
}

static void test_matmul_fixed_transposes(void)
{
    const int64_t dims[2] = {2, 4};
    const matmul_case plain = {"MatMul", 2, 2, {2, 3}, {3, 4}, false, false};
    const float want_plain[] = {2.5, 1, -0.5, 1.5, 1.5, 2, 2.5, -4}; /* a @ b */
    check_fixed(&plain, dims, 2, want_plain);
    const matmul_case ta = {"MatMul", 2, 2, {3, 2}, {3, 4}, true, false};
    const float want_ta[] = {1, 1, 1, 1, 4, 3, 2, -2.5}; /* a.T @ b */
    check_fixed(&ta, dims, 2, want_ta);
    const matmul_case tb = {"MatMul", 2, 2, {2, 3}, {4, 3}, false, true};
    const float want_tb[] = {4, -0.5, -1.5, 1, -2.5, -1, 0.5, -1.5}; /* a @ b.T */
    check_fixed(&tb, dims, 2, want_tb);
    const matmul_case tab = {"MatMul", 2, 2, {3, 2}, {4, 3}, true, true};
    const float want_tab[] = {2, 2, -5, 2, 1.5, -1.5, -1, -0.5}; /* a.T @ b.T */
    check_fixed(&tab, dims, 2, want_tab);
}

static void test_batch_matmul_v2_fixed_broadcast(void)
{
    /* np.matmul(a[2,1,2,3], b[3,3,2]) -> [2,3,2,2] */
    const matmul_case c = {"BatchMatMulV2", 4, 3, {2, 1, 2, 3}, {3, 3, 2}, false, false};
    const int64_t dims[4] = {2, 3, 2, 2};
    const float want[] = {3.5, 2,  -3.5, -3, -2,   3.5,  -0.5, -3.5, -0.5, -2,  -1,  -0.5,
                          2,   2,  -2.5, -3, -1.5, 2,    5,    -2.5, -1.5, -1.5, 5.5, 5};
    check_fixed(&c, dims, 4, want);
}

static void test_batch_matmul_v2_fixed_adjoint_rank2(void)
{
    /* np.matmul(np.swapaxes(a[2,3,2], -1, -2), b[2,3].T) -> [2,2,2] */
    const matmul_case c = {"BatchMatMulV2", 3, 2, {2, 3, 2}, {2, 3}, true, true};
    const int64_t dims[3] = {2, 2, 2};
    const float want[] = {2, 2, 1.5, -1.5, 1.5, -1.5, -1.5, 0};
    check_fixed(&c, dims, 3, want);
}

static void test_batch_matmul_fixed_adj_y(void)
{
    /* np.matmul(a[3,2,2], np.swapaxes(b[3,2,2], -1, -2)) -> [3,2,2] */
    const matmul_case c = {"BatchMatMul", 3, 3, {3, 2, 2}, {3, 2, 2}, false, true};
    const int64_t dims[3] = {3, 2, 2};
    const float want[] = {4, 1, -1, 0, -1, 6, -0.5, -1.5, -2, 1, 2.5, -0.5};
    check_fixed(&c, dims, 3, want);
}

/* ---- random cases against a naive triple loop ------------------------------ */

static void fill_random(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
}

/* Output dims (numpy broadcasting of the batch dims, then m and n) and values. */
static float *naive_matmul(const matmul_case *c, const float *a, const float *b, int64_t *dims, int *ndims)
{
    const int rank = c->a_rank > c->b_rank ? c->a_rank : c->b_rank;
    const int64_t *am = c->a + c->a_rank - 2, *bm = c->b + c->b_rank - 2;
    const int64_t M = c->transpose_a ? am[1] : am[0], K = c->transpose_a ? am[0] : am[1];
    const int64_t N = c->transpose_b ? bm[0] : bm[1];
    int64_t a_batch[5], b_batch[5]; /* batch dims right-aligned to rank - 2, padded with 1 */
    for (int i = 0; i < rank - 2; i++) {
        const int ai = i - (rank - c->a_rank), bi = i - (rank - c->b_rank);
        a_batch[i] = ai >= 0 ? c->a[ai] : 1;
        b_batch[i] = bi >= 0 ? c->b[bi] : 1;
        dims[i] = a_batch[i] > b_batch[i] ? a_batch[i] : b_batch[i];
    }
    dims[rank - 2] = M;
    dims[rank - 1] = N;
    *ndims = rank;
    const int64_t batches = dims_product(dims, rank - 2);
    float *out = malloc(sizeof(float) * (size_t)(batches * M * N) + 1);
    for (int64_t batch = 0; batch < batches; batch++) {
        int64_t a_matrix = 0, b_matrix = 0, rest = batch, a_scale = 1, b_scale = 1;
        for (int i = rank - 3; i >= 0; i--) {
            const int64_t coord = rest % dims[i];
            rest /= dims[i];
            a_matrix += (a_batch[i] == 1 ? 0 : coord) * a_scale;
            b_matrix += (b_batch[i] == 1 ? 0 : coord) * b_scale;
            a_scale *= a_batch[i];
            b_scale *= b_batch[i];
        }
        const float *A = a + a_matrix * M * K, *B = b + b_matrix * K * N;
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double sum = 0;
                for (int64_t k = 0; k < K; k++)
                    sum += (double)(c->transpose_a ? A[k * M + i] : A[i * K + k]) *
                           (c->transpose_b ? B[j * K + k] : B[k * N + j]);
                out[(batch * M + i) * N + j] = (float)sum;
            }
    }
    return out;
}

static void check_against_naive(const matmul_case *c)
{
    const int64_t a_count = dims_product(c->a, c->a_rank), b_count = dims_product(c->b, c->b_rank);
    float *a = malloc(sizeof(float) * (size_t)a_count), *b = malloc(sizeof(float) * (size_t)b_count);
    fill_random(a, a_count);
    fill_random(b, b_count);
    int64_t dims[5];
    int ndims;
    float *want = naive_matmul(c, a, b, dims, &ndims);
    for (int threads = 1; threads <= 3; threads += 2) {
        tfpi_tensor *out = run_case(c, a, b, threads);
        if (out)
            check_output(c, out, dims, ndims, want, 1e-4);
        tfpi_tensor_free(out);
    }
    free(want);
    free(a);
    free(b);
}

static void test_matmul_against_naive(void)
{
    for (int t = 0; t < 4; t++) {
        const bool ta = t & 1, tb = t & 2;
        const matmul_case c = {"MatMul", 2, 2, {ta ? 53 : 37, ta ? 37 : 53}, {tb ? 29 : 53, tb ? 53 : 29},
                               ta, tb};
        check_against_naive(&c);
    }
    const matmul_case row = {"MatMul", 2, 2, {1, 256}, {256, 101}, false, false}; /* a classifier layer */
    check_against_naive(&row);
}

static void test_batch_matmul_against_naive(void)
{
    static const matmul_case cases[] = {
        {"BatchMatMul", 3, 3, {4, 9, 6}, {4, 6, 7}, false, false},
        {"BatchMatMul", 4, 4, {2, 3, 6, 9}, {2, 3, 7, 6}, true, true},
        {"BatchMatMulV2", 4, 3, {4, 1, 5, 6}, {3, 6, 7}, false, false},
        {"BatchMatMulV2", 3, 5, {1, 6, 5}, {2, 1, 3, 7, 6}, true, true},
        {"BatchMatMulV2", 2, 3, {5, 6}, {3, 6, 4}, false, false}, /* a broadcast over b's batch */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_against_naive(&cases[i]);
}

/* MatMul -> BiasAdd -> Relu, as in a classifier's hidden layer: the plan
 * fuses the bias and activation into the MatMul, which must give the naive
 * product followed by the same float operations. */
static void test_matmul_fused_bias_relu(void)
{
    const matmul_case c = {"BatchMatMulV2", 3, 2, {2, 5, 16}, {16, 12}, false, false};
    float a[160], b[192], bias[12];
    fill_random(a, 160);
    fill_random(b, 192);
    fill_random(bias, 12);
    int64_t dims[5];
    int ndims;
    float *want = naive_matmul(&c, a, b, dims, &ndims);
    for (int64_t i = 0; i < dims_product(dims, ndims); i++) {
        const float y = want[i] + bias[i % 12];
        want[i] = y < 0 ? 0.0f : y;
    }
    gb_graph *g = build_case(&c, b, "product");
    const int64_t bias_dims[1] = {12};
    gb_const(g, "bias", TFPI_FLOAT, bias_dims, 1, bias);
    gb_node(g, "BiasAdd", "biased", "product", "bias", NULL);
    gb_node(g, "Relu", "activated", "biased", NULL);
    int steps = 0;
    tfpi_tensor *out = run_float_graph(g, "a", a, c.a, c.a_rank, "activated", 2, &steps);
    if (out)
        check_output(&c, out, dims, ndims, want, 1e-4);
    CHECK_MSG(steps == 1, "%d nodes ran; BiasAdd and Relu should be fused into the product", steps);
    tfpi_tensor_free(out);
    free(want);
}

/* ---- errors --------------------------------------------------------------- */

/* Planning a case must fail with `code` and a message naming the node and
 * containing `detail`. */
static void check_error(const matmul_case *c, tfpi_code code, const char *detail)
{
    static const float zeros[256];
    tfpi_status status;
    gb_graph *g = build_case(c, zeros, "bad_product");
    tfpi_graph *graph = gb_load(g, &status);
    gb_free(g);
    CHECK_MSG(graph, "load: %s", status.message);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    tfpi_tensor *in = tfpi_tensor_new(TFPI_FLOAT, c->a, c->a_rank, &status), *out = NULL;
    const char *feed = "a", *fetch = "bad_product";
    CHECK_MSG(session && in, "setup: %s", status.message);
    if (session && in) {
        CHECK_EQ_INT(tfpi_session_run(session, &feed, &in, 1, &fetch, &out, 1, &status), code);
        CHECK_MSG(strstr(status.message, "'bad_product'") && strstr(status.message, detail),
                  "message \"%s\" should name 'bad_product' and say \"%s\"", status.message, detail);
    }
    tfpi_tensor_free(out);
    tfpi_tensor_free(in);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

static void test_matmul_errors(void)
{
    const matmul_case inner = {"MatMul", 2, 2, {2, 3}, {4, 5}, false, false};
    check_error(&inner, TFPI_INVALID_ARGUMENT, "matrix sizes are incompatible: [2,3] (transpose_a=false)");
    const matmul_case inner_t = {"MatMul", 2, 2, {2, 3}, {2, 5}, true, true};
    check_error(&inner_t, TFPI_INVALID_ARGUMENT, "inner dimensions 2 and 5");
    const matmul_case rank3 = {"MatMul", 3, 2, {1, 2, 3}, {3, 4}, false, false};
    check_error(&rank3, TFPI_INVALID_ARGUMENT, "inputs must be 2-D matrices, got [1,2,3] and [3,4]");
    const matmul_case rank1 = {"BatchMatMulV2", 1, 2, {3}, {3, 4}, false, false};
    check_error(&rank1, TFPI_INVALID_ARGUMENT, "inputs must be at least 2-D");
    const matmul_case bcast = {"BatchMatMulV2", 3, 3, {2, 2, 3}, {3, 3, 4}, false, false};
    check_error(&bcast, TFPI_INVALID_ARGUMENT, "batch dimensions of [2,2,3] and [3,3,4] cannot be broadcast");
    const matmul_case v1_batch = {"BatchMatMul", 3, 3, {2, 2, 3}, {1, 3, 4}, false, false};
    check_error(&v1_batch, TFPI_INVALID_ARGUMENT, "batch dimensions of [2,2,3] and [1,3,4] differ");
    const matmul_case v1_rank = {"BatchMatMul", 3, 2, {2, 2, 3}, {3, 4}, false, false};
    check_error(&v1_rank, TFPI_INVALID_ARGUMENT, "inputs must have the same rank");
}

int main(void)
{
    srand(2024);
    RUN(test_matmul_fixed_transposes);
    RUN(test_batch_matmul_v2_fixed_broadcast);
    RUN(test_batch_matmul_v2_fixed_adjoint_rank2);
    RUN(test_batch_matmul_fixed_adj_y);
    RUN(test_matmul_against_naive);
    RUN(test_batch_matmul_against_naive);
    RUN(test_matmul_fused_bias_relu);
    RUN(test_matmul_errors);
    return check_summary();
}
