/* test_cwise_binary.c - the elementwise kernels of two or three operands:
 * arithmetic, comparisons and logic with broadcasting (kernels/cwise_binary.c)
 * and Select / SelectV2 (kernels/select.c), run through small graphs.
 * Expected values come from
 *  (a) numpy 1.24 (/usr/bin/python3), hard-coded below with the numpy
 *      expression that produced them, for the exact semantics (integer
 *      division and modulo, wrap-around, comparisons), or
 *  (b) a naive formula in this file: per-output multi-index broadcasting
 *      and double-precision arithmetic, on pseudo-random inputs, with 1 and
 *      4 threads;
 * plus the errors (incompatible shapes, mixed types, division by zero),
 * which must name the node. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"

/* Runs op(a, b) with both operands fed, for tests with hard-coded numbers. */
static tfpi_tensor *run_binary(const char *op, tfpi_dtype dtype, const int64_t *a_dims, int a_ndims,
                               const void *a, const int64_t *b_dims, int b_ndims, const void *b,
                               tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", dtype, a_dims, a_ndims);
    gb_placeholder(g, "b", dtype, b_dims, b_ndims);
    gd_attr_set_type(gb_node(g, op, "out", "a", "b", NULL), "T", dtype);
    tfpi_tensor *feeds[2] = {op_tensor(dtype, a_dims, a_ndims, a), op_tensor(dtype, b_dims, b_ndims, b)};
    tfpi_tensor *out = op_run(g, 2, feeds, 1, status);
    tfpi_tensor_free(feeds[0]);
    tfpi_tensor_free(feeds[1]);
    return out;
}

/* ---- binary float ops against a naive broadcast --------------------------- */

typedef struct shape {
    int ndims;
    int64_t dims[5];
} shape;

typedef struct broadcast_case {
    shape a, b, out;
} broadcast_case;

static const broadcast_case broadcast_cases[] = {
    {{2, {2, 3}}, {2, {2, 3}}, {2, {2, 3}}},                   /* same shape */
    {{4, {1, 4, 4, 8}}, {1, {8}}, {4, {1, 4, 4, 8}}},          /* per-channel */
    {{2, {3, 1}}, {2, {1, 4}}, {2, {3, 4}}},                   /* outer product */
    {{0, {0}}, {2, {2, 3}}, {2, {2, 3}}},                      /* scalar a */
    {{2, {2, 3}}, {0, {0}}, {2, {2, 3}}},                      /* scalar b */
    {{3, {2, 1, 3}}, {2, {4, 1}}, {3, {2, 4, 3}}},             /* rank mismatch */
    {{3, {5, 1, 7}}, {3, {5, 6, 1}}, {3, {5, 6, 7}}},
    {{1, {1}}, {4, {2, 1, 3, 1}}, {4, {2, 1, 3, 1}}},
    {{4, {1, 64, 64, 32}}, {1, {32}}, {4, {1, 64, 64, 32}}},   /* big: threads */
    {{4, {2, 33, 40, 3}}, {4, {2, 33, 40, 3}}, {4, {2, 33, 40, 3}}},
    {{2, {0, 3}}, {1, {3}}, {2, {0, 3}}},                      /* empty */
};

static double naive_binary(const char *op, double x, double y)
{
    if (strcmp(op, "Add") == 0 || strcmp(op, "AddV2") == 0) return x + y;
    if (strcmp(op, "Sub") == 0) return x - y;
    if (strcmp(op, "Mul") == 0) return x * y;
    if (strcmp(op, "RealDiv") == 0 || strcmp(op, "Div") == 0) return x / y;
    if (strcmp(op, "Maximum") == 0) return x > y ? x : y;
    if (strcmp(op, "Minimum") == 0) return x < y ? x : y;
    if (strcmp(op, "SquaredDifference") == 0) return (x - y) * (x - y);
    return NAN;
}

/* Index into an operand of shape s for output multi-index idx of rank n. */
static int64_t operand_index(const shape *s, const int64_t *idx, int n)
{
    int64_t index = 0;
    for (int d = 0; d < s->ndims; d++) {
        int64_t size = s->dims[d];
        index = index * size + (size == 1 ? 0 : idx[n - s->ndims + d]);
    }
    return index;
}

static int64_t shape_count(const shape *s)
{
    int64_t n = 1;
    for (int d = 0; d < s->ndims; d++)
        n *= s->dims[d];
    return n;
}

static void check_broadcast_case(const char *op, const broadcast_case *c, int threads)
{
    int64_t na = shape_count(&c->a), nb = shape_count(&c->b), nout = shape_count(&c->out);
    float *a = malloc(sizeof(float) * (size_t)(na + 1)), *b = malloc(sizeof(float) * (size_t)(nb + 1));
    for (int64_t i = 0; i < na; i++)
        a[i] = op_random(-4, 4);
    for (int64_t i = 0; i < nb; i++) /* away from 0, for the divisions */
        b[i] = op_random(0.5f, 3) * (op_random(0, 1) < 0.5f ? -1.0f : 1.0f);
    tfpi_status status;
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_FLOAT, c->a.dims, c->a.ndims);
    gb_placeholder(g, "b", TFPI_FLOAT, c->b.dims, c->b.ndims);
    gb_node(g, op, "out", "a", "b", NULL);
    tfpi_tensor *feeds[2] = {op_tensor(TFPI_FLOAT, c->a.dims, c->a.ndims, a),
                             op_tensor(TFPI_FLOAT, c->b.dims, c->b.ndims, b)};
    tfpi_tensor *out = op_run(g, 2, feeds, threads, &status);
    CHECK_MSG(out != NULL, "%s: %s", op, status.message);
    if (out) {
        CHECK_EQ_INT(tfpi_tensor_ndims(out), c->out.ndims);
        for (int d = 0; d < c->out.ndims; d++)
            CHECK_EQ_INT(tfpi_tensor_dim(out, d), c->out.dims[d]);
        const float *y = tfpi_tensor_data(out);
        int bad = 0;
        for (int64_t i = 0; i < nout && bad < 5; i++) {
            int64_t idx[5], rest = i;
            for (int d = c->out.ndims - 1; d >= 0; d--) {
                idx[d] = rest % c->out.dims[d];
                rest /= c->out.dims[d];
            }
            double want = naive_binary(op, a[operand_index(&c->a, idx, c->out.ndims)],
                                       b[operand_index(&c->b, idx, c->out.ndims)]);
            if (!op_near(y[i], want, 1e-6)) {
                bad++;
                CHECK_MSG(0, "%s %dD+%dD element %lld: %.9g, want %.9g", op, c->a.ndims, c->b.ndims,
                          (long long)i, y[i], want);
            }
        }
    }
    tfpi_tensor_free(out);
    tfpi_tensor_free(feeds[0]);
    tfpi_tensor_free(feeds[1]);
    free(a);
    free(b);
}

static void test_broadcast_float_ops(void)
{
    static const char *const ops[] = {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div",
                                      "Maximum", "Minimum", "SquaredDifference"};
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t c = 0; c < sizeof broadcast_cases / sizeof *broadcast_cases; c++)
            for (int threads = 1; threads <= 4; threads += 3)
                check_broadcast_case(ops[o], &broadcast_cases[c], threads);
}

/* ---- binary ops: exact semantics --------------------------------------- */

/* numpy, int32: a = [7,-7,7,-7,0,5,-2**31,2**31-1], b = [2,2,-2,-2,3,-1,-1,1] */
static const int32_t int_a[8] = {7, -7, 7, -7, 0, 5, INT32_MIN, INT32_MAX};
static const int32_t int_b[8] = {2, 2, -2, -2, 3, -1, -1, 1};

typedef struct int_case {
    const char *op;
    int32_t want[8];
} int_case;

static const int_case int_cases[] = {
    {"FloorDiv", {3, -4, -4, 3, 0, -5, INT32_MIN, INT32_MAX}},          /* np.floor_divide, wrapped */
    {"FloorMod", {1, 1, -1, -1, 0, 0, 0, 0}},                           /* np.mod */
    {"Div", {3, -3, -3, 3, 0, -5, INT32_MIN, INT32_MAX}},               /* sign(a*b) * (|a| // |b|) */
    {"TruncateDiv", {3, -3, -3, 3, 0, -5, INT32_MIN, INT32_MAX}},
    {"Add", {9, -5, 5, -9, 3, 4, INT32_MAX, INT32_MIN}},                /* a + b (wraps) */
    {"Sub", {5, -9, 9, -5, -3, 6, -2147483647, 2147483646}},            /* a - b */
    {"Mul", {14, -14, -14, 14, 0, -5, INT32_MIN, INT32_MAX}},           /* a * b */
    {"Maximum", {7, 2, 7, -2, 3, 5, -1, INT32_MAX}},
    {"Minimum", {2, -7, -2, -7, 0, -1, INT32_MIN, 1}},
    {"SquaredDifference", {25, 81, 81, 25, 9, 36, 1, 4}},               /* (a - b)**2 in int32 */
};

static void test_int32_semantics(void)
{
    const int64_t dims[1] = {8};
    for (size_t c = 0; c < sizeof int_cases / sizeof *int_cases; c++) {
        tfpi_status status;
        tfpi_tensor *out = run_binary(int_cases[c].op, TFPI_INT32, dims, 1, int_a, dims, 1, int_b, &status);
        CHECK_MSG(out != NULL, "%s: %s", int_cases[c].op, status.message);
        if (!out)
            continue;
        CHECK_EQ_INT(tfpi_tensor_dtype(out), TFPI_INT32);
        const int32_t *y = tfpi_tensor_data(out);
        for (int i = 0; i < 8; i++)
            CHECK_MSG(y[i] == int_cases[c].want[i], "%s(%d, %d) = %d, want %d", int_cases[c].op, int_a[i],
                      int_b[i], y[i], int_cases[c].want[i]);
        tfpi_tensor_free(out);
    }
}

static void test_pow_and_int64(void)
{
    tfpi_status status;
    /* np.power(np.int32([3,-2,2,0,7]), np.int32([4,3,31,0,12])) */
    const int32_t base[5] = {3, -2, 2, 0, 7}, exponent[5] = {4, 3, 31, 0, 12};
    const int32_t want_pow[5] = {81, -8, INT32_MIN, 1, 956385313};
    const int64_t five[1] = {5};
    tfpi_tensor *out = run_binary("Pow", TFPI_INT32, five, 1, base, five, 1, exponent, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    for (int i = 0; out && i < 5; i++)
        CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[i], want_pow[i]);
    tfpi_tensor_free(out);

    /* float: np.power(np.float32([2,9,2,-8]), np.float32([10,0.5,-1,3])) */
    const float fbase[4] = {2, 9, 2, -8}, fexp[4] = {10, 0.5f, -1, 3}, fwant[4] = {1024, 3, 0.5f, -512};
    const int64_t four[1] = {4};
    out = run_binary("Pow", TFPI_FLOAT, four, 1, fbase, four, 1, fexp, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    for (int i = 0; out && i < 4; i++)
        CHECK_NEAR(((float *)tfpi_tensor_data(out))[i], fwant[i], 1e-4);
    tfpi_tensor_free(out);

    /* int64 scalar broadcast and wrap-around: (2**63-1) + [1, 2], [-9] // 2 */
    const int64_t big = INT64_MAX, ones[2] = {1, 2}, two[1] = {2};
    out = run_binary("AddV2", TFPI_INT64, NULL, 0, &big, two, 1, ones, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    if (out) {
        CHECK(((int64_t *)tfpi_tensor_data(out))[0] == INT64_MIN);
        CHECK(((int64_t *)tfpi_tensor_data(out))[1] == INT64_MIN + 1);
    }
    tfpi_tensor_free(out);
    const int64_t minus_nine = -9, divisor = 2;
    out = run_binary("FloorDiv", TFPI_INT64, NULL, 0, &minus_nine, NULL, 0, &divisor, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    if (out)
        CHECK_EQ_INT(*(int64_t *)tfpi_tensor_data(out), -5);
    tfpi_tensor_free(out);
}

static void test_float_floor_ops(void)
{
    /* np.floor_divide / np.mod on float32 [7.5,-7.5,7.5,-7.5,0,1] by [2,2,-2,-2,3,0] */
    const float a[6] = {7.5f, -7.5f, 7.5f, -7.5f, 0, 1}, b[6] = {2, 2, -2, -2, 3, 0};
    const float want_div[6] = {3, -4, -4, 3, 0, INFINITY}, want_mod[6] = {1.5f, 0.5f, -0.5f, -1.5f, 0, NAN};
    const int64_t dims[1] = {6};
    tfpi_status status;
    tfpi_tensor *div = run_binary("FloorDiv", TFPI_FLOAT, dims, 1, a, dims, 1, b, &status);
    tfpi_tensor *mod = run_binary("FloorMod", TFPI_FLOAT, dims, 1, a, dims, 1, b, &status);
    CHECK(div && mod);
    for (int i = 0; div && mod && i < 6; i++) {
        CHECK(op_near(((float *)tfpi_tensor_data(div))[i], want_div[i], 1e-6));
        CHECK(op_near(((float *)tfpi_tensor_data(mod))[i], want_mod[i], 1e-6));
    }
    tfpi_tensor_free(div);
    tfpi_tensor_free(mod);
}

static void test_comparisons_and_logic(void)
{
    /* [1, 2, 3] against the scalar 2: numpy's ==, !=, <, <=, >, >= */
    static const struct {
        const char *op;
        uint8_t want[3];
    } cases[] = {
        {"Equal", {0, 1, 0}}, {"NotEqual", {1, 0, 1}}, {"Less", {1, 0, 0}},
        {"LessEqual", {1, 1, 0}}, {"Greater", {0, 0, 1}}, {"GreaterEqual", {0, 1, 1}},
    };
    const float xf[3] = {1, 2, 3}, two_f = 2;
    const int32_t xi[3] = {1, 2, 3}, two_i = 2;
    const int64_t three[1] = {3};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tfpi_status status;
        tfpi_tensor *f = run_binary(cases[c].op, TFPI_FLOAT, three, 1, xf, NULL, 0, &two_f, &status);
        tfpi_tensor *i = run_binary(cases[c].op, TFPI_INT32, three, 1, xi, NULL, 0, &two_i, &status);
        CHECK_MSG(f && i, "%s: %s", cases[c].op, status.message);
        if (f && i) {
            CHECK_EQ_INT(tfpi_tensor_dtype(f), TFPI_BOOL);
            CHECK(memcmp(tfpi_tensor_data(f), cases[c].want, 3) == 0);
            CHECK(memcmp(tfpi_tensor_data(i), cases[c].want, 3) == 0);
        }
        tfpi_tensor_free(f);
        tfpi_tensor_free(i);
    }
    /* [F,F,T,T] op [F,T,F,T]; LogicalNot [F,T,F,T] */
    const uint8_t p[4] = {0, 0, 1, 1}, q[4] = {0, 1, 0, 1};
    const uint8_t want_and[4] = {0, 0, 0, 1}, want_or[4] = {0, 1, 1, 1}, want_not[4] = {1, 0, 1, 0};
    const int64_t four[1] = {4};
    tfpi_status status;
    tfpi_tensor *and_ = run_binary("LogicalAnd", TFPI_BOOL, four, 1, p, four, 1, q, &status);
    tfpi_tensor *or_ = run_binary("LogicalOr", TFPI_BOOL, four, 1, p, four, 1, q, &status);
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_BOOL, four, 1);
    gb_node(g, "LogicalNot", "out", "a", NULL);
    tfpi_tensor *in = op_tensor(TFPI_BOOL, four, 1, q);
    tfpi_tensor *not_ = op_run(g, 1, &in, 1, &status);
    CHECK(and_ && or_ && not_);
    if (and_ && or_ && not_) {
        CHECK(memcmp(tfpi_tensor_data(and_), want_and, 4) == 0);
        CHECK(memcmp(tfpi_tensor_data(or_), want_or, 4) == 0);
        CHECK(memcmp(tfpi_tensor_data(not_), want_not, 4) == 0);
    }
    tfpi_tensor_free(and_);
    tfpi_tensor_free(or_);
    tfpi_tensor_free(not_);
    tfpi_tensor_free(in);
}

/* Constant operands fold while planning; the result must be the same. */
static void test_folded_shape_math(void)
{
    const int64_t two[1] = {2};
    const int32_t hw[2] = {224, 224}, half[1] = {2};
    gb_graph *g = gb_new();
    gb_const(g, "hw", TFPI_INT32, two, 1, hw);
    gb_const(g, "half", TFPI_INT32, NULL, 0, half);
    gb_node(g, "FloorDiv", "out", "hw", "half", NULL);
    tfpi_status status;
    tfpi_tensor *out = op_run(g, 0, NULL, 1, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    if (out) {
        CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[0], 112);
        CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[1], 112);
    }
    tfpi_tensor_free(out);
}

static void test_binary_errors(void)
{
    tfpi_status status;
    const int64_t a_dims[2] = {2, 3}, b_dims[1] = {4};
    const float zeros[6] = {0};
    tfpi_tensor *out = run_binary("Add", TFPI_FLOAT, a_dims, 2, zeros, b_dims, 1, zeros, &status);
    op_expect_error(out, &status, (const char *[]){"[2,3]", "[4]", "broadcast"}, 3);

    const int32_t num[2] = {4, 5}, den[2] = {1, 0};
    const int64_t two[1] = {2};
    out = run_binary("FloorDiv", TFPI_INT32, two, 1, num, two, 1, den, &status);
    op_expect_error(out, &status, (const char *[]){"division by zero"}, 1);

    const int32_t negative[2] = {2, -1};
    out = run_binary("Pow", TFPI_INT32, two, 1, num, two, 1, negative, &status);
    op_expect_error(out, &status, (const char *[]){"negative"}, 1);

    /* operands of different types */
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, two, 1, zeros);
    gb_const(g, "y", TFPI_INT32, two, 1, num);
    gb_node(g, "Mul", "out", "x", "y", NULL);
    out = op_run(g, 0, NULL, 1, &status);
    op_expect_error(out, &status, (const char *[]){"float", "int32"}, 2);
}

/* ---- Select ------------------------------------------------------------------ */

static tfpi_tensor *run_select(const char *op, const int64_t *cond_dims, int cond_ndims, const uint8_t *cond,
                               tfpi_dtype dtype, const int64_t *then_dims, int then_ndims, const void *then,
                               const int64_t *else_dims, int else_ndims, const void *other, tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_BOOL, cond_dims, cond_ndims);
    gb_placeholder(g, "b", dtype, then_dims, then_ndims);
    gb_placeholder(g, "c", dtype, else_dims, else_ndims);
    gb_node(g, op, "out", "a", "b", "c", NULL);
    tfpi_tensor *feeds[3] = {op_tensor(TFPI_BOOL, cond_dims, cond_ndims, cond),
                             op_tensor(dtype, then_dims, then_ndims, then),
                             op_tensor(dtype, else_dims, else_ndims, other)};
    tfpi_tensor *out = op_run(g, 3, feeds, 1, status);
    for (int i = 0; i < 3; i++)
        tfpi_tensor_free(feeds[i]);
    return out;
}

static void test_select(void)
{
    tfpi_status status;
    /* SelectV2, np.where([[T], [F]], [[1,2,3],[4,5,6]], -1) = [[1,2,3],[-1,-1,-1]] */
    const uint8_t column[2] = {1, 0};
    const float then[6] = {1, 2, 3, 4, 5, 6}, minus_one = -1, want_v2[6] = {1, 2, 3, -1, -1, -1};
    const int64_t col_dims[2] = {2, 1}, mat_dims[2] = {2, 3};
    tfpi_tensor *out = run_select("SelectV2", col_dims, 2, column, TFPI_FLOAT, mat_dims, 2, then, NULL, 0,
                                  &minus_one, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    CHECK(out && tfpi_tensor_num_elements(out) == 6 && memcmp(tfpi_tensor_data(out), want_v2, 24) == 0);
    tfpi_tensor_free(out);

    /* Select with a row vector: rows of else, then, else */
    const uint8_t rows[3] = {0, 1, 0};
    const int32_t t32[6] = {1, 2, 3, 4, 5, 6}, e32[6] = {-1, -2, -3, -4, -5, -6};
    const int32_t want_rows[6] = {-1, -2, 3, 4, -5, -6};
    const int64_t three[1] = {3}, rows_dims[2] = {3, 2};
    out = run_select("Select", three, 1, rows, TFPI_INT32, rows_dims, 2, t32, rows_dims, 2, e32, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    CHECK(out && memcmp(tfpi_tensor_data(out), want_rows, sizeof want_rows) == 0);
    tfpi_tensor_free(out);

    /* Select elementwise, int64 */
    const uint8_t mask[3] = {1, 0, 1};
    const int64_t t64[3] = {10, 20, 30}, e64[3] = {-10, -20, -30}, want64[3] = {10, -20, 30};
    out = run_select("Select", three, 1, mask, TFPI_INT64, three, 1, t64, three, 1, e64, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    CHECK(out && memcmp(tfpi_tensor_data(out), want64, sizeof want64) == 0);
    tfpi_tensor_free(out);

    /* Select (v1) does not broadcast a [3] condition over [3,2] columns */
    out = run_select("Select", three, 1, rows, TFPI_INT32, rows_dims, 2, t32, three, 1, e32, &status);
    op_expect_error(out, &status, (const char *[]){"[3]", "[3,2]"}, 2);
}

int main(void)
{
    RUN(test_broadcast_float_ops);
    RUN(test_int32_semantics);
    RUN(test_pow_and_int64);
    RUN(test_float_floor_ops);
    RUN(test_comparisons_and_logic);
    RUN(test_folded_shape_math);
    RUN(test_binary_errors);
    RUN(test_select);
    return check_summary();
}
